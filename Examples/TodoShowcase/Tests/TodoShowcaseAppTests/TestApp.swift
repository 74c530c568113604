import DIShowcase
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TodoShowcaseApp

/// Runs `test` against the app's router in process, on `storage`, as if listening on
/// `listenHost` (`nil`: no `Host` check) and started with `--allowed-host` for each of `allowedHosts`.
func withApp<Value>(
  storage: any LocalStorage = InMemoryStorage(),
  listenHost: String? = nil,
  allowedHosts: [String] = [],
  _ test: @Sendable (any TestClientProtocol) async throws -> Value
) async throws -> Value {
  let server = ShowcaseServer(storage: storage, storageLabel: "test")
  let router = server.makeRouter(listenHost: listenHost, allowedHosts: allowedHosts)
  return try await Application(router: router).test(.router, test)
}

/// Header fields with exactly these names and values, in this order (a name that is no valid
/// field name is left out).
func headerFields(_ pairs: [(String, String)]) -> HTTPFields {
  var fields = HTTPFields()
  for (name, value) in pairs {
    if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
  }
  return fields
}

/// What a test needs of a response.
struct Reply: Sendable {
  var status: HTTPResponse.Status
  var headers: HTTPFields
  var text: String

  var json: Any? {
    try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
  }

  var errorMessage: String? {
    (json as? [String: Any])?["error"] as? String
  }
}

extension TestClientProtocol {
  func send(_ method: HTTPRequest.Method, _ uri: String, json: String? = nil, form: String? = nil) async throws -> Reply
  {
    var headers: HTTPFields = [:]
    var body: ByteBuffer?
    if let json {
      headers[.contentType] = "application/json"
      body = ByteBuffer(string: json)
    }
    if let form {
      headers[.contentType] = "application/x-www-form-urlencoded"
      body = ByteBuffer(string: form)
    }
    return try await execute(uri: uri, method: method, headers: headers, body: body) { response in
      Reply(status: response.status, headers: response.headers, text: String(buffer: response.body))
    }
  }

  /// Adds an item through the API and returns its id.
  func addItem(_ title: String) async throws -> String {
    let reply = try await send(.post, "/api/todos", json: #"{"title": \#(jsonString(title))}"#)
    guard reply.status == .created, let id = (reply.json as? [String: Any])?["id"] as? String else {
      throw UnexpectedReply(reply: reply)
    }
    return id
  }

  /// The titles the API lists.
  func titles() async throws -> [String] {
    let reply = try await send(.get, "/api/todos")
    return ((reply.json as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String }
  }
}

struct UnexpectedReply: Error {
  let reply: Reply
}

func jsonString(_ text: String) -> String {
  String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
}

/// A form-encoded value.
func formValue(_ text: String) -> String {
  var allowed = CharacterSet.alphanumerics
  allowed.insert(charactersIn: "-._~")
  return text.addingPercentEncoding(withAllowedCharacters: allowed)!
}
