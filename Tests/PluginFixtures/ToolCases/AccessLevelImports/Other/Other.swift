public import Knapsack

extension Dependencies {
  public var config: Key<Int> { Key { 0 } }
}
