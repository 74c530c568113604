import Knapsack

final class Sink: Sendable {}

final class Hub: Sendable {
  let sinks: [Sink]
  init(_ sinks: [Sink]) { self.sinks = sinks }
}

extension Dependencies {
  var sinks: Multibinding<Sink> { Multibinding() }
  var hub: Key<Hub> { Key { r in Hub(try r[\.sinks]) }.scope(.singleton) }
}

struct SinkAssembly: Assembly {
  func assemble(into container: Container) {
    container.contribute(to: \.sinks) { Sink() }
  }
}
