import Knapsack

public final class A: Sendable {
  init(_ b: B) {}
}

public final class B: Sendable {
  init(_ a: A) {}
}

/// Resolves `\.a`: with `\.a`'s default, a cycle the check cannot see.
func makeB(_ r: Resolver) throws -> B { B(try r[\.a]) }

extension Dependencies {
  public var a: Key<A> { Key { r in A(try r[\.b]) } }
  public var b: Key<B> { Key { r in try makeB(r) } }
  /// A closure inside the factory: its `$0` is not the resolver.
  public var sizes: Key<[Int]> { Key { [1, 2].map { Int($0) } } }
}
