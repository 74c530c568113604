public import Knapsack

/// A clock a greeter reads.
public final class Clock: Sendable {
  public init() {}
}

/// Greets with the time.
public final class Greeter: Sendable {
  let clock: Clock

  public init(clock: Clock) { self.clock = clock }
}

extension Dependencies {
  /// Required, and the app forgets to register it.
  public var clock: Key<Clock> { .required() }

  /// Resolves the clock.
  public var greeter: Key<Greeter> { Key { r in Greeter(clock: try r[\.clock]) } }
}
