import DIShowcase
import Dispatch
import Foundation
import HummingbirdTesting
import Testing

/// A storage whose reads wait at a gate (for at most `limit`), like a store whose file lock
/// another process holds.
private struct GatedStorage: LocalStorage {
  let base = InMemoryStorage()
  let gate: DispatchSemaphore
  let limit: DispatchTimeInterval

  private func pass() {
    _ = gate.wait(timeout: .now() + limit)
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
    let gate = DispatchSemaphore(value: 0)
    // More waiting requests than the cooperative pool has threads.
    let waiting = min(ProcessInfo.processInfo.activeProcessorCount * 2 + 2, 40)
    // A stalled stylesheet would wait out the gate; one served apart takes milliseconds, so half
    // the gate's limit tells them apart on a loaded machine too (2 s was missed there by 70 ms).
    let storage = GatedStorage(gate: gate, limit: .seconds(10))
    try await withApp(storage: storage) { client in
      try await withThrowingTaskGroup(of: Void.self) { group in
        let start = ContinuousClock.now
        for _ in 0..<waiting {
          group.addTask { _ = try await client.send(.get, "/api/todos") }
        }
        try await Task.sleep(for: .milliseconds(200))
        let css = try await client.send(.get, "/static/app.css")
        let elapsed = start.duration(to: .now)
        for _ in 0..<waiting { gate.signal() }
        try await group.waitForAll()
        #expect(css.status == .ok)
        #expect(elapsed < .seconds(5), "the stylesheet took \(elapsed) while storage calls waited")
      }
    }
  }
}
