import Knapsack

public protocol LocalStorage: Sendable {}
public protocol Clock: Sendable {}

extension Dependencies {
  /// Required, and resolved only by `TodoScreen`'s `@Injected` property: still an error at the
  /// key's declaration, as every required key without a registration.
  public var storage: Key<any LocalStorage> { .required() }
}
