import Knapsack

extension Dependencies {
  // An old declaration, kept for reference:
  // knapsack-check: runtime-provided
  // public var legacyToken: Key<String> { .required() }

  /// The session token: the comment above is not attached to it.
  public var sessionToken: Key<String> { .required() }

  /// Prose that mentions knapsack-check: runtime-provided does not silence a key.
  public var otherToken: Key<String> { .required() }

  /// Registered from the configuration file at launch.
  // knapsack-check: runtime-provided
  public var apiToken: Key<String> { .required() }
}
