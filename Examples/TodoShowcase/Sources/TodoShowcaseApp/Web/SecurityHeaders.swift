import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The headers every response carries: a Content-Security-Policy with no inline script or style
/// and no framing, `nosniff`, `X-Frame-Options: DENY`, `Referrer-Policy: same-origin`, and
/// `Cache-Control: no-store` unless the response says how it may be cached (the static files do):
/// a page or JSON list is never kept, so Back or a shared computer's cache never shows a list
/// that has changed or that another user saw.
enum SecurityHeaders {
  /// The Content-Security-Policy: no inline script or style, no framing.
  static var contentSecurityPolicy: String {
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
      + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
  }

  /// Sets the security headers in `headers`, replacing any of the same name, and `no-store` as
  /// the `Cache-Control` if `headers` has none.
  static func add(to headers: inout HTTPFields) {
    headers[.contentSecurityPolicy] = contentSecurityPolicy
    headers[.xContentTypeOptions] = "nosniff"
    // Both names are valid header tokens, so the optional initializer always succeeds.
    if let frameOptions = HTTPField.Name("X-Frame-Options") { headers[frameOptions] = "DENY" }
    if let referrerPolicy = HTTPField.Name("Referrer-Policy") { headers[referrerPolicy] = "same-origin" }
    if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
  }
}

/// Puts the security headers on every response head the server writes on a connection, including
/// those no route or middleware sees:
///
/// - Hummingbird's own `400 Bad Request` for a request its HTTP parser refuses (a malformed request
///   line, a bad chunk size; `431` for a head over the decoder's limits, see
///   ``HeaderOverflowHandler``), written by its connection loop (`HTTPChannelHandler.handleHTTP`)
///   rather than by the router;
/// - the `503` for a connection over the limit (``ConnectionLimitHandler``);
/// - its bodiless `500` for an error that is not an `HTTPResponseError` and escaped every
///   middleware.
///
/// Every response head goes out through the channel pipeline, and this handler sits in it (among
/// the HTTP/1 channel's `additionalChannelHandlers`, after the HTTP/1 codec), so none can go out
/// without the headers. ``SecurityMiddleware`` sets the same headers on routed responses, so the
/// router carries them on its own too (the in-process tests run it without a channel).
/// Informational heads (`100 Continue`) are left as they are: they precede the final response,
/// which gets the headers.
///
/// What never gets them is a connection closed without any response: one idle, or too slow, for
/// the idle timeout (see ``SlowClientHandler``), and one whose request turns out malformed while
/// its response is already being written (Hummingbird then just closes it).
final class SecurityHeadersHandler: ChannelOutboundHandler, RemovableChannelHandler {
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    guard case .head(var head) = unwrapOutboundIn(data), head.status.kind != .informational else {
      context.write(data, promise: promise)
      return
    }
    SecurityHeaders.add(to: &head.headerFields)
    context.write(wrapOutboundOut(.head(head)), promise: promise)
  }
}
