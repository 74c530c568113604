import Dispatch
import Synchronization

/// Runs blocking work (storage: `flock`, `fsync`, SQLite) on threads of its own, not on Swift
/// concurrency's cooperative pool, which has one thread per core: a request waiting for a file
/// lock held by another process then stalls only itself, not every other request, static files
/// included.
///
/// It takes at most ``limit`` calls at once, queued and running together: under a flood of
/// requests (or while another process holds the store's lock) the next call is refused with
/// ``Busy`` (a 503 with `Retry-After`) instead of piling up threads and memory without bound.
/// One instance per ``ShowcaseServer``, so each server (and each test) has its own count.
///
/// The storage protocols stay synchronous; only the routes' calls into them move here.
final class BlockingWork: Sendable {
  /// How many calls may be queued or running at once unless `serve --max-storage-calls` says
  /// otherwise.
  static let defaultLimit = 64

  /// The seconds a refused client is told to wait (`Retry-After`).
  static let retryAfterSeconds = 1

  /// What a refused request is told, as a JSON error or on an error page.
  static var busyMessage: String {
    "The server is busy: too many requests are waiting for the storage. "
      + "Try again in \(retryAfterSeconds) second\(retryAfterSeconds == 1 ? "" : "s")."
  }

  /// The most calls queued or running at once.
  let limit: Int

  /// A concurrent queue: Dispatch adds threads while work blocks (at most ``limit`` of them
  /// are ever busy with this server's calls).
  private let queue = DispatchQueue(
    label: "todo-showcase.blocking-storage", qos: .userInitiated, attributes: .concurrent)

  /// The calls queued or running now.
  private let pending = Mutex(0)

  /// Thrown instead of running a call when ``limit`` calls are already queued or running.
  struct Busy: Error, CustomStringConvertible {
    let limit: Int

    var description: String { "\(limit) storage calls are already queued or running" }
  }

  /// A queue that takes at most `limit` calls at once (at least one).
  init(limit: Int = defaultLimit) {
    self.limit = max(1, limit)
  }

  /// The calls queued or running now.
  var pendingCount: Int {
    pending.withLock { $0 }
  }

  /// `work`'s result, computed on the blocking queue while the calling task is suspended; throws
  /// ``Busy`` without running it when ``limit`` calls are already queued or running.
  func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    let admitted = pending.withLock { count in
      guard count < limit else { return false }
      count += 1
      return true
    }
    guard admitted else { throw Busy(limit: limit) }
    return try await perform(work)
  }

  /// `work`'s result, computed on the blocking queue even when ``limit`` calls are already
  /// queued or running: for the later pages of a response already being sent (the whole list,
  /// streamed), which a refusal would cut off halfway. Each connection has at most one such
  /// call at a time, so the calls in flight stay under ``limit`` plus the open connections.
  func continuing<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    pending.withLock { $0 += 1 }
    return try await perform(work)
  }

  /// Runs `work` on the queue for a call already counted in `pending`, and uncounts it once done
  /// (before the caller resumes, so a caller that has its answer sees the place free again).
  private func perform<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
      queue.async {
        let result = Result { try work() }
        self.pending.withLock { $0 -= 1 }
        continuation.resume(with: result)
      }
    }
  }
}
