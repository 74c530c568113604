import Dispatch

/// Runs blocking work (storage: `flock`, `fsync`, SQLite) on threads of its own, not on Swift
/// concurrency's cooperative pool, which has one thread per core: a request waiting for a file
/// lock held by another process then stalls only itself, not every other request, static files
/// included.
///
/// The storage protocols stay synchronous; only the routes' calls into them move here.
enum BlockingWork {
  /// A concurrent queue: Dispatch adds threads while work blocks.
  private static let queue = DispatchQueue(
    label: "todo-showcase.blocking-storage", qos: .userInitiated, attributes: .concurrent)

  /// `work`'s result, computed on the blocking queue while the calling task is suspended.
  static func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
      queue.async {
        continuation.resume(with: Result { try work() })
      }
    }
  }
}
