import DIShowcase
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Testing

@testable import TodoShowcaseApp

/// Runs `body` with the port of `server`'s HTTP application, started on `127.0.0.1` with
/// `connectionLimit`, and shuts it down gracefully after. Unlike HummingbirdTesting's live client,
/// it opens no connection of its own, so the test knows every connection the server counts.
private func withRunningServer(
  _ server: ShowcaseServer = ShowcaseServer(storage: InMemoryStorage(), storageLabel: "test"),
  idleTimeout: Duration = .seconds(60),
  connectionLimit: ConnectionLimit,
  _ body: (Int) async throws -> Void
) async throws {
  let (ports, announce) = AsyncStream<Int>.makeStream()
  let app = server.makeApplication(
    host: "127.0.0.1", port: 0, idleTimeout: idleTimeout, connectionLimit: connectionLimit
  ) { port in announce.yield(port) }
  let services = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "test")))
  try await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { try await services.run() }
    var iterator = ports.makeAsyncIterator()
    let port = try #require(await iterator.next())
    do {
      try await body(port)
    } catch {
      await services.triggerGracefulShutdown()
      throw error
    }
    await services.triggerGracefulShutdown()
  }
}

/// A request answered with a `Content-Length` body, the connection kept open.
private let request = "GET /api/todos?limit=1 HTTP/1.1\r\nHost: localhost\r\n\r\n"

/// Whether `connection` gets a 200 for ``request``.
private func isServed(_ connection: RawConnection) async throws -> Bool {
  try connection.send(request)
  return try await connection.readResponse(within: .seconds(30)).hasPrefix("HTTP/1.1 200 ")
}

/// Checks that `connection` is refused: a 503 with `Retry-After`, `Connection: close` and the
/// security headers, sent without reading a request, then the connection closed.
private func expectRefused(_ connection: RawConnection, sourceLocation: SourceLocation = #_sourceLocation) async throws
{
  var received = ""
  #expect(try await connection.waitForClose(within: .seconds(30), received: &received), sourceLocation: sourceLocation)
  let head = received.components(separatedBy: "\r\n\r\n").first?.lowercased() ?? ""
  #expect(head.hasPrefix("http/1.1 503 "), "\(received)", sourceLocation: sourceLocation)
  #expect(head.contains("\r\nretry-after: \(ConnectionLimit.retryAfterSeconds)"), sourceLocation: sourceLocation)
  #expect(head.contains("\r\nconnection: close"), sourceLocation: sourceLocation)
  #expect(head.contains("\r\ncontent-security-policy: "), sourceLocation: sourceLocation)
  #expect(received.hasSuffix(ConnectionLimit.refusalMessage + "\n"), sourceLocation: sourceLocation)
}

/// A new connection the server has admitted (answered). The server frees a closed connection's
/// place on its own event loop, a moment after the client sees the close, so this retries (each
/// refused try is closed by the server, so tries do not pile up); bounded only to end a broken
/// test instead of hanging.
private func admitted(port: Int) async throws -> RawConnection {
  let deadline = ContinuousClock.now + .seconds(30)
  while ContinuousClock.now < deadline {
    let connection = try RawConnection(port: port)
    if try await isServed(connection) { return connection }
    try await Task.sleep(for: .milliseconds(20))
  }
  throw RawConnection.Failure(step: "a new connection admitted")
}

@Suite("Connection limit")
struct ConnectionLimitTests {
  @Test(
    "One connection over the limit gets 503 and is closed, the open ones still work, and a closed one frees its place",
    .timeLimit(.minutes(2)))
  func totalLimit() async throws {
    try await withRunningServer(connectionLimit: ConnectionLimit(total: 3, perAddress: 100)) { port in
      // Each is answered, so the server has counted it.
      var first: RawConnection? = try RawConnection(port: port)
      var second: RawConnection? = try RawConnection(port: port)
      let third = try RawConnection(port: port)
      for connection in [first, second, third].compactMap(\.self) {
        #expect(try await isServed(connection))
      }
      try await expectRefused(try RawConnection(port: port))
      try await expectRefused(try RawConnection(port: port))
      // The refusals took no place: the open connections still work.
      #expect(try await isServed(try #require(first)))
      #expect(try await isServed(try #require(second)))
      #expect(try await isServed(third))

      // The client closes one: its place is free again, and only that one.
      first = nil
      let replacement = try await admitted(port: port)
      try await expectRefused(try RawConnection(port: port))

      // The server closes one after `Connection: close`: Hummingbird shuts its side down, and the
      // connection ends (its place is free again) once the client closes its side as well.
      try second?.send("GET /api/todos?limit=1 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
      var ignored = ""
      #expect(try await second?.waitForClose(within: .seconds(30), received: &ignored) == true)
      second = nil
      let another = try await admitted(port: port)
      try await expectRefused(try RawConnection(port: port))
      for connection in [third, replacement, another] {
        #expect(try await isServed(connection))
      }
    }
  }

  @Test("A connection closed by the idle timeout frees its place", .timeLimit(.minutes(2)))
  func idleConnectionFreesPlace() async throws {
    try await withRunningServer(idleTimeout: .seconds(1), connectionLimit: ConnectionLimit(total: 1, perAddress: 1)) {
      port in
      let idle = try RawConnection(port: port)
      #expect(try await isServed(idle))
      try await expectRefused(try RawConnection(port: port))
      var ignored = ""
      #expect(try await idle.waitForClose(within: .seconds(30), received: &ignored))

      // A client that never closes its side after the server's answer to `Connection: close`
      // (which shuts only the server's side) holds its place until the idle timeout, not for ever.
      let halfClosed = try await admitted(port: port)
      try halfClosed.send("GET /api/todos?limit=1 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
      #expect(try await halfClosed.waitForClose(within: .seconds(30), received: &ignored))
      _ = try await admitted(port: port)
      withExtendedLifetime(halfClosed) {}
    }
  }

  @Test("A connection closed for a malformed request frees its place", .timeLimit(.minutes(2)))
  func malformedRequestFreesPlace() async throws {
    try await withRunningServer(connectionLimit: ConnectionLimit(total: 1, perAddress: 1)) { port in
      // Hummingbird's parser answers 400 and shuts its side down; the connection ends when the
      // client closes its side too.
      var malformed: RawConnection? = try RawConnection(port: port)
      try malformed?.send("HELLO\r\n\r\n")
      var reply = ""
      #expect(try await malformed?.waitForClose(within: .seconds(30), received: &reply) == true)
      #expect(reply.hasPrefix("HTTP/1.1 400 "))
      malformed = nil
      let next = try await admitted(port: port)
      try await expectRefused(try RawConnection(port: port))
      #expect(try await isServed(next))
    }
  }

  #if os(Linux)
  @Test("One address over its limit is refused while another address is served", .timeLimit(.minutes(2)))
  func perAddressLimit() async throws {
    try await withRunningServer(connectionLimit: ConnectionLimit(total: 100, perAddress: 2)) { port in
      let first = try RawConnection(port: port, from: "127.0.0.1")
      let second = try RawConnection(port: port, from: "127.0.0.1")
      #expect(try await isServed(first))
      #expect(try await isServed(second))
      try await expectRefused(try RawConnection(port: port, from: "127.0.0.1"))
      // Another loopback address has places of its own.
      // (Each is kept open: a closed one would free its place.)
      let other = try RawConnection(port: port, from: "127.0.0.2")
      let another = try RawConnection(port: port, from: "127.0.0.2")
      #expect(try await isServed(other))
      #expect(try await isServed(another))
      try await expectRefused(try RawConnection(port: port, from: "127.0.0.2"))
      #expect(try await isServed(first))
      #expect(try await isServed(other))
    }
  }
  #endif

  @Test("The counter frees exactly the places it took, per address")
  func counter() {
    let counter = ConnectionCounter(limit: ConnectionLimit(total: 3, perAddress: 2))
    #expect(counter.open(from: "10.0.0.1"))
    #expect(counter.open(from: "10.0.0.1"))
    #expect(!counter.open(from: "10.0.0.1"))
    #expect(counter.open(from: "10.0.0.2"))
    #expect(!counter.open(from: "10.0.0.3"))
    #expect(counter.openConnections(from: "10.0.0.1") == (3, 2))
    counter.close(from: "10.0.0.1")
    #expect(counter.openConnections(from: "10.0.0.1") == (2, 1))
    #expect(counter.open(from: "10.0.0.3"))
    #expect(!counter.open(from: nil))
    counter.close(from: "10.0.0.2")
    #expect(counter.open(from: nil))
    #expect(counter.openConnections(from: "10.0.0.2") == (3, 0))
  }

  @Test("serve takes --max-connections (512) and --max-connections-per-address (64), and refuses 0")
  func options() throws {
    #expect(ConnectionLimit.default == ConnectionLimit(total: 512, perAddress: 64))
    let defaults = try #require(try ShowcaseCommand.parseAsRoot([]) as? ShowcaseCommand.Serve)
    #expect(defaults.maxConnections == 512)
    #expect(defaults.maxConnectionsPerAddress == 64)
    let serve = try #require(
      try ShowcaseCommand.parseAsRoot(["--max-connections", "10", "--max-connections-per-address", "3"])
        as? ShowcaseCommand.Serve)
    #expect(serve.maxConnections == 10)
    #expect(serve.maxConnectionsPerAddress == 3)
    #expect(throws: (any Error).self) { try ShowcaseCommand.parseAsRoot(["--max-connections", "0"]) }
    #expect(throws: (any Error).self) { try ShowcaseCommand.parseAsRoot(["--max-connections-per-address", "0"]) }
  }
}
