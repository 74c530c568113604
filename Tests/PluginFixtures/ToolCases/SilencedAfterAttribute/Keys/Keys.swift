import Knapsack

extension Dependencies {
  // The silencing comment between an attribute and the declaration counts as its leading comment.
  @available(*, deprecated, message: "use newToken")
  // knapsack-check: runtime-provided
  public var apiToken: Key<String> { .required() }

  @MainActor @available(*, deprecated)  // knapsack-check: runtime-provided
  public var screenToken: MainActorKey<String> { .required() }

  /// Registered at launch.
  // knapsack-check: runtime-provided
  public var other: Key<String> { .required() }

  @available(*, deprecated)
  public var notSilenced: Key<String> { .required() }
}
