import Knapsack

public enum AuthMode: Sendable {
  case required
  case optional
}

public struct AuthPolicy: Sendable {
  public let mode: AuthMode
}

extension Dependencies {
  /// Has a default that mentions `.required`: not a required key.
  public var authPolicy: Key<AuthPolicy> { Key { AuthPolicy(mode: .required) } }

  /// Required, spelled with the type: the only error of the case.
  public var token: Key<String> { Key.required() }

  /// Required with a scope, in a `get` accessor; the app registers it.
  public var header: Key<String> {
    get { DependencyKey<SyncKind, Void, String>.required().scope(.singleton) }
  }
}
