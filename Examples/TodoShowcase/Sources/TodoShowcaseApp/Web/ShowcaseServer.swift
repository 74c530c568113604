public import DIShowcase
import Foundation
public import Hummingbird
import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The web app: the tabbed page, one page per DI style, the JSON API and the graph page,
/// all on one storage.
public struct ShowcaseServer: Sendable {
  /// The styles' factories and the app's container, on one storage.
  public let showcase: Showcase
  /// Shown in the page header, such as `sqlite`.
  public let storageLabel: String
  /// Where the routes run their storage calls: off the cooperative pool, at most a set number
  /// at once (see ``BlockingWork``).
  let blockingWork: BlockingWork
  /// How many access log lines a second the routers write (see ``LogLineBudget``).
  var accessLogBudget: LogLineBudget
  /// How many `internal failure` lines a second the routes write: as many as access log lines,
  /// from a budget of their own, so that a flood of requests does not crowd them out.
  var failureLogBudget: LogLineBudget

  /// The app on `storage`.
  ///
  /// - Parameters:
  ///   - storage: The store all four styles share.
  ///   - storageLabel: Shown in the page header, such as `sqlite`.
  ///   - maximumStorageCalls: The most storage calls queued or running at once; a request that
  ///     would need one more gets 503 with `Retry-After` (`serve --max-storage-calls`).
  ///   - accessLogLinesPerSecond: The most access log lines a second (as many at once), and
  ///     the most `internal failure` lines; more are dropped and counted in the next line
  ///     written (`serve --access-log-rate`).
  public init(
    storage: any LocalStorage,
    storageLabel: String,
    maximumStorageCalls: Int = defaultMaximumStorageCalls,
    accessLogLinesPerSecond: Int = defaultAccessLogLinesPerSecond
  ) {
    self.showcase = Showcase(storage: storage)
    self.storageLabel = storageLabel
    self.blockingWork = BlockingWork(limit: maximumStorageCalls)
    self.accessLogBudget = LogLineBudget("access log", linesPerSecond: accessLogLinesPerSecond)
    self.failureLogBudget = LogLineBudget("internal failure", linesPerSecond: accessLogLinesPerSecond)
  }

  /// How many access log lines a second are written by default.
  public static var defaultAccessLogLinesPerSecond: Int { LogLineBudget.defaultLinesPerSecond }

  /// How many storage calls may be queued or running at once by default.
  public static var defaultMaximumStorageCalls: Int { BlockingWork.defaultLimit }

  /// How long an HTTP/1 connection may send nothing (no complete request head, no body bytes
  /// of a request being read, nothing after the last response) before the server closes it.
  public static let defaultIdleTimeout: Duration = .seconds(30)

  /// Every route of the app.
  ///
  /// - Parameters:
  ///   - listenHost: The address the server listens on. Requests whose `Host` is not a name it
  ///     answers for are refused (against DNS rebinding, see ``HostPolicy``); `nil` (in-process
  ///     tests) checks no `Host`.
  ///   - allowedHosts: Names answered besides IP addresses and loopback names (`--allowed-host`).
  public func makeRouter(listenHost: String? = nil, allowedHosts: [String] = []) -> Router<BasicRequestContext> {
    // HEAD is answered wherever GET is, with the GET route's headers and no body.
    let router = Router(options: .autoGenerateHeadEndpoints)
    router.add(middleware: AccessLogMiddleware(budget: accessLogBudget))
    router.add(
      middleware: SecurityMiddleware(
        hostPolicy: listenHost.map { HostPolicy(listenHost: $0, allowedNames: allowedHosts) },
        errorPage: { [label = storageLabel] title, message in
          Layout.errorPage(storageLabel: label, title: title, message)
        }
      )
    )
    StaticAssets.add(to: router)
    OpenAPIDocument.add(to: router)
    HTMLRoutes(server: self).add(to: router)
    APIRoutes(server: self).add(to: router)
    GraphRoute(server: self).add(to: router)
    return router
  }

  /// Serves the app until the process is stopped; prints the address and the `Host` names it
  /// answers once listening.
  public func run(
    host: String,
    port: Int,
    idleTimeout: Duration = defaultIdleTimeout,
    allowedHosts: [String] = [],
    connectionLimit: ConnectionLimit = .default
  ) async throws {
    let policy = HostPolicy(listenHost: host, allowedNames: allowedHosts)
    if let warning = Self.logLevelWarning {
      Console.note(warning)
    }
    let app = makeApplication(
      host: host, port: port, idleTimeout: idleTimeout, allowedHosts: allowedHosts, connectionLimit: connectionLimit
    ) { boundPort in
      Console.announce(Self.listeningLine(host: host, port: boundPort))
      Console.announce(policy.announcement)
      if let warning = policy.exposureWarning { Console.note(warning) }
    }
    do {
      try await app.runService()
    } catch let error as IOError where ListenError.bindErrors.contains(error.errnoCode) {
      throw ListenError(host: host, port: port, errno: error.errnoCode)
    }
  }

  /// The start-up line, with the address as a browser takes it (`http://[::1]:8080`).
  static func listeningLine(host: String, port: Int) -> String {
    "Listening on http://\(HostNames.urlHost(host)):\(port)"
  }

  /// The HTTP/1 application on `host`:`port`, closing connections idle for `idleTimeout`, whose
  /// request takes longer than that to arrive, or that leave a response unread that long (see
  /// ``SlowClientHandler``), answering `Host` as ``HostPolicy`` says, and with the security headers
  /// on every response, the HTTP parser's refusals included (see ``SecurityHeadersHandler``), 431 for
  /// a request head over the decoder's limits (see ``HeaderOverflowHandler``), and
  /// keeping at most `connectionLimit` connections open (see ``ConnectionLimitHandler``);
  /// `onRunning` gets the bound port.
  public func makeApplication(
    host: String,
    port: Int,
    idleTimeout: Duration = defaultIdleTimeout,
    allowedHosts: [String] = [],
    connectionLimit: ConnectionLimit = .default,
    onRunning: @escaping @Sendable (Int) -> Void = { _ in }
  ) -> some ApplicationProtocol {
    // One count for all of this application's connections.
    makeApplication(
      host: host, port: port, idleTimeout: idleTimeout, allowedHosts: allowedHosts,
      connections: ConnectionCounter(limit: connectionLimit), onRunning: onRunning)
  }

  /// ``makeApplication(host:port:idleTimeout:allowedHosts:connectionLimit:onRunning:)`` with the
  /// count of its open connections given, so that a test can read it.
  func makeApplication(
    host: String,
    port: Int,
    idleTimeout: Duration,
    allowedHosts: [String] = [],
    connections: ConnectionCounter,
    onRunning: @escaping @Sendable (Int) -> Void = { _ in }
  ) -> some ApplicationProtocol {
    Application(
      router: makeRouter(listenHost: host, allowedHosts: allowedHosts),
      server: .http1(
        configuration: .init(
          // Made anew for each connection. The limit's handler comes last, so the 503 it writes
          // goes out through the security headers' handler.
          additionalChannelHandlers: [
            SlowClientHandler(timeout: .nanoseconds(Self.nanoseconds(idleTimeout))), ConnectionCloseHandler(),
            SecurityHeadersHandler(),
            HeaderOverflowHandler(), ConnectionLimitHandler(counter: connections),
          ],
          idleTimeout: .nanoseconds(Self.nanoseconds(idleTimeout))
        )
      ),
      configuration: .init(address: .hostname(host, port: port), serverName: "todo-showcase"),
      onServerRunning: { channel in
        onRunning(channel.localAddress?.port ?? port)
      },
      logger: Self.logger
    )
  }

  /// `duration` in whole nanoseconds, clamped to `0...Int64.max`.
  static func nanoseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0 else { return 0 }
    guard seconds < Int64.max / 1_000_000_000 - 1 else { return .max }
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }

  /// The app's logger: access and error lines with the request id, level from `LOG_LEVEL` (default info).
  static var logger: Logger {
    var logger = Logger(label: "todo-showcase")
    logger.logLevel = logLevel(ProcessInfo.processInfo.environment["LOG_LEVEL"]).level
    return logger
  }

  /// The level `LOG_LEVEL` names (in any case; info when unset), and a warning when it names none.
  static func logLevel(_ value: String?) -> (level: Logger.Level, warning: String?) {
    guard let value else { return (.info, nil) }
    if let level = Logger.Level(rawValue: value.lowercased()) { return (level, nil) }
    let accepted = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
    return (.info, "Warning: LOG_LEVEL \"\(value)\" is not a log level; logging at info. Use one of: \(accepted).")
  }

  /// The start-up warning for an unknown `LOG_LEVEL`, if it is one.
  static var logLevelWarning: String? {
    logLevel(ProcessInfo.processInfo.environment["LOG_LEVEL"]).warning
  }

  /// The screen of a style, made by its feature module's factory on the shared storage.
  func screen(styleID: String) throws -> TodoListScreen? {
    try showcase.makeScreen(styleID: styleID)
  }
}

/// The server could not listen on its address: printed by the command line as `Error: …` with
/// exit code 1, instead of the socket call's own text.
struct ListenError: Error, CustomStringConvertible {
  let host: String
  let port: Int
  let errno: CInt

  /// The `bind` errors it explains.
  static let bindErrors: [CInt] = [EADDRINUSE, EADDRNOTAVAIL, EACCES]

  var description: String {
    let address = "\(HostNames.urlHost(host)):\(port)"
    switch errno {
    case EADDRINUSE:
      return "Cannot listen on \(address): the port is already in use (another todo-showcase?). "
        + "Stop that process or pick another port with --port."
    case EADDRNOTAVAIL:
      return "Cannot listen on \(address): \(host) is not an address of this machine. Check --host."
    default:
      return "Cannot listen on \(address): permission denied (ports below 1024 need privileges). "
        + "Pick another port with --port."
    }
  }
}

/// Host names and addresses as the server listens on them and as requests name them.
enum HostNames {
  /// `host` as it goes in a URL: an IPv6 address in brackets.
  static func urlHost(_ host: String) -> String {
    host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
  }

  /// Whether a listen address only accepts connections from this machine: `localhost`,
  /// `127.0.0.0/8` or `::1`.
  static func isLoopbackAddress(_ host: String) -> Bool {
    isLoopbackName(host)
  }

  /// Whether `name` (a host without port, IPv6 with or without brackets) names this machine:
  /// `localhost` or any name under it (`app.localhost`, RFC 6761), a `127.x.y.z` address or
  /// `::1`, in any case and with or without a trailing dot.
  static func isLoopbackName(_ name: String) -> Bool {
    var host = name.lowercased()
    if host.hasSuffix(".") { host.removeLast() }
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    if host == "localhost" || host.hasSuffix(".localhost") { return true }
    var ipv6 = in6_addr()
    if inet_pton(AF_INET6, host, &ipv6) == 1 {
      return withUnsafeBytes(of: &ipv6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
    }
    let octets = host.split(separator: ".", omittingEmptySubsequences: false)
    return octets.count == 4 && octets.first == "127"
      && octets.allSatisfy { octet in
        !octet.isEmpty && octet.count <= 3 && octet.allSatisfy { $0.isASCII && $0.isNumber } && UInt8(octet) != nil
      }
  }

  /// The host part of a `Host` header value (`name`, `name:port`, `[v6]` or `[v6]:port`).
  static func hostPart(ofAuthority authority: String) -> String {
    if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
      return String(authority[...end])
    }
    return authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
      ?? authority
  }
}

/// Unbuffered lines on standard output, so a process reading them sees each one at once.
enum Console {
  static func announce(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
  }

  /// Writes `line` to standard error: a remark beside a command's output, not part of it.
  static func note(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }
}
