import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// One structured access-log line per request (method, path, status, duration) and an error line
/// for a failure, both carrying the request id Hummingbird puts in the context's logger
/// (`hb.request.id`); the id is also sent back as `X-Request-Id`.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws
    -> Response
  {
    let start = ContinuousClock.now
    var metadata: Logger.Metadata = [
      "http.method": "\(request.method.rawValue)",
      "http.path": "\(request.uri.path)",
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
      if response.status.code >= 500 {
        context.logger.error("request failed", metadata: metadata)
      } else {
        context.logger.info("request", metadata: metadata)
      }
      if let name = HTTPField.Name("X-Request-Id") { response.headers[name] = context.id }
      return response
    } catch {
      let status = (error as? any HTTPResponseError)?.status.code ?? 500
      metadata["http.status"] = "\(status)"
      metadata["duration_ms"] = elapsed()
      metadata["error"] = "\(String(describing: error))"
      if status >= 500 {
        context.logger.error("request failed", metadata: metadata)
      } else {
        context.logger.info("request", metadata: metadata)
      }
      throw error
    }
  }
}
