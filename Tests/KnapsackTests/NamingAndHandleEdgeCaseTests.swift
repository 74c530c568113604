import Foundation
import Synchronization
import Testing

@testable import Knapsack

// Edge cases: each test fails if the behaviour it names is broken, which no other test of the
// suite notices.

/// Stands in for key paths, as in NamingTests.
private struct EdgeKeyPaths {
  var first: Int
  var second: Int
  var third: Int
  var inA: Int
  var inB: Int
  var alsoInB: Int
}

/// A value type in a chain of values.
struct EdgeLink: Sendable {
  let next: [EdgeLink]
  let label: String
}

/// Holds a `Lazy` that the factory of the key it resolves reads.
final class EdgeLazyBox: Sendable {
  let lazy = Mutex<Lazy<Key<ValThing>>?>(nil)
}

extension Dependencies {
  /// Level n holds level n + 1, up to 12; level 12 only reads a unique class instance.
  subscript(edgeLink level: Int) -> Key<EdgeLink> {
    Key { r in
      level < 12
        ? EdgeLink(next: [try r[\.[edgeLink: level + 1]]], label: "\(level)")
        : EdgeLink(next: [], label: try r[\.valShort].label)
    }
  }
  var edgeLinkHolder: Key<ValThing> { .required() }
  var edgeSelfReading: Key<ValThing> { .required() }
}

@Suite struct EdgeCaseNamingAndHandleTests {
  func describe(_ module: String, _ name: String) -> (Int) -> Descriptor {
    { index in
      Descriptor(
        index: index, kind: .key, displayName: name, typeName: "Int",
        declaration: CodeLocation(fileID: "\(module)/Keys.swift", line: 1), defaultRegistration: nil)
    }
  }

  /// Keys of one name in one module are numbered from 2: `x`, `x #2`, `x #3`.
  @Test func keysOfOneNameInOneModuleAreNumberedFromTwo() {
    let table = KeyTable.shared
    let name = "\\.edgeNumbered"
    let first = table.index(of: \EdgeKeyPaths.first as AnyKeyPath, describe: describe("App", name))
    let second = table.index(of: \EdgeKeyPaths.second as AnyKeyPath, describe: describe("App", name))
    let third = table.index(of: \EdgeKeyPaths.third as AnyKeyPath, describe: describe("App", name))
    #expect(table.descriptor(first).displayName == name)
    #expect(table.descriptor(second).displayName == name + " #2")
    #expect(table.descriptor(third).displayName == name + " #3")
  }

  /// A second key of another module's name in that module is numbered against the first.
  @Test func twoKeysOfAnotherModulesNameInOneModuleAreToldApart() {
    let table = KeyTable.shared
    let name = "\\.edgeClash"
    let a = table.index(of: \EdgeKeyPaths.inA as AnyKeyPath, describe: describe("FeatureA", name))
    let b = table.index(of: \EdgeKeyPaths.inB as AnyKeyPath, describe: describe("FeatureB", name))
    let alsoB = table.index(of: \EdgeKeyPaths.alsoInB as AnyKeyPath, describe: describe("FeatureB", name))
    let names = [a, b, alsoB].map { table.descriptor($0).displayName }
    #expect(Set(names).count == 3, "\(names)")
    #expect(names == [name, name + " (FeatureB)", name + " (FeatureB) #2"])
  }

  /// Past the links a step passes up, what a value holds is judged where the value's own
  /// step ended: the last value only read the unique instance, so the singleton holds nothing.
  @Test func aSingletonHoldingALongChainOfValuesThatOnlyReadAUniqueOneHoldsNothing() async throws {
    let container = Container()
    container.register(\.valShort, scope: .unique) { ValThing("short") }
    container.register(\.edgeLinkHolder, scope: .singleton) { r in
      ValThing("holder of \(try r[\.[edgeLink: 0]].label)")
    }
    let report = await container.validate()
    #expect(report.problems(.captiveDependency).isEmpty, "\(report)")
  }

  /// An argument key that another factory resolved with its own argument ran with that
  /// argument: it is not listed as "not run (no sample argument)" (it was, next to what that
  /// run found). One nothing resolves still is.
  @Test func anArgumentKeyResolvedByAnotherFactoryRanWithItsArgument() async throws {
    let container = Container()
    container.register(\.valProfile) { _, id in ValThing("profile \(id)") }
    let alone = await container.validate()
    #expect(alone.needsSampleArgument.map(\.name) == ["\\.valProfile"], "\(alone)")
    container.register(\.valPlainUser) { r in ValThing("user", [try r.resolve(\.valProfile, argument: 7)]) }
    let report = await container.validate()
    #expect(report.needsSampleArgument.isEmpty, "\(report)")
  }

  /// A Lazy read again by the factory its first read runs fails there (a cycle) without
  /// ending the first read's making: the value it makes is kept, made once.
  @Test func aLazyReadByItsOwnFactoryStillKeepsWhatTheFirstReadMade() throws {
    let container = Container()
    let box = EdgeLazyBox()
    let made = Counter()
    container.register(\.edgeSelfReading) { () -> ValThing in
      _ = try? box.lazy.withLock { $0 }?.value
      made.increment()
      return ValThing("made")
    }
    box.lazy.withLock { $0 = container.lazy(\.edgeSelfReading) }
    let lazy = try #require(box.lazy.withLock { $0 })
    let first = try lazy.value
    let second = try lazy.value
    #expect(first === second)
    #expect(made.count == 1)
  }

  /// Readers racing for a Lazy's first read all get the one value, made once. Two threads
  /// are released at once, many times, so that both find it unmade before either claims it.
  @Test func concurrentFirstReadsOfALazyMakeItOnce() async throws {
    let container = Container()
    container.register(\.valShort, scope: .unique) { ValThing("short") }
    for _ in 0..<500 {
      let lazy = container.lazy(\.valShort)
      let ready = Counter()
      let seen = Collected<ObjectIdentifier>()
      // Two threads of their own (a work queue may run both reads on one thread, which would
      // then wait for itself), released together: each spins until the other is there too. The
      // test waits for them without holding a thread of the pool.
      let threads = ThreadGroup(count: 2) { _ in
        ready.increment()
        while ready.count < 2 {}
        if let value = try? lazy.value { seen.append(ObjectIdentifier(value)) }
      }
      try #require(await threads.join(), "the two first reads of a Lazy did not end")
      let count = Set(seen.all).count
      try #require(count == 1, "one Lazy handed out \(count) instances")
    }
  }

  /// A contribution is declared where it is registered: its site is said once.
  @Test func aContributionsSiteIsSaidOnce() throws {
    let container = Container()
    container.contribute(to: \.valPlugins) { r in try r[\.valPluginNeeds] }
    let error = try #require(throws: ResolutionError.self) { try container[\.valPlugins] }
    let requestedBy = try #require(error.description.split(separator: "\n").first { $0.contains("requested by") })
    #expect(!requestedBy.contains("declared at"), "\(error)")
    let thrower = Container()
    thrower.contribute(to: \.valPlugins) { _ in throw PlannedFailure("no plugin") }
    let failed = try #require(throws: ResolutionError.self) { try thrower[\.valPlugins] }
    #expect(!failed.description.split(separator: "\n").contains { $0.hasPrefix("  declared at") }, "\(failed)")
    #expect(failed.description.contains("registered at"), "\(failed)")
  }
}
