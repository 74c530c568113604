// The services every contender builds. They are the same classes for everyone, so a difference in
// cost is the container's.

/// S1, S6, S7: a protocol-typed service.
protocol Service: AnyObject, Sendable {
  var id: Int { get }
}

final class LiveService: Service {
  let id = 1
}

/// S6: the value a test puts in place of ``LiveService``.
final class FakeService: Service {
  let id = 2
}

/// S2: `ViewModel ← Repository ← (NetworkClient, Cache) ← Logger`.
final class Logger: Sendable {}

final class NetworkClient: Sendable {
  let logger: Logger
  init(logger: Logger) { self.logger = logger }
}

final class Cache: Sendable {
  let logger: Logger
  init(logger: Logger) { self.logger = logger }
}

final class Repository: Sendable {
  let network: NetworkClient
  let cache: Cache
  init(network: NetworkClient, cache: Cache) {
    self.network = network
    self.cache = cache
  }
}

final class ViewModel: Sendable {
  let repository: Repository
  init(repository: Repository) { self.repository = repository }
}

/// S3, S5: a singleton created once.
final class AppState: Sendable {
  let launched = 0
}

/// S7: a service nobody registers.
final class Unregistered: Sendable {}
