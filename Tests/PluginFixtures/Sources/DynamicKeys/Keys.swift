public import Knapsack

extension Dependencies {
  /// Registered by a loop over key paths that the static check cannot follow.
  // knapsack-check: runtime-provided
  public var token: Key<String> { .required() }

  /// Resolves the token.
  public var header: Key<String> { Key { r in "Bearer \(try r[\.token])" } }
}
