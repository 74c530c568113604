extension Dependencies {
  public var screen: Key<TodoScreen> { Key { TodoScreen() } }
}
