import DIShowcase
import Foundation
import Hummingbird

/// The HTML pages and the plain forms that change the list.
///
/// - `GET /?tab=ID`: the tabbed page, one tab per style.
/// - `GET /styles/ID`: one style's own page.
/// - Both show ``Pagination/pageSize`` items; `&after=CURSOR` (`?after=` on a style's page) shows
///   the page after that cursor, as the "Next page" link does.
/// - `POST /styles/ID/todos` (`title`), `POST /styles/ID/todos/UUID/toggle`,
///   `POST /styles/ID/todos/UUID/delete`: each form also sends `return`, the page to go back to.
struct HTMLRoutes {
  let server: ShowcaseServer

  func add(to router: Router<BasicRequestContext>) {
    router.get("/") { request, context in
      try await guarded(context) {
        let tab = request.uri.queryParameters.get("tab") ?? Showcase.styles[0].id
        return try page(styleID: tab, onTabsPage: true, after: request.uri.queryParameters.get("after"))
      }
    }
    router.get("/styles/:style") { request, context in
      try await guarded(context) {
        try page(
          styleID: context.parameters.require("style"),
          onTabsPage: false,
          after: request.uri.queryParameters.get("after")
        )
      }
    }
    router.post("/styles/:style/todos") { request, context in
      let form = try await FormFields(request: request)
      return try await guarded(context) {
        // Back at the add field, ready for the next item.
        let styleID = try context.parameters.require("style")
        return try change(styleID: styleID, form: form, landing: "title-\(styleID)") { screen in
          try screen.viewModel.add(title: form["title"] ?? "")
        }
      }
    }
    router.post("/styles/:style/todos/:id/toggle") { request, context in
      let form = try await FormFields(request: request)
      return try await guarded(context) {
        // Back at the item's toggle, which the fragment focuses.
        let landing = Self.toggleAnchor(context.parameters.get("id"))
        return try change(styleID: context.parameters.require("style"), form: form, landing: landing) { screen in
          try screen.viewModel.toggle(id: try itemID(context))
        }
      }
    }
    router.post("/styles/:style/todos/:id/delete") { request, context in
      let form = try await FormFields(request: request)
      return try await guarded(context) {
        // Back at the item that followed it on the page (the form's `next`), else the add field.
        let styleID = try context.parameters.require("style")
        let landing = Self.toggleAnchor(form["next"]) ?? "title-\(styleID)"
        return try change(styleID: styleID, form: form, landing: landing) { screen in
          try screen.viewModel.delete(id: try itemID(context))
        }
      }
    }
  }

  /// A path's item id; text that is no UUID is an id no item has.
  private func itemID(_ context: BasicRequestContext) throws -> UUID {
    let text = try context.parameters.require("id")
    guard let id = UUID(uuidString: text) else { throw UnknownItem(text: text) }
    return id
  }

  private struct UnknownItem: Error {
    let text: String
  }

  /// Runs a route off the cooperative pool (it blocks on storage, see ``BlockingWork``); an
  /// error page with 503 and `Retry-After` when too many storage calls are already waiting.
  private func guarded(
    _ context: BasicRequestContext, _ body: @escaping @Sendable () throws -> Response
  ) async throws -> Response {
    do {
      return try await server.blockingWork.run { try guardedNow(context, body) }
    } catch is BlockingWork.Busy {
      var response = errorPage(.serviceUnavailable, title: "Server busy", message: BlockingWork.busyMessage)
      response.headers[.retryAfter] = "\(BlockingWork.retryAfterSeconds)"
      return response
    }
  }

  /// Runs a route, showing a storage or wiring failure as an error page instead of a bare 500;
  /// the page names only the request id, the log has the details.
  private func guardedNow(_ context: BasicRequestContext, _ body: () throws -> Response) throws -> Response {
    do {
      return try body()
    } catch let error as StorageError {
      return errorPage(
        .internalServerError, title: "Storage error",
        message: InternalFailure.report(error, kind: "storage", context: context, budget: server.failureLogBudget))
    } catch let error as ResolutionError {
      return errorPage(
        .internalServerError, title: "Wiring error",
        message: InternalFailure.report(error, kind: "wiring", context: context, budget: server.failureLogBudget))
    } catch let error as Pagination.Invalid {
      return errorPage(.badRequest, title: "No such page", message: error.message)
    }
  }

  private func errorPage(_ status: HTTPResponse.Status, title: String, message: String) -> Response {
    htmlResponse(
      status: status, Layout.errorPage(storageLabel: server.storageLabel, title: title, section: .list, message))
  }

  /// The message of the page for a style id no style has. It does not show the id: a link of
  /// someone else's could make it read as a message of the app's own (`?tab=manual”. Your list
  /// was reset…`); it names the styles there are instead.
  static let unknownStyleMessage =
    "There is no such style; the styles are "
    + Showcase.styles.map { "\($0.name) (\($0.id))" }.joined(separator: ", ") + "."

  /// Renders a style's list, on the tabbed page or on its own page.
  private func page(
    styleID: String,
    onTabsPage: Bool,
    after: String? = nil,
    status: HTTPResponse.Status = .ok,
    error: String? = nil,
    typedTitle: String? = nil
  ) throws -> Response {
    guard let screen = try server.screen(styleID: styleID) else {
      return htmlResponse(
        status: .notFound,
        Layout.errorPage(
          storageLabel: server.storageLabel, title: "Not found", Self.unknownStyleMessage)
      )
    }
    let cursor = try Pagination.cursor(after)
    let listPage = try screen.viewModel.loadPage(after: cursor, limit: Pagination.pageSize)
    let path = onTabsPage ? "/?tab=\(styleID)" : "/styles/\(styleID)"
    let link = { (cursor: TodoCursor?) in
      cursor.map { path + (onTabsPage ? "&" : "?") + "after=" + $0.text } ?? path
    }
    let returnTo = link(cursor)
    let tabs = Layout.tabs(Showcase.styles, current: styleID) { style in
      onTabsPage ? "/?tab=\(style.id)" : "/styles/\(style.id)"
    }
    return htmlResponse(
      status: status,
      Layout.page(
        title: screen.style.name,
        section: .list,
        storageLabel: server.storageLabel,
        body: StyleLesson.sharedStorageBanner(storageLabel: server.storageLabel) + tabs
          + screen.render(
            page: listPage, isFirst: cursor == nil, link: link, returnTo: returnTo, error: error, typedTitle: typedTitle
          )
          + StyleLesson.html(for: screen.style) + LiveUpdates.scriptTag(poll: returnTo)
      )
    )
  }

  /// Applies a form's change through the style's screen, then goes back to the page the form
  /// came from; a refused change shows that page again with the reason and the title typed
  /// (its live updates poll that page, not the form's address).
  private func change(
    styleID: String,
    form: FormFields,
    landing: String? = nil,
    _ body: (TodoListScreen) throws -> Void
  ) throws -> Response {
    guard let screen = try server.screen(styleID: styleID) else {
      return try page(styleID: styleID, onTabsPage: false)
    }
    let returnTo = Self.safeReturnPath(form["return"], styleID: styleID)
    let after = Self.cursorText(of: returnTo)
    if let problem = form.problem {
      return try page(
        styleID: styleID,
        onTabsPage: returnTo.hasPrefix("/?"),
        after: after,
        status: .badRequest,
        error: problem
      )
    }
    do {
      try body(screen)
    } catch let error as UnknownItem {
      return try page(
        styleID: styleID,
        onTabsPage: returnTo.hasPrefix("/?"),
        after: after,
        status: .notFound,
        error: "No to-do item has the id \(EscapedText.echoed(error.text)).",
        typedTitle: form["title"]
      )
    } catch let error as TodoError {
      let status: HTTPResponse.Status =
        switch error {
        case .notFound: .notFound
        case .listFull: .conflict
        default: .unprocessableContent
        }
      return try page(
        styleID: styleID,
        onTabsPage: returnTo.hasPrefix("/?"),
        after: after,
        status: status,
        error: error.description,
        typedTitle: form["title"]
      )
    }
    // The control to land on (an item's toggle or the add field), as the fragment: the browser
    // scrolls back to where the change was made and gives that control the focus.
    return .redirect(to: returnTo + (landing.map { "#" + $0 } ?? ""), type: .normal)
  }

  /// The id of the toggle button of the item `id` names (as the list renders it), if `id` is one.
  private static func toggleAnchor(_ id: String?) -> String? {
    id.flatMap(UUID.init(uuidString:)).map { "toggle-\($0.uuidString)" }
  }

  /// The form's `return` path if it is one of this app's list pages (optionally after a valid
  /// cursor), else the style's own page.
  static func safeReturnPath(_ path: String?, styleID: String) -> String {
    let allowed = Showcase.styles.flatMap { ["/?tab=\($0.id)", "/styles/\($0.id)"] } + ["/"]
    guard let path else { return "/styles/\(styleID)" }
    if allowed.contains(path) { return path }
    for separator in ["&after=", "?after="] {
      if let range = path.range(of: separator), allowed.contains(String(path[..<range.lowerBound])),
        path.hasPrefix("/?") == (separator == "&after="),
        let cursor = TodoCursor(text: String(path[range.upperBound...]))
      {
        return String(path[..<range.lowerBound]) + separator + cursor.text
      }
    }
    return "/styles/\(styleID)"
  }

  /// The `after` cursor text of a safe return path, if it has one.
  private static func cursorText(of path: String) -> String? {
    path.range(of: "after=").map { String(path[$0.upperBound...]) }
  }
}

/// The fields of a URL-encoded form body.
struct FormFields {
  private let fields: [String: String]
  /// Why the form is refused as a whole, or `nil`: the body is not UTF-8 (a raw `\xFF`), a
  /// field's name or value is not valid percent-encoded UTF-8 (`title=%FF`), or a field comes
  /// twice (`title=a&title=b`, which no page of this app sends, so neither value is guessed at).
  /// Such a form is not read as an empty title or one with U+FFFD in it, and changes nothing.
  let problem: String?

  /// What a form whose text is not valid percent-encoded UTF-8 is told.
  static let malformedMessage = "The form's text is not valid URL-encoded UTF-8; nothing was changed."

  init(request: Request) async throws {
    let body = try await request.body.collect(upTo: 64 * 1024)
    var fields: [String: String] = [:]
    // A byte that is not UTF-8 (`title=\xFF`, sent raw rather than as `%FF`) would be read as
    // U+FFFD: the form is malformed as a whole.
    let text = String(validating: body.readableBytesView, as: UTF8.self)
    var isMalformed = text == nil
    var repeated: String?
    for pair in (text ?? "").split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = Self.decode(parts[0]), let value = parts.count > 1 ? Self.decode(parts[1]) : ""
      else {
        isMalformed = true
        continue
      }
      if fields.updateValue(value, forKey: name) != nil, repeated == nil { repeated = name }
    }
    self.fields = fields
    if isMalformed {
      problem = Self.malformedMessage
    } else if let repeated {
      // The name is the client's text: at most 40 characters of it are shown.
      let shown = repeated.count > 40 ? repeated.prefix(40) + "…" : repeated
      problem = "The form has the field “\(shown)” more than once; nothing was changed."
    } else {
      problem = nil
    }
  }

  subscript(name: String) -> String? {
    fields[name]
  }

  private static func decode(_ text: Substring) -> String? {
    text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
  }
}

func htmlResponse(status: HTTPResponse.Status = .ok, _ html: String) -> Response {
  Response(
    status: status,
    headers: [.contentType: "text/html; charset=utf-8"],
    body: .init(byteBuffer: ByteBuffer(string: html))
  )
}
