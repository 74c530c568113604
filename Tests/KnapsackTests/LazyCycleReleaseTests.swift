import Knapsack
import Synchronization
import Testing

/// Two shared objects that need each other, one through a `Lazy`, counting how many are alive.
private final class Mailbox: Sendable {
  let courier: Courier
  let alive: Census
  init(courier: Courier, alive: Census) {
    self.courier = courier
    self.alive = alive
    alive.increment()
  }
  deinit { alive.decrement() }
}

private final class Courier: Sendable {
  let mailbox: Lazy<Key<Mailbox>>
  let alive: Census
  init(mailbox: Lazy<Key<Mailbox>>, alive: Census) {
    self.mailbox = mailbox
    self.alive = alive
    alive.increment()
  }
  deinit { alive.decrement() }
}

private final class AsyncCourier: Sendable {
  let mailbox: Lazy<AsyncKey<AsyncMailbox>>
  let alive: Census
  init(mailbox: Lazy<AsyncKey<AsyncMailbox>>, alive: Census) {
    self.mailbox = mailbox
    self.alive = alive
    alive.increment()
  }
  deinit { alive.decrement() }
}

private final class AsyncMailbox: Sendable {
  let courier: AsyncCourier
  let alive: Census
  init(courier: AsyncCourier, alive: Census) {
    self.courier = courier
    self.alive = alive
    alive.increment()
  }
  deinit { alive.decrement() }
}

/// How many of the objects above are alive.
private final class Census: Sendable {
  private let value = Atomic<Int>(0)
  func increment() { value.add(1, ordering: .relaxed) }
  func decrement() { value.subtract(1, ordering: .relaxed) }
  var count: Int { value.load(ordering: .relaxed) }
}

extension Dependencies {
  fileprivate var lcAlive: Key<Census> { .required() }
  fileprivate var lcMailbox: Key<Mailbox> {
    Key { r in Mailbox(courier: try r[\.lcCourier], alive: try r[\.lcAlive]) }.scope(.singleton)
  }
  fileprivate var lcCourier: Key<Courier> {
    Key { r in Courier(mailbox: r.lazy(\.lcMailbox), alive: try r[\.lcAlive]) }.scope(.singleton)
  }
  fileprivate var lcAsyncMailbox: AsyncKey<AsyncMailbox> {
    AsyncKey { r in AsyncMailbox(courier: try await r.resolve(\.lcAsyncCourier), alive: try r[\.lcAlive]) }
      .scope(.singleton)
  }
  fileprivate var lcAsyncCourier: AsyncKey<AsyncCourier> {
    AsyncKey { r in AsyncCourier(mailbox: r.lazy(\.lcAsyncMailbox), alive: try r[\.lcAlive]) }.scope(.singleton)
  }
  fileprivate var lcCached: Key<Counter> { Key { Counter() }.scope(.cached) }
  fileprivate var lcUnique: Key<Counter> { Key { Counter() } }
}

/// A `Lazy` that breaks a cycle of two singletons (InjectionAndCycles.md) holds the instance its
/// container keeps weakly: once read, the two are still released with their container.
@Suite struct LazyCycleReleaseTests {
  @Test func twoSingletonsJoinedByAReadLazyAreReleasedWithTheirContainer() throws {
    let alive = Census()
    do {
      let container = Container()
      container.register(\.lcAlive) { alive }
      let mailbox = try container[\.lcMailbox]
      #expect(try mailbox.courier.mailbox.value === mailbox)
      #expect(alive.count == 2)
    }
    #expect(alive.count == 0)
  }

  @Test func anAsynchronousLazyReleasesThemToo() async throws {
    let alive = Census()
    do {
      let container = Container()
      container.register(\.lcAlive) { alive }
      let mailbox = try await container.resolve(\.lcAsyncMailbox)
      #expect(try await mailbox.courier.mailbox.value === mailbox)
      #expect(alive.count == 2)
    }
    #expect(alive.count == 0)
  }

  /// While its container keeps the instance, a read `Lazy` hands out that one; once a reset let it
  /// go and nothing else keeps it, the next read resolves the key again, as the container does.
  @Test func aLazyOfACachedInstanceFollowsItsContainerAfterAReset() throws {
    let container = Container()
    let lazy = container.lazy(\.lcCached)
    let first = ObjectIdentifier(try lazy.value)
    #expect(ObjectIdentifier(try lazy.value) == first)
    #expect(ObjectIdentifier(try container[\.lcCached]) == first)
    container.resetCached()
    let again = try lazy.value
    #expect(again === (try container[\.lcCached]))
    #expect(ObjectIdentifier(again) != first)
  }

  /// What no container keeps, a `Lazy` keeps: its first value, as before.
  @Test func aLazyOfAUniqueInstanceKeepsItsFirstValue() throws {
    let container = Container()
    let lazy = container.lazy(\.lcUnique)
    let first = try lazy.value
    #expect(try lazy.value === first)
    #expect(try container[\.lcUnique] !== first)
  }
}
