import DIShowcase
import Dispatch
import Foundation
import HummingbirdTesting
import Synchronization
import Testing

/// A storage whose reads and changes wait at a gate until the test opens it (for at most
/// `limit`, so that a broken test ends instead of hanging), like a store whose file lock another
/// process holds. It reports each call as it arrives and counts the calls that got through.
private final class GatedStorage: LocalStorage {
  private let base = InMemoryStorage()
  /// Left once by ``open()``: every call waiting, and every later one, then passes.
  private let latch = DispatchGroup()
  private let limit: DispatchTimeInterval
  private let arrivals: AsyncStream<Void>.Continuation
  private let arrived: AsyncStream<Void>
  private let passedCount = Mutex(0)

  init(limit: DispatchTimeInterval) {
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

@Suite("Blocking storage")
struct BlockingStorageTests {
  @Test("Requests waiting on storage do not stall other requests, static files included")
  func blockedStorageDoesNotStallOthers() async throws {
    // More waiting requests than the cooperative pool has threads (and fewer than the server's
    // storage call limit).
    let waiting = min(ProcessInfo.processInfo.activeProcessorCount * 2 + 2, 40)
    // Were the storage calls run on the cooperative pool, no more than it has threads would
    // arrive until the gate's limit let them through: the test would then end, and fail.
    let storage = GatedStorage(limit: .seconds(10))
    try await withApp(storage: storage) { client in
      try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<waiting {
          group.addTask { _ = try await client.send(.get, "/api/todos") }
        }
        // More of them are waiting on storage at once than the cooperative pool has threads.
        // (Not all: Dispatch adds a thread about once a second while its threads block.)
        await storage.waitForArrivals(ProcessInfo.processInfo.activeProcessorCount + 1)
        let css = try await client.send(.get, "/static/app.css")
        // Answered while every storage call was still held, not after some got through.
        let passedBeforeStylesheet = storage.passed
        storage.open()
        try await group.waitForAll()
        #expect(css.status == .ok)
        #expect(passedBeforeStylesheet == 0, "the stylesheet waited for \(passedBeforeStylesheet) storage calls")
      }
    }
  }
}
