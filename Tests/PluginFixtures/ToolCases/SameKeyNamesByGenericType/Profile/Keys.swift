public import Knapsack

extension Dependencies {
  public var config: Key<String> { .required() }
  public var setting: Key<Int> { .required() }
}
