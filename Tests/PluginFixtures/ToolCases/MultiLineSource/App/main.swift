import Keys
import Knapsack

let container = Container()
container.register(
  \.api,
  Factories
    .api
)
container.register(type: String.self) { r in
  _ = try r.resolve(
    type: Dictionary<
      String, Int
    >.self)
  return ""
}

enum Factories { static func api() -> any API { fatalError() } }
