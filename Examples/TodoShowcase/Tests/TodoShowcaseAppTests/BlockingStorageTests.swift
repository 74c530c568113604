import DIShowcase
import Dispatch
import Foundation
import HummingbirdTesting
import Synchronization
import Testing

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
