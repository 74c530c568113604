import Foundation
import Synchronization
import Testing

@testable import Knapsack

// Argument keys in the scopes that keep instances: what a binding keeps per argument. These
// bounds are internal state, so this file reads it directly, as RetentionTests does.

final class PerArgItem: Sendable {
  let id: Int
  init(id: Int) { self.id = id }
}

/// An argument that is a class, not `Hashable`.
final class PerArgQuery: Sendable {}

extension Dependencies {
  var perArgByQuery: ArgumentKey<PerArgQuery, PerArgItem> {
    ArgumentKey { _, _ in PerArgItem(id: 0) }.scope(.singleton)
  }
  var perArgWeak: ArgumentKey<Int, PerArgItem> { ArgumentKey { _, id in PerArgItem(id: id) }.scope(.weak) }
  var perArgCached: ArgumentKey<Int, PerArgItem> { ArgumentKey { _, id in PerArgItem(id: id) }.scope(.cached) }
  var perArgRequiredArgument: ArgumentKey<Int, PerArgItem> { .required() }
  var perArgRequiredAsyncArgument: DependencyKey<AsyncKind, Int, PerArgItem> { .required() }
  var perArgRequired: Key<PerArgItem> { .required() }
  var perArgSingleton: ArgumentKey<Int, PerArgItem> {
    ArgumentKey { _, id in PerArgItem(id: id) }.scope(.singleton)
  }
}

@Suite struct ArgumentRetentionTests {
  private func binding(
    _ container: Container, _ key: KeyPath<Dependencies, ArgumentKey<Int, PerArgItem>>
  ) throws
    -> Binding
  {
    try #require(container.slots.load(KeyTable.index(of: key))?.binding)
  }

  /// A weak-scoped argument key asked for ever new arguments, each instance released at once,
  /// keeps a bounded number of cells, not one per argument it ever saw.
  @Test func aWeakArgumentKeyDoesNotKeepACellPerReleasedArgument() throws {
    let container = Container()
    for id in 0..<10_000 { _ = try container.resolve(\.perArgWeak, argument: id) }
    #expect(try binding(container, \.perArgWeak).argumentCellCount < 200)
    // An instance still held is still shared, and a released one is made anew.
    let held = try container.resolve(\.perArgWeak, argument: 7)
    for id in 10_000..<20_000 { _ = try container.resolve(\.perArgWeak, argument: id) }
    #expect(try container.resolve(\.perArgWeak, argument: 7) === held)
    #expect(try container.resolve(\.perArgWeak, argument: 8).id == 8)
  }

  /// A cached argument key reset between arguments keeps a bounded number of cells.
  @Test func aResetCachedArgumentKeyDoesNotKeepACellPerArgument() throws {
    let container = Container()
    var kept: [PerArgItem] = []
    for id in 0..<10_000 {
      let item = try container.resolve(\.perArgCached, argument: id)
      if id == 5 { kept.append(item) }
      if id.isMultiple(of: 100) { container.resetCached() }
    }
    #expect(try binding(container, \.perArgCached).argumentCellCount < 400)
    // What is cached is still shared.
    let item = try container.resolve(\.perArgCached, argument: 3)
    #expect(try container.resolve(\.perArgCached, argument: 3) === item)
    #expect(kept.count == 1)
  }

  /// A singleton argument key keeps every instance it made, as its scope says.
  @Test func aSingletonArgumentKeyKeepsEachArgumentsInstance() throws {
    let container = Container()
    let first = try container.resolve(\.perArgSingleton, argument: 0)
    for id in 1..<1_000 { _ = try container.resolve(\.perArgSingleton, argument: id) }
    #expect(try binding(container, \.perArgSingleton).argumentCellCount == 1_000)
    #expect(try container.resolve(\.perArgSingleton, argument: 0) === first)
  }

  /// A weak instance being made when other arguments sweep the cells is still made once for
  /// the resolutions that ask for it at the same time.
  @Test func aWeakArgumentBeingMadeIsSharedWhileOthersAreSwept() async throws {
    let container = Container()
    let made = Atomic(0)
    container.register(\.perArgWeak) { _, id in
      if id == -1 {
        _ = made.add(1, ordering: .relaxed)
        // The other resolutions of -1 arrive while it is made; a synchronous factory cannot
        // suspend, so it holds its thread, for 20 ms only.
        usleep(20_000)
      }
      return PerArgItem(id: id)
    }
    let items = try await withThrowingTaskGroup(of: PerArgItem?.self) { group in
      for _ in 0..<4 { group.addTask { try container.resolve(\.perArgWeak, argument: -1) } }
      group.addTask {
        for id in 0..<5_000 { _ = try container.resolve(\.perArgWeak, argument: id) }
        return nil
      }
      return try await group.reduce(into: [PerArgItem]()) { if let item = $1 { $0.append(item) } }
    }
    #expect(made.load(ordering: .relaxed) == 1)
    #expect(items.allSatisfy { $0 === items[0] })
  }

  /// The fix of a required argument key spells a factory that such a key takes: a registration
  /// `{ ... }` would not compile, since an argument key's factory takes the resolver and the
  /// argument. A decoded error says the same; a key without an argument keeps `{ ... }`.
  @Test func aRequiredArgumentKeysFixSpellsAFactoryTakingTheArgument() async throws {
    let container = Container()
    let error = try #require(throws: ResolutionError.self) {
      try container.resolve(\.perArgRequiredArgument, argument: 1)
    }
    #expect(
      error.description.hasSuffix(
        "fix: register it at the composition root, `container.register(\\.perArgRequiredArgument) { r, argument in ... }`,"
          + " or in a test, `withOverrides { $0.register(\\.perArgRequiredArgument) { r, argument in ... } }"
          + " operation: { ... }`."), "\(error)")
    let decoded = try JSONDecoder().decode(ResolutionError.self, from: JSONEncoder().encode(error))
    #expect(decoded == error)
    #expect(decoded.description == error.description)
    let asynchronous = await #expect(throws: ResolutionError.self) {
      try await container.resolve(\.perArgRequiredAsyncArgument, argument: 1)
    }
    #expect(
      asynchronous?.description.contains("register(\\.perArgRequiredAsyncArgument) { r, argument in ... }") == true)
    let plain = try #require(throws: ResolutionError.self) { try container[\.perArgRequired] }
    #expect(plain.description.contains("`container.register(\\.perArgRequired) { ... }`"), "\(plain)")
    // The factory it spells is one the key takes.
    container.register(\.perArgRequiredArgument) { r, argument in PerArgItem(id: argument) }
    #expect(try container.resolve(\.perArgRequiredArgument, argument: 4).id == 4)
  }

  /// A shared scope's error for an argument it cannot tell apart says to make the type
  /// `Hashable`, and mentions tuples only for a tuple.
  @Test func anUnhashableClassArgumentIsNotCalledATuple() {
    let error = #expect(throws: ResolutionError.self) {
      try Container().resolve(\.perArgByQuery, argument: PerArgQuery())
    }
    #expect(error?.kind == .factoryMismatch)
    #expect(
      error?.underlying
        == "its singleton scope keeps one instance per argument, but PerArgQuery is not Hashable, so arguments"
        + " cannot be told apart; make the argument type Hashable or register the key with scope: .unique")
  }
}
