import Keys
import Knapsack

let container = Container()
container.register(type: Int.self, name: "port") { 8080 }
container.register(type: String.self) { r in
  let port = r.provider(type: Int.self, name: "port")
  let host = r.lazy(type: String.self, name: "host")
  return "\(try host.value):\(try port.get())"
}
