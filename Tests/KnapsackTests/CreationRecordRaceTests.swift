import Foundation
import Knapsack
import Synchronization
import Testing

// A shared instance is recorded for disposal before it is published. Published first, another
// thread could find it (the singleton read takes no lock), make and record a dependent of it
// before its own record: disposal, newest first, then closed the dependency before the
// dependent; and a reset that cleared the instance from the cache found no record to drop, so it
// stayed open until the container was disposed. Found by a user-side stress run.

/// An instance that counts how often it was handed out and disposed, and logs its disposal.
final class RaceRecorded: Disposable {
  let id: Int
  let handedOut = Atomic<Int>(0)
  let disposals = Atomic<Int>(0)
  let log: Collected<Int>?

  init(_ id: Int, log: Collected<Int>? = nil) {
    self.id = id
    self.log = log
  }

  func dispose() async throws {
    disposals.add(1, ordering: .relaxed)
    log?.append(id)
  }
}

extension Dependencies {
  subscript(raceLayer index: Int) -> Key<RaceRecorded> { .required() }
  var raceCached: Key<RaceRecorded> { .required() }
  var raceOtherCached: Key<RaceRecorded> { .required() }
  var raceSingleton: Key<RaceRecorded> { .required() }
}

@Suite(.hangGuard) struct CreationRecordRaceTests {
  static let layers = 40

  /// Forty shared keys, each using the next two, resolved from eight threads at once: whatever
  /// thread makes what, the container disposes each before the two it uses. (Before, about one
  /// run in seven closed a dependency first.)
  @Test(arguments: [Scope.singleton, .cached])
  func disposalClosesEveryDependentBeforeWhatItUsesWhenThreadsRace(scope: Scope) async throws {
    for _ in 0..<30 {
      let container = Container()
      let log = Collected<Int>()
      for index in 0..<Self.layers {
        container.register(\.[raceLayer: index], scope: scope) { resolver in
          for next in index + 1...index + 2 where next < Self.layers { _ = try resolver[\.[raceLayer: next]] }
          return RaceRecorded(index, log: log)
        }
      }
      let threads = ThreadGroup(count: 8) { thread in
        // Each thread starts at another layer, so that every layer has a thread that makes it
        // while others find it.
        for index in stride(from: Self.layers - 1 - thread * 5, through: 0, by: -1) {
          _ = try? container[\.[raceLayer: index]]
        }
      }
      #expect(await threads.join())
      try await container.dispose()
      let order = log.all
      #expect(order.count == Self.layers)
      let position = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
      for index in 0..<Self.layers {
        for next in index + 1...index + 2 where next < Self.layers {
          #expect(
            (position[index] ?? .max) < (position[next] ?? .min),
            "\(index) uses \(next), so it is disposed first: \(order)")
        }
      }
    }
  }

  /// Resets racing with resolutions of a cached key: every instance that was in the cache (it
  /// was handed out twice, so another resolution found it there) is disposed in the background
  /// once a reset dropped it, not kept open until the container is disposed.
  @Test func everyInstanceAResetDroppedIsDisposedWithoutWaitingForTheContainer() async throws {
    for _ in 0..<6 {
      let container = Container()
      let made = Collected<RaceRecorded>()
      let serial = Atomic<Int>(0)
      container.register(\.raceCached, scope: .cached) {
        let instance = RaceRecorded(serial.add(1, ordering: .relaxed).newValue)
        made.append(instance)
        return instance
      }
      let resolving = Atomic<Int>(3)
      let threads = ThreadGroup(count: 4) { thread in
        guard thread > 0 else {
          while resolving.load(ordering: .relaxed) > 0 {
            container.resetCached()
            usleep(20)
          }
          return
        }
        for _ in 0..<20_000 {
          (try? container[\.raceCached])?.handedOut.add(1, ordering: .relaxed)
        }
        resolving.subtract(1, ordering: .relaxed)
      }
      #expect(await threads.join())
      container.resetCached()
      let wasCached = { made.all.filter { $0.handedOut.load(ordering: .relaxed) >= 2 } }
      let closed = await waitUntil(timeout: .seconds(30)) {
        wasCached().allSatisfy { $0.disposals.load(ordering: .relaxed) == 1 }
      }
      let open = wasCached().filter { $0.disposals.load(ordering: .relaxed) != 1 }
      #expect(closed, "open after the last reset: \(open.map(\.id)) of \(made.all.count) made")
      try await container.dispose()
      // The container disposes of the rest, each once: none twice.
      #expect(made.all.allSatisfy { $0.disposals.load(ordering: .relaxed) == 1 })
    }
  }
  /// A reset while a singleton's factory that returns the cached instance runs (it has the
  /// instance, and has not returned yet) does not close that instance: the singleton hands it
  /// out from then on, and the container disposes of it once, with itself. (Before, the
  /// background closed it, the singleton handed it out closed, and `dispose()` closed it again.)
  @Test func aResetDuringTheCreationOfASingletonThatHandsOutTheCachedInstanceLeavesItOpen() async throws {
    let container = Container()
    container.register(\.raceCached, scope: .cached) { RaceRecorded(1) }
    container.register(\.raceOtherCached, scope: .cached) { RaceRecorded(2) }
    let handed = DispatchSemaphore(value: 0)
    let reset = DispatchSemaphore(value: 0)
    container.register(\.raceSingleton, scope: .singleton) { resolver in
      let cached = try resolver[\.raceCached]
      handed.signal()
      _ = reset.wait(timeout: .now() + 60)
      return cached
    }
    let other = try container[\.raceOtherCached]
    let made = Collected<RaceRecorded>()
    let creating = ThreadGroup(count: 1) { _ in
      if let singleton = try? container[\.raceSingleton] { made.append(singleton) }
    }
    #expect(handed.wait(timeout: .now() + 60) == .success)
    container.resetCached()
    reset.signal()
    #expect(await creating.join())
    let singleton = try #require(made.all.first)
    // The background disposes of what the reset dropped newest first: the singleton's
    // instance, made after the other, would be closed before it.
    #expect(await waitUntil(timeout: .seconds(60)) { other.disposals.load(ordering: .relaxed) == 1 })
    #expect(singleton.disposals.load(ordering: .relaxed) == 0)
    #expect(try container[\.raceSingleton] === singleton)
    #expect(try container[\.raceCached] !== singleton)
    try await container.dispose()
    #expect(singleton.disposals.load(ordering: .relaxed) == 1)
    #expect(other.disposals.load(ordering: .relaxed) == 1)
  }
}
