import Knapsack

public final class Clock: Sendable {
  public init() {}
}

public final class Repository: Sendable {
  let clock: Clock
  init(clock: Clock) { self.clock = clock }
}

extension Dependencies {
  public var clock: Key<Clock> { .required() }
  public var repository: Key<Repository> { Key { r in Repository(clock: try r[\.clock]) }.scope(.singleton) }
}
