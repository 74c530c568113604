import Keys
import Knapsack

let container = Container()
container.register(\.api) { LiveAPI() }
container.register(type: Int.self, name: "secure") { 1 }
container.register(type: Store?.self) { nil }
container.register(type: String.self) { r in
  // A typo in the name: the registration under the right one is named.
  let port = try r.resolve(type: Int.self, name: "secur")
  // A type that a key provides, resolved as a type.
  let api = try r.resolve(type: (any API).self)
  // The optional is registered, not the type.
  let store = try r.resolve(type: Store.self)
  // Nothing of this name anywhere: nothing nearby.
  let host = try r.resolve(type: Double.self)
  return "\(port) \(api) \(store) \(host)"
}
