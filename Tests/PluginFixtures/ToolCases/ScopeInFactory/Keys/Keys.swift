import Knapsack

public final class Session: Sendable {
  public init() {}
}

public enum SpanKind: Sendable {
  case request
}

public final class Span: Sendable {
  public init() {}
  public func scope(_ kind: SpanKind) -> Span { self }
}

public final class Cache: Sendable {
  public init(_ session: Session, _ span: Span) {}
}

extension Dependencies {
  public var session: Key<Session> { Key { Session() } }

  /// A singleton: the `.scope(.request)` inside the factory is the span's, not the key's.
  public var cache: Key<Cache> { Key { r in Cache(try r[\.session], Span().scope(.request)) }.scope(.singleton) }
}
