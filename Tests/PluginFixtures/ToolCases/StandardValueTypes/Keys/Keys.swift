import Foundation
import Knapsack

public final class APIClient: Sendable { public init(_ url: URL, _ name: String, _ retries: Int) {} }
public final class Session: Sendable { public init() {} }
public final class SessionCache: Sendable { public init(_ sessions: [Session?]) {} }

extension Dependencies {
  public var baseURL: Key<URL> { Key { URL(string: "https://example.com")! } }
  public var appName: Key<String> { Key { "Todo" } }
  public var retries: Key<Int> { Key { 3 } }
  public var api: Key<APIClient> {
    Key { r in APIClient(try r[\.baseURL], try r[\.appName], try r[\.retries]) }.scope(.singleton)
  }
  /// An array of optionals is a value; the unique session it holds is captive.
  public var session: Key<Session> { Key { Session() } }
  public var sessions: Key<[Session?]> { Key { r in [try r[\.session]] } }
  public var sessionCache: Key<SessionCache> { Key { r in SessionCache(try r[\.sessions]) }.scope(.singleton) }
}
