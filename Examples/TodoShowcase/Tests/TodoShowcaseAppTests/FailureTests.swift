import DIShowcase
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import TodoShowcaseApp

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
  /// Runs `test` on an app over ``BrokenStorage`` whose log goes to `sink`.
  private func withBrokenApp(
    logTo sink: LogLines, _ test: @Sendable (any TestClientProtocol) async throws -> Void
  ) async throws {
    let server = ShowcaseServer(storage: BrokenStorage(), storageLabel: "test")
    let logger = Logger(label: "test") { _ in sink.handler }
    try await Application(router: server.makeRouter(), logger: logger).test(.router, test)
  }

  /// The error lines logged for the request `id`.
  private func failureLines(_ sink: LogLines, id: String) -> [LogLines.Line] {
    sink.lines.withLock { $0 }.filter { $0.message == "internal failure" && $0.metadata["hb.request.id"] == id }
  }

  @Test("A storage failure is a 500 page with the request id; the path and reason go only to the log")
  func storageFailurePage() async throws {
    let sink = LogLines()
    try await withBrokenApp(logTo: sink) { client in
      for uri in ["/", "/styles/knapsack"] {
        let reply = try await client.send(.get, uri)
        #expect(reply.status == .internalServerError)
        #expect(!reply.text.contains("/data/todos.json"))
        #expect(!reply.text.contains("not valid"))
        let id = try #require(reply.headers[HTTPField.Name("X-Request-Id")!])
        #expect(reply.text.contains("request id \(id)"))
        let line = try #require(failureLines(sink, id: id).first)
        #expect(line.level == .error)
        #expect(line.metadata["error"]?.contains("/data/todos.json") == true)
      }
      let add = try await client.send(.post, "/styles/manual/todos", form: "title=x")
      #expect(add.status == .internalServerError)
      #expect(!add.text.contains("/data/todos.json"))
    }
  }

  @Test("A storage failure is a 500 JSON error with the request id; the path goes only to the log")
  func storageFailureAPI() async throws {
    let sink = LogLines()
    try await withBrokenApp(logTo: sink) { client in
      let reply = try await client.send(.post, "/api/todos", json: #"{"title": "x"}"#)
      #expect(reply.status == .internalServerError)
      let message = try #require(reply.errorMessage)
      #expect(!message.contains("/data/todos.json"))
      let id = try #require(reply.headers[HTTPField.Name("X-Request-Id")!])
      #expect(
        message == "The server could not complete the request (storage failure). "
          + "The details are in the server log under request id \(id).")
      let line = try #require(failureLines(sink, id: id).first)
      #expect(line.metadata["error"]?.contains("not valid <JSON>") == true)
    }
  }

  @Test("A storage that fails every request logs its failures within a budget, and says how many it dropped")
  func failureLinesAreRateLimited() async throws {
    let sink = LogLines()
    let instant = Mutex(ContinuousClock.now)
    var server = ShowcaseServer(storage: BrokenStorage(), storageLabel: "test")
    server.failureLogBudget = LogLineBudget("internal failure", linesPerSecond: 2, now: { instant.withLock { $0 } })
    let logger = Logger(label: "test") { _ in sink.handler }
    try await Application(router: server.makeRouter(), logger: logger).test(.router) { client in
      for _ in 0..<5 {
        // Every request is still answered in full; only its failure line is dropped.
        let reply = try await client.send(.get, "/api/todos")
        #expect(reply.status == .internalServerError)
        #expect(reply.errorMessage?.contains("request id") == true)
      }
      instant.withLock { $0 += .seconds(1) }
      let reply = try await client.send(.get, "/")
      #expect(reply.status == .internalServerError)
    }
    let lines = sink.lines.withLock { $0 }.filter {
      ["internal failure", "internal failure lines dropped"].contains($0.message)
    }
    #expect(
      lines.map(\.message) == [
        "internal failure", "internal failure", "internal failure lines dropped", "internal failure",
      ])
    #expect(lines[2].level == .warning)
    #expect(lines[2].metadata["log.dropped_lines"] == "3")
    #expect(lines[2].metadata["hb.request.id"] == nil)
    #expect(lines[3].metadata["hb.request.id"] != nil)
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
