import Knapsack

let container = Container()
// An alias registered at the composition root, with the resolve call.
container.register(\.registeredAlias) { r in
  try r.resolve(\.store)
}
// A type registration that aliases a key, and a singleton that keeps it: nothing captive.
container.register(type: Store.self) { r in try r[\.store] }
container.register(\.typeHolder, scope: .singleton) { r in Holder(try r.resolve(type: Store.self)) }
