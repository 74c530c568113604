import Foundation
import Knapsack
import Testing

// Edge cases found by a mutation audit of the validation engine: each test fails if the
// behaviour it names is broken, where the rest of the suite did not notice.
// They reuse the fixtures of ValidationTests.swift and CycleTests.swift.

/// A class implementation of `ValClockLike`, next to the struct one.
final class EdgeClassClock: ValClockLike { let label = "class clock" }
/// A struct implementation that holds a fresh object of its own.
struct EdgeHoldingClock: ValClockLike {
  let label = "struct clock"
  let part = ValThing("made with the clock")
}
/// A singleton that keeps a clock.
final class EdgeClockHolder: Sendable {
  let clock: any ValClockLike
  init(_ clock: any ValClockLike) { self.clock = clock }
}

extension Dependencies {
  var edgeClockHolder: Key<EdgeClockHolder> { .required() }
  /// Asks for itself with the same (long) argument.
  var edgeLongArgument: ArgumentKey<String, CycleNode> {
    ArgumentKey { r, text in CycleNode("long", next: try r.resolve(\.edgeLongArgument, argument: text)) }
  }
  /// An alias (a unique key whose factory returns another key's instance), its target and a
  /// holder: registered by the test that needs them.
  var edgeAliasTarget: Key<ValThing> { .required() }
  var edgeAlias: Key<ValThing> { .required() }
  var edgeAliasHolder: Key<ValThing> { .required() }
  /// Registered by the test that needs it.
  var edgeCycleEntry: Key<CycleNode> { .required() }
  /// Walks down to 0, then asks for 0 again: the steps into the loop pass its only key.
  var edgeCountdown: ArgumentKey<Int, CycleNode> {
    ArgumentKey { r, n in CycleNode("\(n)", next: try r.resolve(\.edgeCountdown, argument: max(n - 1, 0))) }
  }
}

@Suite struct ValidationEdgeCaseTests {
  /// `kept(along:)` calls a step `.released` only if EVERY instance it saw alive is still
  /// alive after the run. A unique key handing out a global once and a fresh instance once,
  /// both kept by a singleton, is captive (the fresh one).
  @Test func aSingletonKeepingAGlobalAndAFreshInstanceOfOneUniqueKeyIsCaptive() async throws {
    let container = Container()
    let shared = ValThing("settings")
    let calls = Counter()
    container.register(\.valShort, scope: .unique) { () -> ValThing in
      calls.increment() % 2 == 1 ? shared : ValThing("fresh")
    }
    container.register(\.valLongHolder, scope: .singleton) { r in
      ValThing("holder", [try r[\.valShort], try r[\.valShort]])
    }
    let captives = await container.validate().problems(.captiveDependency)
    #expect(captives.map { $0.path.map(\.name) } == [["\\.valLongHolder", "\\.valShort"]], "\(captives)")
    withExtendedLifetime(shared) {}
  }

  /// A unique key that hands out another key's singleton (binding a protocol to a concrete
  /// singleton) makes nothing of its own: a singleton that keeps what it returns keeps the
  /// singleton, which is not captive.
  @Test func aSingletonKeepingAnAliasOfASingletonIsNotCaptive() async throws {
    let container = Container()
    container.register(\.edgeAliasTarget, scope: .singleton) { ValThing("single") }
    container.register(\.edgeAlias) { r in try r[\.edgeAliasTarget] }
    container.register(\.edgeAliasHolder, scope: .singleton) { r in ValThing("holder", [try r[\.edgeAlias]]) }
    #expect(try container[\.edgeAliasHolder].parts[0] === container[\.edgeAliasTarget])
    let report = await container.validate()
    #expect(report.problems(.captiveDependency).isEmpty, "\(report)")
  }

  /// A type registration that aliases a key is looked through like a key's.
  @Test func aSingletonKeepingATypeAliasOfASingletonIsNotCaptive() async throws {
    let container = Container()
    container.register(\.edgeAliasTarget, scope: .singleton) { ValThing("single") }
    container.register(type: ValThing.self) { r in try r[\.edgeAliasTarget] }
    container.register(\.edgeAliasHolder, scope: .singleton) { r in
      ValThing("holder", [try r.resolve(type: ValThing.self)])
    }
    let report = await container.validate()
    #expect(report.problems(.captiveDependency).isEmpty, "\(report)")
  }

  /// An alias of a shorter-lived key forwards its lifetime too: the singleton that keeps what
  /// the alias returns holds the unique instance behind it, and the report names both.
  @Test func aSingletonKeepingAnAliasOfAUniqueKeyHoldsTheUniqueOneThroughTheAlias() async throws {
    let container = Container()
    container.register(\.edgeAliasTarget, scope: .unique) { ValThing("fresh") }
    container.register(\.edgeAlias) { r in try r[\.edgeAliasTarget] }
    container.register(\.edgeAliasHolder, scope: .singleton) { r in ValThing("holder", [try r[\.edgeAlias]]) }
    let captives = await container.validate().problems(.captiveDependency)
    #expect(
      captives.map { $0.path.map(\.name) } == [["\\.edgeAliasHolder", "\\.edgeAlias", "\\.edgeAliasTarget"]],
      "\(captives)")
    #expect(captives.first?.message.contains("holds \\.edgeAliasTarget (unique) through \\.edgeAlias") == true)
  }

  /// A unique key that asks for a singleton but returns an instance of its own is not an alias:
  /// keeping what it makes is captive.
  @Test func aUniqueKeyThatReadsASingletonButMakesItsOwnInstanceIsStillCaptive() async throws {
    let container = Container()
    container.register(\.edgeAliasTarget, scope: .singleton) { ValThing("single") }
    container.register(\.edgeAlias) { r in ValThing("own", [try r[\.edgeAliasTarget]]) }
    container.register(\.edgeAliasHolder, scope: .singleton) { r in ValThing("holder", [try r[\.edgeAlias]]) }
    let captives = await container.validate().problems(.captiveDependency)
    #expect(captives.map { $0.path.map(\.name) } == [["\\.edgeAliasHolder", "\\.edgeAlias"]], "\(captives)")
  }

  /// A step that made values and objects (an existential key with a struct and a class
  /// implementation) cannot be told apart: `.unknown`, not `.released`. Here the holder keeps
  /// the struct, which holds a fresh object: captive.
  @Test func aSingletonKeepingAStructOfAnExistentialKeyBesidesReadingAClassOneIsCaptive() async throws {
    let container = Container()
    let calls = Counter()
    container.register(\.valClockLike, scope: .unique) { () -> any ValClockLike in
      calls.increment() % 2 == 1 ? EdgeClassClock() : EdgeHoldingClock()
    }
    container.register(\.edgeClockHolder, scope: .singleton) { r in
      _ = try r[\.valClockLike].label  // the class one, read and let go
      return EdgeClockHolder(try r[\.valClockLike])  // the struct one, kept
    }
    let captives = await container.validate().problems(.captiveDependency)
    #expect(captives.map(\.dependency.name) == ["\\.edgeClockHolder"], "\(captives)")
  }

  /// The captive holder of a child-only key is the dependency that asks for it, not the
  /// root of the path.
  @Test func aParentSingletonTwoStepsAboveAChildOnlyKeyIsNotTheCaptiveHolder() async throws {
    let parent = Container()
    parent.register(\.valLongHolder, scope: .singleton) { r in ValThing("outer", [try r[\.valParentShared]]) }
    parent.register(\.valParentShared, scope: .singleton) { r in ValThing("shared", [try r[\.valSessionOnly]]) }
    let child = parent.makeChild()
    child.register(\.valSessionOnly) { ValThing("session") }
    let captives = await child.validate().problems(.captiveDependency)
    #expect(!captives.isEmpty)
    for captive in captives {
      #expect(captive.dependency.name == "\\.valParentShared", "\(captive)")
      #expect(captive.message.hasPrefix("\\.valParentShared, shared by a parent container"), "\(captive)")
    }
  }

  /// One loop reached from two of its members is reported once.
  @Test func aCycleEnteredAtTwoOfItsMembersIsReportedOnce() async throws {
    let container = Container()
    container.register(\.valCycleLeft) { r in ValThing("left", [try r[\.valCycleRight]]) }
    container.register(\.valCycleRight) { r in ValThing("right", [try r[\.valCycleLeft]]) }
    container.register(\.valUsesMissing) { r in ValThing("entry", [try r[\.valCycleRight]]) }
    let cycles = await container.validate().problems(.cycle)
    #expect(cycles.count == 1, "\(cycles)")
  }

  /// The same loop found from two of its members (one a root here, one reached through a
  /// handle to another container, so run in that container's copy) is one problem.
  @Test func aCycleFoundAgainThroughAHandleAtAnotherMemberIsReportedOnce() async throws {
    let other = Container()
    let container = Container()
    container.register(\.edgeCycleEntry) { () -> CycleNode in
      _ = other.provider(\.cycleA)  // a → b → c → a, resolved later
      return CycleNode("entry")
    }
    let report = await container.validate(including: [\.cycleB])
    let cycles = report.problems(.cycle)
    #expect(cycles.count == 1, "\(report)")
  }

  /// A validated cycle through an argument key says which argument was asked for
  /// again, and lists its key once though the steps into the loop pass it.
  @Test func aValidatedArgumentCycleSaysTheArgumentAndListsItsKeyOnce() async throws {
    let container = Container()
    let report = await container.validate(arguments: [\.edgeCountdown: 1])
    let cycles = report.problems(.cycle)
    try #require(cycles.count == 1, "\(report)")
    #expect(cycles[0].message.contains("asked again for the same argument, 0"), "\(cycles[0])")
    let listed = cycles[0].description.split(separator: "\n").filter { $0.hasPrefix("    \\.edgeCountdown:") }
    #expect(listed.count == 1, "\(cycles[0])")
  }

  /// A long argument is cut to 77 characters and an ellipsis, 80 in all.
  @Test func aLongRepeatedArgumentIsShortenedToEightyCharacters() throws {
    let container = Container()
    let argument = String(repeating: "a", count: 100)
    let error = try #require(throws: ResolutionError.self) {
      try container.resolve(\.edgeLongArgument, argument: argument)
    }
    #expect(error.kind == .cycle)
    #expect(error.underlying == "asked again for the same argument, " + String(repeating: "a", count: 77) + "...")
  }
}

/// Contributes, from this one line, to `\.valPlugins` a plugin that needs `\.valPluginNeeds`.
private func edgeContributeNeedyPlugin(to container: Container) {
  container.contribute(to: \.valPlugins) { r in try r[\.valPluginNeeds] }
}

@Suite struct EdgeCaseValidationHandleTests {
  /// A dependency that only handles reach is reported under the first dependency that made
  /// a handle to it (in run order, name order here), though a later one made a handle to it in
  /// another container (whose copy runs it too).
  @Test func aKeyReachedThroughHandlesFromTwoFactoriesIsReportedUnderTheFirst() async throws {
    let other = Container()
    let container = Container()
    container.register(\.valLongHolder) { r in
      _ = r.provider(\.valRootWithDefault)
      return ValThing("first")
    }
    container.register(\.valPlainUser) { () -> ValThing in
      _ = other.provider(\.valRootWithDefault)
      return ValThing("second")
    }
    let missing = await container.validate().problems(.requiredKeyNotProvided)
    #expect(
      missing.contains {
        $0.path.map(\.name) == ["\\.valLongHolder", "\\.valRootWithDefault", "\\.valMissingBehindDefault"]
      }, "\(missing)")
  }

  /// Contributions made from one line in two containers share their name: the report looks
  /// up the one the validated container registers, and says where it was registered.
  @Test func aContributionMadeFromOneLineInTwoContainersIsNamedWithItsRegistration() async throws {
    let first = Container()
    edgeContributeNeedyPlugin(to: first)
    let second = Container()
    edgeContributeNeedyPlugin(to: second)
    let missing = await second.validate().problems(.requiredKeyNotProvided)
    try #require(missing.count == 1, "\(missing)")
    #expect(missing[0].message.contains("asks for it (registered at"), "\(missing[0])")
    withExtendedLifetime(first) {}
  }
}

@Suite struct ValidationDuplicateTests {
  /// A missing key a factory's handles reach in two containers is one problem, whatever each
  /// container registers nearby.
  @Test func aMissingKeyReachedThroughHandlesInTwoContainersIsReportedOnce() async throws {
    let container = Container()
    let other = Container()
    other.register(\.valPlain) { ValThing("near") }
    container.register(\.valLongHolder) { r in
      _ = r.lazy(\.valMissing)
      _ = other.lazy(\.valMissing)
      return ValThing("holder")
    }
    let report = await container.validate()
    let missing = report.problems(.requiredKeyNotProvided).filter { $0.dependency.name == "\\.valMissing" }
    #expect(missing.count == 1, "\(report)")
  }
}
