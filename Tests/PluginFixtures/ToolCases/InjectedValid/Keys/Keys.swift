import Knapsack

public protocol LocalStorage: Sendable {}
public struct Profile: Sendable { public init(id: Int) {} }
public final class Clock: Sendable { public init() {} }
public final class Logger: Sendable { public init() {} }

extension Dependencies {
  public var storage: Key<any LocalStorage> { .required() }
  public var profile: ArgumentKey<Int, Profile> { ArgumentKey { _, id in Profile(id: id) } }
  public var logger: Key<Logger> { Key { Logger() }.scope(.singleton) }
}
