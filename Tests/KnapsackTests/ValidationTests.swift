import Foundation
import Knapsack
import KnapsackTesting
import Testing

/// A value in the validation tests' graphs; each test makes its own.
final class ValThing: Sendable {
  let label: String
  let parts: [ValThing]
  init(_ label: String, _ parts: [ValThing] = []) {
    self.label = label
    self.parts = parts
  }
}

/// A type nobody registers.
final class ValUnregistered: Sendable {}

/// A service protocol whose live implementation is a struct.
protocol ValClockLike: Sendable { var label: String { get } }
struct ValStructClock: ValClockLike { let label = "clock" }

/// A type the tests register.
final class ValRegistered: Sendable {}

/// Closes nothing, but counts how often it was asked to.
final class ValClosable: Disposable {
  let disposals: Counter
  init(disposals: Counter) { self.disposals = disposals }
  func dispose() async throws { disposals.increment() }
}

extension Dependencies {
  // Required keys: each test registers what it needs; the rest stay missing on purpose.
  var valMissing: Key<ValThing> { .required() }
  var valUsesMissing: Key<ValThing> { .required() }
  var valUsesType: Key<ValThing> { .required() }
  var valCycleLeft: Key<ValThing> { .required() }
  var valCycleRight: Key<ValThing> { .required() }
  var valShort: Key<ValThing> { .required() }
  var valLongHolder: Key<ValThing> { .required() }
  var valSessionOnly: Key<ValThing> { .required() }
  var valParentShared: Key<ValThing> { .required() }
  var valThrows: Key<ValThing> { .required() }
  var valPlain: Key<ValThing> { .required() }
  var valPlainUser: Key<ValThing> { .required() }
  var valSideEffect: Key<ValThing> { .required() }
  var valUsesSideEffect: Key<ValThing> { .required() }
  var valSingleton: Key<ValThing> { .required() }
  var valClosable: Key<ValClosable> { .required() }
  var valAsync: AsyncKey<ValThing> { .required() }
  var valWeakThing: Key<ValThing> { .required() }
  var valGraphThing: Key<ValThing> { .required() }
  var valClockLike: Key<any ValClockLike> { .required() }
  /// Not a key: a plain property of `Dependencies`.
  var valNotAKey: Int { 42 }
  var valAlsoNotAKey: Int { 7 }
  var valAsyncHolder: AsyncKey<ValThing> { .required() }
  // A key with a default, checked only when asked for with `including:`.
  var valRootWithDefault: Key<ValThing> { Key { r in ValThing("root", [try r[\.valMissingBehindDefault]]) } }
  var valMissingBehindDefault: Key<ValThing> { .required() }
  // Multibindings, each test contributing what it needs.
  var valPlugins: Multibinding<String> { MultibindingKey() }
  var valMainPlugins: MainActorMultibinding<String> { MultibindingKey() }
  var valAsyncPlugins: AsyncMultibinding<String> { MultibindingKey() }
  var valEmptyPlugins: Multibinding<String> { MultibindingKey() }
  var valPluginNeeds: Key<String> { .required() }
  var valProfile: ArgumentKey<Int, ValThing> { .required() }
  // Has a default, is never registered, and is decorated.
  var valLogger: Key<String> { Key { "log" } }
}

/// Two types with the same short name, which a report names alike.
enum ValFirst {
  struct Config: Sendable { let name: String }
}
enum ValSecond {
  struct Config: Sendable { let name: String }
}
struct ValConfigUser: Sendable { let config: ValFirst.Config }

private let file = "KnapsackTests/ValidationTests.swift"

/// Where a key of this file was declared: the line of its `var` above.
private func declaration(of key: String) throws -> CodeLocation {
  let lines = try String(contentsOfFile: #filePath, encoding: .utf8).components(separatedBy: "\n")
  let index = try #require(lines.firstIndex { $0.contains("var \(key):") })
  return CodeLocation(fileID: file, line: index + 1)
}

/// A weak reference, to see whether an object is gone.
final class WeakReference<Object: AnyObject & Sendable>: Sendable {
  weak let object: Object?
  init(_ object: Object) { self.object = object }
}

@Suite struct ValidationTests {
  // MARK: One report with every problem

  /// A session child of a container whose graph has one of each problem kind, and the lines
  /// where the problems were registered.
  private struct BrokenGraph {
    let parent: Container
    let child: Container
    let usesMissingLine: Int
    let usesTypeLine: Int
    let cycleLeftLine: Int
    let cycleRightLine: Int
    let longHolderLine: Int
    let parentSharedLine: Int
    let throwsLine: Int
  }

  private func brokenGraph() -> BrokenGraph {
    let parent = Container()
    // A registered factory that asks for a required key nobody provides.
    let usesMissingLine = #line + 1
    parent.register(\.valUsesMissing) { r in ValThing("uses missing", [try r[\.valMissing]]) }
    // A registered factory that asks for a type nobody registered.
    let usesTypeLine = #line + 1
    parent.register(\.valUsesType) { r in
      _ = try r.resolve(type: ValUnregistered.self)
      return ValThing("uses type")
    }
    // A cycle of two keys.
    let cycleLeftLine = #line + 1
    parent.register(\.valCycleLeft) { r in ValThing("left", [try r[\.valCycleRight]]) }
    let cycleRightLine = #line + 1
    parent.register(\.valCycleRight) { r in ValThing("right", [try r[\.valCycleLeft]]) }
    // A singleton that holds a unique value.
    parent.register(\.valShort, scope: .unique) { ValThing("short") }
    let longHolderLine = #line + 1
    parent.register(\.valLongHolder, scope: .singleton) { r in ValThing("holder", [try r[\.valShort]]) }
    // A parent singleton that needs what only the session child provides.
    let parentSharedLine = #line + 1
    parent.register(\.valParentShared, scope: .singleton) { r in ValThing("shared", [try r[\.valSessionOnly]]) }
    // A factory that throws.
    let throwsLine = #line + 1
    parent.register(\.valThrows) { () throws -> ValThing in throw PlannedFailure("disk on fire") }

    let child = parent.makeChild()
    child.register(\.valSessionOnly) { ValThing("session") }
    return BrokenGraph(
      parent: parent, child: child, usesMissingLine: usesMissingLine, usesTypeLine: usesTypeLine,
      cycleLeftLine: cycleLeftLine, cycleRightLine: cycleRightLine, longHolderLine: longHolderLine,
      parentSharedLine: parentSharedLine, throwsLine: throwsLine)
  }

  @Test func oneReportListsEveryKindOfProblem() async throws {
    let graph = brokenGraph()
    let report = await graph.child.validate()
    #expect(!report.isValid)
    let kinds = Set(report.problems.map(\.kind))
    #expect(
      kinds.isSuperset(of: [.requiredKeyNotProvided, .notRegistered, .cycle, .captiveDependency, .factoryFailed]))
    // Nothing else is reported: no problem about a dependency that is fine.
    let named = Set(report.problems.map(\.dependency.name))
    #expect(
      named.isSubset(of: [
        "\\.valMissing", "ValUnregistered", "\\.valCycleLeft", "\\.valCycleRight", "\\.valLongHolder",
        "\\.valParentShared", "\\.valThrows",
      ]), "\(report)")
  }

  @Test func requiredKeyNotProvidedNamesTheKeyItsDeclarationAndThePath() async throws {
    let graph = brokenGraph()
    let problems = await graph.child.validate().problems(.requiredKeyNotProvided)
    try #require(problems.count == 1, "\(problems)")
    let problem = problems[0]
    #expect(problem.dependency.name == "\\.valMissing")
    #expect(problem.dependency.typeName == "ValThing")
    #expect(problem.dependency.location == (try declaration(of: "valMissing")))
    #expect(problem.path.map(\.name) == ["\\.valUsesMissing", "\\.valMissing"])
    #expect(problem.message.contains("\\.valMissing"))
    #expect(problem.description.contains("declared at \(file):\(try declaration(of: "valMissing").line)"))
    // Nobody registered the missing key, so the site to show is the registration that asks for it.
    #expect(problem.description.contains("\(file):\(graph.usesMissingLine)"), "\(problem)")
  }

  @Test func missingTypeRegistrationNamesTheTypeAndThePath() async throws {
    let graph = brokenGraph()
    let problems = await graph.child.validate().problems(.notRegistered)
    try #require(problems.count == 1, "\(problems)")
    let problem = problems[0]
    #expect(problem.dependency.name == "ValUnregistered")
    #expect(problem.dependency.typeName == "ValUnregistered")
    #expect(problem.path.map(\.name) == ["\\.valUsesType", "ValUnregistered"])
    #expect(problem.message.contains("ValUnregistered"))
    // A type has no declaration site; the problem still names a file:line: the registration that asks.
    #expect(problem.description.contains("\(file):\(graph.usesTypeLine)"), "\(problem)")
  }

  @Test func cycleNamesItsPathAndRegistrationSite() async throws {
    let graph = brokenGraph()
    let cycles = await graph.child.validate().problems(.cycle)
    try #require(!cycles.isEmpty)
    let left = try #require(cycles.first { $0.dependency.name == "\\.valCycleLeft" }, "\(cycles)")
    #expect(left.path.map(\.name) == ["\\.valCycleLeft", "\\.valCycleRight", "\\.valCycleLeft"])
    #expect(left.registeredAt == CodeLocation(fileID: file, line: graph.cycleLeftLine))
    #expect(left.description.contains("\\.valCycleLeft → \\.valCycleRight → \\.valCycleLeft"))
    // Each key of the loop is listed with its own registration site.
    #expect(
      left.description.contains("\\.valCycleLeft: declared at") && left.description.contains(":\(graph.cycleLeftLine)"))
    #expect(left.description.contains("\\.valCycleRight: declared at"), "\(left)")
    // Each cycle found is a simple loop through the two keys, and nothing else.
    for cycle in cycles {
      #expect(Set(cycle.path.map(\.name)) == ["\\.valCycleLeft", "\\.valCycleRight"])
      #expect(cycle.path.first == cycle.path.last)
      #expect(cycle.path.count == 3)
    }
    if let right = cycles.first(where: { $0.dependency.name == "\\.valCycleRight" }) {
      #expect(right.registeredAt == CodeLocation(fileID: file, line: graph.cycleRightLine))
    }
  }

  @Test func singletonHoldingAUniqueIsACaptiveDependency() async throws {
    let graph = brokenGraph()
    let captives = await graph.child.validate().problems(.captiveDependency)
    let holder = try #require(captives.first { $0.dependency.name == "\\.valLongHolder" }, "\(captives)")
    #expect(holder.path.map(\.name) == ["\\.valLongHolder", "\\.valShort"])
    #expect(holder.registeredAt == CodeLocation(fileID: file, line: graph.longHolderLine))
    #expect(holder.message.contains("\\.valShort"))
    #expect(holder.message.contains("singleton"))
    #expect(holder.message.contains("unique"))
  }

  @Test func parentSingletonNeedingWhatOnlyTheChildProvidesIsACaptiveDependency() async throws {
    let graph = brokenGraph()
    let captives = await graph.child.validate().problems(.captiveDependency)
    let shared = try #require(captives.first { $0.dependency.name == "\\.valParentShared" }, "\(captives)")
    #expect(shared.path.map(\.name) == ["\\.valParentShared", "\\.valSessionOnly"])
    #expect(shared.registeredAt == CodeLocation(fileID: file, line: graph.parentSharedLine))
    #expect(shared.message.contains("\\.valSessionOnly"))
    // The child provides the key, so it is not also reported as missing.
    let missing = await graph.child.validate().problems(.requiredKeyNotProvided)
    #expect(!missing.contains { $0.dependency.name == "\\.valSessionOnly" })
  }

  @Test func theParentAloneReportsTheSessionKeyAsMissing() async throws {
    let graph = brokenGraph()
    let missing = await graph.parent.validate().problems(.requiredKeyNotProvided)
    let session = try #require(missing.first { $0.dependency.name == "\\.valSessionOnly" }, "\(missing)")
    #expect(session.path.map(\.name) == ["\\.valParentShared", "\\.valSessionOnly"])
    #expect(
      await !graph.parent.validate().problems(.captiveDependency).contains {
        $0.dependency.name == "\\.valParentShared"
      })
  }

  @Test func throwingFactoryNamesItsErrorAndRegistrationSite() async throws {
    let graph = brokenGraph()
    let failures = await graph.child.validate().problems(.factoryFailed)
    try #require(failures.count == 1, "\(failures)")
    let failure = failures[0]
    #expect(failure.dependency.name == "\\.valThrows")
    #expect(failure.registeredAt == CodeLocation(fileID: file, line: graph.throwsLine))
    #expect(failure.path.map(\.name) == ["\\.valThrows"])
    #expect(failure.message.contains("disk on fire"))
    #expect(failure.description.contains("registered at \(file):\(graph.throwsLine)"))
  }

  @Test func otherRegistrationSitesAreTheRegisteringLines() async throws {
    let graph = brokenGraph()
    let report = await graph.child.validate()
    // Every problem about a registered dependency points at the line that registered it.
    let expected: [String: Int] = [
      "\\.valCycleLeft": graph.cycleLeftLine, "\\.valCycleRight": graph.cycleRightLine,
      "\\.valLongHolder": graph.longHolderLine, "\\.valParentShared": graph.parentSharedLine,
      "\\.valThrows": graph.throwsLine,
    ]
    for problem in report.problems {
      guard let line = expected[problem.dependency.name] else { continue }
      #expect(problem.registeredAt == CodeLocation(fileID: file, line: line), "\(problem)")
    }
    // The factories that asked for missing things start the path; the graph gives their sites.
    let nodes = await graph.child.graph().nodes
    #expect(
      nodes.first { $0.dependency.name == "\\.valUsesMissing" }?.registeredAt
        == CodeLocation(fileID: file, line: graph.usesMissingLine))
    #expect(
      nodes.first { $0.dependency.name == "\\.valUsesType" }?.registeredAt
        == CodeLocation(fileID: file, line: graph.usesTypeLine))
  }

  @Test func problemsAreSortedByKindThenDependency() async throws {
    let report = await brokenGraph().child.validate()
    let order = ValidationReport.Problem.Kind.allCases
    let positions = report.problems.map { order.firstIndex(of: $0.kind) ?? -1 }
    #expect(positions == positions.sorted())
    for kind in order {
      let names = report.problems(kind).map(\.dependency.name)
      #expect(names == names.sorted())
    }
  }

  /// Each problem says what to do, as the resolution error does: the same `fix:` line for a
  /// missing key, a missing type and a cycle, and one of its own for a captive dependency.
  @Test func eachProblemSaysHowToFixIt() async throws {
    let container = Container()
    container.register(\.valUsesMissing) { r in ValThing("uses", [try r[\.valMissing]]) }
    container.register(\.valUsesType) { r in
      _ = try r.resolve(type: ValThing.self, name: "nobody")
      return ValThing("type")
    }
    container.register(\.valCycleLeft) { r in try r[\.valCycleRight] }
    container.register(\.valCycleRight) { r in try r[\.valCycleLeft] }
    container.register(\.valShort) { ValThing("short") }
    container.register(\.valLongHolder, scope: .singleton) { r in ValThing("holder", [try r[\.valShort]]) }
    let report = await container.validate()
    let missing = try #require(report.problems(.requiredKeyNotProvided).first, "\(report)")
    #expect(
      missing.description.hasSuffix(
        "\n    fix: register it at the composition root, `container.register(\\.valMissing) { ... }`, or in a test, `withOverrides { $0.register(\\.valMissing) { ... } } operation: { ... }`."
      ), "\(missing)")
    let type = try #require(report.problems(.notRegistered).first, "\(report)")
    #expect(
      type.description.contains(
        "\n    fix: register it, `container.register(type: ValThing.self, name: \"nobody\") { r in ... }`"), "\(type)")
    let cycle = try #require(report.problems(.cycle).first, "\(report)")
    #expect(
      cycle.description.hasSuffix(
        "\n    fix: break the loop with `r.lazy(...)` or `r.provider(...)` on one of its edges."), "\(cycle)")
    let captive = try #require(report.problems(.captiveDependency).first, "\(report)")
    #expect(
      captive.description.hasSuffix(
        "\n    fix: have \\.valLongHolder keep a `Provider` of \\.valShort (`r.provider(...)`) and call `get()` each time it needs one, or give \\.valShort a scope at least as long-lived as \\.valLongHolder's (singleton), or \\.valLongHolder a shorter-lived one."
      ), "\(captive)")
    // The fix survives a round trip through JSON, as the rest of the report does.
    let decoded = try JSONDecoder().decode(ValidationReport.self, from: try JSONEncoder().encode(report))
    #expect(decoded.description == report.description)
  }

  /// Ten registrations that each ask for one missing type make ten problems, all in `problems`;
  /// the report's text shows three in full and names the other seven askers, so that the rest of
  /// the report is not buried.
  @Test func manyAskersOfOneMissingDependencyAreSummedUpInTheText() async throws {
    let container = Container()
    for asker in 0..<10 {
      container.register(type: ValThing.self, name: "asker \(asker)") { r in
        _ = try r.resolve(type: ValThing.self, name: "missing")
        return ValThing("asker")
      }
    }
    container.register(\.valUsesMissing) { r in ValThing("uses", [try r[\.valMissing]]) }
    let report = await container.validate()
    #expect(report.problems(.notRegistered).count == 10, "\(report)")
    let text = report.description
    #expect(text.hasPrefix("Knapsack validation: 11 problems"), "\(text)")
    #expect(
      text.components(separatedBy: "✗ notRegistered: nothing is registered for ValThing (name: \"missing\")").count
        == 4, "\(text)")
    let askers = (3..<10).map { "ValThing (name: \"asker \($0)\")" }.joined(separator: ", ")
    #expect(
      text.contains(
        "\n  … and 7 more problems of ValThing (name: \"missing\"), asked for by \(askers) (each is in `problems`)"),
      "\(text)")
    // Another missing dependency is shown as before.
    #expect(text.contains("✗ requiredKeyNotProvided: required key \\.valMissing"), "\(text)")
  }

  // MARK: The report as a value

  @Test func reportRoundTripsThroughJSON() async throws {
    let report = await brokenGraph().child.validate()
    let data = try JSONEncoder().encode(report)
    let decoded = try JSONDecoder().decode(ValidationReport.self, from: data)
    #expect(decoded == report)
    #expect(decoded.problems.count == report.problems.count)
    #expect(decoded.description == report.description)
  }

  @Test func reportsOfTheSameGraphAreEqual() async throws {
    let first = await brokenGraph().child.validate()
    let second = await brokenGraph().child.validate()
    // Two separately built graphs differ only in their registration lines... which are the
    // same, because the same helper built them.
    #expect(first == second)
    let graph = brokenGraph()
    #expect(await graph.child.validate() == graph.child.validate())
  }

  @Test func reportsOfDifferentGraphsDiffer() async throws {
    let broken = await brokenGraph().child.validate()
    let fine = await Container().validate()
    #expect(broken != fine)
    #expect(await fine == Container().validate())
  }

  @Test func reportPrintsASummaryAndEachProblem() async throws {
    let graph = brokenGraph()
    let report = await graph.child.validate()
    let text = report.description
    let lines = text.components(separatedBy: "\n")
    #expect(
      lines.first == "Knapsack validation: \(report.problems.count) problems in \(report.checkedCount) dependencies.")
    for problem in report.problems {
      #expect(text.contains("✗ \(problem.kind.rawValue): \(problem.message)"))
    }
    #expect(text.contains("  ✗ factoryFailed: "))
    #expect(text.contains("registered at \(file):\(graph.throwsLine)"))
    #expect(text.contains("path: \\.valUsesMissing → \\.valMissing"))
    #expect(text.contains("path: \\.valLongHolder → \\.valShort"))
  }

  @Test func smallReportPrintsExactly() async throws {
    let container = Container()
    let line = #line + 1
    container.register(\.valThrows) { () throws -> ValThing in throw PlannedFailure("no disk") }
    let text = await container.validate().description
    #expect(
      text == """
        Knapsack validation: 1 problem in 1 dependency.
          ✗ factoryFailed: the factory of \\.valThrows threw: no disk
              declared at \(file):\(try declaration(of: "valThrows").line)
              registered at \(file):\(line)
        """)
  }

  @Test func validGraphPrintsNoProblems() async throws {
    let container = Container()
    container.register(\.valPlain) { ValThing("plain") }
    container.register(\.valPlainUser) { r in ValThing("user", [try r[\.valPlain]]) }
    let report = await container.validate()
    #expect(report.isValid)
    #expect(report.problems.isEmpty)
    #expect(report.checkedCount == 2)
    #expect(report.description == "Knapsack validation: no problems in 2 dependencies.")
  }

  @Test func emptyContainerIsValid() async {
    let report = await Container().validate()
    #expect(report.isValid)
    #expect(report.checkedCount == 0)
    #expect(report.skipped.isEmpty)
  }

  // MARK: Which factories run

  @Test func skippedFactoriesAreNeverCalled() async throws {
    let calls = Counter()
    let container = Container()
    container.register(\.valSideEffect, scope: .singleton, hasSideEffects: true) { r in
      calls.increment()
      return ValThing("side effect", [try r[\.valMissing]])
    }
    container.register(\.valUsesSideEffect) { r in ValThing("uses", [try r[\.valSideEffect]]) }
    let report = await container.validate()
    #expect(calls.count == 0)
    #expect(report.skipped.map(\.name).contains("\\.valSideEffect"))
    // Its dependencies are not followed, so its missing dependency is not reported.
    #expect(report.isValid, "\(report)")
    // The real container still calls it (once the dependency the dry run did not follow exists).
    container.register(\.valMissing) { ValThing("now provided") }
    _ = try container[\.valUsesSideEffect]
    #expect(calls.count == 1)
  }

  @Test func aFactoryThatStopsAtASkippedRegistrationIsListedNotPassed() async throws {
    let container = Container()
    container.register(\.valSideEffect, hasSideEffects: true) { ValThing("side effect") }
    // Its second dependency is missing, but the dry run cannot get past the first.
    container.register(\.valUsesSideEffect) { r in ValThing("uses", [try r[\.valSideEffect], try r[\.valMissing]]) }
    for report in [await container.validate(), await container.validate(including: [\.valUsesSideEffect])] {
      #expect(report.skipped.map(\.name).contains("\\.valSideEffect"), "\(report)")
      #expect(report.skipped.map(\.name).contains("\\.valUsesSideEffect"), "\(report)")
      #expect(report.description.contains("stopped at a registration with side effects"))
    }
    // A factory that reaches it but survives without it is checked to the end.
    container.register(\.valUsesSideEffect) { r in
      ValThing("uses", [try? r[\.valSideEffect], try r[\.valMissing]].compactMap { $0 })
    }
    let report = await container.validate(including: [\.valUsesSideEffect])
    #expect(!report.skipped.map(\.name).contains("\\.valUsesSideEffect"))
    #expect(report.problems.map(\.dependency.name).contains("\\.valMissing"), "\(report)")
  }

  @Test func skippedFactoryReachedThroughADependencyIsNotCalledEither() async throws {
    let calls = Counter()
    let container = Container()
    container.register(\.valSideEffect, hasSideEffects: true) { () -> ValThing in
      calls.increment()
      return ValThing("side effect")
    }
    container.register(\.valUsesSideEffect, scope: .singleton) { r in ValThing("uses", [try r[\.valSideEffect]]) }
    _ = await container.validate()
    _ = await container.graph()
    _ = await container.validate(including: [\.valSideEffect, \.valUsesSideEffect])
    #expect(calls.count == 0)
  }

  @Test func skippedTypeAndAsyncRegistrationsAreNeverCalled() async throws {
    let calls = Counter()
    let container = Container()
    container.register(type: ValRegistered.self, scope: .singleton, hasSideEffects: true) { () -> ValRegistered in
      calls.increment()
      return ValRegistered()
    }
    container.register(\.valAsync, hasSideEffects: true) { _ async throws -> ValThing in
      calls.increment()
      return ValThing("async")
    }
    container.register(\.valPlain) { r in
      _ = try r.resolve(type: ValRegistered.self)
      return ValThing("plain")
    }
    let report = await container.validate()
    #expect(calls.count == 0)
    #expect(report.isValid, "\(report)")
    #expect(Set(report.skipped.map(\.name)).isSuperset(of: ["ValRegistered", "\\.valAsync"]), "\(report.skipped)")
  }

  @Test func validationKeepsNoInstance() async throws {
    let made = Counter()
    let container = Container()
    container.register(\.valSingleton, scope: .singleton) { () -> ValThing in
      made.increment()
      return ValThing("singleton \(made.count)")
    }
    let report = await container.validate()
    #expect(report.isValid)
    #expect(made.count == 1, "the dry run calls the factory")
    // The container's own singleton is made afresh, once.
    let first = try container[\.valSingleton]
    #expect(made.count == 2)
    let second = try container[\.valSingleton]
    #expect(first === second)
    #expect(made.count == 2)
    // Validating again neither reuses the container's instance nor replaces it.
    _ = await container.validate()
    #expect(made.count == 3)
    #expect(try container[\.valSingleton] === first)
  }

  @Test func validationAfterResolutionDoesNotReuseTheContainersSingleton() async throws {
    let made = Counter()
    let container = Container()
    container.register(\.valSingleton, scope: .singleton) { () -> ValThing in
      made.increment()
      return ValThing("singleton")
    }
    let mine = try container[\.valSingleton]
    _ = await container.validate()
    #expect(made.count == 2, "the dry run makes its own throw-away instance")
    #expect(try container[\.valSingleton] === mine)
  }

  @Test func instancesMadeByValidationAreNeverDisposed() async throws {
    let disposals = Counter()
    let made = Counter()
    let container = Container()
    container.register(\.valClosable, scope: .singleton) { () -> ValClosable in
      made.increment()
      return ValClosable(disposals: disposals)
    }
    _ = await container.validate()
    #expect(made.count == 1)
    try await container.dispose()
    #expect(disposals.count == 0)
  }

  @Test func asynchronousFactoriesAreRunByTheDryRun() async throws {
    let calls = Counter()
    let container = Container()
    container.register(\.valAsync) { _ async throws -> ValThing in
      calls.increment()
      return ValThing("async")
    }
    let report = await container.validate()
    #expect(report.isValid)
    #expect(report.skipped.isEmpty)
    #expect(calls.count == 1)
    #expect(!report.description.contains("not run"))
  }

  // MARK: What is checked

  @Test func keysPassedWithIncludingAreCheckedWithTheirDefaults() async throws {
    let container = Container()
    #expect(await container.validate().isValid)
    let report = await container.validate(including: [\.valRootWithDefault])
    let missing = report.problems(.requiredKeyNotProvided)
    try #require(missing.count == 1, "\(report)")
    #expect(missing[0].dependency.name == "\\.valMissingBehindDefault")
    #expect(missing[0].path.map(\.name) == ["\\.valRootWithDefault", "\\.valMissingBehindDefault"])
  }

  @Test func anIncludedRequiredKeyNobodyProvidesIsReported() async throws {
    let report = await Container().validate(including: [\.valMissing])
    let missing = report.problems(.requiredKeyNotProvided)
    try #require(missing.count == 1, "\(report)")
    #expect(missing[0].dependency.name == "\\.valMissing")
    #expect(missing[0].path.map(\.name) == ["\\.valMissing"])
  }

  @Test func includedMultibindingsOfEveryKindAreCheckedThroughTheirContributions() async throws {
    let parent = Container()
    parent.contribute(to: \.valPlugins) { _ in "from the parent" }
    let container = parent.makeChild()
    container.contribute(to: \.valPlugins) { _ in "sync" }
    container.contribute(to: \.valMainPlugins) { _ in "main actor" }
    container.contribute(to: \.valAsyncPlugins) { _ in "async" }
    let keys: [PartialKeyPath<Dependencies>] = [\.valPlugins, \.valMainPlugins, \.valAsyncPlugins, \.valEmptyPlugins]
    let report = await container.validate(including: keys)
    #expect(report.isValid, "\(report)")
    #expect(report.skipped.isEmpty && report.needsSampleArgument.isEmpty)
    // What validation accepted resolves: a multibinding nobody contributes to is empty.
    #expect(try container.resolve(\.valPlugins).sorted() == ["from the parent", "sync"])
    #expect(try container.resolve(\.valEmptyPlugins).isEmpty)
    #expect(try await container.resolve(\.valAsyncPlugins) == ["async"])
    #expect(try await container.resolve(\.valMainPlugins) == ["main actor"])
    #expect(await container.graph(including: keys).report.isValid)
  }

  @Test func aContributionThatNeedsAMissingKeyIsReportedWhenItsMultibindingIsIncluded() async throws {
    let container = Container()
    container.contribute(to: \.valMainPlugins) { r in try r.resolve(\.valPluginNeeds) }
    let report = await container.validate(including: [\.valMainPlugins])
    let missing = report.problems(.requiredKeyNotProvided)
    try #require(missing.count == 1, "\(report)")
    #expect(missing[0].dependency.name == "\\.valPluginNeeds")
    #expect(missing[0].dependency.location == (try declaration(of: "valPluginNeeds")))
    #expect(missing[0].path.first?.name.hasPrefix("\\.valMainPlugins contribution") == true)
  }

  @Test func typeRegistrationsAreValidatedToo() async throws {
    let container = Container()
    let line = #line + 1
    container.register(type: ValRegistered.self) { r in
      _ = try r.resolve(type: ValUnregistered.self)
      return ValRegistered()
    }
    let report = await container.validate()
    let missing = report.problems(.notRegistered)
    try #require(missing.count == 1, "\(report)")
    #expect(missing[0].path.map(\.name) == ["ValRegistered", "ValUnregistered"])
    // The registration that asks is a node of the graph, with its site.
    let node = await container.graph().nodes.first { $0.dependency.name == "ValRegistered" }
    #expect(node?.registeredAt == CodeLocation(fileID: file, line: line))
  }

  @Test func aSingletonHoldingASingletonOrAUniqueHoldingAnythingIsFine() async throws {
    let container = Container()
    container.register(\.valShort, scope: .singleton) { ValThing("short") }
    container.register(\.valLongHolder, scope: .singleton) { r in ValThing("holder", [try r[\.valShort]]) }
    container.register(\.valPlain, scope: .unique) { ValThing("plain") }
    container.register(\.valPlainUser, scope: .unique) { r in ValThing("user", [try r[\.valPlain], try r[\.valShort]]) }
    let report = await container.validate()
    #expect(report.isValid, "\(report)")
  }

  @Test(arguments: [(Scope.singleton, Scope.unique), (.singleton, .graph), (.singleton, .weak), (.cached, .unique)])
  func aLongerLivedScopeHoldingAShorterLivedOneIsCaptive(_ holder: Scope, _ scope: Scope) async throws {
    let container = Container()
    container.register(\.valShort, scope: scope) { ValThing("short") }
    container.register(\.valLongHolder, scope: holder) { r in ValThing("holder", [try r[\.valShort]]) }
    let captives = await container.validate().problems(.captiveDependency)
    try #require(captives.count == 1, "\(captives)")
    #expect(captives[0].dependency.name == "\\.valLongHolder")
    #expect(captives[0].message.contains("\(scope)"))
  }

  // A captive dependency is one the holder keeps: the dry run looks at what is left of each
  // instance a shared instance's factory resolved once that factory has returned.
  @Test(arguments: [Scope.unique, .weak])
  func aSharedInstanceThatOnlyReadsFromAShorterLivedOneHoldsNothing(_ scope: Scope) async throws {
    let container = Container()
    container.register(\.valShort, scope: scope) { ValThing("short") }
    container.register(\.valLongHolder, scope: .singleton) { r in ValThing("holder of " + (try r[\.valShort]).label) }
    container.register(\.valAsyncHolder, scope: .singleton) { r in ValThing("async " + (try r[\.valShort]).label) }
    let report = await container.validate()
    #expect(report.isValid, "\(report)")
  }

  /// A unique key whose factory hands out an instance that lives anyway (a process-wide
  /// `Settings.shared`, or an object the factory captured) makes nothing that a holder could
  /// keep alive longer than it would live: reading it, or keeping it, is not captive.
  @Test(arguments: [false, true])
  func aUniqueKeyHandingOutAnInstanceThatLivesAnywayIsNoCaptive(holderKeepsIt: Bool) async throws {
    let container = Container()
    let shared = ValThing("settings")
    container.register(\.valShort, scope: .unique) { shared }
    container.register(\.valLongHolder, scope: .singleton) { r in
      let settings = try r[\.valShort]
      return holderKeepsIt ? ValThing("holder", [settings]) : ValThing("holder of " + settings.label)
    }
    let report = await container.validate()
    #expect(report.isValid, "\(report)")
    withExtendedLifetime(shared) {}
  }

  /// The same holder of a unique key whose factory makes a new instance each time is captive.
  @Test func aSingletonKeepingAFreshUniqueInstanceBesidesAGlobalOneIsCaptive() async throws {
    let container = Container()
    let shared = ValThing("settings")
    container.register(\.valPlain, scope: .unique) { shared }
    container.register(\.valShort, scope: .unique) { ValThing("fresh") }
    container.register(\.valLongHolder, scope: .singleton) { r in
      ValThing("holder", [try r[\.valPlain], try r[\.valShort]])
    }
    let captives = await container.validate().problems(.captiveDependency)
    try #require(captives.count == 1, "\(captives)")
    #expect(captives[0].path.map(\.name) == ["\\.valLongHolder", "\\.valShort"])
    withExtendedLifetime(shared) {}
  }

  @Test func aSharedInstanceKeepingAValueOfAnExistentialTypeHoldsNothingShorterLived() async throws {
    let container = Container()
    container.register(\.valClockLike, scope: .unique) { ValStructClock() }
    container.register(\.valLongHolder, scope: .singleton) { r in
      let clock = try r[\.valClockLike]
      return ValThing(clock.label, [])
    }
    #expect(await container.validate().isValid)
  }

  @Test func aSharedInstanceKeepingAShorterLivedOneAmongOthersIsCaptive() async throws {
    // It reads one unique instance and keeps another of the same key: the kept one counts.
    let container = Container()
    container.register(\.valShort, scope: .unique) { ValThing("short") }
    container.register(\.valAsyncHolder, scope: .singleton) { r in
      let read = try r[\.valShort].label
      return ValThing(read, [try r[\.valShort]])
    }
    let captives = await container.validate().problems(.captiveDependency)
    #expect(captives.map(\.dependency.name) == ["\\.valAsyncHolder"])
  }

  @Test func aKeyPathThatNamesNoKeyIsReportedByName() async throws {
    let container = Container()
    container.register(\.valPlain) { ValThing("plain") }
    let report = await container.validate(including: [\.valNotAKey], arguments: [\.valNotAKey: 1])
    #expect(!report.isValid)
    let problems = report.problems(.notAKey)
    try #require(problems.count == 2, "\(report)")
    for problem in problems {
      // Named by the key path where the runtime knows its property's name, else by position.
      // (`arguments` is a dictionary, with no order: its entry is named by its sample's type.)
      #expect(
        ["\\.valNotAKey", "including[0]", "arguments (the entry whose sample is Int)"].contains(problem.dependency.name)
      )
      #expect(problem.dependency.typeName == "Int")
      #expect(problem.message.contains("not a key"))
    }
    #expect(Set(problems.map { $0.message.contains("at including[0]") }) == [true, false])
    #expect(problems.contains { $0.message.contains("at arguments (the entry whose sample is Int)") })
    #expect(report.checkedCount == 1, "\(report)")
    #expect(report.description.contains("type Int, not a key"))
  }

  @Test func twoArgumentEntriesThatNameNoKeyWithSamplesOfOneTypeAreBothReported() async throws {
    let container = Container()
    let report = await container.validate(arguments: [\.valNotAKey: 1, \.valAlsoNotAKey: 2])
    let names = Set(report.problems(.notAKey).map(\.dependency.name))
    #expect(names.count == 2, "\(report)")
    #expect(
      report.problems(.notAKey).contains { $0.message.contains("arguments (the entry whose sample is Int, 2)") },
      "\(report)")
  }

  @Test func theChildValidatesItsParentsRegistrationsToo() async throws {
    let parent = Container()
    parent.register(\.valThrows) { () throws -> ValThing in throw PlannedFailure("parent's") }
    let child = parent.makeChild()
    child.register(\.valPlain) { ValThing("plain") }
    let report = await child.validate()
    #expect(report.problems(.factoryFailed).map(\.dependency.name) == ["\\.valThrows"])
    #expect(await parent.validate().problems(.factoryFailed).count == 1)
    // The parent does not see the child's registrations.
    #expect(await parent.validate().checkedCount == 1)
  }

  @Test func validationWhileOtherThreadsResolveLeavesTheirSingletonAlone() async throws {
    let made = Counter()
    let container = Container()
    container.register(\.valSingleton, scope: .singleton) { () -> ValThing in
      made.increment()
      return ValThing("singleton")
    }
    let seen = Collected<ObjectIdentifier>()
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<8 {
        group.addTask {
          if index % 2 == 0 {
            _ = await container.validate()
          } else if let value = try? container[\.valSingleton] {
            seen.append(ObjectIdentifier(value))
          }
        }
      }
    }
    #expect(Set(seen.all).count == 1, "the container made exactly one singleton of its own")
    #expect(seen.all.count == 4)
    #expect(made.count == 5, "one for the container, one per dry run")
  }

  @Test func validationInsideAnOverrideScopeSeesTheOverrides() async throws {
    let container = Container()
    container.register(\.valUsesMissing) { r in ValThing("uses missing", [try r[\.valMissing]]) }
    #expect(await !container.validate().isValid)
    // "While `operation` runs, every resolution in this task, from any container, sees them."
    let report = await withOverrides {
      $0.register(\.valMissing) { ValThing("test double") }
    } operation: {
      await container.validate()
    }
    #expect(report.isValid, "\(report)")
  }

  @Test func validatingADisposedContainerReportsIt() async throws {
    let container = Container()
    container.register(\.valPlain) { ValThing("plain") }
    try await container.dispose()
    let report = await container.validate()
    #expect(!report.isValid)
    #expect(report.problems.allSatisfy { $0.kind == .containerDisposed }, "\(report)")
  }

  // MARK: The test-suite helper

  @Test func expectValidGraphPassesForAValidGraph() async throws {
    let container = Container()
    container.register(\.valPlain) { ValThing("plain") }
    container.register(\.valPlainUser) { r in ValThing("user", [try r[\.valPlain]]) }
    let report = await expectValidGraph(container)
    #expect(report.isValid)
    #expect(report.checkedCount == 2)
  }

  @Test func expectValidGraphRecordsAnIssuePerProblem() async throws {
    let graph = brokenGraph()
    let expected = await graph.child.validate()
    let recorded = Collected<String>()
    var returned: ValidationReport?
    await withKnownIssue {
      returned = await expectValidGraph(graph.child)
    } matching: { issue in
      recorded.append(issue.comments.map(\.rawValue).joined())
      return true
    }
    #expect(returned == expected)
    #expect(recorded.all.count == expected.problems.count)
    #expect(Set(recorded.all) == Set(expected.problems.map(\.description)))
  }

  /// The `DependencyProvider` style: a factory resolves through the container it captured, not
  /// its resolver. The dry run still runs in copies: it makes no real singleton and calls no
  /// factory registered with side effects.
  @Test func factoriesThatUseTheirCapturedContainerAreValidatedInTheCopy() async throws {
    let made = Collected<String>()
    let container = Container()
    container.register(\.valSingleton, scope: .singleton) {
      made.append("singleton")
      return ValThing("real")
    }
    container.register(\.valSideEffect, hasSideEffects: true) {
      made.append("side effect")
      return ValThing("side effect")
    }
    container.register(\.valPlainUser) { [container] in
      ValThing("user", [try container[\.valSingleton], try container[\.valSideEffect]])
    }
    container.register(type: ValRegistered.self) { [container] in
      _ = try container.resolve(\.valUsesMissing)
      return ValRegistered()
    }
    let report = await container.validate()
    // One singleton, the copy's (shared by the copy's resolutions), and no side effect.
    #expect(made.all == ["singleton"], "\(made.all)")
    // The user stops at the side effect, so it is listed with it.
    #expect(report.skipped.map(\.name) == [#"\.valPlainUser"#, #"\.valSideEffect"#])
    // What the captured container reaches is checked, with its path.
    let missing = report.problems(.requiredKeyNotProvided).first { $0.path.first?.name == "ValRegistered" }
    #expect(missing?.path.map(\.name) == ["ValRegistered", #"\.valUsesMissing"#], "\(report)")
    // The real container made nothing: its singleton is made on first use.
    _ = try container[\.valSingleton]
    #expect(made.all == ["singleton", "singleton"])
  }

  /// A factory that takes a `Lazy` or a `Provider` resolves nothing through it while it runs:
  /// the dry run checks what the handle will resolve as a root of its own, and the graph shows
  /// who holds the handle.
  @Test func keysReachedOnlyThroughALazyOrAProviderAreChecked() async throws {
    let container = Container()
    container.register(\.valPlainUser) { r in
      _ = r.lazy(\.valMissing)
      return ValThing("user")
    }
    container.register(type: ValRegistered.self) { r in
      _ = r.provider(\.valUsesMissing)
      return ValRegistered()
    }
    let report = await container.validate()
    let missing = Set(report.problems(.requiredKeyNotProvided).map(\.dependency.name))
    #expect(missing == [#"\.valMissing"#, #"\.valUsesMissing"#], "\(report)")
    // Reported like a direct dependency: the handle's holder heads the path and asks for it.
    let lazy = try #require(report.problems.first { $0.dependency.name == #"\.valMissing"# })
    #expect(lazy.path.map(\.name) == [#"\.valPlainUser"#, #"\.valMissing"#])
    #expect(lazy.message.contains(#"\.valPlainUser asks for it (registered at \#(file):"#), "\(lazy.message)")
    #expect(lazy.pathRegistrations.first??.fileID == file)
    let provider = try #require(report.problems.first { $0.dependency.name == #"\.valUsesMissing"# })
    #expect(provider.path.map(\.name) == ["ValRegistered", #"\.valUsesMissing"#])
    let edges = await container.graph().edges
    #expect(edges.contains(DependencyGraph.Edge(from: #"\.valPlainUser"#, to: #"\.valMissing"#)))
    #expect(edges.contains(DependencyGraph.Edge(from: "ValRegistered", to: #"\.valUsesMissing"#)))
  }

  /// A handle resolves from the container it was made from: the dry run checks its key there.
  @Test func aHandleToAnotherContainerIsCheckedInThatContainer() async throws {
    let core = Container()
    core.register(\.valPlain) { ValThing("core's") }
    let app = Container()
    app.register(\.valPlainUser) { _ in
      _ = core.provider(\.valPlain)  // provided by core
      _ = core.lazy(\.valMissing)  // provided by nobody
      return ValThing("user")
    }
    let report = await app.validate()
    #expect(report.problems.map(\.dependency.name) == [#"\.valMissing"#], "\(report)")
  }

  /// When a child is validated, a handle that a parent's singleton holds resolves in the parent,
  /// which does not see the child's registrations: reported as when the singleton asks for the
  /// key directly (it used to read "is never provided", though the child provides it).
  @Test func aParentSingletonsHandleIsCheckedInTheParent() async throws {
    let parent = Container()
    parent.register(\.valSingleton, scope: .singleton) { r in
      _ = r.lazy(\.valSessionOnly)
      return ValThing("app-wide")
    }
    let child = parent.makeChild()
    child.register(\.valSessionOnly) { ValThing("session") }
    let report = await child.validate()
    #expect(
      report.problems.map { "\($0.kind) \($0.path.map(\.name))" } == [
        #"captiveDependency ["\\.valSingleton", "\\.valSessionOnly"]"#
      ], "\(report)")
    #expect(
      report.problems.first?.description.hasSuffix(
        "\n    fix: register \\.valSessionOnly also where \\.valSingleton is registered, or register \\.valSingleton"
          + " also in this child, so that an instance of its own is made here.") == true, "\(report)")
  }

  /// What the dry run made, the copies and their instances, is freed when it returns, also when
  /// an instance holds a handle made during the run (the handle does not keep the run alive).
  @Test func aValidationRunKeepsNothingAliveThroughTheHandlesItsInstancesHold() async throws {
    let made = Collected<WeakReference<CycleOwner>>()
    let container = Container()
    container.register(\.cycleOwner, scope: .singleton) { r in
      let owner = CycleOwner(helper: CycleHelper(lazyOwner: r.lazy(\.cycleOwner)))
      made.append(WeakReference(owner))
      return owner
    }
    let report = await container.validate()
    #expect(report.isValid, "\(report)")
    #expect(!made.all.isEmpty)
    #expect(made.all.allSatisfy { $0.object == nil }, "an instance the dry run made is still alive")
  }

  /// A cycle broken with a `Lazy` or a `Provider` is valid: the handle's key is checked on its own.
  @Test func aCycleBrokenWithALazyOrAProviderIsValid() async throws {
    for useProvider in [false, true] {
      let container = Container()
      container.register(\.cycleOwner, scope: .singleton) { r in CycleOwner(helper: try r[\.cycleHelper]) }
      container.register(\.cycleHelper, scope: .singleton) { r in
        useProvider
          ? CycleHelper(ownerProvider: r.provider(\.cycleOwner)) : CycleHelper(lazyOwner: r.lazy(\.cycleOwner))
      }
      let report = await container.validate()
      #expect(report.isValid, "\(report)")
    }
  }

  @Test func aSampleForAKeyThatTakesNoArgumentIsAMismatch() async throws {
    let container = Container()
    container.register(\.valPlain) { ValThing("plain") }
    let report = await container.validate(arguments: [\.valPlain: 5])
    let mismatch = report.problems(.factoryMismatch)
    #expect(mismatch.map(\.dependency.name) == [#"\.valPlain"#])
    #expect(
      mismatch.first?.message.contains("the sample argument given to validate() is Int, but the key takes no argument")
        == true, "\(report)")
  }

  @Test func aWrongSampleForAKeyNobodyProvidedIsAMismatchToo() async throws {
    // Told with the missing registration, from the key's declaration, not once it is provided.
    let report = await Container().validate(arguments: [\.valMissing: 5, \.valProfile: "seven"])
    #expect(
      report.problems(.requiredKeyNotProvided).map(\.dependency.name).sorted() == [#"\.valMissing"#, #"\.valProfile"#],
      "\(report)")
    let mismatch = report.problems(.factoryMismatch).sorted { $0.dependency.name < $1.dependency.name }
    #expect(mismatch.map(\.dependency.name) == [#"\.valMissing"#, #"\.valProfile"#], "\(report)")
    #expect(mismatch.first?.message.contains("is Int, but the key takes no argument") == true, "\(report)")
    #expect(mismatch.last?.message.contains("is String, but the key takes Int") == true, "\(report)")
    // A sample of the declared type is no mistake.
    let right = await Container().validate(arguments: [\.valProfile: 7])
    #expect(right.problems.map(\.kind) == [.requiredKeyNotProvided], "\(right)")
  }

  @Test func aSampleForAMultibindingIsAMismatch() async throws {
    let container = Container()
    container.contribute(to: \.valPlugins) { _ in "one" }
    let report = await container.validate(arguments: [\.valPlugins: 1])
    let mismatch = report.problems(.factoryMismatch)
    #expect(mismatch.map(\.dependency.name) == [#"\.valPlugins"#], "\(report)")
    #expect(mismatch.first?.message.contains("but the key takes no argument") == true, "\(report)")
  }

  @Test func expectValidGraphNamesWhatItCouldNotRunInAWarning() async throws {
    let container = Container()
    container.register(\.valProfile) { _, id in ValThing("profile \(id)") }
    container.register(\.valSideEffect, hasSideEffects: true) { ValThing("side effect") }
    let recorded = Collected<String>()
    let valid = Collected<Bool>()
    await withKnownIssue {
      valid.append(await expectValidGraph(container).isValid)
    } matching: { issue in
      // A warning: shown in the output, not a failure.
      #expect(issue.severity == .warning)
      #expect(!issue.isFailure)
      recorded.append(issue.comments.map(\.rawValue).joined())
      return true
    }
    #expect(valid.all == [true])
    #expect(recorded.all.count == 1)
    let warning = recorded.all.first ?? ""
    #expect(warning.contains("no sample argument (pass one in `arguments:`): \\.valProfile"))
    #expect(warning.contains("side effects: \\.valSideEffect"))

    // With a sample for the argument key, only the side-effect registration is left.
    let sampled = Collected<String>()
    await withKnownIssue {
      await expectValidGraph(container, arguments: [\.valProfile: 7])
    } matching: { issue in
      sampled.append(issue.comments.map(\.rawValue).joined())
      return true
    }
    #expect(sampled.all.count == 1)
    #expect(sampled.all.first?.contains("valProfile") == false)
  }

  @Test func expectValidGraphRecordsNothingWhenEveryFactoryRan() async throws {
    let container = Container()
    container.register(\.valProfile) { _, id in ValThing("profile \(id)") }
    // No known issue may be recorded here: withKnownIssue would report that none was.
    let report = await expectValidGraph(container, arguments: [\.valProfile: 7])
    #expect(report.isValid && report.needsSampleArgument.isEmpty && report.skipped.isEmpty)
  }

  @Test func expectValidGraphChecksIncludedKeys() async throws {
    let recorded = Collected<String>()
    await withKnownIssue {
      await expectValidGraph(Container(), including: [\.valRootWithDefault])
    } matching: { issue in
      recorded.append(issue.comments.map(\.rawValue).joined())
      return true
    }
    #expect(recorded.all.count == 1)
    #expect(recorded.all.first?.contains("\\.valMissingBehindDefault") == true)
  }

  /// A handle made in the factory of a dependency that a handle resolves: the path runs through
  /// both holders.
  @Test func aKeyBehindTwoHandlesIsReportedWithBothHolders() async throws {
    let container = Container()
    container.register(\.valPlainUser) { r in
      _ = r.provider(\.valPlain)
      return ValThing("user")
    }
    container.register(\.valPlain) { r in
      _ = r.lazy(\.valMissing)
      return ValThing("plain")
    }
    let report = await container.validate()
    let problem = try #require(report.problems(.requiredKeyNotProvided).first)
    // \.valPlain is registered, so it is a root of its own and heads the path.
    #expect(problem.path.map(\.name) == [#"\.valPlain"#, #"\.valMissing"#])
    // With only a default, \.valRootWithDefault's handle target is found through the holder.
    let viaDefault = Container()
    viaDefault.register(\.valPlainUser) { r in
      _ = r.provider(\.valRootWithDefault)
      return ValThing("user")
    }
    let second = await viaDefault.validate()
    let behind = try #require(second.problems(.requiredKeyNotProvided).first)
    #expect(behind.path.map(\.name) == [#"\.valPlainUser"#, #"\.valRootWithDefault"#, #"\.valMissingBehindDefault"#])
  }

  /// A decorator runs in the app even when only the key's default provides the key: the dry run
  /// runs it too.
  @Test func aDecoratorOfAnUnregisteredKeyIsChecked() async throws {
    let container = Container()
    container.decorate(\.valLogger) { r, log in log + (try r[\.valMissing]).label }
    let report = await container.validate()
    let problem = try #require(report.problems(.requiredKeyNotProvided).first, "\(report)")
    #expect(problem.path.map(\.name) == [#"\.valLogger"#, #"\.valMissing"#])
    #expect(throws: ResolutionError.self) { try container[\.valLogger] }
    // In a child, the parent's decorator is checked too.
    #expect(await container.makeChild().validate().problems(.requiredKeyNotProvided).count == 1)
  }

  /// A registration an earlier root's resolution made is not run again as a root of its own:
  /// a chain of registrations costs its length, not its square.
  @Test func aChainOfRegistrationsIsResolvedOnceByTheDryRun() async throws {
    let container = Container()
    let calls = Counter()
    let length = 1_000
    for step in 0..<length {
      // Zero-padded, so that the roots, taken in name order, start at the head of the chain.
      let name = String(format: "chain %04d", step)
      let next = String(format: "chain %04d", step + 1)
      container.register(type: Int.self, name: name) { r in
        calls.increment()
        return step == length - 1 ? 0 : try r.resolve(type: Int.self, name: next) + 1
      }
    }
    let report = await container.validate()
    #expect(report.isValid, "\(report)")
    #expect(report.checkedCount == length)
    #expect(calls.count == length)
  }

  /// A chain of values that hold an object, passed up or made anew at each level: valid, and
  /// reported as holding nothing shorter-lived.
  @Test(arguments: [false, true])
  func aLongChainOfValuesValidates(passingTheObjectUp: Bool) async throws {
    let container = Container()
    let length = 200
    container.register(type: ValWrapper.self, name: "level 0") { ValWrapper(inner: ValThing("bottom")) }
    for level in 1...length {
      container.register(type: ValWrapper.self, name: "level \(level)") { r in
        let below = try r.resolve(type: ValWrapper.self, name: "level \(level - 1)")
        return passingTheObjectUp ? below : ValWrapper(inner: ValThing("level"))
      }
    }
    let report = await container.validate()
    #expect(report.isValid, "\(report)")
    #expect(report.checkedCount == length + 1)
  }

  /// Every root on a chain too deep for the stack fails down the same chain: reported once per
  /// stretch of it, not once per root, while every root still runs, so what lies past the deep
  /// part is checked.
  @Test func aChainTooDeepForTheStackIsReportedOncePerStretch() async throws {
    let container = Container()
    let length = 300
    for step in 0..<length {
      let next = String(format: "deep %03d", step + 1)
      container.register(type: Int.self, name: String(format: "deep %03d", step)) { r in
        // Each step takes a lot of stack, as a factory with large frames would.
        func descend(_ levels: Int) throws -> Int {
          levels == 0 ? try r.resolve(type: Int.self, name: next) : try descend(levels - 1) + 0
        }
        return step == length - 1 ? (try r[\.valMissing]).label.count : try descend(1_000)
      }
    }
    let report = await container.validate()
    let deep = report.problems(.resolutionTooDeep)
    let first = try #require(deep.first { $0.path.first?.name == #"Int (name: "deep 000")"# }, "\(report)")
    #expect(deep.count <= length / (first.path.count - 1) + 1, "\(deep.count) deep problems")
    #expect(report.problems(.requiredKeyNotProvided).map(\.dependency.name) == [#"\.valMissing"#])
    // The resolution error's message, and its path shortened to both ends (the problem keeps it all).
    #expect(first.message.hasSuffix("levels deep, too deep for this thread's stack"), "\(first.message)")
    let pathLine = try #require(first.description.split(separator: "\n").first { $0.contains("path: ") })
    #expect(pathLine.contains(" → … \(first.path.count - 8) more → "), "\(pathLine)")
    #expect(pathLine.components(separatedBy: " → ").count == 9, "\(pathLine)")
  }

  /// A 10,000-deep chain costs its length to validate whichever end comes first in name order:
  /// a root takes the instance the root below it left (see `ValidationMemo`), and the members of
  /// a stretch found too deep for the stack run deepest first. Too deep for a cooperative
  /// thread's stack, the chain is reported, from few roots, and nothing else is.
  @Test(arguments: [false, true])
  func aTenThousandDeepChainValidatesInLinearTime(tailFirst: Bool) async throws {
    let container = Container()
    let calls = Counter()
    let length = 10_000
    // "level 00000" comes first in name order: the head, or with `tailFirst` the tail.
    func name(_ step: Int) -> String {
      let number = String(tailFirst ? length - 1 - step : step)
      return "level " + String(repeating: "0", count: 5 - number.count) + number
    }
    for step in 0..<length {
      let next = step == length - 1 ? nil : name(step + 1)
      container.register(type: ValThing.self, name: name(step)) { r in
        calls.increment()
        return ValThing("level", try next.map { [try r.resolve(type: ValThing.self, name: $0)] } ?? [])
      }
    }
    let report = await container.validate()
    #expect(calls.count < 3 * length, "\(calls.count) factory calls")
    #expect(report.problems.allSatisfy { $0.kind == .resolutionTooDeep }, "\(report)")
    let deep = report.problems(.resolutionTooDeep)
    try #require(!deep.isEmpty)
    #expect(deep.count <= length / (deep.map(\.path.count).min() ?? 1) + 1, "\(deep.count) deep problems")
    #expect(report.checkedCount == length)
  }

  /// A root that takes an earlier root's instance is judged as if it had made it: a singleton
  /// that keeps what a value taken that way holds is captive, one that only reads from it is not,
  /// and each factory runs once. (The holder is a key, so that it runs after both types, in
  /// name order, and takes the wrapper that the wrapper's own root made.)
  @Test(arguments: [false, true])
  func anInstanceTakenFromAnEarlierRootIsJudgedAsIfMadeThere(keeps: Bool) async throws {
    let container = Container()
    let calls = Counter()
    container.register(type: ValThing.self, name: "a short") {
      calls.increment()
      return ValThing("short")
    }
    container.register(type: ValWrapper.self, name: "b wrapper") { r in
      calls.increment()
      return ValWrapper(inner: try r.resolve(type: ValThing.self, name: "a short"))
    }
    container.register(\.valLongHolder, scope: .singleton) { r in
      calls.increment()
      let wrapper = try r.resolve(type: ValWrapper.self, name: "b wrapper")
      return keeps ? ValThing("keeps", [wrapper.inner]) : ValThing("reads " + wrapper.inner.label)
    }
    let report = await container.validate()
    #expect(calls.count == 3)
    let captives = report.problems(.captiveDependency)
    if keeps {
      try #require(captives.count == 1, "\(report)")
      #expect(
        captives[0].path.map(\.name) == [
          "\\.valLongHolder", #"ValWrapper (name: "b wrapper")"#, #"ValThing (name: "a short")"#,
        ])
    } else {
      #expect(captives.isEmpty, "\(report)")
    }
  }

  /// A chain that fails at its end fails the same way from each member: resolved once from its
  /// head, it is reported once, with the whole path.
  @Test func aChainThatFailsIsResolvedAndReportedOnce() async throws {
    let container = Container()
    let calls = Counter()
    let length = 300
    for step in 0..<length {
      let next = String(format: "failing %03d", step + 1)
      container.register(type: Int.self, name: String(format: "failing %03d", step)) { r in
        calls.increment()
        return step == length - 1 ? (try r[\.valMissing]).label.count : try r.resolve(type: Int.self, name: next)
      }
    }
    let report = await container.validate()
    let problem = try #require(report.problems.first)
    #expect(report.problems.count == 1, "\(report)")
    #expect(problem.kind == .requiredKeyNotProvided)
    #expect(problem.path.count == length + 1)
    #expect(problem.path.first?.name == #"Int (name: "failing 000")"#)
    #expect(calls.count == length)
  }

  /// The same chain with its tail first in name order (each level needs the one before, and
  /// "level 0" sorts first): each root fails down the roots run before it, and the failure is
  /// reported once, by the first.
  @Test func aChainThatFailsIsReportedOnceWhicheverEndComesFirst() async throws {
    let container = Container()
    container.register(type: Int.self, name: "level 0") { r in (try r[\.valMissing]).label.count }
    for level in 1...30 {
      container.register(type: Int.self, name: "level \(level)") { r in
        try r.resolve(type: Int.self, name: "level \(level - 1)") + 1
      }
    }
    let report = await container.validate()
    #expect(report.problems.count == 1, "\(report)")
    let problem = try #require(report.problems.first)
    #expect(problem.path.map(\.name) == [#"Int (name: "level 0")"#, #"\.valMissing"#])
    // Keys, where what is used sorts before its user.
    let keys = Container()
    keys.register(\.valUsesMissing) { r in ValThing("user", [try r[\.valMissing]]) }
    keys.register(\.valUsesType) { r in ValThing("user of user", [try r[\.valUsesMissing]]) }
    let keysReport = await keys.validate()
    #expect(keysReport.problems.map(\.path.count) == [2], "\(keysReport)")
    // A different path to the same missing key is a problem of its own.
    keys.register(\.valPlain) { r in ValThing("another user", [try r[\.valMissing]]) }
    #expect(await keys.validate().problems.count == 2)
  }

  /// What a value holds is judged where the shared instance that resolved it returns, however
  /// many other dependencies that instance resolved first: the limit on chains passed up counts
  /// chains only.
  @Test(arguments: [false, true])
  func aSharedInstanceWithManyDependenciesIsJudgedThroughValues(keeps: Bool) async throws {
    let container = Container()
    for number in 0..<70 { container.register(type: Int.self, name: "c int \(number)") { number } }
    container.register(type: ValThing.self, name: "a short") { ValThing("short") }
    container.register(type: ValWrapper.self, name: "b wrapper") { r in
      ValWrapper(inner: try r.resolve(type: ValThing.self, name: "a short"))
    }
    container.register(type: ValThing.self, name: "z holder", scope: .singleton) { r in
      let total = try (0..<70).reduce(0) { $0 + (try r.resolve(type: Int.self, name: "c int \($1)")) }
      let wrapper = try r.resolve(type: ValWrapper.self, name: "b wrapper")
      return keeps ? ValThing("keeps", [wrapper.inner]) : ValThing("reads \(total) " + wrapper.inner.label)
    }
    let captives = await container.validate().problems(.captiveDependency)
    #expect(captives.map(\.dependency.name) == (keeps ? [#"ValThing (name: "z holder")"#] : []), "\(captives)")
  }

  /// A root whose run made a weak-scoped instance leaves no instance for later steps: it would
  /// keep the weak one alive, and a singleton that only reads it would look like its holder.
  @Test func aRootThatMadeAWeakInstanceLeavesNothingBehind() async throws {
    let container = Container()
    container.register(type: ValThing.self, name: "a cache", scope: .weak) { ValThing("cache") }
    container.register(type: ValThing.self, name: "b report") { r in
      ValThing("report", [try r.resolve(type: ValThing.self, name: "a cache")])
    }
    container.register(type: ValThing.self, name: "c settings", scope: .singleton) { r in
      ValThing("settings of " + (try r.resolve(type: ValThing.self, name: "a cache")).label)
    }
    let report = await container.validate()
    #expect(report.isValid, "\(report)")
  }

  /// A chain that fails at its tail, with the tail first in name order, costs its length: a
  /// step that reaches a root known to fail fails at once, and is covered by that root's report.
  @Test func aLongChainThatFailsFromItsTailCostsItsLength() async throws {
    let container = Container()
    let calls = Counter()
    let length = 2_000
    func name(_ level: Int) -> String {
      let number = String(level)
      return "level " + String(repeating: "0", count: 5 - number.count) + number
    }
    container.register(type: Int.self, name: name(0)) { r in
      calls.increment()
      return (try r[\.valMissing]).label.count
    }
    for level in 1..<length {
      let below = name(level - 1)
      container.register(type: Int.self, name: name(level)) { r in
        calls.increment()
        return try r.resolve(type: Int.self, name: below) + 1
      }
    }
    let report = await container.validate()
    #expect(calls.count < 2 * length, "\(calls.count) factory calls")
    try #require(report.problems.count == 1, "\(report)")
    #expect(report.problems[0].path.map(\.name) == [#"Int (name: "level 00000")"#, #"\.valMissing"#])
    // A factory that catches the failure of a root known to fail sees the error it would have.
    let second = name(1)
    container.register(type: String.self, name: "zz catcher") { r in
      do {
        return String(try r.resolve(type: Int.self, name: second))
      } catch let error as ResolutionError {
        #expect(error.kind == .requiredKeyNotProvided)
        #expect(error.dependency.name == #"\.valMissing"#)
        return "caught"
      }
    }
    #expect(await container.validate().problems.count == 1)
  }

  // A root is skipped only when a step in the same copy settled the same dependency: not one
  // in another container's copy, another contribution from the same line, or another type of
  // the same name.

  @Test func aChildsRegistrationIsCheckedThoughAParentSingletonFailedThroughItsKey() async throws {
    let parent = Container()
    parent.register(\.valSingleton, scope: .singleton) { r in ValThing("shared", [try r[\.valSessionOnly]]) }
    let child = parent.makeChild()
    child.register(\.valSessionOnly) { r in ValThing("session", [try r[\.valMissing]]) }
    let report = await child.validate()
    #expect(report.problems(.requiredKeyNotProvided).contains { $0.dependency.name == #"\.valMissing"# }, "\(report)")
    #expect(!report.problems(.captiveDependency).isEmpty, "\(report)")
  }

  @Test func everyContributionFromOneLineIsChecked() async throws {
    // The roots' order comes from a set: try it many times.
    for _ in 0..<20 {
      let container = Container()
      for name in ["ok", "broken"] {
        container.contribute(to: \.valPlugins) { r in
          name == "broken" ? try r.resolve(type: String.self, name: "nowhere") : name
        }
      }
      let report = await container.validate()
      #expect(report.problems(.notRegistered).count == 1, "\(report)")
    }
  }

  @Test func typesOfTheSameNameAreCheckedApart() async throws {
    for _ in 0..<10 {
      let container = Container()
      container.register(type: ValConfigUser.self) { r in
        ValConfigUser(config: try r.resolve(type: ValFirst.Config.self))
      }
      container.register(type: ValFirst.Config.self) { ValFirst.Config(name: "first") }
      container.register(type: ValSecond.Config.self) { r in
        ValSecond.Config(name: try r.resolve(type: String.self, name: "nowhere"))
      }
      let report = await container.validate()
      #expect(report.problems(.notRegistered).count == 1, "\(report)")
    }
  }

  @Test func aParentsDecoratorOfAKeyOnlyChildrenRegisterIsTheirsToCheck() async throws {
    let parent = Container()
    parent.decorate(\.valSessionOnly) { _, thing in ValThing("decorated", [thing]) }
    let child = parent.makeChild()
    child.register(\.valSessionOnly) { ValThing("session") }
    #expect(await parent.validate().isValid)
    #expect(await child.validate().isValid)
    #expect(try child[\.valSessionOnly].label == "decorated")
  }

  /// A dependency whose failure a factory caught is still checked as a root of its own: its
  /// problem was not reported through the factory that caught it.
  @Test func aFailureAFactoryCaughtIsStillReported() async throws {
    let container = Container()
    container.register(\.valLongHolder) { r in ValThing("holder", [try? r[\.valShort]].compactMap { $0 }) }
    container.register(\.valShort) { r in ValThing("short", [try r[\.valMissing]]) }
    // In name order \.valShort comes after \.valLongHolder, whose run caught its failure.
    let report = await container.validate()
    let problem = try #require(report.problems(.requiredKeyNotProvided).first, "\(report)")
    #expect(problem.path.map(\.name) == [#"\.valShort"#, #"\.valMissing"#])
  }

  // Looking through a value: whether a shared instance keeps what a value held is told when the
  // shared instance's factory returns, not when the value's did (the value holds it until then).
  @Test func aSharedInstanceKeepingAValueThatHoldsAShorterLivedOneIsCaptive() async throws {
    let container = Container()
    container.register(\.valShort, scope: .unique) { ValThing("short") }
    container.register(\.valWrapper, scope: .unique) { r in ValWrapper(inner: try r[\.valShort]) }
    container.register(\.valLongHolder, scope: .singleton) { r in
      let wrapper = try r[\.valWrapper]
      return ValThing("holder", [wrapper.inner])
    }
    let captives = await container.validate().problems(.captiveDependency)
    try #require(captives.count == 1, "\(captives)")
    #expect(captives[0].path.map(\.name) == [#"\.valLongHolder"#, #"\.valWrapper"#, #"\.valShort"#])
  }

  @Test(arguments: [1, 3])
  func aSharedInstanceThatOnlyReadsFromAValueHoldingAShorterLivedOneHoldsNothing(_ depth: Int) async throws {
    // \.valWrapper holds \.valShort directly (depth 1), or through two more values (depth 3).
    let container = Container()
    container.register(\.valShort, scope: .unique) { ValThing("short") }
    container.register(\.valWrapper, scope: .unique) { r in ValWrapper(inner: try r[\.valShort]) }
    container.register(\.valOuterWrapper, scope: .unique) { r in ValOuterWrapper(wrapper: try r[\.valWrapper]) }
    container.register(\.valOutermostWrapper, scope: .unique) { r in
      ValOutermostWrapper(outer: try r[\.valOuterWrapper])
    }
    container.register(\.valLongHolder, scope: .singleton) { r in
      let label = depth == 1 ? try r[\.valWrapper].inner.label : try r[\.valOutermostWrapper].outer.wrapper.inner.label
      return ValThing("holder of " + label)
    }
    container.register(\.valAsyncHolder, scope: .singleton) { r in
      let kept = depth == 1 ? try r[\.valWrapper].inner : try r[\.valOutermostWrapper].outer.wrapper.inner
      return ValThing("keeps", [kept])
    }
    let report = await container.validate()
    #expect(report.problems(.captiveDependency).map(\.dependency.name) == [#"\.valAsyncHolder"#], "\(report)")
  }
}

/// Values that hold a `ValThing`, one inside the other.
struct ValWrapper: Sendable { let inner: ValThing }
struct ValOuterWrapper: Sendable { let wrapper: ValWrapper }
struct ValOutermostWrapper: Sendable { let outer: ValOuterWrapper }

extension Dependencies {
  var valWrapper: Key<ValWrapper> { .required() }
  var valOuterWrapper: Key<ValOuterWrapper> { .required() }
  var valOutermostWrapper: Key<ValOutermostWrapper> { .required() }
}

extension Dependencies {
  // Named so that the held key sorts before its holder: validated first, as a root of its own.
  var valAaLogger: Key<ValThing> { .required() }
  var valZzService: Key<ValThing> { .required() }
}

@Suite struct ValidationAcrossContainersTests {
  @Test func aParentsSingletonHoldingItsOwnSingletonIsNotCaptiveWhereAChildRegistersItUnique() async throws {
    let parent = Container()
    parent.register(\.valAaLogger, scope: .singleton) { ValThing("app logger") }
    parent.register(\.valZzService, scope: .singleton) { r in ValThing("service", [try r[\.valAaLogger]]) }
    let child = parent.makeChild()
    child.register(\.valAaLogger, scope: .unique) { ValThing("session logger") }
    // What the service holds is the parent's singleton.
    #expect(try child[\.valZzService].parts[0] === (try parent[\.valAaLogger]))
    let report = await child.validate()
    #expect(report.isValid, "\(report)")
  }

  @Test func aParentsSingletonHoldingItsOwnUniqueIsCaptiveWhereAChildRegistersItSingleton() async throws {
    let parent = Container()
    parent.register(\.valAaLogger, scope: .unique) { ValThing("app logger") }
    parent.register(\.valZzService, scope: .singleton) { r in ValThing("service", [try r[\.valAaLogger]]) }
    let child = parent.makeChild()
    child.register(\.valAaLogger, scope: .singleton) { ValThing("session logger") }
    #expect(try child[\.valZzService].parts[0].label == "app logger")
    let report = await child.validate()
    let captive = report.problems(.captiveDependency)
    #expect(
      captive.map(\.message) == [
        "\\.valZzService (singleton) holds \\.valAaLogger (unique), which should not outlive one use"
      ], "\(report)")
  }
}

extension Dependencies {
  var valLazyArgumentMissing: Key<String> { .required() }
  var valLazyArgumentTarget: ArgumentKey<Int, String> {
    ArgumentKey { r, number in "\(number) \(try r[\.valLazyArgumentMissing])" }
  }
  var valLazyArgumentHolder: Key<Lazy<ArgumentKey<Int, String>>> {
    Key { r in r.lazy(\.valLazyArgumentTarget, argument: 3) }
  }
  var valLazyInjectedArgumentHolder: Key<LazyArgumentUser> { Key { LazyArgumentUser() } }
}

/// Made by a factory during a validation run: its property's key is resolved on first access,
/// for its argument.
struct LazyArgumentUser: Sendable {
  @LazyInjected(\.valLazyArgumentTarget, argument: 4) var text: String
}

/// A `Lazy` or `@LazyInjected` of a key that takes an argument carries the argument: a dry run
/// checks the key with it instead of listing it as needing a sample.
@Suite struct ValidationOfHandlesWithAnArgumentTests {
  @Test func aLazyMadeWithAnArgumentIsCheckedForIt() async {
    let report = await Container().validate(including: [\.valLazyArgumentHolder])
    #expect(report.problems(.requiredKeyNotProvided).map(\.dependency.name) == ["\\.valLazyArgumentMissing"])
    #expect(report.needsSampleArgument.isEmpty)
  }

  @Test func aLazyInjectedPropertyWithAnArgumentIsCheckedForIt() async {
    let report = await Container().validate(including: [\.valLazyInjectedArgumentHolder])
    #expect(report.problems(.requiredKeyNotProvided).map(\.dependency.name) == ["\\.valLazyArgumentMissing"])
    #expect(report.needsSampleArgument.isEmpty)
  }

  @Test func aSampleTheCallerGivesComesFirst() async {
    let container = Container()
    container.register(\.valLazyArgumentMissing) { "here" }
    container.register(\.valLazyArgumentTarget) { r, number in
      guard number == 3 else { throw SampleRefused(number: number) }
      return "\(number) \(try r[\.valLazyArgumentMissing])"
    }
    #expect(await container.validate(including: [\.valLazyArgumentHolder]).isValid)
    let report = await container.validate(including: [\.valLazyArgumentHolder], arguments: [\.valLazyArgumentTarget: 5])
    #expect(report.problems(.factoryFailed).map(\.dependency.name) == ["\\.valLazyArgumentTarget"])
  }
}

private struct SampleRefused: Error {
  let number: Int
}
