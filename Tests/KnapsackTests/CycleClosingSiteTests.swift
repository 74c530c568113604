import Knapsack
import Testing

extension Dependencies {
  fileprivate var closingFront: Key<CycleNode> { Key { r in CycleNode("front", next: try r[\.closingBack]) } }
  fileprivate var closingBack: Key<CycleNode> { Key { CycleNode("back") } }
}

/// A cycle's message names the line that closes its loop (the call that asks for a member again),
/// as well as each member's sites: where the loop closes inside a decorator, that line is the only
/// one in the message that points at the decorator.
@Suite struct CycleClosingSiteTests {
  /// `\.closingBack`'s decorator asks for `\.closingFront`, which asks for `\.closingBack`.
  @Test func aCycleThatClosesInADecoratorNamesTheDecoratorsLine() throws {
    let container = Container()
    let decoratorLine = #line + 1
    container.decorate(\.closingBack) { r, back in CycleNode("decorated", next: try r[\.closingFront]) }
    let error = try #require(throws: ResolutionError.self) { try container[\.closingFront] }
    #expect(error.kind == .cycle)
    let site = "KnapsackTests/CycleClosingSiteTests.swift:\(decoratorLine)"
    #expect(error.requestedAt?.description == site)
    #expect(
      error.description.contains("  closed at \(site), which asks for \\.closingFront again"), "\(error)")
  }

  /// A decorator that asks for the key it decorates: the loop is that one key, closed in the
  /// decorator, whichever root the run starts from.
  @Test func validationNamesTheDecoratorsLineOfACycle() async throws {
    let container = Container()
    let decoratorLine = #line + 1
    container.decorate(\.closingBack) { r, back in CycleNode("decorated", next: try r[\.closingBack]) }
    let report = await container.validate(including: [\.closingFront])
    let problem = try #require(report.problems(.cycle).first, "\(report)")
    let site = "KnapsackTests/CycleClosingSiteTests.swift:\(decoratorLine)"
    #expect(problem.requestedAt?.description == site)
    #expect(problem.description.contains("    closed at \(site), which asks for \\.closingBack again"), "\(problem)")
    let error = try #require(throws: ResolutionError.self) { try container[\.closingFront] }
    #expect(error.requestedAt?.description == site)
  }

  /// In a factory, the line is the factory's call.
  @Test func aCycleInFactoriesNamesTheCallThatClosesIt() throws {
    let container = Container()
    container.register(\.closingFront) { r in CycleNode("front", next: try r[\.closingBack]) }
    let closingLine = #line + 1
    container.register(\.closingBack) { r in CycleNode("back", next: try r[\.closingFront]) }
    let error = try #require(throws: ResolutionError.self) { try container[\.closingFront] }
    #expect(
      error.description.contains(
        "  closed at KnapsackTests/CycleClosingSiteTests.swift:\(closingLine), which asks for \\.closingFront again"),
      "\(error)")
  }

  /// A loop closed by a call that names no line (a protocol of the user's, whose
  /// `resolve<T>()` passes none): the top-level call for the loop's first dependency did not close
  /// it, and is not named as if it had.
  @Test func aCycleClosedByACallWithNoLineNamesNoClosingLine() throws {
    let container = Container()
    container.register(type: ClosingFront.self) { r in ClosingFront(back: try r.resolve(type: ClosingBack.self)) }
    container.register(type: ClosingBack.self) { r in
      let provider: any ClosingProvider = r
      let front: ClosingFront = try provider.resolve()
      return ClosingBack(front: front)
    }
    let topLevel = #line + 1
    let error = try #require(throws: ResolutionError.self) { try container.resolve(type: ClosingFront.self) }
    #expect(error.kind == .cycle)
    #expect(!error.description.contains("CycleClosingSiteTests.swift:\(topLevel)"), "\(error)")
    #expect(!error.description.contains("closed at"), "\(error)")
    // In a decorator, such a call is named by where the decorator was added.
    let decorated = Container()
    decorated.register(type: ClosingBack.self) { ClosingBack(front: nil) }
    let decoratorLine = #line + 1
    decorated.decorate(type: ClosingBack.self) { r, _ in
      let provider: any ClosingProvider = r
      let again: ClosingBack = try provider.resolve()
      return again
    }
    let loop = try #require(throws: ResolutionError.self) { try decorated.resolve(type: ClosingBack.self) }
    #expect(loop.kind == .cycle)
    #expect(
      loop.description.contains("closed at KnapsackTests/CycleClosingSiteTests.swift:\(decoratorLine)"), "\(loop)")
  }
}

/// A hand-written provider protocol, as an app migrating to Knapsack may keep.
private protocol ClosingProvider {
  func resolve<T>() throws -> T
}

extension Resolver: ClosingProvider {}

private final class ClosingFront: Sendable {
  let back: ClosingBack
  init(back: ClosingBack) { self.back = back }
}

private final class ClosingBack: Sendable {
  let front: ClosingFront?
  init(front: ClosingFront?) { self.front = front }
}
