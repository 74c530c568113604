import Keys
import Knapsack

let container = Container()
container.contribute(to: \.sinks, scope: .singleton) { _ in ConsoleSink() }
// A unique contribution, kept by the singleton hub.
container.contribute(to: \.sinks) { _ in ConsoleSink() }
// A contribution that needs a type nobody registers.
container.contribute(to: \.sinks, scope: .singleton) { r in
  _ = try r.resolve(type: AuditTrail.self)
  return ConsoleSink()
}
// A contribution that asks for what asks for its multibinding: a cycle.
container.contribute(to: \.loopingSinks) { r in
  _ = try r[\.loopingHub]
  return ConsoleSink()
}
