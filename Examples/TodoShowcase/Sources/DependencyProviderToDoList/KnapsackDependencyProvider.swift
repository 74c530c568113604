import Knapsack

/// A ``DependencyProvider`` backed by a Knapsack `Container` with type-based registrations.
///
/// The screen code only sees ``DependencyProvider``; Knapsack supplies the lookup, the scopes
/// and an error that names the missing type instead of a `nil` to force-unwrap.
struct KnapsackDependencyProvider: DependencyProvider {
  let container: Container

  func resolve<T: Sendable>() throws -> T {
    try container.resolve(T.self)
  }
}
