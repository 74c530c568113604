public import Common
public import Knapsack

extension Dependencies {
  /// Where the to-do list is kept. Required: the app provides it (see ``TodoListAssembly``).
  public var todoStorage: Key<any LocalStorage> { .required() }

  /// The list's items, read anew each time.
  public var todoItems: Key<[String]> {
    Key { r in try r[\.todoStorage].load() }
  }
}
