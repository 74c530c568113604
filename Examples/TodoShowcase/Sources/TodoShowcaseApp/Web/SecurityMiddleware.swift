import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Safe defaults for every route: cross-site request checks, a JSON content type for the API,
/// a request body limit, 405 with `Allow` for a wrong method, and the ``SecurityHeaders`` on every
/// routed response (``SecurityHeadersHandler`` puts them on the server's own refusals too).
///
/// A state-changing request (`POST`, `PUT`, `PATCH`, `DELETE`) from a browser must be
/// same-origin: a `Sec-Fetch-Site` other than `same-origin` or `none`, or an `Origin` whose
/// host differs from `Host`, gets 403 and changes nothing. A request with neither header
/// (curl, scripts) is not from a browser page and cannot be forged cross-site, so it passes.
///
/// With a ``HostPolicy`` (the server listens on a real address), a request whose `Host` the policy
/// does not accept gets 403: a page on another site whose name was re-pointed at this server
/// (DNS rebinding) cannot read or change the list.
///
/// The checks see the path as the router does, with empty segments dropped (`//api/todos` is
/// `/api/todos`).
struct SecurityMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The `Host` values answered; `nil` checks no `Host` (in-process tests).
  var hostPolicy: HostPolicy? = nil
  /// The app's page for a path no route serves and for a refused request outside the API, given
  /// a title and a message (plain text), so a person sees the app's own page.
  var errorPage: @Sendable (_ title: String, _ message: String) -> String

  /// The largest request body accepted; a larger one gets 413.
  static var bodyLimit: Int { 64 * 1024 }

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws
    -> Response
  {
    var response: Response
    do {
      response = try await checkedResponse(request, context: context, next: next)
    } catch let error as HTTPError where error.status == .notFound && error.body == nil {
      // No route serves the path (the router's own 404 has no text): JSON under /api/, as the
      // API's other errors, else the app's page.
      response = refusal(.notFound, "Nothing is at \(EscapedText.echoed(request.uri.path)).", request: request)
    } catch let error as any HTTPResponseError {
      response = try error.response(from: request, context: context)
    }
    SecurityHeaders.add(to: &response.headers)
    return response
  }

  private func checkedResponse(
    _ request: Request,
    context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    var request = request
    let method = request.method
    if let reason = hostPolicy?.refusalReason(Self.hostNames(request)) {
      return refusal(.forbidden, "Request refused: \(reason).", request: request)
    }
    let allowed = Self.allowedMethods(path: request.uri.path)
    if let allowed, !allowed.contains(method.rawValue) {
      var response = refusal(
        .methodNotAllowed,
        "\(method.rawValue) is not allowed here; use \(allowed.joined(separator: ", ")).",
        request: request
      )
      response.headers[.allow] = allowed.joined(separator: ", ")
      return response
    }
    guard [.post, .put, .patch, .delete].contains(method) else {
      return try await next(request, context)
    }
    if let reason = Self.crossSiteReason(request.headers, authority: request.head.authority) {
      return refusal(.forbidden, "Cross-site request refused: \(reason).", request: request)
    }
    let mediaType = request.headers[.contentType].map {
      ($0.split(separator: ";").first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
    }
    if Self.isAPI(request.uri.path) {
      if method != .delete, mediaType != "application/json" {
        return refusal(
          .unsupportedMediaType,
          "The API accepts only Content-Type: application/json.",
          request: request
        )
      }
    } else if let mediaType, mediaType != "application/x-www-form-urlencoded", allowed != nil {
      // A form route reads only URL-encoded fields: JSON or multipart would read as no title.
      // A request with no body (and so no Content-Type) is still a form with no fields. A path
      // no route serves gets its 404.
      return refusal(
        .unsupportedMediaType,
        "The forms accept only Content-Type: application/x-www-form-urlencoded.",
        request: request
      )
    }
    if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > Self.bodyLimit {
      return refusal(
        .contentTooLarge,
        "The body is larger than \(Self.bodyLimit / 1024) KiB.",
        request: request
      )
    }
    do {
      _ = try await request.collectBody(upTo: Self.bodyLimit)
    } catch is NIOTooManyBytesError {
      return refusal(
        .contentTooLarge,
        "The body is larger than \(Self.bodyLimit / 1024) KiB.",
        request: request
      )
    } catch {
      // The HTTP decoder refused the body (a chunk size that is not hex, say): it is not "too
      // large", it is malformed. Hummingbird closes the connection after this answer.
      return refusal(.badRequest, "The body could not be read: it is not valid HTTP/1.1.", request: request)
    }
    return try await next(request, context)
  }

  /// `path` as the router matches it: empty segments dropped, so `//api//todos` is `/api/todos`.
  static func normalizedPath(_ path: String) -> String {
    "/" + path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
  }

  /// Whether `path` is in the JSON API.
  static func isAPI(_ path: String) -> Bool {
    normalizedPath(path).hasPrefix("/api/")
  }

  /// The `Host` header's value, if the request has one.
  static func hostField(_ headers: HTTPFields) -> String? {
    headers.first { $0.name.canonicalName == "host" }?.value
  }

  /// Every host the request names: its authority (HTTP/1 moves the first `Host` there) and any
  /// `Host` header left among the fields (a repeated one).
  static func hostNames(_ request: Request) -> [String] {
    [request.head.authority].compactMap { $0 }
      + request.headers.filter { $0.name.canonicalName == "host" }.map(\.value)
  }

  /// The methods the route at `path` answers, or `nil` when no route matches (a 404).
  static func allowedMethods(path: String) -> [String]? {
    let segments = path.split(separator: "/", omittingEmptySubsequences: true)
    for route in routeTable where route.pattern.count == segments.count {
      if zip(route.pattern, segments).allSatisfy({ $0 == "*" || $0 == $1 }) {
        return route.methods
      }
    }
    return nil
  }

  /// Why the request is cross-site, or `nil` when it is same-origin or not from a browser.
  static func crossSiteReason(_ headers: HTTPFields, authority: String?) -> String? {
    if let site = headers.first(where: { $0.name.canonicalName == "sec-fetch-site" })?.value.lowercased() {
      return site == "same-origin" || site == "none" ? nil : "Sec-Fetch-Site is \(EscapedText.echoed(site))"
    }
    guard let origin = headers[.origin] else { return nil }
    let shown = EscapedText.echoed(origin)
    // A browser sends an origin as `scheme://host[:port]`: of a web page, http or https, with no
    // user, path, query or fragment. Anything else (`null`, `ws://`, `http://evil@host`) is not
    // this site's.
    guard let host = (hostField(headers) ?? authority)?.lowercased(), let originURL = URL(string: origin),
      let scheme = originURL.scheme?.lowercased(), scheme == "http" || scheme == "https",
      let originHost = originURL.host, originURL.user == nil, originURL.password == nil, originURL.path.isEmpty,
      originURL.query == nil, originURL.fragment == nil
    else {
      return "Origin \(shown) does not match the host"
    }
    let port = originURL.port.map { ":\($0)" } ?? ""
    // URL.host gives an IPv6 address without its brackets; Host has them (`[::1]:8080`).
    let originAuthority = (HostNames.urlHost(originHost) + port).lowercased()
    return originAuthority == host ? nil : "Origin \(shown) is not this site"
  }

  /// A refusal: JSON for the API (encoded like every other API error, so a control character
  /// copied from a header is escaped), the ``errorPage`` elsewhere.
  func refusal(_ status: HTTPResponse.Status, _ message: String, request: Request) -> Response {
    if Self.isAPI(request.uri.path), let response = try? jsonResponse(["error": message], status: status) {
      return response
    }
    // "Method Not Allowed" reads as a heading as "Method not allowed".
    let phrase = status.reasonPhrase
    return htmlResponse(status: status, errorPage(phrase.prefix(1) + phrase.dropFirst().lowercased(), message))
  }
}

/// Each route's path pattern (`*` is one segment) and its methods; `HEAD` goes with `GET`.
private let routeTable: [(pattern: [String], methods: [String])] = [
  ([], ["GET", "HEAD"]),
  (["styles", "*"], ["GET", "HEAD"]),
  (["styles", "*", "todos"], ["POST"]),
  (["styles", "*", "todos", "*", "toggle"], ["POST"]),
  (["styles", "*", "todos", "*", "delete"], ["POST"]),
  (["api", "todos"], ["GET", "HEAD", "POST"]),
  (["api", "todos", "*"], ["GET", "HEAD", "PATCH", "DELETE"]),
  (["graph"], ["GET", "HEAD"]),
  (["static", "*"], ["GET", "HEAD"]),
  (["openapi.json"], ["GET", "HEAD"]),
  (["favicon.ico"], ["GET", "HEAD"]),
]
