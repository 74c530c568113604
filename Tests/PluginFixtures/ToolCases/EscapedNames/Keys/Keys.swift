import Knapsack

extension Dependencies {
  public var `default`: Key<Int> { .required() }
  public var `class`: Key<Int> { Key { r in try r[\.default] } }
  public var `api token`: Key<String> { .required() }
}
