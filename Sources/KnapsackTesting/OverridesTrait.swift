public import Knapsack
public import Testing

/// A Swift Testing trait that runs each test inside its own
/// `withOverrides(_:isolation:operation:)` scope.
///
/// ```swift
/// @Test(.overrides { $0.register(\.storage) { FakeStorage() } })
/// func addsAnItem() async throws { ... }
///
/// @Suite(.overrides { $0.register(\.clock) { FixedClock() } })
/// struct TodoTests { ... }
/// ```
///
/// On a suite it applies to every test in it, each test with a fresh scope, so singletons made
/// in one test are never seen by another.
public struct OverridesTrait: TestTrait, SuiteTrait, TestScoping {
  let configure: @Sendable (Container) throws -> Void

  /// Applied to each test of a suite separately.
  public var isRecursive: Bool { true }

  /// Runs the test inside an override scope.
  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    if isSuiteItself(test, testCase) { return try await function() }
    try await withOverrides(configure, operation: function)
  }
}

extension Trait where Self == OverridesTrait {
  /// Runs the test (or each test of the suite) with the overrides `configure` registers.
  public static func overrides(_ configure: @escaping @Sendable (Container) throws -> Void) -> Self {
    OverridesTrait(configure: configure)
  }
}

/// Whether a trait's scope is being asked for a suite as a whole: it then runs unscoped, so that
/// each test of the suite gets a fresh scope of its own.
func isSuiteItself(_ test: Test, _ testCase: Test.Case?) -> Bool {
  testCase == nil && test.isSuite
}
