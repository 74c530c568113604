import Foundation
import Knapsack
import Testing

// Point 4, under load: many override scopes open at once, each overriding the same keys with
// singletons of every kind, each resolved by many tasks at once; and handles carried from one
// scope into another.

extension Dependencies {
  var huntBStressArgument: ArgumentKey<Int, HuntBBox> { ArgumentKey { _, n in HuntBBox("default \(n)") } }
}

@Suite struct HuntBScopeStressTests {
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
            $0.register(\.huntBShared, scope: .singleton) {
              made.increment()
              return HuntBBox(tag)
            }
            $0.register(\.huntBAsync, scope: .singleton) { () async throws in HuntBBox(tag) }
            $0.register(\.huntBMain, scope: .singleton) { HuntBBox(tag) }
            $0.register(\.huntBStressArgument, scope: .singleton) { _, n in HuntBBox("\(tag) \(n)") }
          } operation: {
            try await withThrowingTaskGroup(of: [HuntBBox].self) { inner in
              for index in 0..<tasksPerScope {
                inner.addTask {
                  let from: Container = index.isMultiple(of: 2) ? container : child
                  return [
                    try from[\.huntBShared], try await from.resolve(\.huntBAsync), try await from.resolve(\.huntBMain),
                    try from.resolve(\.huntBStressArgument, argument: 1),
                    try from[\.huntBDependent].captured!,
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
    #expect(try container[\.huntBShared].tag == "default")
  }

  @Test func aHandleCarriedIntoAnotherScopeResolvesInTheScopeItWasMadeIn() async throws {
    let container = Container()
    // Scope A makes handles and a @LazyInjected holder, then waits inside while scope B uses them.
    let handed = Locked<(Provider<Key<HuntBBox>>, Lazy<Key<HuntBBox>>, HuntBLazyHolder, HuntBHandles)?>(nil)
    let inA = Locked<HuntBBox?>(nil)
    let done = Locked(false)
    let scopeA = Task {
      await withOverrides {
        $0.register(\.huntBShared, scope: .singleton) { HuntBBox("A") }
      } operation: {
        inA.withLock { $0 = try? container[\.huntBShared] }
        let holder = await withContainer(container) { HuntBLazyHolder() }
        handed.withLock {
          $0 = (
            container.provider(\.huntBShared), container.lazy(\.huntBShared), holder, try! container[\.huntBHandles]
          )
        }
        _ = await waitUntil(timeout: hangBound) { done.withLock { $0 } }
      }
    }
    #expect(await waitUntil(timeout: hangBound) { handed.withLock { $0 != nil } })
    let (provider, lazy, holder, handles) = try #require(handed.withLock { $0 })
    let fromB = try await withOverrides {
      $0.register(\.huntBShared, scope: .singleton) { HuntBBox("B") }
    } operation: {
      (
        try container[\.huntBShared], try provider.get(), try lazy.value, holder.shared, try handles.provider.get(),
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
    let outside = try container[\.huntBShared]
    let (inside, detached, detachedInjected) = try await withOverrides {
      $0.register(\.huntBShared, scope: .singleton) { HuntBBox("scoped") }
    } operation: {
      let inside = try container[\.huntBShared]
      let detached = try await Task.detached { try container[\.huntBShared] }.value
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
