import Knapsack

public final class Inbox: Sendable {
  public init(notifier: Notifier) {}
}

public final class Notifier: Sendable {
  let inbox: Lazy<ArgumentKey<Int, Inbox>>
  public init(inbox: Lazy<ArgumentKey<Int, Inbox>>) { self.inbox = inbox }
}

public final class Profile: Sendable { public init(id: Int) {} }

/// Property wrappers with an argument resolve nothing a factory makes: no edge, no finding.
@MainActor
public final class Screen {
  @Injected(\.profile, argument: 1) var profile: Profile
  @LazyInjected(\.profile, argument: 2) var later: Profile
  public init() {}
}

/// A `Lazy` with an argument is a deferred edge, as one without: `\.inbox` and `\.notifier`
/// form no cycle, but the singleton that keeps the handle keeps the unique instance it reads
/// first (a captive dependency, as `validate()` reports it). Its argument is resolved when the
/// handle is made: `\.holder` and `\.count` form the case's one cycle.
extension Dependencies {
  public var inbox: ArgumentKey<Int, Inbox> { ArgumentKey { r, _ in Inbox(notifier: try r[\.notifier]) } }
  public var notifier: Key<Notifier> { Key { r in Notifier(inbox: r.lazy(\.inbox, argument: 3)) }.scope(.singleton) }
  public var profile: ArgumentKey<Int, Profile> { ArgumentKey { _, id in Profile(id: id) } }
  public var holder: Key<Notifier> {
    Key { r in Notifier(inbox: r.lazy(\.inbox, argument: try r.resolve(\.count))) }.scope(.singleton)
  }
  public var count: Key<Int> {
    Key { r in
      _ = try r[\.holder]
      return 0
    }
  }
}
