import Knapsack
import Profile

/// Sees only Profile's `\.config`.
public func registerFeature(in container: Container) {
  container.register(\.config) { ProfileConfig() }
}
