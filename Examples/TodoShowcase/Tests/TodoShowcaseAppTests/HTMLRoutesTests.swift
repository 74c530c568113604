import DIShowcase
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("HTML pages and forms")
struct HTMLRoutesTests {
  static let styleIDs = ["manual", "provider", "knapsack", "swinject"]

  @Test("GET / shows the tabbed page with every style, the first one open")
  func tabsPage() async throws {
    try await withApp { client in
      let reply = try await client.send(.get, "/")
      #expect(reply.status == .ok)
      #expect(reply.headers[.contentType] == "text/html; charset=utf-8")
      for id in Self.styleIDs {
        #expect(reply.text.contains(#"id="tab-\#(id)" href="/?tab=\#(id)""#))
      }
      #expect(reply.text.contains(#"id="list-manual""#))
      #expect(reply.text.contains(#"<input type="hidden" name="return" value="/?tab=manual">"#))
    }
  }

  @Test("GET /?tab=ID opens that tab", arguments: styleIDs)
  func tab(id: String) async throws {
    try await withApp { client in
      let reply = try await client.send(.get, "/?tab=\(id)")
      #expect(reply.status == .ok)
      #expect(reply.text.contains(#"id="list-\#(id)""#))
      #expect(reply.text.contains(#"id="tab-\#(id)" href="/?tab=\#(id)" aria-current="page""#))
    }
  }

  @Test("GET /styles/ID shows the style's own page", arguments: styleIDs)
  func stylePage(id: String) async throws {
    try await withApp { client in
      let reply = try await client.send(.get, "/styles/\(id)")
      #expect(reply.status == .ok)
      #expect(reply.text.contains(#"<form class="add" method="post" action="/styles/\#(id)/todos">"#))
      #expect(reply.text.contains(#"value="/styles/\#(id)""#))
    }
  }

  @Test("An unknown style is a 404 page that does not show the name")
  func unknownStyle() async throws {
    try await withApp { client in
      let reply = try await client.send(.get, "/?tab=%3Cb%3Enope")
      #expect(reply.status == .notFound)
      #expect(!reply.text.contains("nope"))
      #expect(!reply.text.contains("<b>"))
      #expect(reply.text.contains("There is no such style"))
      #expect(try await client.send(.get, "/styles/nope").status == .notFound)
      #expect(try await client.send(.post, "/styles/nope/todos", form: "title=x").status == .notFound)
    }
  }

  @Test(
    "A path no route serves is the app's 404 page, or JSON under /api/",
    arguments: ["/nope", "/static/nope.css", "/a/%3Cb%3E"])
  func unknownPathIsThePage(path: String) async throws {
    try await withApp { client in
      let reply = try await client.send(.get, path)
      #expect(reply.status == .notFound)
      #expect(reply.headers[.contentType] == "text/html; charset=utf-8")
      #expect(reply.text.contains("<h2>Not found</h2>"), "\(reply.text)")
      #expect(reply.text.contains(#"<a href="/">Back to the lists</a>"#))
      // Neither section is current.
      #expect(!reply.text.contains(#"aria-current="page""#))
      #expect(!reply.text.contains("<b>"))
      #expect(reply.headers[.contentSecurityPolicy] != nil)
    }
  }

  @Test("An API path no route serves answers JSON, as the API's other errors")
  func unknownAPIPathIsJSON() async throws {
    try await withApp { client in
      let reply = try await client.send(.get, "/api/nope")
      #expect(reply.status == .notFound)
      #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
      #expect(reply.text.contains(#""error":"Nothing is at /api/nope.""#), "\(reply.text)")
      let long = try await client.send(.get, "/api/" + String(repeating: "x", count: 5_000))
      #expect(long.status == .notFound)
      #expect(long.text.count < 400, "\(long.text.count)")
    }
  }

  @Test("Deleting an item lands on the one after it on the page; a forged next id is ignored")
  func deleteLandsOnTheNextItem() async throws {
    try await withApp { client in
      let first = try await client.addItem("First")
      let second = try await client.addItem("Second")
      let page = try await client.send(.get, "/styles/manual").text
      #expect(page.contains(#"<input type="hidden" name="next" value="\#(second)">"#))
      let deleted = try await client.send(
        .post, "/styles/manual/todos/\(first)/delete", form: "return=%2Fstyles%2Fmanual&next=\(second)")
      #expect(deleted.headers[.location] == "/styles/manual#toggle-\(second)")
      let forged = try await client.send(
        .post, "/styles/manual/todos/\(second)/delete", form: "return=%2Fstyles%2Fmanual&next=%22%3E%3Cscript%3E")
      #expect(forged.headers[.location] == "/styles/manual#title-manual")
    }
  }

  @Test("An item added in one style's form shows in every style", arguments: styleIDs)
  func addSharesStorage(id: String) async throws {
    try await withApp { client in
      let reply = try await client.send(
        .post, "/styles/\(id)/todos", form: "title=Added+via+\(id)&return=%2F%3Ftab%3D\(id)")
      #expect(reply.status == .seeOther)
      // Back at the add field, for the next item.
      #expect(reply.headers[.location] == "/?tab=\(id)#title-\(id)")
      for other in Self.styleIDs {
        #expect(try await client.send(.get, "/styles/\(other)").text.contains("Added via \(id)"))
      }
      #expect(try await client.titles() == ["Added via \(id)"])
    }
  }

  @Test("The toggle and delete forms change the item", arguments: styleIDs)
  func toggleAndDelete(id: String) async throws {
    try await withApp { client in
      let item = try await client.addItem("Form me")
      let toggled = try await client.send(.post, "/styles/\(id)/todos/\(item)/toggle", form: "return=%2Fstyles%2F\(id)")
      #expect(toggled.status == .seeOther)
      // Back at the item changed, whose toggle then has the focus.
      #expect(toggled.headers[.location] == "/styles/\(id)#toggle-\(item)")
      #expect(
        try await client.send(.get, "/styles/\(id)").text.contains(
          #"<li class="item done" data-id="\#(item)">"#))
      let deleted = try await client.send(.post, "/styles/\(id)/todos/\(item)/delete", form: "return=%2F")
      #expect(deleted.status == .seeOther)
      // No item followed it: back at the add field.
      #expect(deleted.headers[.location] == "/#title-\(id)")
      #expect(try await client.titles() == [])
    }
  }

  @Test(
    "A refused title shows the page again with the reason and stores nothing",
    arguments: ["", "+++", String(repeating: "a", count: 201)])
  func refusedTitle(title: String) async throws {
    try await withApp { client in
      let reply = try await client.send(
        .post, "/styles/knapsack/todos", form: "title=\(title)&return=%2F%3Ftab%3Dknapsack")
      #expect(reply.status == .unprocessableContent)
      #expect(reply.text.contains(#"<p class="error" role="alert" id="error-knapsack">"#))
      // The field takes the focus back, says it is invalid and names the message.
      #expect(reply.text.contains(#"aria-invalid="true" aria-describedby="error-knapsack" autofocus>"#))
      #expect(!reply.text.contains("maxlength"))
      #expect(reply.text.contains(#"id="tab-knapsack" href="/?tab=knapsack" aria-current="page""#))
      #expect(try await client.titles() == [])
    }
  }

  @Test("A refused change's page polls the list's page, not the form's address, and keeps the title typed")
  func refusedChangePollsTheList() async throws {
    try await withApp { client in
      let typed = #"  "quoted" <b>  "#
      let refused = try await client.send(
        .post, "/styles/knapsack/todos", form: "title=\(formValue(typed + "\u{202E}"))&return=%2F%3Ftab%3Dknapsack")
      #expect(refused.status == .unprocessableContent)
      #expect(refused.text.contains(#"<script src="/static/live.js" data-poll="/?tab=knapsack" defer></script>"#))
      #expect(refused.text.contains(#"value="\#(HTML.escape(typed + "\u{202E}"))" aria-invalid="true""#))
      let stale = try await client.send(
        .post, "/styles/provider/todos/\(UUID().uuidString)/delete", form: "return=%2Fstyles%2Fprovider")
      #expect(stale.status == .notFound)
      #expect(stale.text.contains(#"data-poll="/styles/provider""#))
      #expect(stale.text.contains(#"autocomplete="off">"#))
    }
  }

  @Test("A refused title with control characters is echoed with U+FFFD in their place, never raw")
  func refusedControlCharacters() async throws {
    try await withApp { client in
      let refused = try await client.send(
        .post, "/styles/knapsack/todos", form: "title=a%00b%1Bc%C2%85d&return=%2F%3Ftab%3Dknapsack")
      #expect(refused.status == .unprocessableContent)
      #expect(refused.text.contains("must not contain control characters (found U+0000)"))
      #expect(refused.text.contains("value=\"a\u{FFFD}b\u{FFFD}c\u{FFFD}d\" aria-invalid=\"true\""))
      #expect(
        !refused.text.unicodeScalars.contains {
          $0.properties.generalCategory == .control && !"\n\t\r".unicodeScalars.contains($0)
        })
      #expect(try await client.titles() == [])
    }
  }

  @Test("A form title with a direction override is refused with the same rule as the API")
  func refusedInvisibleTitle() async throws {
    try await withApp { client in
      let reply = try await client.send(
        .post, "/styles/manual/todos", form: "title=\(formValue("invoice \u{202E}gnp.exe"))&return=%2Fstyles%2Fmanual")
      #expect(reply.status == .unprocessableContent)
      #expect(reply.text.contains("(found U+202E)"))
      let family = try await client.send(
        .post, "/styles/manual/todos", form: "title=\(formValue("👨\u{200D}👩\u{200D}👧"))&return=%2Fstyles%2Fmanual")
      #expect(family.status == .seeOther)
      #expect(try await client.titles() == ["👨\u{200D}👩\u{200D}👧"])
    }
  }

  @Test("A form without a title field is refused")
  func missingTitle() async throws {
    try await withApp { client in
      let reply = try await client.send(.post, "/styles/manual/todos", form: "")
      #expect(reply.status == .unprocessableContent)
      #expect(try await client.titles() == [])
    }
  }

  @Test(
    "A form whose text is not valid URL-encoded UTF-8 is refused as such and changes nothing",
    arguments: ["title=%FF", "title=caf%C3", "title=ok&%E2%82=x", "title=100%"])
  func malformedForm(form: String) async throws {
    try await withApp { client in
      let reply = try await client.send(.post, "/styles/manual/todos", form: form + "&return=%2Fstyles%2Fmanual")
      #expect(reply.status == .badRequest)
      #expect(reply.text.contains("not valid URL-encoded UTF-8"))
      #expect(!reply.text.contains("must not be empty"))
      #expect(try await client.titles() == [])
      let id = try await client.addItem("Stays")
      let toggle = try await client.send(.post, "/styles/knapsack/todos/\(id)/toggle", form: "return=%ZZ")
      #expect(toggle.status == .badRequest)
      let items = try await client.send(.get, "/api/todos").json as? [[String: Any]]
      #expect(items?.compactMap { $0["done"] as? Bool } == [false])
    }
  }

  @Test(
    "A form that repeats a field is refused, naming the field, and changes nothing",
    arguments: ["title=First&title=Second", "title=Only&return=%2F&return=%2Fstyles%2Fmanual"])
  func repeatedField(form: String) async throws {
    try await withApp { client in
      let reply = try await client.send(.post, "/styles/manual/todos", form: form)
      #expect(reply.status == .badRequest)
      let field = form.hasPrefix("title=Only") ? "return" : "title"
      #expect(reply.text.contains("The form has the field “\(field)” more than once"))
      #expect(try await client.titles() == [])
    }
  }

  /// A byte that is not UTF-8 sent as it is, not percent-encoded: the form is as malformed as
  /// `title=%FF`, and no item titled "caf\u{FFFD}" is added.
  @Test("A form body that is not UTF-8 is refused as such and changes nothing")
  func formBodyThatIsNotUTF8() async throws {
    try await withApp { client in
      var body = ByteBuffer(string: "title=caf")
      body.writeBytes([0xC3])
      body.writeString("&return=%2Fstyles%2Fmanual")
      let reply = try await client.execute(
        uri: "/styles/manual/todos", method: .post,
        headers: [.contentType: "application/x-www-form-urlencoded"], body: body
      ) { response in Reply(status: response.status, headers: response.headers, text: String(buffer: response.body)) }
      #expect(reply.status == .badRequest)
      #expect(reply.text.contains("not valid URL-encoded UTF-8"))
      #expect(try await client.titles() == [])
    }
  }

  @Test("Toggling or deleting an unknown item is a 404 page", arguments: ["toggle", "delete"])
  func unknownItem(action: String) async throws {
    try await withApp { client in
      _ = try await client.addItem("Stays")
      for id in [UUID().uuidString, "garbage"] {
        let reply = try await client.send(.post, "/styles/swinject/todos/\(id)/\(action)", form: "return=%2F")
        #expect(reply.status == .notFound)
        #expect(reply.text.contains(#"class="error""#))
      }
      #expect(try await client.titles() == ["Stays"])
    }
  }

  @Test(
    "A return path outside the app goes to the style's page instead",
    arguments: ["https%3A%2F%2Fevil.example%2F", "%2F%2Fevil.example", "%2Fgraph%3Fx"])
  func unsafeReturnPath(path: String) async throws {
    try await withApp { client in
      let reply = try await client.send(.post, "/styles/provider/todos", form: "title=x&return=\(path)")
      #expect(reply.headers[.location] == "/styles/provider#title-provider")
    }
  }

  @Test("User text is escaped on every page", arguments: styleIDs)
  func escaping(id: String) async throws {
    try await withApp { client in
      _ = try await client.send(
        .post, "/styles/manual/todos", form: "title=\(formValue(#"<script>alert(1)</script> & "quotes""#))")
      let page = try await client.send(.get, "/?tab=\(id)").text
      #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;"))
      #expect(!page.contains("<script>"))
    }
  }

  @Test("GET /graph shows the graph page")
  func graph() async throws {
    try await withApp { client in
      let reply = try await client.send(.get, "/graph")
      #expect(reply.status == .ok)
      // The app container's graph is the first section; later ones draw other containers.
      let graph = try #require(reply.text.components(separatedBy: #"id="legend">"#).first)
      for name in ["todoListScreen", "todoListViewModel", "todoStorage", "todoClock"] {
        #expect(graph.contains(#"<g class="node" data-name="\.\#(name)">"#))
      }
      #expect(graph.components(separatedBy: #"<path class="edge""#).count - 1 == 3)
      #expect(reply.text.contains("graph LR"))
      #expect(reply.text.contains("digraph"))
      #expect(reply.text.contains(#"<p class="valid">✓ Valid</p>"#))
      #expect(reply.text.contains("no problems in 4 dependencies"))
      let missing = try #require(reply.text.components(separatedBy: #"id="broken-report">"#).last)
      #expect(missing.contains("todoStorage"))
    }
  }
}

@Suite("Restart")
struct RestartTests {
  @Test("Items survive a restart of the server", arguments: [StoreKind.sqlite, .json, .encrypted])
  func survivesRestart(kind: StoreKind) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("todo-showcase-restart-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let environment = [EncryptionKey.environmentVariable: EncryptionKey.random().base64]

    try await withApp(storage: try kind.open(in: directory, environment: environment)) { client in
      _ = try await client.addItem("Before the restart")
    }
    try await withApp(storage: try kind.open(in: directory, environment: environment)) { client in
      let titles = try await client.titles()
      let page = try await client.send(.get, "/?tab=swinject")
      #expect(titles == ["Before the restart"])
      #expect(page.text.contains("Before the restart"))
    }
  }
}
