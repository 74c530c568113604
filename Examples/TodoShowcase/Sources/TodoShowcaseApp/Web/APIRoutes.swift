import DIShowcase
import Foundation
import HTTPTypes
import Hummingbird

/// The JSON API on the shared storage.
///
/// - `GET /api/todos`: every item (sent a page at a time as the client reads it); with `?limit=N` (1 to 200) a page of them, oldest first, and a
///   `Link: <…&after=CURSOR>; rel="next"` header while more follow.
/// - `GET /api/todos/UUID`: that item, read alone (one row on SQLite).
/// - `POST /api/todos` `{"title": "…"}`: 201 with the new item.
/// - `PATCH /api/todos/UUID` `{"done": true}`: the changed item.
/// - `DELETE /api/todos/UUID`: 204.
///
/// Bad input gets a 4xx with `{"error": "…"}` and changes nothing: 400 for a body that is not
/// the JSON expected, 422 for a title that breaks the rules, 404 for an unknown id, 409 for a new
/// item when the list already has ``TodoList/maximumItems``. When the server already has as many
/// storage calls waiting as it takes (see ``BlockingWork``), a request gets 503 with `Retry-After`.
struct APIRoutes {
  let server: ShowcaseServer

  private struct NewItem: Decodable {
    var title: String
  }

  private struct Change: Decodable {
    var done: Bool
  }

  func add(to router: Router<BasicRequestContext>) {
    let api = router.group("api/todos")
    api.get { request, context in
      try await respond(context) {
        let query = request.uri.queryParameters
        let viewModel = try makeViewModel()
        guard query.get("limit") != nil || query.get("after") != nil else {
          return try Self.wholeList(viewModel, blockingWork: server.blockingWork)
        }
        let limit: Int
        let cursor: TodoCursor?
        do {
          limit = try Pagination.limit(query.get("limit"), default: 100)
          cursor = try Pagination.cursor(query.get("after"))
        } catch let error as Pagination.Invalid {
          throw APIError(status: .badRequest, message: error.message)
        }
        let page = try viewModel.loadPage(after: cursor, limit: limit)
        var response = try jsonResponse(page.items)
        if let next = page.next, let link = HTTPField.Name("Link") {
          response.headers[link] = "</api/todos?limit=\(limit)&after=\(next.text)>; rel=\"next\""
        }
        return response
      }
    }
    api.get(":id") { _, context in
      try await respond(context) {
        // One item read (on SQLite, one row by its primary key), not the whole list.
        try jsonResponse(try makeViewModel().item(id: try itemID(context)))
      }
    }
    api.post { request, context in
      let body = await Self.body(of: request)
      return try await respond(context) {
        let input = try decode(NewItem.self, from: body, example: #"{"title": "Buy milk"}"#)
        let item = try makeViewModel().add(title: input.title)
        var response = try jsonResponse(item, status: .created)
        response.headers[.location] = "/api/todos/\(item.id.uuidString)"
        return response
      }
    }
    api.patch(":id") { request, context in
      let body = await Self.body(of: request)
      return try await respond(context) {
        let id = try itemID(context)
        let change = try decode(Change.self, from: body, example: #"{"done": true}"#)
        return try jsonResponse(try makeViewModel().setDone(change.done, id: id))
      }
    }
    api.delete(":id") { _, context in
      try await respond(context) {
        try makeViewModel().delete(id: try itemID(context))
        return Response(status: .noContent)
      }
    }
  }

  /// How many items the whole list is read and sent in at a time.
  static let streamedPageSize = TodoPage.maximumLimit

  /// The whole list as one JSON array, read and sent a page at a time as the client takes it:
  /// a client that asks for a long list and reads it slowly (or never) holds one page of it in
  /// the server's memory, not the whole list encoded. The first page is read before answering,
  /// so a storage failure is still a 500 with a JSON error.
  private static func wholeList(_ viewModel: any TodoListViewModel, blockingWork: BlockingWork) throws -> Response {
    let first = try viewModel.loadPage(after: nil, limit: streamedPageSize)
    return Response(
      status: .ok,
      headers: [.contentType: "application/json; charset=utf-8"],
      body: ResponseBody { writer in
        let encoder = apiJSONEncoder()
        var page = first
        var separator = "["
        while true {
          var chunk = ByteBuffer()
          for item in page.items {
            chunk.writeString(separator)
            chunk.writeBytes(try encoder.encode(item))
            separator = ","
          }
          try await writer.write(chunk)
          guard let next = page.next else { break }
          // The response is under way: its later pages are not refused when the queue is full.
          page = try await blockingWork.continuing { try viewModel.loadPage(after: next, limit: streamedPageSize) }
        }
        try await writer.write(ByteBuffer(string: separator == "[" ? "[]" : "]"))
        try await writer.finish(nil)
      }
    )
  }

  private func makeViewModel() throws -> any TodoListViewModel {
    try server.showcase.makeAPIViewModel()
  }

  // MARK: - Input and errors

  private struct APIError: Error {
    var status: HTTPResponse.Status
    var message: String
  }

  /// The request body, or `nil` if it is larger than 64 KiB.
  private static func body(of request: Request) async -> ByteBuffer? {
    try? await request.body.collect(upTo: 64 * 1024)
  }

  private func itemID(_ context: BasicRequestContext) throws -> UUID {
    let text = try context.parameters.require("id")
    guard let id = UUID(uuidString: text) else {
      throw APIError(status: .notFound, message: "No to-do item has the id \(EscapedText.echoed(text)).")
    }
    return id
  }

  private func decode<T: Decodable>(_ type: T.Type, from body: ByteBuffer?, example: String) throws -> T {
    guard let body else {
      throw APIError(status: .contentTooLarge, message: "The body is larger than 64 KiB.")
    }
    do {
      return try JSONDecoder().decode(T.self, from: Data(buffer: body))
    } catch {
      throw APIError(status: .badRequest, message: "The body must be JSON like \(example).")
    }
  }

  /// Runs `body` off the cooperative pool (it blocks on storage, see ``BlockingWork``), turning
  /// the errors it throws into JSON error responses; 503 with `Retry-After` when too many storage
  /// calls are already waiting.
  private func respond(
    _ context: BasicRequestContext, _ body: @escaping @Sendable () throws -> Response
  ) async throws -> Response {
    do {
      return try await server.blockingWork.run { try respondNow(context, body) }
    } catch is BlockingWork.Busy {
      var response = try errorResponse(.serviceUnavailable, BlockingWork.busyMessage)
      response.headers[.retryAfter] = "\(BlockingWork.retryAfterSeconds)"
      return response
    }
  }

  /// Runs `body`, turning the errors it throws into JSON error responses. A storage or wiring
  /// failure is logged in full and answered with a generic message naming the request id, so
  /// file paths and decoder details stay on the server.
  private func respondNow(_ context: BasicRequestContext, _ body: () throws -> Response) throws -> Response {
    do {
      return try body()
    } catch let error as APIError {
      return try errorResponse(error.status, error.message)
    } catch let error as TodoError {
      switch error {
      case .notFound: return try errorResponse(.notFound, error.description)
      case .listFull: return try errorResponse(.conflict, error.description)
      case .emptyTitle, .blankTitle, .titleTooLong, .titleTooComplex, .controlCharacter, .invisibleCharacter,
        .strayVariationSelector, .unusableCharacter:
        return try errorResponse(.unprocessableContent, error.description)
      }
    } catch let error as StorageError {
      return try errorResponse(
        .internalServerError,
        InternalFailure.report(error, kind: "storage", context: context, budget: server.failureLogBudget))
    } catch let error as ResolutionError {
      return try errorResponse(
        .internalServerError,
        InternalFailure.report(error, kind: "wiring", context: context, budget: server.failureLogBudget))
    }
  }

  private func errorResponse(_ status: HTTPResponse.Status, _ message: String) throws -> Response {
    try jsonResponse(["error": message], status: status)
  }
}

/// The API's JSON encoder: ISO 8601 dates, sorted keys, slashes as they are.
func apiJSONEncoder() -> JSONEncoder {
  let encoder = JSONEncoder()
  encoder.dateEncodingStrategy = .iso8601
  encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
  return encoder
}

func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
  let encoder = apiJSONEncoder()
  return Response(
    status: status,
    headers: [.contentType: "application/json; charset=utf-8"],
    body: .init(byteBuffer: ByteBuffer(data: try encoder.encode(value)))
  )
}
