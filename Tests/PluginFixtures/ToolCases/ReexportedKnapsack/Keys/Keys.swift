/// Sees Knapsack through the module's `@_exported import`.
extension Dependencies {
  public var token: Key<String> { .required() }
}
