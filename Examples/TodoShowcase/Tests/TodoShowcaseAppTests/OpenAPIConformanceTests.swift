import DIShowcase
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import TodoShowcaseApp

/// A hostile client chooses its `Host`, `Origin`, content type and body size: whatever it sends,
/// each operation of `/openapi.json` answers only with a status the document lists for it, with
/// the documented JSON error body.
@Suite("OpenAPI conformance of refusals")
struct OpenAPIConformanceTests {
  /// One operation of the document: its method, a concrete path and its documented statuses.
  struct Operation: Sendable, CustomTestStringConvertible {
    var method: HTTPRequest.Method
    var template: String
    var testDescription: String { "\(method.rawValue) \(template)" }
  }

  static let operations: [Operation] = [
    .init(method: .get, template: "/api/todos"),
    .init(method: .post, template: "/api/todos"),
    .init(method: .get, template: "/api/todos/{id}"),
    .init(method: .patch, template: "/api/todos/{id}"),
    .init(method: .delete, template: "/api/todos/{id}"),
  ]

  /// The requests a hostile client might send, as header fields and a body.
  static let attacks: [(name: String, headers: [(String, String)], body: String?)] = [
    (
      "a Host the server does not answer for", [("Host", "rebind.evil.example"), ("Content-Type", "application/json")],
      "{}"
    ),
    ("a cross-site browser request", [("Sec-Fetch-Site", "cross-site"), ("Content-Type", "application/json")], "{}"),
    ("a foreign Origin", [("Origin", "http://evil.example"), ("Content-Type", "application/json")], "{}"),
    ("a body over 64 KiB", [("Content-Type", "application/json")], String(repeating: " ", count: 70_000) + "{}"),
    ("a body that is not JSON", [("Content-Type", "text/plain")], "done"),
  ]

  @Test("Refusals use only the statuses the document lists for the operation", arguments: operations)
  func refusalsAreDocumented(operation: Operation) async throws {
    let document = try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.text.utf8)) as? [String: Any]
    let paths = try #require(document?["paths"] as? [String: [String: Any]])
    let entry = try #require(paths[operation.template]?[operation.method.rawValue.lowercased()] as? [String: Any])
    let documented = Set(try #require(entry["responses"] as? [String: Any]).keys)
    try await withApp(listenHost: "127.0.0.1") { client in
      let id = try await client.addItem("kept")
      let uri = operation.template.replacingOccurrences(of: "{id}", with: id)
      for attack in Self.attacks {
        var fields = HTTPFields()
        for (name, value) in attack.headers {
          if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        let reply = try await client.raw(operation.method, uri, headers: fields, body: attack.body)
        let status = String(reply.status.code)
        #expect(
          documented.contains(status), "\(operation.testDescription) with \(attack.name): \(status) is not documented")
        if reply.status.code >= 400 {
          #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
          #expect(reply.errorMessage != nil)
        }
      }
      // A DELETE needs no content type: the last request deletes the item, the others change nothing.
      #expect(try await client.titles() == (operation.method == .delete ? [] : ["kept"]))
    }
  }
}
