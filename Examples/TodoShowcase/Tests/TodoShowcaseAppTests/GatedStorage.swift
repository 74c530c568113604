import DIShowcase
import Dispatch
import Foundation
import Synchronization

/// A storage whose reads and changes wait at a gate until the test opens it (for at most
/// `limit`, so that a broken test ends instead of hanging), like a store whose file lock another
/// process holds. It reports each call as it arrives, so a test knows when the server's storage
/// calls are all taken without guessing how long that takes, and counts the calls that got through.
final class GatedStorage: LocalStorage {
  private let base = InMemoryStorage()
  /// Left once by ``open()``: every call waiting, and every later one, then passes.
  private let latch = DispatchGroup()
  private let limit: DispatchTimeInterval
  private let arrivals: AsyncStream<Void>.Continuation
  private let arrived: AsyncStream<Void>
  private let passedCount = Mutex(0)

  init(limit: DispatchTimeInterval = .seconds(60)) {
    self.limit = limit
    (arrived, arrivals) = AsyncStream.makeStream()
    latch.enter()
  }

  /// Lets every waiting call, and every later one, through.
  func open() {
    latch.leave()
  }

  /// The calls that got through the gate so far.
  var passed: Int {
    passedCount.withLock { $0 }
  }

  /// Waits until `count` calls have arrived at the gate.
  func waitForArrivals(_ count: Int) async {
    var seen = 0
    for await _ in arrived {
      seen += 1
      if seen == count { return }
    }
  }

  private func pass() {
    arrivals.yield()
    _ = latch.wait(timeout: .now() + limit)
    passedCount.withLock { $0 += 1 }
  }

  func save<T: Encodable>(_ value: T, forKey key: String) throws { try base.save(value, forKey: key) }

  func load<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
    pass()
    return try base.load(type, forKey: key)
  }

  func remove(forKey key: String) throws { try base.remove(forKey: key) }

  func modify<T: Codable, Result>(
    _ type: T.Type,
    forKey key: String,
    default defaultValue: T,
    _ body: (inout T) throws -> Result
  ) throws -> Result {
    pass()
    return try base.modify(type, forKey: key, default: defaultValue, body)
  }
}
