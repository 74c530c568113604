import Foundation
import Knapsack
import Testing

// State per override scope, under load: many override scopes open at once, each overriding the same keys with
// singletons of every kind, each resolved by many tasks at once; and handles carried from one
// scope into another.

extension Dependencies {
  var partStressArgument: ArgumentKey<Int, PartBox> { ArgumentKey { _, n in PartBox("default \(n)") } }
}

@Suite struct ManyOverrideScopesTests {
  @Test func manyScopesResolvingTheirSingletonsConcurrentlyEachMakeOneOfTheirOwn() async throws {
    let container = Container()
    let child = container.makeChild()
    let scopes = 8
    let tasksPerScope = 40
    let made = Counter()
    let outcomes = try await withThrowingTaskGroup(of: (String, [ObjectIdentifier], [String]).self) { group in
      for number in 0..<scopes {
        let tag = "stress \(number)"
        group.addTask {
          try await withOverrides {
            $0.register(\.partShared, scope: .singleton) {
              made.increment()
              return PartBox(tag)
            }
            $0.register(\.partAsync, scope: .singleton) { () async throws in PartBox(tag) }
            $0.register(\.partMain, scope: .singleton) { PartBox(tag) }
            $0.register(\.partStressArgument, scope: .singleton) { _, n in PartBox("\(tag) \(n)") }
          } operation: {
            try await withThrowingTaskGroup(of: [PartBox].self) { inner in
              for index in 0..<tasksPerScope {
                inner.addTask {
                  let from: Container = index.isMultiple(of: 2) ? container : child
                  return [
                    try from[\.partShared], try await from.resolve(\.partAsync), try await from.resolve(\.partMain),
                    try from.resolve(\.partStressArgument, argument: 1),
                    try from[\.partDependent].captured!,
                  ]
                }
              }
              var identities: [ObjectIdentifier] = []
              var tags: [String] = []
              for try await boxes in inner {
                identities += boxes.map(ObjectIdentifier.init)
                tags += boxes.map(\.tag)
              }
              return (tag, identities, tags)
            }
          }
        }
      }
      return try await group.reduce(into: [(String, [ObjectIdentifier], [String])]()) { $0.append($1) }
    }
    #expect(outcomes.count == scopes)
    var seen = Set<ObjectIdentifier>()
    for (tag, identities, tags) in outcomes {
      #expect(tags.allSatisfy { $0 == tag || $0 == "\(tag) 1" }, "\(tag): \(Set(tags))")
      let distinct = Set(identities)
      #expect(distinct.count == 4, "\(tag): one instance per key in the scope, got \(distinct.count)")
      #expect(seen.isDisjoint(with: distinct), "\(tag) saw another scope's instance")
      seen.formUnion(distinct)
    }
    #expect(made.count == scopes, "each scope made its singleton exactly once")
    #expect(try container[\.partShared].tag == "default")
  }

  @Test func aHandleCarriedIntoAnotherScopeResolvesInTheScopeItWasMadeIn() async throws {
    let container = Container()
    // Scope A makes handles and a @LazyInjected holder, then waits inside while scope B uses them.
    let handed = Locked<(Provider<Key<PartBox>>, Lazy<Key<PartBox>>, PartLazyHolder, PartHandles)?>(nil)
    let inA = Locked<PartBox?>(nil)
    let done = Locked(false)
    let scopeA = Task {
      await withOverrides {
        $0.register(\.partShared, scope: .singleton) { PartBox("A") }
      } operation: {
        inA.withLock { $0 = try? container[\.partShared] }
        let holder = await withContainer(container) { PartLazyHolder() }
        handed.withLock {
          $0 = (
            container.provider(\.partShared), container.lazy(\.partShared), holder, try! container[\.partHandles]
          )
        }
        _ = await waitUntil(timeout: hangBound) { done.withLock { $0 } }
      }
    }
    #expect(await waitUntil(timeout: hangBound) { handed.withLock { $0 != nil } })
    let (provider, lazy, holder, handles) = try #require(handed.withLock { $0 })
    let fromB = try await withOverrides {
      $0.register(\.partShared, scope: .singleton) { PartBox("B") }
    } operation: {
      (
        try container[\.partShared], try provider.get(), try lazy.value, holder.shared, try handles.provider.get(),
        try handles.lazy.value
      )
    }
    done.withLock { $0 = true }
    await scopeA.value
    let a = try #require(inA.withLock { $0 })
    #expect(fromB.0.tag == "B")
    #expect([fromB.1, fromB.2, fromB.3, fromB.4, fromB.5].allSatisfy { $0 === a }, "scope A's handles, read in B")
  }

  @Test func aDetachedTaskInsideAScopeResolvesOutsideIt() async throws {
    let container = Container()
    let outside = try container[\.partShared]
    let (inside, detached, detachedInjected) = try await withOverrides {
      $0.register(\.partShared, scope: .singleton) { PartBox("scoped") }
    } operation: {
      let inside = try container[\.partShared]
      let detached = try await Task.detached { try container[\.partShared] }.value
      let injected = await withContainer(container) {
        await Task.detached { Container.current === Container.shared }.value
      }
      return (inside, detached, injected)
    }
    #expect(inside.tag == "scoped")
    #expect(detached === outside, "a detached task does not inherit the override scope")
    #expect(detachedInjected, "nor the task's container")
  }
}
