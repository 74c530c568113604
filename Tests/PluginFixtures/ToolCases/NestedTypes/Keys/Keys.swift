import Knapsack

public enum API {}
extension API {
  public final class Session: Sendable { public init() {} }
  public final class Client: Sendable { public init(_ s: Session) {} }

  public static func register(in container: Container) {
    container.register(type: Session.self, scope: .singleton) { Session() }
  }
}

extension Dependencies {
  public var client: Key<API.Client> { Key { r in API.Client(try r.resolve(type: API.Session.self)) } }
}
