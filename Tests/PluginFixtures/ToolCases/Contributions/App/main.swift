import Keys
import Knapsack

let container = Container()
container.contribute(to: \.sinks, scope: .singleton) { ConsoleSink() }
// A unique contribution (its factory takes no resolver), kept by the singleton hub.
container.contribute(to: \.sinks) { ConsoleSink() }
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
