import Knapsack

public protocol AppClock: Sendable {}
public struct SystemClock: AppClock { public init() {} }

/// The app's own names for key types.
public typealias ClockKey = Key<any AppClock>
public typealias Service<T: Sendable> = Key<T>

extension Dependencies {
  // Required through an alias, and never registered: an error.
  public var clock: ClockKey { .required() }
  // Required through a generic alias, registered: nothing to say.
  public var backupClock: Service<any AppClock> { .required() }
  // Defaults through an alias that resolve each other: a cycle.
  public var first: Service<Int> { Key { r in try r[\.second] } }
  public var second: Service<Int> { Key { r in try r[\.first] } }
}
