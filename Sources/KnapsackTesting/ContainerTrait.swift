public import Knapsack
public import Testing

/// A Swift Testing trait that gives each test a fresh container of its own, set as
/// `Container.current` while the test runs (see `withContainer(_:operation:)`): `@Injected` and
/// `@LazyInjected` properties of instances the test makes resolve from it (those of instances a
/// factory makes, from the container making them), so parallel tests never share
/// `Container.shared`.
///
/// ```swift
/// @Test(.container { $0.register(\.storage) { InMemoryStorage() } })
/// func screenLoads() throws {
///   let screen = TodoScreen()   // its @Injected(\.storage) comes from this test's container
/// }
/// ```
///
/// On a suite it applies to every test in it, each with its own container. A test's own
/// `.container { ... }` inside such a suite makes the test's container with the suite's
/// registrations first, then its own, which replace them: a singleton the suite registers is made
/// with the test's fakes. When the test ends, the trait disposes the container it made (see
/// `Container.dispose()`), unless the test did; an instance that fails to close is recorded as an
/// issue of the test.
public struct ContainerTrait: TestTrait, SuiteTrait, TestScoping {
  let configure: @Sendable (Container) throws -> Void

  /// What the enclosing `.container` traits of the test running in this task register, the
  /// outermost first.
  @TaskLocal static var enclosing: [@Sendable (Container) throws -> Void] = []

  /// Applied to each test of a suite separately.
  public var isRecursive: Bool { true }

  /// Runs the test with a fresh container as the task's current one, then disposes it.
  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    if isSuiteItself(test, testCase) { return try await function() }
    let configurations = Self.enclosing + [configure]
    let container = Container()
    for configuration in configurations { try configuration(container) }
    var failure: (any Error)?
    do {
      try await Self.$enclosing.withValue(configurations) { try await withContainer(container, operation: function) }
    } catch {
      failure = error
    }
    if !container.isDisposed {
      do {
        try await container.dispose()
      } catch {
        Issue.record(
          error, "disposing the test's container, which the .container trait made", sourceLocation: test.sourceLocation)
      }
    }
    if let failure { throw failure }
  }
}

extension Trait where Self == ContainerTrait {
  /// Runs the test (or each test of the suite) with a fresh container, configured by
  /// `configure`, as `Container.current`, and disposes it when the test ends.
  public static func container(_ configure: @escaping @Sendable (Container) throws -> Void = { _ in }) -> Self {
    ContainerTrait(configure: configure)
  }
}
