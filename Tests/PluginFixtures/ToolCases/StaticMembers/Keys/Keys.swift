import Knapsack

extension Dependencies {
  // Static members of a key type are not keys: no key path of `Dependencies` names them, so
  // nothing can register them.
  static var placeholder: Key<Int> { .required() }
  public static var fallbackLimit: Key<Int> { Key { 10 } }
  // A key: its missing registration is still an error.
  public var limit: Key<Int> { .required() }
}
