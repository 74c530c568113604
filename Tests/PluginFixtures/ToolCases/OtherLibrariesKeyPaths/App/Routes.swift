/// A router of another library's kind, in a file that does not import Knapsack: its `register`
/// takes a path, not a key path, and is not Knapsack's.
final class Router {
  func register(_ path: String, _ handler: @escaping (String) -> String) {}
}

func addRoutes(to router: Router) {
  router.register("/items") { request in request }
}
