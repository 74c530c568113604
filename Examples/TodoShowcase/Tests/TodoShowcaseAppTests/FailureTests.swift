import DIShowcase
import Foundation
import HummingbirdTesting
import Testing

/// A storage whose file went bad after the app started.
private struct BrokenStorage: LocalStorage {
  static let error = StorageError.unreadableFile(path: "/data/todos.json", reason: "not valid <JSON>")

  func save<T: Encodable>(_ value: T, forKey key: String) throws { throw Self.error }
  func load<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? { throw Self.error }
  func remove(forKey key: String) throws { throw Self.error }
  func modify<T: Codable, Result>(
    _ type: T.Type,
    forKey key: String,
    default defaultValue: T,
    _ body: (inout T) throws -> Result
  ) throws -> Result { throw Self.error }
}

@Suite("Failures")
struct FailureTests {
  @Test("A storage failure is a 500 page naming the file, escaped")
  func storageFailurePage() async throws {
    try await withApp(storage: BrokenStorage()) { client in
      for uri in ["/", "/styles/knapsack"] {
        let reply = try await client.send(.get, uri)
        #expect(reply.status == .internalServerError)
        #expect(reply.text.contains("/data/todos.json is not a readable TodoShowcase store (not valid &lt;JSON&gt;)"))
      }
      let add = try await client.send(.post, "/styles/manual/todos", form: "title=x")
      #expect(add.status == .internalServerError)
    }
  }

  @Test("A storage failure is a 500 JSON error in the API")
  func storageFailureAPI() async throws {
    try await withApp(storage: BrokenStorage()) { client in
      let reply = try await client.send(.post, "/api/todos", json: #"{"title": "x"}"#)
      #expect(reply.status == .internalServerError)
      #expect(reply.errorMessage?.contains("/data/todos.json") == true)
    }
  }

  @Test("A body over 64 KiB gets a 413 JSON error and stores nothing")
  func oversizedBody() async throws {
    try await withApp { client in
      let title = String(repeating: "x", count: 70_000)
      let reply = try await client.send(.post, "/api/todos", json: #"{"title": "\#(title)"}"#)
      #expect(reply.status == .contentTooLarge)
      #expect(reply.errorMessage == "The body is larger than 64 KiB.")
      let titles = try await client.titles()
      #expect(titles.isEmpty)
    }
  }

  @Test("A malformed item id in a form is a 404 page that quotes it as sent")
  func malformedFormID() async throws {
    try await withApp { client in
      let reply = try await client.send(.post, "/styles/manual/todos/%3Cx%3E/toggle", form: "return=%2F")
      #expect(reply.status == .notFound)
      #expect(reply.text.contains("No to-do item has the id %3Cx%3E."))
      #expect(!reply.text.contains("<x>"))
    }
  }
}
