import Knapsack

public final class A: Sendable { public init(_ b: B? = nil) {} }
public final class B: Sendable { public init(_ a: A) {} }
public final class Token: Sendable { public init() {} }

extension Dependencies {
  #if DEBUG
  public var token: Key<Token> { Key { Token() } }
  #else
  public var token: Key<Token> { .required() }
  #endif

  #if DEBUG
  public var a: Key<A> { Key { A() } }
  #else
  public var a: Key<A> { Key { r in A(try r[\.b]) } }
  #endif
  public var b: Key<B> { Key { r in B(try r[\.a]) } }
}
