import DIShowcase
import Dispatch
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import TodoShowcaseApp

@Suite("Storage call limit")
struct StorageQueueLimitTests {
  @Test(
    "With as many storage calls waiting as the server takes, a request gets 503 with Retry-After; once they end, requests pass again",
    .timeLimit(.minutes(2)))
  func fullQueueIsRefusedThenDrains() async throws {
    let storage = GatedStorage()
    let server = ShowcaseServer(storage: storage, storageLabel: "test", maximumStorageCalls: 2)
    try await Application(router: server.makeRouter()).test(.router) { client in
      try await withThrowingTaskGroup(of: Reply.self) { group in
        group.addTask { try await client.send(.get, "/api/todos") }
        group.addTask { try await client.send(.get, "/?tab=knapsack") }
        await storage.waitForArrivals(2)
        #expect(server.blockingWork.pendingCount == 2)

        // Every API operation, as the OpenAPI document says: 503, a JSON error, Retry-After.
        let document = try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.text.utf8)) as? [String: Any]
        let paths = try #require(document?["paths"] as? [String: [String: Any]])
        for operation in OpenAPIConformanceTests.operations {
          let uri = operation.template.replacingOccurrences(of: "{id}", with: UUID().uuidString)
          let json: String? =
            switch operation.method {
            case .post: #"{"title": "refused"}"#
            case .patch: #"{"done": true}"#
            default: nil
            }
          let reply = try await client.send(operation.method, uri, json: json)
          #expect(reply.status == .serviceUnavailable, "\(operation.testDescription)")
          #expect(reply.headers[.retryAfter] == "\(BlockingWork.retryAfterSeconds)", "\(operation.testDescription)")
          #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
          #expect(reply.errorMessage == BlockingWork.busyMessage, "\(operation.testDescription)")
          let entry = try #require(paths[operation.template]?[operation.method.rawValue.lowercased()] as? [String: Any])
          #expect((entry["responses"] as? [String: Any])?["503"] != nil, "\(operation.testDescription)")
        }
        // The pages and forms: an error page.
        for (method, uri, form) in [
          (HTTPRequest.Method.get, "/?tab=manual", nil), (.get, "/styles/swinject", nil),
          (.post, "/styles/manual/todos", "title=refused&return=%2Fstyles%2Fmanual"),
        ] {
          let reply = try await client.send(method, uri, form: form)
          #expect(reply.status == .serviceUnavailable, "\(uri)")
          #expect(reply.headers[.retryAfter] == "\(BlockingWork.retryAfterSeconds)", "\(uri)")
          #expect(reply.headers[.contentType]?.hasPrefix("text/html") == true, "\(uri)")
          #expect(reply.text.contains("Server busy"), "\(uri)")
          #expect(reply.text.contains(HTML.escape(BlockingWork.busyMessage)), "\(uri)")
        }
        // What needs no storage is still served.
        #expect(try await client.send(.get, "/static/app.css").status == .ok)
        // No refused call reached the storage or took a place.
        #expect(server.blockingWork.pendingCount == 2)

        storage.open()
        for try await reply in group {
          #expect(reply.status == .ok)
        }
      }
      // The places are free again: storage calls are taken, and the refused add was not made.
      #expect(server.blockingWork.pendingCount == 0)
      #expect(try await client.send(.get, "/?tab=manual").status == .ok)
      #expect(try await client.send(.post, "/api/todos", json: #"{"title": "after"}"#).status == .created)
      #expect(try await client.titles() == ["after"])
    }
  }

  @Test("serve takes --max-storage-calls, 64 by default, and refuses 0")
  func option() throws {
    #expect(ShowcaseServer.defaultMaximumStorageCalls == 64)
    let defaults = try #require(try ShowcaseCommand.parseAsRoot([]) as? ShowcaseCommand.Serve)
    #expect(defaults.maxStorageCalls == 64)
    let serve = try #require(try ShowcaseCommand.parseAsRoot(["--max-storage-calls", "8"]) as? ShowcaseCommand.Serve)
    #expect(serve.maxStorageCalls == 8)
    #expect(throws: (any Error).self) { try ShowcaseCommand.parseAsRoot(["--max-storage-calls", "0"]) }
  }
}
