import Knapsack

let container = Container()
// An alias registered at the composition root, with `return` and the resolve call.
container.register(\.registeredAlias) { r in
  try r.resolve(\.store)
}
