import Logging
import Synchronization

/// A token bucket for the lines a server writes per request (the access log, the internal
/// failures): at most ``linesPerSecond`` lines a second on average, and ``burst`` at once, so a
/// flood of requests cannot flood the log (`serve --access-log-rate`).
///
/// A line over the budget is dropped and counted; the next line written is preceded by one line
/// saying how many were dropped (see ``log(to:_:)``). So a flood leaves, besides the lines the
/// budget allows, one summary when it ends, once a request comes after it.
///
/// The clock is injected, so tests step time by hand. Time is counted in whole nanoseconds: each
/// line costs `1 s / linesPerSecond` of credit, and credit grows with the time passed, up to
/// ``burst`` lines' worth.
final class LogLineBudget: Sendable {
  /// Whether to write a line.
  enum Decision: Equatable, Sendable {
    /// Write it, after a summary of the lines dropped before it (when not 0).
    case write(droppedBefore: Int)
    /// Drop it; it is counted for the next summary.
    case drop
  }

  /// The lines per second unless `serve --access-log-rate` says otherwise.
  static let defaultLinesPerSecond = 100

  /// What the lines are, as the summary of dropped lines names them: `access log` gives
  /// `access log lines dropped`.
  let what: String

  /// The average rate of lines written.
  let linesPerSecond: Int
  /// The most lines written at once, after a quiet spell.
  let burst: Int

  private struct State {
    /// Nanoseconds of credit; a line costs ``LogLineBudget/cost``.
    var credit: Int64
    var last: ContinuousClock.Instant
    var dropped: Int
  }

  /// The credit one line costs, in nanoseconds.
  private let cost: Int64
  private let now: @Sendable () -> ContinuousClock.Instant
  private let state: Mutex<State>

  /// A budget of `linesPerSecond` lines a second (at least one), `burst` at once (one second's
  /// worth unless given), full at the start, for the lines `what` names; `now` reads the clock.
  init(
    _ what: String,
    linesPerSecond: Int = defaultLinesPerSecond,
    burst: Int? = nil,
    now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
  ) {
    self.what = what
    self.linesPerSecond = min(max(1, linesPerSecond), 1_000_000_000)
    self.burst = max(1, burst ?? self.linesPerSecond)
    self.cost = 1_000_000_000 / Int64(self.linesPerSecond)
    self.now = now
    let capacity = Int64(self.burst).multipliedReportingOverflow(by: cost)
    state = Mutex(State(credit: capacity.overflow ? .max : capacity.partialValue, last: now(), dropped: 0))
  }

  /// Whether the next line may be written now; takes its cost from the budget if so.
  func take() -> Decision {
    let instant = now()
    return state.withLock { state in
      let capacity = Int64(burst).multipliedReportingOverflow(by: cost)
      let limit = capacity.overflow ? Int64.max : capacity.partialValue
      if instant > state.last {
        let elapsed = ShowcaseServer.nanoseconds(state.last.duration(to: instant))
        state.credit = limit - state.credit <= elapsed ? limit : state.credit + elapsed
        state.last = instant
      }
      guard state.credit >= cost else {
        state.dropped += 1
        return .drop
      }
      state.credit -= cost
      let dropped = state.dropped
      state.dropped = 0
      return .write(droppedBefore: dropped)
    }
  }

  /// Writes one line with `write` if the budget allows; when lines were dropped since the last
  /// one written, a warning `<what> lines dropped` with their number (`log.dropped_lines`) comes
  /// first, without the request id of `logger`: they were other requests'.
  func log(to logger: Logger, _ write: (Logger) -> Void) {
    guard case .write(let dropped) = take() else { return }
    if dropped > 0 {
      var summary = logger
      summary[metadataKey: "hb.request.id"] = nil
      summary.warning(
        "\(what) lines dropped",
        metadata: [
          "log.dropped_lines": "\(dropped)",
          "log.lines_per_second": "\(linesPerSecond)",
        ])
    }
    write(logger)
  }
}
