import Keys
import Knapsack

let container = Container()
container.register(\.session) { Session() }
container.register(type: Int.self, name: "port") { 8080 }

/// A debug screen's preview, with a mock API: the app itself never registers one.
func preview() {
  withOverrides {
    $0.register(\.api) { MockAPI() }
    $0.register(\.session) { Session() }
    $0.register(type: String.self, name: "host") { "localhost" }
  } operation: {
    container.register(\.clock) { 0 }
  }
  withOverrides({ overrides in overrides.register(\.token) { "t" } }) {
    print("preview")
  }
}

container.register(type: Double.self) { r in
  Double(try r.resolve(type: Int.self, name: "port")) + Double(try r.resolve(type: String.self, name: "host").count)
}
