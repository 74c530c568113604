import Foundation
import Knapsack
import Synchronization
import Testing

extension Dependencies {
  var scopeToken: Key<Token> { Key { Token("default") } }
  var scopeAsyncToken: AsyncKey<Token> { AsyncKey { _ in Token("default") } }
  var scopeValue: Key<TypedPlugin> { Key { TypedPlugin(id: 0) } }
  var scopeNumber: Key<Int> { Key { 0 } }
  var scopeAsyncNumber: AsyncKey<Int> { AsyncKey { _ in 0 } }
  var scopeNumbered: ArgumentKey<String, Int> { ArgumentKey { _, _ in 0 } }
  var scopeLeaf: Key<Token> { Key { Token("leaf") } }
  var scopeLeft: Key<GraphHolder> { Key { r in GraphHolder(leaf: try r[\.scopeLeaf]) } }
  var scopeRight: Key<GraphHolder> { Key { r in GraphHolder(leaf: try r[\.scopeLeaf]) } }
  var scopeStamp: Key<TypedPlugin> { Key { TypedPlugin(id: 0) } }
  var scopeStampPair: Key<[TypedPlugin]> { Key { r in [try r[\.scopeStamp], try r[\.scopeStamp]] } }
  var scopeRoot: Key<GraphRoot> {
    Key { r in GraphRoot(left: try r[\.scopeLeft], right: try r[\.scopeRight], leaf: try r[\.scopeLeaf]) }
  }
}

final class GraphHolder: Sendable {
  let leaf: Token
  init(leaf: Token) { self.leaf = leaf }
}

final class GraphRoot: Sendable {
  let left: GraphHolder
  let right: GraphHolder
  let leaf: Token
  init(left: GraphHolder, right: GraphHolder, leaf: Token) {
    self.left = left
    self.right = right
    self.leaf = leaf
  }
}

@Suite struct ScopeTests {
  /// Registers `\.scopeToken` with `scope`, counting factory calls.
  private func container(
    _ scope: Scope, counter: Counter, slow: Bool = false, arrivals: Counter? = nil
  ) -> Container {
    let container = Container()
    container.register(\.scopeToken, scope: scope) { () -> Token in
      counter.increment()
      // Widens the window in which other resolutions arrive while the instance is being made. A
      // synchronous factory cannot suspend: it blocks its thread, for a bounded time (2 ms, or
      // `holdUntil`'s bound, in task-group tests where the thread is one of the pool's).
      if slow { usleep(2_000) }
      if let arrivals { holdUntil(arrivals) }
      return Token("\(scope)")
    }
    return container
  }

  // MARK: unique

  @Test func uniqueMakesANewInstanceEachTime() async throws {
    let counter = Counter()
    let container = container(.unique, counter: counter)
    #expect(try container[\.scopeToken] !== container[\.scopeToken])
    #expect(counter.count == 2)
  }

  // MARK: singleton

  @Test func singletonIsCreatedLazilyAndOnce() async throws {
    let counter = Counter()
    let container = container(.singleton, counter: counter)
    #expect(counter.count == 0)
    let first = try container[\.scopeToken]
    #expect(counter.count == 1)
    for _ in 0..<10 { #expect(try container[\.scopeToken] === first) }
    #expect(counter.count == 1)
  }

  @Test func singletonIsOnePerContainer() async throws {
    let counter = Counter()
    let first = container(.singleton, counter: counter)
    let second = container(.singleton, counter: counter)
    #expect(try first[\.scopeToken] !== second[\.scopeToken])
    #expect(counter.count == 2)
  }

  @Test func thousandConcurrentFirstResolutionsOnThreadsMakeOneSingleton() async throws {
    let counter = Counter()
    let container = container(.singleton, counter: counter, slow: true)
    let seen = Collected<ObjectIdentifier>()
    let failures = Collected<String>()
    let threads = ThreadGroup(count: 1_000) { _ in
      do {
        seen.append(ObjectIdentifier(try container[\.scopeToken]))
      } catch {
        failures.append("\(error)")
      }
    }
    #expect(await threads.join(), "the threads did not finish: a deadlock?")
    #expect(failures.all.isEmpty)
    #expect(counter.count == 1)
    #expect(seen.all.count == 1_000)
    #expect(Set(seen.all).count == 1)
  }

  @Test func thousandConcurrentFirstResolutionsInATaskGroupMakeOneSingleton() async throws {
    let counter = Counter()
    let arrivals = Counter()
    let container = container(.singleton, counter: counter, arrivals: arrivals)
    let identities = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<1_000 {
        group.addTask {
          arrivals.increment()
          return ObjectIdentifier(try container[\.scopeToken])
        }
      }
      var identities: [ObjectIdentifier] = []
      for try await identity in group { identities.append(identity) }
      return identities
    }
    #expect(counter.count == 1)
    #expect(identities.count == 1_000)
    #expect(Set(identities).count == 1)
  }

  @Test func failedSingletonCreationIsNotCached() async throws {
    let container = Container()
    let attempts = Counter()
    container.register(\.scopeToken, scope: .singleton) { () -> Token in
      if attempts.increment() == 1 { throw PlannedFailure("first attempt fails") }
      return Token("second attempt")
    }
    let error = #expect(throws: ResolutionError.self) { try container[\.scopeToken] }
    #expect(error?.kind == .factoryFailed)
    let value = try container[\.scopeToken]
    #expect(value.label == "second attempt")
    #expect(try container[\.scopeToken] === value)
    #expect(attempts.count == 2)
  }

  // MARK: cached

  @Test func cachedIsSharedUntilReset() async throws {
    let counter = Counter()
    let container = container(.cached, counter: counter)
    let first = try container[\.scopeToken]
    #expect(try container[\.scopeToken] === first)
    container.resetCached()
    let second = try container[\.scopeToken]
    #expect(second !== first)
    #expect(try container[\.scopeToken] === second)
    #expect(counter.count == 2)
  }

  @Test func aResetWhileTheFactoryRunsIsNotUndoneWhenItReturns() async throws {
    // Settings read before the reset are not what later resolutions get.
    let container = Container()
    let calls = Counter()
    let reading = Rendezvous(parties: 2)
    let resetDone = Locked(false)
    container.register(\.scopeToken, scope: .cached) { () -> Token in
      let call = calls.increment()
      if call == 1 {
        // Long bounds: they only end a hang, and a loaded machine may be slow to get here.
        reading.arriveAndWait(timeout: threadWaitBound)
        _ = waitUntilSync(timeout: threadWaitBound) { resetDone.withLock { $0 } }
      }
      return Token("read \(call)")
    }
    let before = Locked<String?>(nil)
    let resolving = ThreadGroup(count: 1) { _ in
      before.withLock { $0 = (try? container[\.scopeToken])?.label }
    }
    #expect(await reading.arrive(timeout: hangBound))
    container.resetCached()
    resetDone.withLock { $0 = true }
    #expect(await resolving.join())
    // The resolution that began before the reset gets what it made; nothing keeps it.
    #expect(before.withLock { $0 } == "read 1")
    #expect(try container[\.scopeToken].label == "read 2")
    #expect(try container[\.scopeToken].label == "read 2")
  }

  @Test func aResetWhileAnAsyncFactoryRunsIsNotUndoneWhenItReturns() async throws {
    let container = Container()
    let calls = Counter()
    let (started, startedSignal) = AsyncStream<Void>.makeStream()
    let (proceed, proceedSignal) = AsyncStream<Void>.makeStream()
    container.register(\.scopeAsyncToken, scope: .cached) { _ async throws -> Token in
      let call = calls.increment()
      if call == 1 {
        startedSignal.yield()
        for await _ in proceed { break }
      }
      return Token("read \(call)")
    }
    let first = Task { try await container.resolve(\.scopeAsyncToken) }
    for await _ in started { break }
    container.resetCached()
    proceedSignal.yield()
    #expect(try await first.value.label == "read 1")
    #expect(try await container.resolve(\.scopeAsyncToken).label == "read 2")
    #expect(try await container.resolve(\.scopeAsyncToken).label == "read 2")
  }

  @Test func resetCachedLeavesSingletonsAlone() async throws {
    let counter = Counter()
    let container = container(.singleton, counter: counter)
    let singleton = try container[\.scopeToken]
    container.resetCached()
    #expect(try container[\.scopeToken] === singleton)
    #expect(counter.count == 1)
  }

  @Test func cachedIsCreatedOnceUnderConcurrentFirstUse() async throws {
    let counter = Counter()
    let arrivals = Counter()
    let container = container(.cached, counter: counter, arrivals: arrivals)
    let identities = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<200 {
        group.addTask {
          arrivals.increment()
          return ObjectIdentifier(try container[\.scopeToken])
        }
      }
      return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
    }
    #expect(identities.count == 1)
    #expect(counter.count == 1)
  }

  // MARK: weak

  @Test func weakIsSharedWhileHeldAndReleasedAfterwards() async throws {
    let counter = Counter()
    let container = container(.weak, counter: counter)
    weak var probe: Token?
    do {
      let first = try container[\.scopeToken]
      #expect(try container[\.scopeToken] === first)
      probe = first
      #expect(probe != nil)
      #expect(counter.count == 1)
    }
    #expect(probe == nil, "the container kept a weak-scoped instance alive")
    _ = try container[\.scopeToken]
    #expect(counter.count == 2)
  }

  @Test func concurrentHoldersOfAWeakInstanceShareIt() async throws {
    let counter = Counter()
    let arrivals = Counter()
    let container = container(.weak, counter: counter, arrivals: arrivals)
    let tokens = try await withThrowingTaskGroup(of: Token.self) { group in
      for _ in 0..<200 {
        group.addTask {
          arrivals.increment()
          return try container[\.scopeToken]
        }
      }
      // Every result is kept until the end, so the instance is held throughout.
      return try await group.reduce(into: [Token]()) { $0.append($1) }
    }
    #expect(Set(tokens.map(ObjectIdentifier.init)).count == 1)
    #expect(try container[\.scopeToken] === tokens[0])
  }

  @Test func weakScopeOnAValueTypeBehavesLikeUnique() async throws {
    let container = Container()
    let counter = Counter()
    container.register(\.scopeValue, scope: .weak) { TypedPlugin(id: counter.increment()) }
    #expect(try container[\.scopeValue].id == 1)
    #expect(try container[\.scopeValue].id == 2)
  }

  /// An `Int` boxed into an object is an `NSNumber` that Foundation may keep alive: held weakly,
  /// it was never let go, and the "weak" value was shared.
  @Test func weakScopeOnBridgedValuesBehavesLikeUnique() async throws {
    let container = Container()
    let counter = Counter()
    container.register(\.scopeNumber, scope: .weak) { counter.increment() }
    container.register(\.scopeAsyncNumber, scope: .weak) { _ in counter.increment() }
    container.register(\.scopeNumbered, scope: .weak) { _, _ in counter.increment() }
    #expect(try container[\.scopeNumber] == 1)
    #expect(try container[\.scopeNumber] == 2)
    #expect(try await container.resolve(\.scopeAsyncNumber) == 3)
    #expect(try await container.resolve(\.scopeAsyncNumber) == 4)
    #expect(try container.resolve(\.scopeNumbered, argument: "a") == 5)
    #expect(try container.resolve(\.scopeNumbered, argument: "a") == 6)
  }

  /// An optional value: a cached one is made once (an absent instance is not a stored `nil`),
  /// and a weak one runs its factory each time (an optional is not a class instance).
  @Test func optionalValuesAreMadeByTheirFactory() async throws {
    let container = Container()
    let counter = Counter()
    container.register(type: Token?.self, name: "cached", scope: .cached) { () -> Token? in
      counter.increment()
      return Token("cached")
    }
    container.register(type: Token?.self, name: "none", scope: .cached) { () -> Token? in
      counter.increment()
      return nil
    }
    container.register(type: Token?.self, name: "weak", scope: .weak) { () -> Token? in
      counter.increment()
      return Token("weak")
    }
    let cached = try container.resolve(type: Token?.self, name: "cached")
    #expect(cached?.label == "cached")
    #expect(try container.resolve(type: Token?.self, name: "cached") === cached)
    #expect(try container.resolve(type: Token?.self, name: "none") == nil)
    #expect(try container.resolve(type: Token?.self, name: "none") == nil)
    #expect(try container.resolve(type: Token?.self, name: "weak")?.label == "weak")
    #expect(try container.resolve(type: Token?.self, name: "weak")?.label == "weak")
    #expect(counter.count == 4)
  }

  @Test func weakScopeWorksThroughAClassBoundExistential() async throws {
    let container = Container()
    container.register(\.storage, scope: .weak) { InMemoryStorage(name: "weak") }
    weak var probe: (any LocalStorage)?
    do {
      let first = try container[\.storage]
      #expect(try container[\.storage] === first)
      probe = first
    }
    #expect(probe == nil)
  }

  // MARK: graph

  @Test func graphIsSharedWithinOneResolutionOnly() async throws {
    let container = Container()
    let counter = Counter()
    container.register(\.scopeLeaf, scope: .graph) { () -> Token in
      counter.increment()
      return Token("graph")
    }
    let first = try container[\.scopeRoot]
    #expect(first.left.leaf === first.right.leaf)
    #expect(first.leaf === first.left.leaf)
    #expect(counter.count == 1)

    let second = try container[\.scopeRoot]
    #expect(second.leaf !== first.leaf)
    #expect(counter.count == 2)

    // Two top-level resolutions of the same dependent never share.
    #expect(try container[\.scopeLeft].leaf !== container[\.scopeLeft].leaf)
    #expect(try container[\.scopeLeaf] !== container[\.scopeLeaf])
  }

  /// The graph store tells bindings apart by serial, not by address: the registration that
  /// replaces a graph-scoped one in the middle of a resolution gets an instance of its own, and
  /// the instances made before and after the change are each shared with their own requests.
  @Test func aGraphScopedKeyReRegisteredDuringAResolutionGetsItsOwnInstance() async throws {
    let container = Container()
    container.register(\.scopeLeaf, scope: .graph) { Token("before") }
    container.register(\.scopeRoot) { r in
      let left = try r[\.scopeLeft]
      container.register(\.scopeLeaf, scope: .graph) { Token("after") }
      return GraphRoot(left: left, right: try r[\.scopeRight], leaf: try r[\.scopeLeaf])
    }
    let root = try container[\.scopeRoot]
    #expect(root.left.leaf.label == "before")
    #expect(root.right.leaf.label == "after")
    #expect(root.leaf === root.right.leaf)
    #expect(root.left.leaf !== root.right.leaf)
  }

  @Test func aGraphScopedValueThatIsNotAnObjectIsSharedWithinOneResolutionOnly() async throws {
    let container = Container()
    let counter = Counter()
    container.register(\.scopeStamp, scope: .graph) { TypedPlugin(id: counter.increment()) }
    #expect(try container[\.scopeStampPair] == [TypedPlugin(id: 1), TypedPlugin(id: 1)])
    #expect(try container[\.scopeStampPair] == [TypedPlugin(id: 2), TypedPlugin(id: 2)])
  }

  @Test func aGraphScopedInstanceIsReleasedWhenItsResolutionEnds() async throws {
    // A synchronous resolution keeps its instances on its thread's stack of them: the stack must
    // not keep the last resolution's instances alive, on a thread that stays or one that exits.
    let container = Container()
    container.register(\.scopeLeaf, scope: .graph) { Token("graph") }
    weak var probe: Token?
    do {
      let root = try container[\.scopeRoot]
      probe = root.leaf
      #expect(probe != nil)
    }
    #expect(probe == nil)

    // On a thread that exits: the instance is gone before the thread ends.
    final class Run: Sendable {
      let container: Container
      let released = Locked<Bool?>(nil)
      init(_ container: Container) { self.container = container }
    }
    let run = Run(container)
    var thread = pthread_t()
    let context = Unmanaged.passRetained(run).toOpaque()
    let created = pthread_create(
      &thread, nil,
      { context in
        guard let context else { return nil }
        let run = Unmanaged<Run>.fromOpaque(context).takeRetainedValue()
        weak var onThread: Token?
        do {
          onThread = (try? run.container[\.scopeRoot])?.leaf
        }
        run.released.withLock { $0 = onThread == nil }
        return nil
      }, context)
    #expect(created == 0)
    if created == 0 { pthread_join(thread, nil) }
    #expect(run.released.withLock { $0 } == true)
  }

  /// A synchronous resolution keeps its graph-scoped instances on its thread's stack of them,
  /// which has room for 16; past that, it moves them to a store of its own. Every instance stays
  /// shared, before and after the move, and is released when the resolution ends.
  @Test func aResolutionWithMoreGraphScopedInstancesThanTheThreadKeepsSharesEveryOne() throws {
    let container = Container()
    let names = (0..<40).map { "graph part \($0)" }
    let counter = Counter()
    for name in names {
      container.register(type: Token.self, name: name, scope: .graph) { () -> Token in
        counter.increment()
        return Token(name)
      }
    }
    container.register(type: [[Token]].self, name: "graph parts") { r in
      // Each part twice, then every part again once all exist.
      let pairs = try names.map {
        [try r.resolve(type: Token.self, name: $0), try r.resolve(type: Token.self, name: $0)]
      }
      return pairs + [try names.map { try r.resolve(type: Token.self, name: $0) }]
    }
    weak var probe: Token?
    do {
      let parts = try container.resolve(type: [[Token]].self, name: "graph parts")
      for (index, pair) in parts.dropLast().enumerated() {
        #expect(pair[0] === pair[1])
        #expect(parts.last?[index] === pair[0])
        #expect(pair[0].label == names[index])
      }
      #expect(counter.count == names.count)
      probe = parts[0][0]
      let again = try container.resolve(type: [[Token]].self, name: "graph parts")
      #expect(again[0][0] !== parts[0][0], "a new resolution is a new graph")
      #expect(counter.count == 2 * names.count)
    }
    #expect(probe == nil)
  }

  /// A graph-scoped key with an argument moves the resolution's instances off the thread's
  /// stack; those made before the move are still the ones its later requests get.
  @Test func aGraphScopedArgumentKeyAmongPlainOnesKeepsEveryInstanceShared() throws {
    let container = Container()
    container.register(\.scopeLeaf, scope: .graph) { Token("leaf") }
    container.register(\.scopeNumbered, scope: .graph) { _, text in text.count }
    container.register(\.scopeRoot) { r in
      let before = try r[\.scopeLeaf]
      #expect(try r.resolve(\.scopeNumbered, argument: "four") == 4)
      #expect(try r.resolve(\.scopeNumbered, argument: "four") == 4)
      #expect(try r[\.scopeLeaf] === before)
      return GraphRoot(left: try r[\.scopeLeft], right: try r[\.scopeRight], leaf: before)
    }
    let root = try container[\.scopeRoot]
    #expect(root.left.leaf === root.leaf)
    #expect(root.right.leaf === root.leaf)
  }

  /// A graph-scoped instance whose deinit resolves again (so a new resolution starts on the
  /// thread while the first one lets go of its instances) gets a graph of its own.
  @Test func aDeinitThatResolvesWhileAResolutionLetsGoOfItsGraphGetsItsOwn() throws {
    final class Resolving: Sendable {
      let container: Container
      let seen: Locked<[Bool]>
      init(_ container: Container, _ seen: Locked<[Bool]>) {
        self.container = container
        self.seen = seen
      }
      deinit {
        let root = try? container[\.scopeRoot]
        seen.withLock { $0.append(root.map { $0.left.leaf === $0.right.leaf && $0.leaf.label == "leaf" } ?? false) }
      }
    }
    let container = Container()
    let seen = Locked<[Bool]>([])
    container.register(\.scopeLeaf, scope: .graph) { Token("leaf") }
    container.register(type: Resolving.self, scope: .graph) { Resolving(container, seen) }
    container.register(type: [Resolving].self) { r in
      [try r.resolve(type: Resolving.self), try r.resolve(type: Resolving.self)]
    }
    let pair = try container.resolve(type: [Resolving].self)
    #expect(pair[0] === pair[1])
    #expect(seen.withLock { $0 }.isEmpty)
    _ = consume pair
    #expect(seen.withLock { $0 } == [true])
  }

  @Test func uniqueLeafIsNotSharedWithinOneResolution() async throws {
    let container = Container()
    let root = try container[\.scopeRoot]
    #expect(root.left.leaf !== root.right.leaf)
  }

  @Test func concurrentResolutionsGetTheirOwnGraph() async throws {
    let container = Container()
    container.register(\.scopeLeaf, scope: .graph) { Token("graph") }
    let roots = try await withThrowingTaskGroup(of: GraphRoot.self) { group in
      for _ in 0..<100 { group.addTask { try container[\.scopeRoot] } }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    for root in roots {
      #expect(root.left.leaf === root.right.leaf)
      #expect(root.leaf === root.left.leaf)
    }
    #expect(Set(roots.map { ObjectIdentifier($0.leaf) }).count == 100)
  }
}
