import Knapsack
import KnapsackTesting
import Testing

extension Dependencies {
  var ctResource: Key<Resource> { .required() }
  var ctSuiteValue: Key<String> { Key { "default" } }
  var ctTestValue: Key<String> { Key { "default" } }
  var ctService: Key<Token> { .required() }
}

/// The `.container` trait, run by hand around a body (as Swift Testing runs it around a test), so
/// that what it does after the test can be checked.
@Suite struct ContainerTraitTests {
  struct Planned: Error, Equatable {}

  /// Runs `body` inside `trait`, for the test running now.
  static func run(_ trait: ContainerTrait, _ body: @escaping @Sendable () async throws -> Void) async throws {
    let test = try #require(Test.current)
    try await trait.provideScope(for: test, testCase: Test.Case.current, performing: body)
  }

  static func registeringAResource(log: Collected<String>, failing: PlannedFailure? = nil) -> ContainerTrait {
    .container { $0.register(\.ctResource, scope: .singleton) { Resource("database", log: log, failing: failing) } }
  }

  @Test func theContainerIsDisposedWhenTheTestEnds() async throws {
    let made = Locked<(Container, Resource)?>(nil)
    try await Self.run(Self.registeringAResource(log: Collected())) {
      let resource = try Container.current[\.ctResource]
      made.withLock { $0 = (Container.current, resource) }
    }
    let (container, resource) = try #require(made.withLock { $0 })
    #expect(container !== Container.shared)
    #expect(container.isDisposed)
    #expect(resource.closeCount == 1)
  }

  @Test func theContainerIsDisposedWhenTheTestThrows() async throws {
    let made = Locked<Resource?>(nil)
    await #expect(throws: Planned.self) {
      try await Self.run(Self.registeringAResource(log: Collected())) {
        made.withLock { $0 = try? Container.current[\.ctResource] }
        throw Planned()
      }
    }
    #expect(try #require(made.withLock { $0 }).closeCount == 1)
  }

  @Test func aContainerTheTestDisposedIsNotDisposedAgain() async throws {
    let made = Locked<Resource?>(nil)
    // Its disposal fails: were it disposed again, the trait would record the failure again.
    try await Self.run(Self.registeringAResource(log: Collected(), failing: PlannedFailure("cannot close"))) {
      made.withLock { $0 = try? Container.current[\.ctResource] }
      await #expect(throws: DisposalError.self) { try await Container.current.dispose() }
    }
    #expect(try #require(made.withLock { $0 }).closeCount == 1)
  }

  @Test func anInstanceThatFailsToCloseIsAnIssueOfTheTest() async throws {
    try await withKnownIssue {
      try await Self.run(Self.registeringAResource(log: Collected(), failing: PlannedFailure("cannot close"))) {
        _ = try Container.current[\.ctResource]
      }
    } matching: { issue in
      String(describing: issue).contains("cannot close")
    }
  }

  @Test func aNestedContainerTraitRegistersTheEnclosingOnesFirst() async throws {
    let outer = ContainerTrait.container {
      $0.register(\.ctSuiteValue) { "suite" }
      $0.register(\.ctTestValue) { "suite" }
      $0.register(\.ctService, scope: .singleton) { r in Token("service with " + (try r[\.ctTestValue])) }
    }
    let inner = ContainerTrait.container { $0.register(\.ctTestValue) { "test" } }
    let seen = Locked<[String]>([])
    let containers = Locked<[Container]>([])
    try await Self.run(outer) {
      let suiteContainer = Container.current
      try await Self.run(inner) {
        let current = Container.current
        let values = [
          (try? current[\.ctSuiteValue]) ?? "?", (try? current[\.ctTestValue]) ?? "?",
          (try? current[\.ctService])?.label ?? "?",
        ]
        seen.withLock { $0 = values }
        containers.withLock { $0 = [suiteContainer, current] }
      }
      // The test's container was disposed; the suite's stays usable until its own end.
      #expect(try Container.current[\.ctTestValue] == "suite")
    }
    let made = containers.withLock { $0 }
    // The singleton the suite's trait registers is made with the test's value.
    #expect(seen.withLock { $0 } == ["suite", "test", "service with test"])
    #expect(made.count == 2 && made[0] !== made[1] && made.allSatisfy(\.isDisposed))
  }
}

/// The traits as Swift Testing applies them: a suite's `.container`, and a test's own inside it.
@Suite(.container { $0.register(\.ctSuiteValue) { "suite" } })
struct ContainerTraitInASuiteTests {
  @Test(.container { $0.register(\.ctTestValue) { "test" } })
  func aTestsContainerSeesItsSuites() throws {
    #expect(try Container.current[\.ctSuiteValue] == "suite")
    #expect(try Container.current[\.ctTestValue] == "test")
  }

  @Test func aTestWithoutItsOwnSeesTheSuites() throws {
    #expect(try Container.current[\.ctSuiteValue] == "suite")
    #expect(try Container.current[\.ctTestValue] == "default")
  }
}
