public import Knapsack

/// Holds a ``Beta``.
public final class Alpha: Sendable {
  let beta: Beta

  public init(beta: Beta) { self.beta = beta }
}

/// Holds an ``Alpha``.
public final class Beta: Sendable {
  let alpha: Alpha

  public init(alpha: Alpha) { self.alpha = alpha }
}

extension Dependencies {
  /// Provided by the app, whose factory resolves `\.beta`.
  public var alpha: Key<Alpha> { .required() }

  /// Resolves `\.alpha`: with the app's registration, the two form a cycle across two modules.
  public var beta: Key<Beta> { Key { r in Beta(alpha: try r[\.alpha]) } }
}
