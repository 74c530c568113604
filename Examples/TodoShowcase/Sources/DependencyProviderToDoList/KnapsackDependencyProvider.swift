import Knapsack

// The whole adapter: a Knapsack `Container` already has the provider's shape,
// `func resolve<T>() throws -> T`, so declaring the conformance is enough. The screen code only
// sees ``DependencyProvider``; Knapsack supplies the lookup, the scopes and an error that names
// the missing type instead of a `nil` to force-unwrap.
// showcase:begin The provider is a Knapsack Container: the conformance is the whole adapter
extension Container: DependencyProvider {}
// showcase:end
