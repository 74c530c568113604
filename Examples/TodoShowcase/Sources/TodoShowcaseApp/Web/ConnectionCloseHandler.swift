import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Makes a request's `Connection: close` close the connection however it is spelt.
///
/// Hummingbird's connection loop ends a connection after a request whose `Connection` field is
/// exactly `close`; connection options are case-insensitive tokens of a list, though, so
/// `Connection: Close` or `keep-alive, close` left the connection open until the idle timeout
/// (with one of its client's places, see ``ConnectionLimitHandler``). This handler, after HTTP
/// decoding, rewrites such a field to `close`, and says `Connection: close` on the response, as
/// HTTP/1.1 asks of a server that closes after it.
///
/// An HTTP/1.0 request without `Connection: keep-alive` means close too, but the request's version
/// does not reach the handlers after decoding: such a connection stays open until the client
/// closes it or the idle timeout does.
final class ConnectionCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  /// Whether the request being answered asked to close the connection.
  private var closing = false

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard case .head(var request) = unwrapInboundIn(data) else {
      context.fireChannelRead(data)
      return
    }
    closing = Self.asksToClose(request.headerFields[values: .connection])
    if closing { request.headerFields[.connection] = "close" }
    context.fireChannelRead(wrapInboundOut(.head(request)))
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    guard closing, case .head(var response) = unwrapOutboundIn(data), response.status.kind != .informational else {
      context.write(data, promise: promise)
      return
    }
    response.headerFields[.connection] = "close"
    context.write(wrapOutboundOut(.head(response)), promise: promise)
  }

  /// Whether `values`, the `Connection` fields of a request, hold the option `close`, in any case.
  static func asksToClose(_ values: [String]) -> Bool {
    values.contains { value in
      value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "close" }
    }
  }
}
