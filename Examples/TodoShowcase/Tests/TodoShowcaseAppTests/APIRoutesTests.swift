import DIShowcase
import Foundation
import HummingbirdTesting
import Testing

@Suite("JSON API")
struct APIRoutesTests {
  @Test("GET /api/todos starts empty")
  func listEmpty() async throws {
    try await withApp { client in
      let reply = try await client.send(.get, "/api/todos")
      #expect(reply.status == .ok)
      #expect(reply.headers[.contentType] == "application/json; charset=utf-8")
      #expect(reply.text == "[]")
    }
  }

  @Test("POST creates an item: 201, the item with its id, and a Location")
  func create() async throws {
    try await withApp { client in
      let reply = try await client.send(.post, "/api/todos", json: #"{"title": "  Buy milk  "}"#)
      #expect(reply.status == .created)
      let item = try #require(reply.json as? [String: Any])
      let id = try #require(item["id"] as? String)
      #expect(UUID(uuidString: id) != nil)
      #expect(item["title"] as? String == "Buy milk")
      #expect(item["done"] as? Bool == false)
      #expect(item["created"] is String)
      #expect(reply.headers[.location] == "/api/todos/\(id)")
      #expect(try await client.titles() == ["Buy milk"])
    }
  }

  @Test("GET /api/todos/{id} returns one item, 404 for an unknown one")
  func getOne() async throws {
    try await withApp { client in
      let id = try await client.addItem("One")
      let reply = try await client.send(.get, "/api/todos/\(id)")
      #expect(reply.status == .ok)
      #expect((reply.json as? [String: Any])?["title"] as? String == "One")
      #expect(try await client.send(.get, "/api/todos/\(UUID())").status == .notFound)
    }
  }

  @Test("PATCH sets done and returns the item")
  func patch() async throws {
    try await withApp { client in
      let id = try await client.addItem("Finish me")
      let reply = try await client.send(.patch, "/api/todos/\(id)", json: #"{"done": true}"#)
      #expect(reply.status == .ok)
      #expect((reply.json as? [String: Any])?["done"] as? Bool == true)
      let undone = try await client.send(.patch, "/api/todos/\(id)", json: #"{"done": false}"#)
      #expect((undone.json as? [String: Any])?["done"] as? Bool == false)
    }
  }

  @Test("DELETE removes the item: 204, then 404")
  func delete() async throws {
    try await withApp { client in
      let keep = try await client.addItem("Keep")
      let id = try await client.addItem("Remove")
      #expect(try await client.send(.delete, "/api/todos/\(id)").status == .noContent)
      #expect(try await client.titles() == ["Keep"])
      #expect(try await client.send(.delete, "/api/todos/\(id)").status == .notFound)
      #expect(try await client.send(.get, "/api/todos/\(keep)").status == .ok)
    }
  }

  static let badCreations: [(body: String, status: Int, message: String)] = [
    (#"{"title": ""}"#, 422, "The title must not be empty."),
    (#"{"title": "   \n "}"#, 422, "The title must not be empty."),
    (
      #"{"title": "\#(String(repeating: "x", count: 201))"}"#, 422,
      "The title has 201 characters; at most 200 are allowed."
    ),
    (
      #"{"title": "\#(String(repeating: "x", count: 199))\#(String(repeating: "\u{0301}", count: 2000))"}"#, 422,
      "The title is made of 2199 Unicode code points (letters plus combining marks); at most 800 are allowed."
    ),
    (
      #"{"title": "a\u0000b"}"#, 422,
      "The title must not contain control characters (found U+0000); tabs and line breaks are not allowed either."
    ),
    (
      #"{"title": "\u001b]0;pwned\u0007 title"}"#, 422,
      "The title must not contain control characters (found U+001B); tabs and line breaks are not allowed either."
    ),
    (
      #"{"title": "one\ttwo"}"#, 422,
      "The title must not contain control characters (found U+0009); tabs and line breaks are not allowed either."
    ),
    (
      #"{"title": "invoice \u202Egnp.exe"}"#, 422,
      "The title must not contain invisible formatting characters such as direction overrides (found U+202E), "
        + "which change how the title looks."
    ),
    (
      #"{"title": "a\u2066b\u2069"}"#, 422,
      "The title must not contain invisible formatting characters such as direction overrides (found U+2066), "
        + "which change how the title looks."
    ),
    (
      #"{"title": "zero\u200Bwidth"}"#, 422,
      "The title must not contain invisible formatting characters such as direction overrides (found U+200B), "
        + "which change how the title looks."
    ),
    (
      #"{"title": "one\u2028two"}"#, 422,
      "The title must not contain invisible formatting characters such as direction overrides (found U+2028), "
        + "which change how the title looks."
    ),
    (
      #"{"title": "\u3164 \u3164"}"#, 422,
      "The title must show some text: it has only characters that look blank (found U+3164)."
    ),
    (
      #"{"title": "a\uDB40\uDD58\uDB40\uDD59"}"#, 422,
      "The title must not contain a variation selector that selects nothing (found U+E0158 after another selector, "
        + "at the start or after a character it cannot vary); such selectors are invisible."
    ),
    (#"{"title": "unterminated"#, 400, #"The body must be JSON like {"title": "Buy milk"}."#),
    ("not json at all", 400, #"The body must be JSON like {"title": "Buy milk"}."#),
    ("", 400, #"The body must be JSON like {"title": "Buy milk"}."#),
    (#"{"name": "no title field"}"#, 400, #"The body must be JSON like {"title": "Buy milk"}."#),
    (#"{"title": 42}"#, 400, #"The body must be JSON like {"title": "Buy milk"}."#),
    (#"["Buy milk"]"#, 400, #"The body must be JSON like {"title": "Buy milk"}."#),
  ]

  @Test("Bad POST bodies get a 4xx JSON error and store nothing", arguments: badCreations)
  func badCreate(body: String, status: Int, message: String) async throws {
    let storage = InMemoryStorage()
    try await withApp(storage: storage) { client in
      let reply = try await client.send(.post, "/api/todos", json: body)
      #expect(reply.status.code == status)
      #expect(reply.headers[.contentType] == "application/json; charset=utf-8")
      #expect(reply.errorMessage == message)
      #expect(try await client.titles() == [])
    }
    #expect(try storage.load([TodoItem].self, forKey: LiveTodoListViewModel.storageKey) == nil)
  }

  @Test("A family emoji, joined with U+200D, is accepted as it was sent")
  func familyEmoji() async throws {
    try await withApp { client in
      let reply = try await client.send(.post, "/api/todos", json: #"{"title": "👨\u200D👩\u200D👧 picnic"}"#)
      #expect(reply.status == .created)
      #expect(try await client.titles() == ["👨\u{200D}👩\u{200D}👧 picnic"])
    }
  }

  @Test("A title of exactly 200 characters is accepted")
  func longestTitle() async throws {
    try await withApp { client in
      let title = String(repeating: "ü", count: 200)
      let reply = try await client.send(.post, "/api/todos", json: #"{"title": "\#(title)"}"#)
      #expect(reply.status == .created)
    }
  }

  static let badPatches: [(body: String, status: Int)] = [
    ("{", 400),
    (#"{"done": "yes"}"#, 400),
    (#"{"title": "no done field"}"#, 400),
    ("", 400),
  ]

  @Test("Bad PATCH bodies get 400 and change nothing", arguments: badPatches)
  func badPatch(body: String, status: Int) async throws {
    try await withApp { client in
      let id = try await client.addItem("Unchanged")
      let reply = try await client.send(.patch, "/api/todos/\(id)", json: body)
      #expect(reply.status.code == status)
      #expect(reply.errorMessage == #"The body must be JSON like {"done": true}."#)
      let item = try await client.send(.get, "/api/todos/\(id)")
      #expect((item.json as? [String: Any])?["done"] as? Bool == false)
    }
  }

  @Test("An unknown or malformed id gets a 404 JSON error", arguments: [UUID().uuidString, "not-a-uuid"])
  func unknownID(id: String) async throws {
    try await withApp { client in
      _ = try await client.addItem("Someone else")
      let patch = try await client.send(.patch, "/api/todos/\(id)", json: #"{"done": true}"#)
      #expect(patch.status == .notFound)
      #expect(patch.errorMessage?.contains(id) == true)
      let delete = try await client.send(.delete, "/api/todos/\(id)")
      #expect(delete.status == .notFound)
      #expect(delete.errorMessage?.contains(id) == true)
      #expect(try await client.titles() == ["Someone else"])
    }
  }

  @Test("Titles come back exactly as sent, markup included")
  func markupRoundTrip() async throws {
    try await withApp { client in
      _ = try await client.addItem("<script>alert(1)</script>")
      #expect(try await client.titles() == ["<script>alert(1)</script>"])
    }
  }
}
