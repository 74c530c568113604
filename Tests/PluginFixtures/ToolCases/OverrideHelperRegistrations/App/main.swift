import Keys
import Knapsack

extension Container {
  func mock<V: Sendable>(_ key: KeyPath<Dependencies, Key<V>>, _ make: @escaping @Sendable () -> V) {
    register(key) { make() }
  }
}

/// A debug screen's preview, with a mock API: the app itself never registers one.
func preview() {
  withOverrides {
    $0.mock(\.api) { MockAPI() }
  } operation: {
    print("preview")
  }
}
