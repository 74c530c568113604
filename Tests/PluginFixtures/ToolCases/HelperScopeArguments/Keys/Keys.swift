public import Knapsack

public final class Session: Sendable { public init() {} }
public final class Cache: Sendable { public init(_ session: Session) {} }

extension Dependencies {
  public var session: Key<Session> { Key { Session() } }
  public var c1: Key<Cache> { .required() }
  public var c2: Key<Cache> { .required() }
  public var c3: Key<Cache> { .required() }
  public var c4: Key<Cache> { .required() }
  public var c5: Key<Cache> { .required() }
  public var c6: Key<Cache> { .required() }
  public var c7: Key<Cache> { .required() }
}

extension Container {
  public func single<V>(
    _ key: KeyPath<Dependencies, Key<V>>, _ scope: Scope = .singleton,
    _ make: @escaping @Sendable (Resolver) throws -> V
  ) {
    register(key, scope: scope, make)
  }

  public func shared<V>(
    _ key: KeyPath<Dependencies, Key<V>>, scope: Scope = .unique, _ make: @escaping @Sendable (Resolver) throws -> V
  ) {
    register(key, scope: scope, make)
  }
}
