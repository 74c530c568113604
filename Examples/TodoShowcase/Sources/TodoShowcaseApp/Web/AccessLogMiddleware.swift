import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// One structured access-log line per request (method, path, status, duration) and an error line
/// for a failure, both carrying the request id Hummingbird puts in the context's logger
/// (`hb.request.id`); the id is also sent back as `X-Request-Id`.
///
/// The path is the client's text: it is logged through ``loggable(_:)``, so it cannot fill the log
/// with 80 KiB a request, nor (should a front end other than the HTTP/1 decoder, which lets only
/// printable ASCII into a URL, pass one) drive the terminal that shows the log.
///
/// The lines are rate limited by `budget` (``LogLineBudget``): under a flood, lines over it are
/// dropped, and the next line written follows a warning line `access log lines dropped` with
/// their number (`log.dropped_lines`).
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
  /// How many lines may be written, shared by every request of the router.
  let budget: LogLineBudget

  /// The most Unicode scalars of a client's text (the path) a log line keeps. The HTTP decoder
  /// lets a URL be up to 80 KiB, which every request would otherwise copy into the log.
  static var maximumLoggedLength: Int { 256 }

  /// `text` as a log line may show it: each control character (category Cc: ESC, DEL, the C1
  /// CSI U+009B, a tab), invisible format character (Cf: U+202E, which reverses the rest of the
  /// line) or line or paragraph separator (Zl, Zp) written as `\u{1B}`, and cut after
  /// ``maximumLoggedLength`` scalars with the full length in bytes after an ellipsis.
  static func loggable(_ text: String) -> String {
    EscapedText.escaping(text, maximumScalars: maximumLoggedLength, where: EscapedText.isControlOrInvisible)
  }

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws
    -> Response
  {
    let start = ContinuousClock.now
    var metadata: Logger.Metadata = [
      "http.method": "\(request.method.rawValue)",
      "http.path": "\(Self.loggable(request.uri.path))",
    ]
    func elapsed() -> Logger.MetadataValue {
      let duration = start.duration(to: .now)
      let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
      return "\(String(format: "%.3f", milliseconds))"
    }
    do {
      var response = try await next(request, context)
      metadata["http.status"] = "\(response.status.code)"
      metadata["duration_ms"] = elapsed()
      log(status: Int(response.status.code), metadata: metadata, context: context)
      if let name = HTTPField.Name("X-Request-Id") { response.headers[name] = context.id }
      return response
    } catch {
      let status = (error as? any HTTPResponseError)?.status.code ?? 500
      metadata["http.status"] = "\(status)"
      metadata["duration_ms"] = elapsed()
      metadata["error"] = "\(String(describing: error))"
      log(status: status, metadata: metadata, context: context)
      throw error
    }
  }

  /// Writes the request's line (an error line for a 5xx) if the budget allows (see
  /// ``LogLineBudget/log(to:_:)``).
  private func log(status: Int, metadata: Logger.Metadata, context: Context) {
    budget.log(to: context.logger) { logger in
      if status >= 500 {
        logger.error("request failed", metadata: metadata)
      } else {
        logger.info("request", metadata: metadata)
      }
    }
  }
}
