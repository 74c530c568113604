import Knapsack
import KnapsackTesting
import Testing

extension Dependencies {
  var traitValue: Key<String> { Key { "default" } }
  var traitOther: Key<String> { Key { "other default" } }
  var traitClaim: Key<Claim> { .required() }
}

/// Claimed by the first test case that resolves it. A suite trait gives each test case a fresh
/// scope, so each case must find its own singleton unclaimed.
final class Claim: Sendable {
  private let owner = Locked<Int?>(nil)
  /// Claims the value for `claimant`; false if someone else claimed it first.
  func claim(for claimant: Int) -> Bool {
    owner.withLock { owner in
      if let owner { return owner == claimant }
      owner = claimant
      return true
    }
  }
}

@Suite struct OverridesTraitOnATestTests {
  @Test(.overrides { $0.register(\.traitValue) { "from the test trait" } })
  func traitOverridesForOneTest() async throws {
    #expect(try Container()[\.traitValue] == "from the test trait")
  }

  @Test func testWithoutTheTraitSeesTheDefault() async throws {
    // Runs in parallel with the test above, which overrides the same key.
    #expect(try Container()[\.traitValue] == "default")
  }

  @Test(.overrides { $0.register(\.traitValue) { "trait" } })
  func withOverridesInsideATraitScopeNests() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.traitOther) { "inner" }
    } operation: { () async throws in
      #expect(try container[\.traitValue] == "trait")
      #expect(try container[\.traitOther] == "inner")
    }
    #expect(try container[\.traitOther] == "other default")
  }

  /// One container for the test cases below: only their scopes keep their singletons apart (a
  /// container of each test's own would, even if the cases shared one scope).
  static let claimed = Container()

  @Test(.overrides { $0.register(\.traitClaim, scope: .singleton) { Claim() } }, arguments: [1, 2, 3, 4])
  func eachTestCaseGetsItsOwnScope(claimant: Int) async throws {
    let container = Self.claimed
    #expect(try container[\.traitClaim].claim(for: claimant), "a singleton leaked from another test case")
    #expect(try container[\.traitClaim] === container[\.traitClaim])
  }
}

@Suite(.overrides { $0.register(\.traitValue) { "from the suite trait" } })
struct OverridesTraitOnASuiteTests {
  @Test func firstTestSeesTheSuiteOverride() async throws {
    #expect(try Container()[\.traitValue] == "from the suite trait")
  }

  @Test func secondTestSeesTheSuiteOverrideToo() async throws {
    #expect(try Container()[\.traitValue] == "from the suite trait")
    let fromChildTask = try await Task { try Container()[\.traitValue] }.value
    #expect(fromChildTask == "from the suite trait")
  }

  @Test(.overrides { $0.register(\.traitOther) { "from the test trait" } })
  func suiteAndTestTraitsCombine() async throws {
    let container = Container()
    #expect(try container[\.traitValue] == "from the suite trait")
    #expect(try container[\.traitOther] == "from the test trait")
  }
}

@Suite(.overrides { $0.register(\.traitClaim, scope: .singleton) { Claim() } })
struct OverridesTraitGivesEachTestOfASuiteAFreshScopeTests {
  // Each test claims the suite-registered singleton of one container they all resolve from; if
  // the suite shared one scope between its tests, all but one would find it claimed.
  static let container = Container()
  @Test func first() async throws { #expect(try Self.container[\.traitClaim].claim(for: 1)) }
  @Test func second() async throws { #expect(try Self.container[\.traitClaim].claim(for: 2)) }
  @Test func third() async throws { #expect(try Self.container[\.traitClaim].claim(for: 3)) }
  @Test(arguments: [4, 5, 6]) func cases(claimant: Int) async throws {
    #expect(try Self.container[\.traitClaim].claim(for: claimant))
  }
}

@Suite(.overrides { $0.register(\.traitClaim, scope: .singleton) { Claim() } })
struct OverridesTraitSingletonInNestedScopesTests {
  // The suite's singleton belongs to each test's suite-level scope: a test trait, and a scope
  // the test opens, nest in it and use the same instance (still fresh for each test).
  static let container = Container()

  @Test(.overrides { $0.register(\.traitOther) { "from the test trait" } }, arguments: [1, 2])
  func theSuitesSingletonIsOneInstanceInsideTheTest(claimant: Int) async throws {
    let container = Self.container
    let claim = try container[\.traitClaim]
    #expect(claim.claim(for: claimant), "a singleton leaked from another test case")
    try await withOverrides {
      $0.register(\.traitValue) { "inner" }
    } operation: { () async throws in
      #expect(try container[\.traitClaim] === claim)
    }
  }
}
