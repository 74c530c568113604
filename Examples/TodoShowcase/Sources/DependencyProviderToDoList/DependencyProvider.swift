/// The hand-rolled service-locator style many apps start with: screens ask one object for
/// whatever they need by type.
///
/// The seed app's protocol is `func resolve<T>() throws -> T`. Here `T` is `Sendable`, because
/// the provider is shared across tasks and Knapsack's type-based `resolve` (rightly) only hands
/// out `Sendable` values in Swift 6.
public protocol DependencyProvider: Sendable {
  func resolve<T: Sendable>() throws -> T
}
