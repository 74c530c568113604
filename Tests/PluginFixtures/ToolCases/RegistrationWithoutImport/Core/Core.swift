import Knapsack

extension Dependencies {
  public var apiToken: Key<String> { .required() }
}

public func makeAppContainer() -> Container { Container() }
