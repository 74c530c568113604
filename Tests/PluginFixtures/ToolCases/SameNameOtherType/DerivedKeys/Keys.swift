import BaseKeys
import Knapsack

public struct DerivedConfig: Sendable { public init() {} }

/// Same name as BaseKeys' key, another type: Swift keeps both and chooses by the value's type,
/// so neither shadows the other.
extension Dependencies {
  public var settings: Key<DerivedConfig> { .required() }
}
