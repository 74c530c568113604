import Hummingbird
import Logging

/// A failure inside the server (storage, wiring): logged in full, answered in general terms.
enum InternalFailure {
  /// Logs `error` at error level with the request's id, within `budget` (a storage that fails
  /// every request must not fill the disk through the log: see ``LogLineBudget``), and returns
  /// the message for the client: no file path, key source or decoder detail, only the request id
  /// to find the log line by.
  static func report(
    _ error: any Error, kind: String, context: some RequestContext, budget: LogLineBudget
  ) -> String {
    budget.log(to: context.logger) { logger in
      logger.error(
        "internal failure",
        metadata: ["failure.kind": "\(kind)", "error": "\(String(describing: error))"]
      )
    }
    return "The server could not complete the request (\(kind) failure). "
      + "The details are in the server log under request id \(context.id)."
  }
}
