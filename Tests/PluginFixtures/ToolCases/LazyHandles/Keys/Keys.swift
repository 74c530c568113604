import Knapsack

public protocol Analytics: Sendable {}
public final class Session: Sendable { public init() {} }

public final class Reporter: Sendable {
  let analytics: Lazy<Key<any Analytics>>
  let session: Lazy<Key<Session>>
  public init(analytics: Lazy<Key<any Analytics>>, session: Lazy<Key<Session>>) {
    self.analytics = analytics
    self.session = session
  }
}

public final class Node: Sendable {
  let next: Provider<Key<Node>>?
  public init(next: Provider<Key<Node>>?) { self.next = next }
}

extension Dependencies {
  public var session: Key<Session> { Key { Session() } }
  // A `Lazy` of a type nobody registers: an error at the handle, as validate() reports it.
  // A `Lazy` of a unique key kept by a singleton keeps the first value it reads: a captive
  // dependency, as `validate()` reports it.
  public var reporter: Key<Reporter> {
    Key { r in
      Reporter(analytics: r.lazy(type: (any Analytics).self), session: r.lazy(\.session))
    }
    .scope(.singleton)
  }
  // Two keys that reach each other through a `Provider`: no cycle, each resolves later.
  public var head: Key<Node> { Key { r in Node(next: r.provider(\.tail)) } }
  public var tail: Key<Node> { Key { r in Node(next: r.provider(\.head)) } }
}
