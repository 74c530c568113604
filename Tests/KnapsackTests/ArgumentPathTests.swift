import Foundation
import Knapsack
import Testing

// An error's path shows the argument each step was made for: the steps of a key that resolves
// itself with other arguments (a countdown, a tree) differ only in them.

struct ArgumentPathFailure: Error, CustomStringConvertible {
  var description: String { "reached zero" }
}

/// An argument whose description is longer than a path shows.
struct ArgumentPathLongName: Hashable, Sendable, CustomStringConvertible {
  var description: String { "a-very-long-argument-description-indeed" }
}

extension Dependencies {
  var argumentPathCountdown: ArgumentKey<Int, Int> {
    ArgumentKey { r, n in
      guard n > 0 else { throw ArgumentPathFailure() }
      return try r.resolve(\.argumentPathCountdown, argument: n - 1)
    }
  }
  var argumentPathAsyncCountdown: DependencyKey<AsyncKind, Int, Int> {
    DependencyKey { r, n in
      guard n > 0 else { throw ArgumentPathFailure() }
      return try await r.resolve(\.argumentPathAsyncCountdown, argument: n - 1)
    }
  }
  var argumentPathHolder: Key<Int> { Key { r in try r.resolve(\.argumentPathCountdown, argument: 2) } }
  /// 3 asks for 1, 1 for 2, and 2 for 1 again: a loop that the walk enters at 1.
  var argumentPathWalk: ArgumentKey<Int, Int> {
    ArgumentKey { r, n in try r.resolve(\.argumentPathWalk, argument: n == 1 ? 2 : 1) }
  }
  var argumentPathLong: ArgumentKey<ArgumentPathLongName, Int> {
    ArgumentKey { r, _ in try r[\.argumentPathMissing] }
  }
  var argumentPathMissing: Key<Int> { .required() }
}

@Suite struct ArgumentPathTests {
  @Test func aFailingStepOfACountdownShowsEachArgument() {
    let error = #expect(throws: ResolutionError.self) {
      try Container().resolve(\.argumentPathCountdown, argument: 3)
    }
    #expect(error?.kind == .factoryFailed)
    // The path itself keeps the keys; its text shows the arguments.
    #expect(error?.path.map(\.name) == Array(repeating: "\\.argumentPathCountdown", count: 4))
    let steps =
      "\\.argumentPathCountdown(3) → \\.argumentPathCountdown(2) → \\.argumentPathCountdown(1)"
      + " → \\.argumentPathCountdown(0)"
    #expect(error?.pathDescription == steps)
    #expect(error?.description.contains("  path: \(steps)") == true, "\(String(describing: error))")
  }

  @Test func anAsynchronousCountdownShowsEachArgument() async {
    let error = await #expect(throws: ResolutionError.self) {
      try await Container().resolve(\.argumentPathAsyncCountdown, argument: 2)
    }
    #expect(
      error?.pathDescription
        == "\\.argumentPathAsyncCountdown(2) → \\.argumentPathAsyncCountdown(1) → \\.argumentPathAsyncCountdown(0)")
  }

  @Test func onlyTheStepsMadeForAnArgumentShowOne() {
    let error = #expect(throws: ResolutionError.self) { try Container()[\.argumentPathHolder] }
    #expect(
      error?.pathDescription
        == "\\.argumentPathHolder → \\.argumentPathCountdown(2) → \\.argumentPathCountdown(1)"
        + " → \\.argumentPathCountdown(0)")
  }

  @Test func aLoopOverArgumentsBeginsAtTheArgumentAskedForAgain() {
    let error = #expect(throws: ResolutionError.self) {
      try Container().resolve(\.argumentPathWalk, argument: 3)
    }
    #expect(error?.kind == .cycle)
    #expect(
      error?.description.contains(
        "dependency cycle: \\.argumentPathWalk(1) → \\.argumentPathWalk(2) → \\.argumentPathWalk(1)"
          + " (reached from \\.argumentPathWalk(3))") == true, "\(String(describing: error))")
  }

  @Test func aLongArgumentIsCutShort() {
    let error = #expect(throws: ResolutionError.self) {
      try Container().resolve(\.argumentPathLong, argument: ArgumentPathLongName())
    }
    #expect(error?.kind == .requiredKeyNotProvided)
    #expect(error?.pathDescription == "\\.argumentPathLong(a-very-long-argument-...) → \\.argumentPathMissing")
  }

  @Test func aValidationProblemsPathShowsTheArgumentsAndSurvivesEncoding() async throws {
    let report = await Container().validate(
      including: [\.argumentPathCountdown], arguments: [\.argumentPathCountdown: 2])
    let problem = report.problems(.factoryFailed).first
    #expect(
      problem?.description.contains(
        "path: \\.argumentPathCountdown(2) → \\.argumentPathCountdown(1) → \\.argumentPathCountdown(0)") == true,
      "\(report)")
    let decoded = try JSONDecoder().decode(ValidationReport.self, from: JSONEncoder().encode(report))
    #expect(decoded == report)
    #expect(decoded.description == report.description)
  }

  @Test func aTooDeepChainShowsTheArgumentsAtBothEnds() async {
    let outcome = await onSmallStackThread { () -> ResolutionError? in
      do {
        _ = try Container().resolve(\.argumentPathCountdown, argument: 100_000)
        return nil
      } catch {
        return error as? ResolutionError
      }
    }
    let error = outcome ?? nil
    #expect(error?.kind == .resolutionTooDeep)
    #expect(
      error?.description.contains(
        "path: \\.argumentPathCountdown(100000) → \\.argumentPathCountdown(99999) → \\.argumentPathCountdown(99998)"
      ) == true, "\(String(describing: error).prefix(600))")
    let depth = error?.path.count ?? 0
    #expect(error?.pathDescription.hasSuffix("\\.argumentPathCountdown(\(100_000 - depth + 1))") == true)
  }
}
