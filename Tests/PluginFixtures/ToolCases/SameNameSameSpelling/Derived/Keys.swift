import Base
import Knapsack

/// A `Config` of this module's own: `Key<Config>` here is written like Base's, but it is another
/// type, so neither key shadows the other.
public struct Config: Sendable { public init() {} }

extension Dependencies {
  public var settings: Key<Config> { .required() }
}
