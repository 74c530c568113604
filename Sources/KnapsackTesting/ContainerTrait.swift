public import Knapsack
public import Testing

/// A Swift Testing trait that gives each test a fresh container of its own, set as
/// `Container.current` while the test runs (see `withContainer(_:operation:)`): `@Injected` and
/// `@LazyInjected` properties made in the test resolve from it, so parallel tests never share
/// `Container.shared`.
///
/// ```swift
/// @Test(.container { $0.register(\.storage) { InMemoryStorage() } })
/// func screenLoads() throws {
///   let screen = TodoScreen()   // its @Injected(\.storage) comes from this test's container
/// }
/// ```
///
/// On a suite it applies to every test in it, each with its own container.
public struct ContainerTrait: TestTrait, SuiteTrait, TestScoping {
  let configure: @Sendable (Container) throws -> Void

  /// Applied to each test of a suite separately.
  public var isRecursive: Bool { true }

  /// Runs the test with a fresh container as the task's current one.
  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    if isSuiteItself(test, testCase) { return try await function() }
    let container = Container()
    try configure(container)
    try await withContainer(container, operation: function)
  }
}

extension Trait where Self == ContainerTrait {
  /// Runs the test (or each test of the suite) with a fresh container, configured by
  /// `configure`, as `Container.current`.
  public static func container(_ configure: @escaping @Sendable (Container) throws -> Void = { _ in }) -> Self {
    ContainerTrait(configure: configure)
  }
}
