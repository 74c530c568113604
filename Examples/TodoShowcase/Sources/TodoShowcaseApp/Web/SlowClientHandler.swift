import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client is too slow to be honest, where Hummingbird's idle timeout
/// alone would keep it open:
///
/// - **A request that takes too long to arrive.** The idle timeout counts from the last part
///   read, so a body sent one byte at a time, each just inside it, would hold the connection for
///   days. From its head, a request must arrive whole (body and end) within `timeout`.
/// - **A response the client does not read.** While a response is being written the idle
///   timeout does not apply at all, so a client that asks for the whole list and never reads it
///   would hold the connection, and the response in memory, for ever. When the connection stays
///   unable to take more output (the client's window is full) for `timeout`, it is closed.
///
/// Added after HTTP decoding (``ShowcaseServer/makeApplication(host:port:idleTimeout:allowedHosts:connectionLimit:onRunning:)``),
/// one per connection.
final class SlowClientHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private let timeout: TimeAmount
  /// Closes the connection if the request being read is not whole in time.
  private var requestDeadline: Scheduled<Void>?
  /// Closes the connection if it stays unwritable.
  private var writeDeadline: Scheduled<Void>?

  init(timeout: TimeAmount) {
    self.timeout = timeout
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head:
      requestDeadline?.cancel()
      requestDeadline = closing(context, after: timeout)
    case .body:
      break
    case .end:
      requestDeadline?.cancel()
      requestDeadline = nil
    }
    context.fireChannelRead(data)
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    if context.channel.isWritable {
      writeDeadline?.cancel()
      writeDeadline = nil
    } else if writeDeadline == nil {
      writeDeadline = closing(context, after: timeout)
    }
    context.fireChannelWritabilityChanged()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    requestDeadline?.cancel()
    writeDeadline?.cancel()
    requestDeadline = nil
    writeDeadline = nil
  }

  func channelInactive(context: ChannelHandlerContext) {
    requestDeadline?.cancel()
    writeDeadline?.cancel()
    requestDeadline = nil
    writeDeadline = nil
    context.fireChannelInactive()
  }

  private func closing(_ context: ChannelHandlerContext, after delay: TimeAmount) -> Scheduled<Void> {
    context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
      context.close(promise: nil)
    }
  }
}
