import DIShowcase
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import TodoShowcaseApp

/// A clock the test moves by hand.
private final class ManualClock: Sendable {
  private let instant = Mutex(ContinuousClock.now)

  var now: ContinuousClock.Instant { instant.withLock { $0 } }

  func advance(by duration: Duration) {
    instant.withLock { $0 += duration }
  }
}

@Suite("Access log rate")
struct AccessLogRateTests {
  @Test("The budget writes a burst, then one line per 1/rate seconds, and counts what it drops")
  func budget() {
    let clock = ManualClock()
    let budget = LogLineBudget("access log", linesPerSecond: 2, now: { clock.now })
    #expect(budget.take() == .write(droppedBefore: 0))
    #expect(budget.take() == .write(droppedBefore: 0))
    #expect(budget.take() == .drop)
    #expect(budget.take() == .drop)
    #expect(budget.take() == .drop)
    clock.advance(by: .milliseconds(499))
    #expect(budget.take() == .drop)
    clock.advance(by: .milliseconds(1))
    #expect(budget.take() == .write(droppedBefore: 4))
    #expect(budget.take() == .drop)
    // A long quiet spell fills the budget to the burst, no more.
    clock.advance(by: .seconds(3600 * 24 * 365))
    #expect(budget.take() == .write(droppedBefore: 1))
    #expect(budget.take() == .write(droppedBefore: 0))
    #expect(budget.take() == .drop)
    // A clock read that goes back gives no credit.
    let early = ContinuousClock.now - .seconds(10)
    let backwards = LogLineBudget("access log", linesPerSecond: 1, now: { early })
    #expect(backwards.take() == .write(droppedBefore: 0))
    #expect(backwards.take() == .drop)
  }

  @Test("Under a flood the access log writes its budget, then one line with the number dropped before the next")
  func floodIsSummarized() async throws {
    let sink = LogLines()
    let logger = Logger(label: "test") { _ in sink.handler }
    let clock = ManualClock()
    var server = ShowcaseServer(storage: InMemoryStorage(), storageLabel: "test")
    server.accessLogBudget = LogLineBudget("access log", linesPerSecond: 2, now: { clock.now })
    let router = server.makeRouter()
    try await Application(router: router, logger: logger).test(.router) { client in
      for _ in 0..<5 {
        let reply = try await client.send(.get, "/api/todos?limit=1")
        #expect(reply.status == .ok)
      }
      // Every request is still answered; only its line is dropped.
      #expect(sink.lines.withLock { $0 }.filter { $0.message == "request" }.count == 2)
      clock.advance(by: .seconds(1))
      let reply = try await client.send(.get, "/nope")
      #expect(reply.status == .notFound)
    }
    let lines = sink.lines.withLock { $0 }.filter { ["request", "access log lines dropped"].contains($0.message) }
    #expect(lines.map(\.message) == ["request", "request", "access log lines dropped", "request"])
    let summary = lines[2]
    #expect(summary.level == .warning)
    #expect(summary.metadata["log.dropped_lines"] == "3")
    #expect(summary.metadata["log.lines_per_second"] == "2")
    #expect(summary.metadata["hb.request.id"] == nil)
    #expect(lines[3].metadata["http.path"] == "/nope")
  }

  @Test("serve takes --access-log-rate, 100 by default, and refuses 0")
  func option() throws {
    #expect(ShowcaseServer.defaultAccessLogLinesPerSecond == 100)
    let defaults = try #require(try ShowcaseCommand.parseAsRoot([]) as? ShowcaseCommand.Serve)
    #expect(defaults.accessLogRate == 100)
    let serve = try #require(try ShowcaseCommand.parseAsRoot(["--access-log-rate", "5"]) as? ShowcaseCommand.Serve)
    #expect(serve.accessLogRate == 5)
    #expect(throws: (any Error).self) { try ShowcaseCommand.parseAsRoot(["--access-log-rate", "0"]) }
  }
}
