import Knapsack

extension Dependencies {
  public var sessionID: Key<String> { .required() }
}
