import DIShowcase
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("OpenAPI document")
struct OpenAPITests {
  @Test("/openapi.json is OpenAPI 3.1 and describes every API route and method")
  func describesEveryRoute() async throws {
    try await withApp { client in
      let reply = try await client.send(.get, "/openapi.json")
      #expect(reply.status == .ok)
      #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
      let document = try #require(reply.json as? [String: Any])
      #expect(document["openapi"] as? String == "3.1.0")
      let paths = try #require(document["paths"] as? [String: [String: Any]])
      let methods = paths.mapValues { Set($0.keys.filter { $0 != "parameters" }) }
      #expect(methods == ["/api/todos": ["get", "post"], "/api/todos/{id}": ["get", "patch", "delete"]])
    }
  }

  @Test("Every documented error status is what the server answers", arguments: [400, 403, 404, 413, 415, 422])
  func documentedErrorsReachable(status: Int) async throws {
    try await withApp { client in
      let id = try await client.addItem("kept")
      let reply: Reply
      switch status {
      case 400: reply = try await client.send(.post, "/api/todos", json: "{")
      case 403:
        reply = try await client.raw(
          .delete, "/api/todos/\(id)", headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"])
      case 404: reply = try await client.send(.get, "/api/todos/6F9619FF-8B86-D011-B42D-00CF4FC964FF")
      case 413:
        reply = try await client.send(
          .post, "/api/todos", json: #"{"title": "\#(String(repeating: "x", count: 70_000))"}"#)
      case 415: reply = try await client.raw(.patch, "/api/todos/\(id)", body: #"{"done": true}"#)
      default: reply = try await client.send(.post, "/api/todos", json: #"{"title": "  "}"#)
      }
      #expect(Int(reply.status.code) == status)
      #expect(reply.errorMessage != nil)
      #expect(try await client.titles() == ["kept"])
    }
  }

  /// JSON Schema's `maxLength` counts code points; a title's rule counts characters (at most 200)
  /// and code points (at most 800). A stored title of 200 accented characters has 400 code points:
  /// the item schema must allow what the server returns.
  @Test("The item schema's title length allows every title the server accepts")
  func itemTitleLengthMatchesTheRules() async throws {
    try await withApp { client in
      let reply = try await client.send(.get, "/openapi.json")
      let document = try #require(reply.json as? [String: Any])
      let components = try #require(document["components"] as? [String: Any])
      let schemas = try #require(components["schemas"] as? [String: [String: Any]])
      func titleMaximum(_ schema: String) -> Int? {
        ((schemas[schema]?["properties"] as? [String: Any])?["title"] as? [String: Any])?["maxLength"] as? Int
      }
      let accented = String(repeating: "e\u{301}", count: 200)
      let id = try await client.addItem(accented)
      let stored = try #require(try await client.titles().first)
      #expect(!id.isEmpty)
      #expect(stored.count == 200)
      #expect(stored.unicodeScalars.count == 400)
      #expect(try #require(titleMaximum("TodoItem")) >= stored.unicodeScalars.count)
      #expect(titleMaximum("TodoItem") == 800)
      #expect(titleMaximum("NewItem") == 200)
    }
  }
}
