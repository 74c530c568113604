import Billing
import Knapsack

final class Cache: Sendable {
  init(_ session: Billing.Session) {}
}

// `Billing.Session` is the struct Billing declares: the singleton keeps a copy, not a captive.
extension Dependencies {
  var session: Key<Billing.Session> { Key { Billing.Session() } }
  var cache: Key<Cache> { Key { r in Cache(try r[\.session]) }.scope(.singleton) }
}

let container = Container()
