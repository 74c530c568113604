import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// The most connections the server keeps open at once, in all and from one peer address, so a
/// client that opens thousands of idle or slow connections cannot use up the process's file
/// descriptors and memory (`serve --max-connections`, `--max-connections-per-address`).
///
/// A connection over either limit is answered at once with `503 Service Unavailable`,
/// `Retry-After` and `Connection: close`, without reading its request, and closed.
///
/// Behind a reverse proxy every connection comes from the proxy's address: the per-address limit
/// is then one more limit on the total. An IPv6 client may own many addresses, so the per-address
/// limit slows such a client rather than stopping it; the total still holds.
public struct ConnectionLimit: Sendable, Hashable {
  /// The most connections open at once.
  public var total: Int
  /// The most connections open at once from one IP address.
  public var perAddress: Int

  /// Limits of `total` connections, at most `perAddress` of them from one IP address (each at
  /// least one).
  public init(total: Int, perAddress: Int) {
    self.total = max(1, total)
    self.perAddress = max(1, perAddress)
  }

  /// 512 in all, well under the usual 1024 file descriptors a process may open, and 64 from one
  /// address: a browser opens at most 6 to a server, `scripts/load.sh` 32.
  public static let `default` = ConnectionLimit(total: 512, perAddress: 64)

  /// The seconds a refused client is told to wait (`Retry-After`).
  static let retryAfterSeconds = 1

  /// The body of the 503 for a connection over the limit.
  static var refusalMessage: String {
    "The server has too many open connections. Try again in \(retryAfterSeconds) second"
      + (retryAfterSeconds == 1 ? "." : "s.")
  }
}

/// The connections open now, in all and per peer address, shared by every connection's
/// ``ConnectionLimitHandler`` of one server (they run on several event loops, hence the lock).
final class ConnectionCounter: Sendable {
  let limit: ConnectionLimit

  private struct State {
    var total = 0
    var byAddress: [String: Int] = [:]
  }

  private let state = Mutex(State())

  init(limit: ConnectionLimit) {
    self.limit = limit
  }

  /// Takes a place for a connection from `address` (`nil`: an address without IP, counted only in
  /// the total); `false`, taking none, when either limit is reached.
  func open(from address: String?) -> Bool {
    state.withLock { state in
      guard state.total < limit.total else { return false }
      if let address {
        let fromAddress = state.byAddress[address, default: 0]
        guard fromAddress < limit.perAddress else { return false }
        state.byAddress[address] = fromAddress + 1
      }
      state.total += 1
      return true
    }
  }

  /// Frees the place ``open(from:)`` took for a connection from `address`.
  func close(from address: String?) {
    state.withLock { state in
      state.total -= 1
      if let address, let count = state.byAddress[address] {
        state.byAddress[address] = count > 1 ? count - 1 : nil
      }
    }
  }

  /// The connections open now, in all and from `address`.
  func openConnections(from address: String? = nil) -> (total: Int, fromAddress: Int) {
    state.withLock { state in (state.total, address.flatMap { state.byAddress[$0] } ?? 0) }
  }
}

/// Admits a new connection if ``ConnectionCounter`` has a place for it, and frees the place when
/// the connection closes, whatever closes it (the client, the idle timeout, an error, the server
/// stopping): the count follows the channel's `closeFuture`, which completes once for every
/// channel.
///
/// A connection over the limit gets a `503` with `Retry-After` and `Connection: close` as soon as
/// it is active, and is closed once that is written; none of its bytes is read (this handler
/// holds back the pipeline's reads), so no request on it reaches the router.
///
/// One per connection, among the HTTP/1 channel's `additionalChannelHandlers`, after the HTTP
/// codec and ``SecurityHeadersHandler``, so the 503 is encoded like any response and carries the
/// security headers.
final class ConnectionLimitHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private let counter: ConnectionCounter
  /// Whether this connection is over the limit.
  private var isRefused = false
  /// Whether the connection's place has been decided (once, when the handler is added).
  private var isDecided = false

  init(counter: ConnectionCounter) {
    self.counter = counter
  }

  func handlerAdded(context: ChannelHandlerContext) {
    guard !isDecided else { return }
    isDecided = true
    // An accepted socket knows its peer from the start.
    let address = context.channel.remoteAddress?.ipAddress
    guard counter.open(from: address) else {
      isRefused = true
      if context.channel.isActive {
        // Not while the pipeline is still being built: on the next turn of the event loop.
        context.eventLoop.assumeIsolated().execute { self.refuse(context: context) }
      }
      return
    }
    let counter = self.counter
    context.channel.closeFuture.whenComplete { _ in counter.close(from: address) }
  }

  func channelActive(context: ChannelHandlerContext) {
    context.fireChannelActive()
    if isRefused {
      refuse(context: context)
    }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !isRefused else { return }
    context.fireChannelRead(data)
  }

  func read(context: ChannelHandlerContext) {
    guard !isRefused else { return }
    context.read()
  }

  /// Writes the 503 and closes the connection once it is written (or could not be).
  private func refuse(context: ChannelHandlerContext) {
    guard context.channel.isActive else { return }
    let body = ByteBuffer(string: ConnectionLimit.refusalMessage + "\n")
    var head = HTTPResponse(status: .serviceUnavailable)
    head.headerFields[.contentType] = "text/plain; charset=utf-8"
    head.headerFields[.contentLength] = "\(body.readableBytes)"
    head.headerFields[.retryAfter] = "\(ConnectionLimit.retryAfterSeconds)"
    head.headerFields[.connection] = "close"
    context.write(wrapOutboundOut(.head(head)), promise: nil)
    context.write(wrapOutboundOut(.body(body)), promise: nil)
    let written = context.eventLoop.makePromise(of: Void.self)
    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
    written.futureResult.assumeIsolated().whenComplete { _ in
      context.close(promise: nil)
    }
  }
}
