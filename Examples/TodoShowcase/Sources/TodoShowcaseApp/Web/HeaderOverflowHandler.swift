import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request whose head is over the HTTP decoder's limits (80 KiB of request line and
/// header fields, one field over 80 KiB, or more than 1,000 fields) with
/// `431 Request Header Fields Too Large` instead of Hummingbird's generic `400 Bad Request`.
///
/// NIO's decoder refuses such a head with `HTTPParserError.headerOverflow`, which travels down the
/// pipeline as an error; Hummingbird's connection loop (`HTTPChannelHandler.handleHTTP`) then
/// answers any parser error with a bodiless `400` (`Connection: close`, `Content-Length: 0`) and
/// closes. This handler, after the HTTP codec, notes the overflow on its way in and changes that
/// `400` to `431` on its way out. A routed `400` always has a body and its `Content-Type`, so it is
/// never mistaken for the parser's.
///
/// The decoder counts the request line with the header fields and does not say which part
/// overflowed, so a URL over the limit gets `431` too (as Node.js, on the same llhttp parser,
/// answers); telling it apart for a `414` would mean parsing the bytes a second time.
final class HeaderOverflowHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  /// Whether the decoder refused a request head as too large.
  private var headOverflowed = false

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    if let error = error as? HTTPParserError, error == .headerOverflow {
      headOverflowed = true
    }
    context.fireErrorCaught(error)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    guard headOverflowed, case .head(var head) = unwrapOutboundIn(data), head.status == .badRequest,
      head.headerFields[.contentType] == nil
    else {
      context.write(data, promise: promise)
      return
    }
    head.status = .requestHeaderFieldsTooLarge
    context.write(wrapOutboundOut(.head(head)), promise: promise)
  }
}
