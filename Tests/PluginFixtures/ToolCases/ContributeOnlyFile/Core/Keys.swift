import Knapsack

extension Dependencies {
  public var sinks: Multibinding<String> { Multibinding() }
  public var audit: Key<String> { Key { r in try r[\.sinks].joined() } }
}
