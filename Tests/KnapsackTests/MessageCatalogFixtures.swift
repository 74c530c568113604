// The graphs behind the DocC "Diagnostics" article's message catalogue (MessageCatalogTests).
// The messages name lines of this file, so moving a declaration or a registration changes them;
// `KNAPSACK_UPDATE_MESSAGES=1 swift test --filter MessageCatalog` regenerates the article.
import Knapsack

protocol CatalogClock: Sendable {}
struct SystemCatalogClock: CatalogClock {}
protocol CatalogStore: Sendable {}
final class FileCatalogStore: CatalogStore {}
final class CatalogRepository: Sendable {
  init(store: any CatalogStore, clock: any CatalogClock) {}
}
final class CatalogNode: Sendable {
  init(_ next: CatalogNode?) {}
}
final class CatalogSession: Sendable {}
final class CatalogCache: Sendable {
  let session: CatalogSession
  init(session: CatalogSession) { self.session = session }
}
struct CatalogNotConfigured: Error, CustomStringConvertible {
  var description: String { "no data directory configured" }
}

extension Dependencies {
  var catalogClock: Key<any CatalogClock> { .required() }
  var catalogStore: Key<any CatalogStore> { Key { FileCatalogStore() } }
  var catalogRepository: Key<CatalogRepository> {
    Key { r in CatalogRepository(store: try r[\.catalogStore], clock: try r[\.catalogClock]) }
  }
  var catalogLeft: Key<CatalogNode> { Key { r in CatalogNode(try r[\.catalogRight]) } }
  var catalogRight: Key<CatalogNode> { Key { r in CatalogNode(try r[\.catalogLeft]) } }
  var catalogFilePath: Key<String> { .required() }
  var catalogSession: Key<CatalogSession> { .required() }
  var catalogCache: Key<CatalogCache> {
    Key { r in CatalogCache(session: try r[\.catalogSession]) }.scope(.singleton)
  }
  var catalogProfile: ArgumentKey<Int, CatalogSession> { ArgumentKey { _, _ in CatalogSession() } }
  /// Cached per argument, with a tuple for an argument, which cannot be told apart from another.
  var catalogSearch: ArgumentKey<(query: String, page: Int), CatalogSession> {
    ArgumentKey { _, _ in CatalogSession() }.scope(.cached)
  }
}

/// One container per message.
enum Catalog {
  /// `\.catalogRepository` needs `\.catalogClock`, which is registered by type only.
  static func missingKey() -> Container {
    let container = Container()
    container.register(type: (any CatalogClock).self) { SystemCatalogClock() }
    return container
  }

  /// A repository registered by type asks for a store named "archive"; one named "main", and
  /// a key of that type, are registered.
  static func missingType() -> Container {
    let container = Container()
    container.register(type: (any CatalogStore).self, name: "main") { FileCatalogStore() }
    container.register(\.catalogStore) { FileCatalogStore() }
    container.register(type: CatalogRepository.self) { r in
      CatalogRepository(
        store: try r.resolve(type: (any CatalogStore).self, name: "archive"), clock: SystemCatalogClock())
    }
    return container
  }

  /// Two keys that resolve each other.
  static func cycle() -> Container {
    let container = Container()
    container.register(\.catalogLeft) { r in CatalogNode(try r[\.catalogRight]) }
    container.register(\.catalogRight) { r in CatalogNode(try r[\.catalogLeft]) }
    return container
  }

  /// A factory that throws.
  static func failing() -> Container {
    let container = Container()
    container.register(\.catalogFilePath) { throw CatalogNotConfigured() }
    return container
  }

  /// A singleton cache that keeps a session made anew for every use.
  static func captive() -> Container {
    let container = Container()
    container.register(\.catalogSession, scope: .unique) { CatalogSession() }
    container.register(\.catalogCache, scope: .singleton) { r in CatalogCache(session: try r[\.catalogSession]) }
    return container
  }

  /// The app's singleton cache needs a session that only a per-user child container provides.
  static func childCaptive() -> Container {
    let app = Container()
    app.register(\.catalogCache, scope: .singleton) { r in CatalogCache(session: try r[\.catalogSession]) }
    let session = app.makeChild()
    session.register(\.catalogSession, scope: .singleton) { CatalogSession() }
    return session
  }

  /// A chain of `length` type registrations, each resolving the next.
  static func chain(_ length: Int) -> Container {
    let container = Container()
    for step in 0..<length {
      let next = "step \(step + 1)"
      container.register(type: Int.self, name: "step \(step)") { r in
        step == length - 1 ? 0 : try r.resolve(type: Int.self, name: next) + 1
      }
    }
    return container
  }
}
