import Knapsack

public protocol Store: Sendable {}

public protocol Logger: Sendable {}

public struct Repo: Sendable {
  public let store: any Store
  public let count: Int
  public let tags: [String]
  public let limit: Int?
  public let headers: [String: String]
}

extension Dependencies {
  public var repo: Key<Repo> {
    Key { r in
      Repo(
        store: try r.resolve(type: (any Store).self), count: try r.resolve(type: Int.self),
        tags: try r.resolve(type: [String].self), limit: try r.resolve(type: Int?.self),
        headers: try r.resolve(type: [String: String].self))
    }
  }

  /// The only error of the case, with the type as written.
  public var logger: Key<any Logger> { Key { r in try r.resolve(type: (any Logger).self, name: "audit") } }
}
