import Knapsack
import Testing

// Graphs the size of a large app's (thousands of keys): operations whose cost grew faster than the
// graph give the right result at a size where they were clearly slow. Nothing here measures time:
// each test checks what the operation returns, and where it can, how much work it did.

/// A value type of its own, so that the near matches of a missing key of it are only these tests'
/// keys (every key a process sees shares one table).
struct LargeFlag: Sendable {}

extension Dependencies {
  subscript(largeFlag index: Int) -> Key<LargeFlag> { Key { LargeFlag() } }
  var largeMissingFlag: Key<LargeFlag> { .required() }
  subscript(largeRing index: Int) -> Key<Int> { Key { 0 } }
  subscript(largeDiamond level: Int, side: Int) -> Key<Int> { Key { 0 } }
  var largeMissingBelowDiamonds: Key<Int> { .required() }
  subscript(largePart index: Int) -> Key<LargePart> { Key { LargePart() } }
  var largeAggregate: Key<LargeAggregate> { Key { LargeAggregate(kept: LargePart()) } }
}

/// A part an aggregate is made of (a class, so that holding one past its use is seen).
final class LargePart: Sendable {}

/// What a factory that asks for thousands of parts makes: it keeps one of them.
final class LargeAggregate: Sendable {
  let kept: LargePart
  init(kept: LargePart) { self.kept = kept }
}

@Suite struct LargeGraphTests {
  @Test func thousandsOfKeysAskingForOneMissingKeyEachReportItWithTheNearestMatches() async {
    // 2,000 registrations of one type, each asking for a required key of that type nobody
    // registers. Each problem lists the five registrations nearest the missing key, which used to
    // read every key of the type for each problem, and each root's path was compared with every
    // path reported before it: 32 s in a debug build (9.7 s for 1,000), time quadratic in the
    // number of keys (8 s for this test, where no other test's key shares the type).
    let count = 2000
    let container = Container()
    for index in 0..<count {
      container.register(\.[largeFlag: index]) { r in try r[\.largeMissingFlag] }
    }
    let report = await container.validate()
    #expect(report.problems.count == count)
    #expect(report.problems.allSatisfy { $0.kind == .requiredKeyNotProvided && $0.path.count == 2 })
    // Nearest first: the same type, in name order, but for the key that asks (on the path).
    let names = Set(report.problems.compactMap(\.path.first?.name)).sorted()
    #expect(names.count == count)
    for problem in report.problems {
      let expected = names.filter { $0 != problem.path.first?.name }.prefix(5)
      #expect(problem.nearMatches.map(\.dependency.name) == Array(expected), "\(problem)")
      #expect(problem.nearMatches.allSatisfy { $0.site != nil })
    }
  }

  @Test func aSingletonThatAsksForThousandsOfDependenciesIsCheckedForEachOfThem() async {
    // A singleton whose factory asks for 4,000 unique parts and keeps one. The captive check
    // listed what each factory asked for by comparing each with every one listed before: 2 s in a
    // debug build for 4,000 (7.5 s for 8,000), time quadratic in their number.
    let count = 4000
    let container = Container()
    for index in 0..<count { container.register(\.[largePart: index]) { LargePart() } }
    container.register(\.largeAggregate, scope: .singleton) { r in
      var kept: LargePart?
      for index in 0..<count {
        let part = try r[\.[largePart: index]]
        if index == count / 2 { kept = part }
      }
      return LargeAggregate(kept: kept ?? LargePart())
    }
    let report = await container.validate()
    #expect(report.checkedCount == count + 1)
    let captive = report.problems(.captiveDependency)
    #expect(report.problems.count == 1, "\(report)")
    #expect(captive.first?.path.first?.name == "\\.largeAggregate")
    #expect(captive.first?.path.count == 2)
  }

  @Test func aNearMatchOfAnotherTypeOfTheBaseNameComesAfterTheSameType() async throws {
    // The near matches are read from lists kept in name order by type: the same type first, then
    // the other types of the base name (an optional), together in name order.
    let container = Container()
    container.register(type: LargeFlag.self, name: "b") { LargeFlag() }
    container.register(type: LargeFlag?.self, name: "a") { nil }
    container.register(type: LargeFlag?.self, name: "c") { nil }
    container.register(\.[largeFlag: -1]) { LargeFlag() }
    let error = #expect(throws: ResolutionError.self) { try container.resolve(type: LargeFlag.self, name: "missing") }
    let names = try #require(error).nearMatches.map(\.dependency.name)
    #expect(names.count == 4, "\(names)")
    #expect(names.first == "LargeFlag (name: \"b\")", "\(names)")
    #expect(names.dropFirst().first?.hasPrefix("\\.subscript(largeFlag:)") == true, "\(names)")
    #expect(names.dropFirst(2).allSatisfy { $0.hasPrefix("Optional<LargeFlag>") }, "\(names)")
    #expect(names.dropFirst(2).first?.contains("\"a\"") == true, "\(names)")
  }
}

// On a thread of its own, as the deep chains of `DeepChainTests` (and not under the thread
// sanitizer, for their reason).
@Suite(.enabled(if: !isThreadSanitized, "the chains hold the shared pool for minutes under the sanitizer"))
struct DeepCycleTests {
  @Test func validatingACycleLongerThanTheStackRunsEachFactoryAFewTimes() async {
    // A loop of 2,000 keys, each resolving the next, validated on a thread with an 8 MiB stack (a
    // main thread's): about 1,400 levels fit in a debug build, so the loop is too deep for the
    // stack before it closes. Each root after the first used to walk its whole way round to the
    // first root found too deep: about 200,000 factory calls and 10 s in a debug build (60 s for
    // 4,000 keys), time quadratic in the loop's length. Now each root stops at the one below it,
    // about 4,000 calls. (A build whose frames are small enough to close the loop finds a cycle.)
    let count = 2000
    let calls = Locked(0)
    let container = Container()
    for index in 0..<count {
      container.register(\.[largeRing: index]) { r in
        calls.withLock { $0 += 1 }
        return try r[\.[largeRing: (index + 1) % count]]
      }
    }
    let report = await SmallStackExecutor.run(stackSize: 8 << 20) { await container.validate() }
    #expect(report != nil, "validate() did not end")
    let problems = report?.problems ?? []
    #expect(!problems.isEmpty)
    #expect(problems.allSatisfy { $0.kind == .resolutionTooDeep || $0.kind == .cycle }, "\(problems.prefix(3))")
    #expect(report?.checkedCount ?? 0 >= count)
    #expect(calls.withLock { $0 } < 4 * count, "\(calls.withLock { $0 }) factory calls")
  }

  @Test func validatingDiamondsOverAMissingKeyReportsItOnceForEachKeyThatAsksForIt() async throws {
    // 500 levels of two keys, each resolving both keys of the level below; the two keys of the
    // last level ask for a required key nobody registers. Each level's second key used to run the
    // whole way down again and report it: 501 problems whose paths held 126,000 steps, and about
    // 250,000 factory calls (3.4 s in a debug build; 1,000 levels took 14 s and reported 500,000
    // steps). Now a root that reaches a step of a reported failing path fails there at once,
    // covered by that report: one problem for each key that asks for the missing one.
    let levels = 500
    let calls = Locked(0)
    let container = Container()
    for level in 0..<levels {
      for side in 0..<2 {
        container.register(\.[largeDiamond: level, side]) { r in
          calls.withLock { $0 += 1 }
          if level == levels - 1 { return try r[\.largeMissingBelowDiamonds] }
          return try r[\.[largeDiamond: level + 1, 0]] + r[\.[largeDiamond: level + 1, 1]]
        }
      }
    }
    let report = try #require(await SmallStackExecutor.run(stackSize: 8 << 20) { await container.validate() })
    #expect(report.problems.count == 2, "\(report.problems.map(\.path.count))")
    #expect(
      report.problems.allSatisfy {
        $0.kind == .requiredKeyNotProvided && $0.dependency.name == "\\.largeMissingBelowDiamonds"
      })
    let askers = Set(report.problems.compactMap { $0.path.dropLast().last?.name })
    #expect(askers.count == 2, "\(askers)")
    #expect(report.problems.map(\.path.count).reduce(0, +) <= 2 * (levels + 1))
    #expect(report.checkedCount == 2 * levels + 1)
    #expect(calls.withLock { $0 } < 8 * levels, "\(calls.withLock { $0 }) factory calls")
  }
}
