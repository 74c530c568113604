public import DIShowcase
import Foundation
public import Hummingbird
import Logging

/// The web app: the tabbed page, one page per DI style, the JSON API and the graph page,
/// all on one storage.
public struct ShowcaseServer: Sendable {
  /// The styles' factories and the app's container, on one storage.
  public let showcase: Showcase
  /// Shown in the page header, such as `sqlite`.
  public let storageLabel: String

  public init(storage: any LocalStorage, storageLabel: String) {
    self.showcase = Showcase(storage: storage)
    self.storageLabel = storageLabel
  }

  /// Every route of the app.
  public func makeRouter() -> Router<BasicRequestContext> {
    // HEAD is answered wherever GET is, with the GET route's headers and no body.
    let router = Router(options: .autoGenerateHeadEndpoints)
    router.add(middleware: AccessLogMiddleware())
    router.add(middleware: SecurityMiddleware())
    StaticAssets.add(to: router)
    OpenAPIDocument.add(to: router)
    HTMLRoutes(server: self).add(to: router)
    APIRoutes(server: self).add(to: router)
    GraphRoute(server: self).add(to: router)
    return router
  }

  /// Serves the app until the process is stopped; prints the address once listening.
  public func run(host: String, port: Int) async throws {
    let app = Application(
      router: makeRouter(),
      configuration: .init(address: .hostname(host, port: port), serverName: "todo-showcase"),
      onServerRunning: { channel in
        let boundPort = channel.localAddress?.port ?? port
        Console.announce("Listening on http://\(host):\(boundPort)")
      },
      logger: Self.logger
    )
    try await app.runService()
  }

  /// The app's logger: access and error lines with the request id, level from `LOG_LEVEL` (default info).
  static var logger: Logger {
    var logger = Logger(label: "todo-showcase")
    logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
    return logger
  }

  /// The screen of a style, made by its feature module's factory on the shared storage.
  func screen(styleID: String) throws -> TodoListScreen? {
    try showcase.makeScreen(styleID: styleID)
  }
}

/// Unbuffered lines on standard output, so a process reading them sees each one at once.
enum Console {
  static func announce(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
  }
}
