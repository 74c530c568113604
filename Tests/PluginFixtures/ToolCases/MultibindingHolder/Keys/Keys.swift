import Knapsack

public protocol Sink: Sendable {}
public final class ConsoleSink: Sink { public init() {} }
public final class Hub: Sendable { public init(_ s: [any Sink]) {} }

extension Dependencies {
  public var sinks: Multibinding<any Sink> { Multibinding() }
  public var hub: Key<Hub> { Key { r in Hub(try r[\.sinks]) }.scope(.singleton) }
}
