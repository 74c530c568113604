public import Knapsack

public func makeContainer() -> Container { Container() }
