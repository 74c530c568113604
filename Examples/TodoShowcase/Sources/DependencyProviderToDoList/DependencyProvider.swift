/// The hand-rolled service-locator style many apps start with: screens ask one object for
/// whatever they need by type.
///
/// This is the seed app's protocol, unchanged: a Knapsack `Container` satisfies it with nothing
/// but a conformance (see `KnapsackDependencyProvider.swift`).
// showcase:begin The seed app's provider protocol, unchanged
public protocol DependencyProvider {
  func resolve<T>() throws -> T
}
// showcase:end
