import Knapsack

public protocol Sink: Sendable {}
public final class ConsoleSink: Sink {
  public init() {}
}
public final class Hub: Sendable {
  public init(_ sinks: [any Sink]) {}
}
public final class AuditTrail: Sendable {
  public init() {}
}

extension Dependencies {
  public var sinks: Multibinding<any Sink> { Multibinding() }
  /// Keeps every contribution: a unique one is captive.
  public var hub: Key<Hub> { Key { r in Hub(try r[\.sinks]) }.scope(.singleton) }
  public var loopingSinks: Multibinding<any Sink> { Multibinding() }
  public var loopingHub: Key<Hub> { Key { r in Hub(try r[\.loopingSinks]) } }
}
