import Foundation
import Knapsack
import KnapsackTesting
import Synchronization
import Testing

// Point 4 of the issue, as a user reads it: state belongs to its container (and to its override
// scope), replaced registrations are freed, and there is no limit on the number of keys.

final class HuntBBox: Sendable {
  let tag: String
  let captured: HuntBBox?
  init(_ tag: String, captured: HuntBBox? = nil) {
    self.tag = tag
    self.captured = captured
  }
}

extension Dependencies {
  var huntBShared: Key<HuntBBox> { Key { HuntBBox("default") }.scope(.singleton) }
  var huntBUnique: Key<HuntBBox> { Key { HuntBBox("default") } }
  /// An app singleton (and a cached and a weak one) made from `\.huntBShared`.
  var huntBDependent: Key<HuntBBox> {
    Key { r in HuntBBox("dependent", captured: try r[\.huntBShared]) }.scope(.singleton)
  }
  var huntBCachedDependent: Key<HuntBBox> {
    Key { r in HuntBBox("cached", captured: try r[\.huntBShared]) }.scope(.cached)
  }
  var huntBWeakDependent: Key<HuntBBox> { Key { r in HuntBBox("weak", captured: try r[\.huntBShared]) }.scope(.weak) }
  var huntBAsync: AsyncKey<HuntBBox> { AsyncKey { HuntBBox("default") }.scope(.singleton) }
  var huntBMain: MainActorKey<HuntBBox> { MainActorKey { HuntBBox("default") }.scope(.singleton) }
  var huntBArgument: ArgumentKey<Int, HuntBBox> { ArgumentKey { _, n in HuntBBox("default \(n)") } }
  var huntBAsyncArgument: DependencyKey<AsyncKind, Int, HuntBBox> {
    DependencyKey { (_: Resolver, n: Int) async throws in HuntBBox("default \(n)") }
  }
  var huntBMainArgument: DependencyKey<MainActorKind, Int, HuntBBox> {
    DependencyKey { (_: Resolver, n: Int) in HuntBBox("default \(n)") }
  }
  var huntBRequired: Key<HuntBBox> { .required() }
  /// One key per number: 70,000 of them are 70,000 keys.
  subscript(huntBMany number: Int) -> Key<HuntBBox> { Key { HuntBBox("many \(number)") }.scope(.singleton) }
  var huntBPlugins: Multibinding<HuntBBox> { Multibinding() }
  var huntBAsyncPlugins: AsyncMultibinding<HuntBBox> { AsyncMultibinding() }
  var huntBMainPlugins: MainActorMultibinding<HuntBBox> { MainActorMultibinding() }
  /// Resolves `\.huntBShared` through a `Lazy` and a `Provider` made in its factory.
  var huntBHandles: Key<HuntBHandles> {
    Key { r in HuntBHandles(lazy: r.lazy(\.huntBShared), provider: r.provider(\.huntBShared)) }
  }
}

struct HuntBHandles: Sendable {
  let lazy: Lazy<Key<HuntBBox>>
  let provider: Provider<Key<HuntBBox>>
}

/// Weak references to what a test watches, to see it freed.
final class HuntBWatch: Sendable {
  private let entries = Mutex<[(label: String, object: @Sendable () -> AnyObject?)]>([])

  /// Returns `object`, watched under `label`.
  func watch<T: AnyObject & Sendable>(_ label: String, _ object: T) -> T {
    entries.withLock { $0.append((label, { [weak object] in object })) }
    return object
  }

  var alive: [String] { entries.withLock { $0 }.filter { $0.object() != nil }.map(\.label) }
}

@Suite struct HuntBStateTests {
  // MARK: Replaced registrations are freed, for every kind

  /// Registers, for every kind of key, a factory that captures a watched box (and, for shared
  /// scopes, keeps what it made); resolves each; returns the watch.
  @MainActor
  private func registerEveryKind(into container: Container, scope: Scope) async throws -> HuntBWatch {
    let watch = HuntBWatch()
    func captured(_ label: String) -> HuntBBox { watch.watch(label, HuntBBox(label)) }
    do {
      let sync = captured("sync")
      container.register(\.huntBUnique, scope: scope) { HuntBBox("made", captured: sync) }
      let async = captured("async")
      container.register(\.huntBAsync, scope: scope) { () async throws in HuntBBox("made", captured: async) }
      let main = captured("main")
      container.register(\.huntBMain, scope: scope) { HuntBBox("made", captured: main) }
      let argument = captured("argument")
      container.register(\.huntBArgument, scope: scope) { _, n in HuntBBox("made \(n)", captured: argument) }
      let asyncArgument = captured("async argument")
      container.register(\.huntBAsyncArgument, scope: scope) { (_: Resolver, n: Int) async throws in
        HuntBBox("made \(n)", captured: asyncArgument)
      }
      let mainArgument = captured("main argument")
      container.register(\.huntBMainArgument, scope: scope) { (_: Resolver, n: Int) in
        HuntBBox("made \(n)", captured: mainArgument)
      }
      let required = captured("required")
      container.register(\.huntBRequired, scope: scope) { HuntBBox("made", captured: required) }
      let type = captured("type")
      container.register(type: HuntBBox.self, name: "huntB replaced", scope: scope) { HuntBBox("made", captured: type) }
      let typeWithResolver = captured("type with resolver")
      container.register(type: HuntBBox.self, name: "huntB replaced with resolver", scope: scope) { _ in
        HuntBBox("made", captured: typeWithResolver)
      }
      var made: [HuntBBox] = []
      made.append(try container[\.huntBUnique])
      made.append(try await container.resolve(\.huntBAsync))
      made.append(try container[\.huntBMain])
      made.append(try container.resolve(\.huntBArgument, argument: 1))
      made.append(try await container.resolve(\.huntBAsyncArgument, argument: 1))
      made.append(try container.resolve(\.huntBMainArgument, argument: 1))
      made.append(try container[\.huntBRequired])
      made.append(try container.resolve(type: HuntBBox.self, name: "huntB replaced"))
      made.append(try container.resolve(type: HuntBBox.self, name: "huntB replaced with resolver"))
      #expect(made.allSatisfy { $0.tag.hasPrefix("made") })
      for (offset, box) in made.enumerated() { _ = watch.watch("instance \(offset)", box) }
    }
    return watch
  }

  /// Replaces every registration `registerEveryKind` made, and resolves each again.
  @MainActor
  private func replaceEveryKind(in container: Container) async throws {
    container.register(\.huntBUnique) { HuntBBox("new") }
    container.register(\.huntBAsync) { () async throws in HuntBBox("new") }
    container.register(\.huntBMain) { HuntBBox("new") }
    container.register(\.huntBArgument) { _, n in HuntBBox("new \(n)") }
    container.register(\.huntBAsyncArgument) { (_: Resolver, n: Int) async throws in HuntBBox("new \(n)") }
    container.register(\.huntBMainArgument) { (_: Resolver, n: Int) in HuntBBox("new \(n)") }
    container.register(\.huntBRequired) { HuntBBox("new") }
    container.register(type: HuntBBox.self, name: "huntB replaced") { HuntBBox("new") }
    container.register(type: HuntBBox.self, name: "huntB replaced with resolver") { _ in HuntBBox("new") }
    #expect(try container[\.huntBUnique].tag == "new")
    #expect(try await container.resolve(\.huntBAsync).tag == "new")
    #expect(try container[\.huntBMain].tag == "new")
    #expect(try container.resolve(\.huntBArgument, argument: 1).tag == "new 1")
    #expect(try await container.resolve(\.huntBAsyncArgument, argument: 1).tag == "new 1")
    #expect(try container.resolve(\.huntBMainArgument, argument: 1).tag == "new 1")
    #expect(try container[\.huntBRequired].tag == "new")
    #expect(try container.resolve(type: HuntBBox.self, name: "huntB replaced").tag == "new")
    #expect(try container.resolve(type: HuntBBox.self, name: "huntB replaced with resolver").tag == "new")
  }

  @MainActor @Test(arguments: [Scope.unique, .singleton, .cached, .weak, .graph])
  func replacedRegistrationsOfEveryKindAndScopeAreFreed(_ scope: Scope) async throws {
    let container = Container()
    let watch = try await registerEveryKind(into: container, scope: scope)
    try await replaceEveryKind(in: container)
    #expect(await freedSoon { watch.alive == [] }, "still alive after the registrations were replaced")
  }

  @MainActor @Test(arguments: [Scope.unique, .singleton])
  func replacedRegistrationsResolvedThroughAChildAreFreed(_ scope: Scope) async throws {
    let parent = Container()
    let child = parent.makeChild()
    let watch = HuntBWatch()
    do {
      let sync = watch.watch("sync", HuntBBox("sync"))
      let main = watch.watch("main", HuntBBox("main"))
      let type = watch.watch("type", HuntBBox("type"))
      parent.register(\.huntBUnique, scope: scope) { HuntBBox("made", captured: sync) }
      parent.register(\.huntBMain, scope: scope) { HuntBBox("made", captured: main) }
      parent.register(type: HuntBBox.self, name: "huntB child replaced", scope: scope) {
        HuntBBox("made", captured: type)
      }
      _ = watch.watch("sync instance", try child[\.huntBUnique])
      _ = watch.watch("main instance", try child[\.huntBMain])
      _ = watch.watch("type instance", try child.resolve(type: HuntBBox.self, name: "huntB child replaced"))
    }
    parent.register(\.huntBUnique) { HuntBBox("new") }
    parent.register(\.huntBMain) { HuntBBox("new") }
    parent.register(type: HuntBBox.self, name: "huntB child replaced") { HuntBBox("new") }
    #expect(try child[\.huntBUnique].tag == "new")
    #expect(try child[\.huntBMain].tag == "new")
    #expect(try child.resolve(type: HuntBBox.self, name: "huntB child replaced").tag == "new")
    #expect(await freedSoon { watch.alive == [] })
  }

  @Test func aReplacedDecoratedRegistrationIsFreedWithItsDecoratorsCaptures() async throws {
    // Replacing a decorated key's registration keeps its decorators: they still apply to the new
    // factory. What the replaced factory captured is freed.
    let container = Container()
    let watch = HuntBWatch()
    do {
      let captured = watch.watch("factory", HuntBBox("factory"))
      container.register(\.huntBShared) { HuntBBox("old", captured: captured) }
      container.decorate(\.huntBShared) { _, box in HuntBBox("decorated " + box.tag) }
      _ = watch.watch("instance", try container[\.huntBShared])
    }
    container.register(\.huntBShared) { HuntBBox("new") }
    #expect(try container[\.huntBShared].tag == "decorated new")
    #expect(await freedSoon { watch.alive == [] })
  }

  @Test func aReplacedRegistrationIsFreedWhileAProviderOfItIsKept() async throws {
    let container = Container()
    let watch = HuntBWatch()
    let provider = container.provider(\.huntBShared)
    let lazy = container.lazy(\.huntBUnique)
    do {
      let captured = watch.watch("singleton factory", HuntBBox("captured"))
      let capturedUnique = watch.watch("unique factory", HuntBBox("captured"))
      container.register(\.huntBShared, scope: .singleton) { HuntBBox("old", captured: captured) }
      container.register(\.huntBUnique) { HuntBBox("old", captured: capturedUnique) }
      #expect(try provider.get().tag == "old")
    }
    container.register(\.huntBShared, scope: .singleton) { HuntBBox("new") }
    container.register(\.huntBUnique) { HuntBBox("new") }
    #expect(try provider.get().tag == "new", "a provider resolves again on every get()")
    #expect(try lazy.value.tag == "new", "a lazy never read resolves what is registered when it is read")
    _ = try container[\.huntBUnique]
    #expect(await freedSoon { watch.alive == [] })
  }

  @Test func replacedOverridesInsideAScopeAreFreedWhenTheScopeEnds() async throws {
    let container = Container()
    let watch = HuntBWatch()
    try await withOverrides { overrides in
      let captured = watch.watch("override", HuntBBox("captured"))
      overrides.register(\.huntBShared, scope: .singleton) { HuntBBox("override", captured: captured) }
    } operation: {
      _ = watch.watch("instance", try container[\.huntBShared])
      #expect(try container[\.huntBShared].tag == "override")
    }
    #expect(try container[\.huntBShared].tag == "default")
    #expect(await freedSoon { watch.alive == [] }, "nothing persists after the scope ends")
  }

  @Test func aReplacedRegistrationIsFreedFromAChildThatDecoratesItsSingleton() async throws {
    // The child keeps an instance of its own, made by the parent's registration and wrapped by
    // the child's decorator: replacing the parent's registration frees that one too.
    let parent = Container()
    let child = parent.makeChild()
    let watch = HuntBWatch()
    do {
      let captured = watch.watch("factory", HuntBBox("captured"))
      parent.register(\.huntBShared, scope: .singleton) { HuntBBox("old", captured: captured) }
      child.decorate(\.huntBShared) { _, box in HuntBBox("decorated " + box.tag, captured: box) }
      let decorated = try child[\.huntBShared]
      #expect(decorated.tag == "decorated old")
      _ = watch.watch("child's instance", decorated)
      _ = watch.watch("parent's instance", try parent[\.huntBShared])
    }
    parent.register(\.huntBShared, scope: .singleton) { HuntBBox("new") }
    #expect(try child[\.huntBShared].tag == "decorated new")
    #expect(try parent[\.huntBShared].tag == "new")
    #expect(await freedSoon { watch.alive == [] })
  }

  @Test func decoratorsAndContributionsOfAScopeAreFreedWhenItEnds() async throws {
    let container = Container()
    container.contribute(to: \.huntBPlugins) { _ in HuntBBox("app plugin") }
    let watch = HuntBWatch()
    try await withOverrides { overrides in
      let decorator = watch.watch("decorator", HuntBBox("decorator"))
      let contribution = watch.watch("contribution", HuntBBox("contribution"))
      overrides.decorate(\.huntBShared) { _, box in HuntBBox("decorated", captured: decorator) }
      overrides.contribute(to: \.huntBPlugins, scope: .singleton) { _ in
        HuntBBox("scope plugin", captured: contribution)
      }
    } operation: {
      _ = watch.watch("decorated instance", try container[\.huntBShared])
      let plugins = try container[\.huntBPlugins]
      #expect(Set(plugins.map(\.tag)) == ["app plugin", "scope plugin"])
      for plugin in plugins where plugin.tag == "scope plugin" { _ = watch.watch("plugin", plugin) }
    }
    #expect(try container[\.huntBShared].tag == "default")
    #expect(try container[\.huntBPlugins].map(\.tag) == ["app plugin"])
    #expect(await freedSoon { watch.alive == [] })
  }

  // MARK: No limit on the number of keys

  /// 70,000 type registrations with names of their own: the last ones have indices above 65,535.
  static func manyNames(_ prefix: String) -> [String] { (0..<70_000).map { "\(prefix) \($0)" } }

  @Test(.enabled(if: !isThreadSanitized, "70,000 registrations under the sanitizer hold the shared pool for minutes"))
  func singletonsAboveTheDirectRangeAreMadeOncePerContainer() throws {
    let names = Self.manyNames("huntB many singleton")
    let container = Container()
    let made = Counter()
    for name in names {
      container.register(type: HuntBBox.self, name: name, scope: .singleton) {
        made.increment()
        return HuntBBox(name)
      }
    }
    let other = Container()
    for name in names.suffix(10) {
      other.register(type: HuntBBox.self, name: name, scope: .singleton) { HuntBBox("other") }
    }
    for name in [names[0], names[65_535], names[65_536], names[69_999]] {
      let first = try container.resolve(type: HuntBBox.self, name: name)
      #expect(first.tag == name)
      #expect(try container.resolve(type: HuntBBox.self, name: name) === first, "\(name): one per container")
      #expect(
        try container.makeChild().resolve(type: HuntBBox.self, name: name) === first, "\(name): shared by a child")
    }
    #expect(made.count == 4)
    #expect(try other.resolve(type: HuntBBox.self, name: names[69_999]).tag == "other")
    #expect(try container.resolve(type: HuntBBox.self, name: names[69_999]).tag == names[69_999])
  }

  @Test(.enabled(if: !isThreadSanitized, "70,000 registrations under the sanitizer hold the shared pool for minutes"))
  func aReplacedRegistrationAboveTheDirectRangeIsFreed() async throws {
    let names = Self.manyNames("huntB many replaced")
    let container = Container()
    for name in names { container.register(type: HuntBBox.self, name: name) { HuntBBox(name) } }
    let last = names[69_999]
    let watch = HuntBWatch()
    do {
      let captured = watch.watch("captured", HuntBBox("captured"))
      container.register(type: HuntBBox.self, name: last, scope: .singleton) { HuntBBox("old", captured: captured) }
      _ = watch.watch("singleton", try container.resolve(type: HuntBBox.self, name: last))
    }
    container.register(type: HuntBBox.self, name: last, scope: .singleton) { HuntBBox("new") }
    #expect(try container.resolve(type: HuntBBox.self, name: last).tag == "new")
    #expect(try container.resolve(type: HuntBBox.self, name: last).tag == "new")
    #expect(await freedSoon { watch.alive == [] })
  }

  @Test(.enabled(if: !isThreadSanitized, "70,000 registrations under the sanitizer hold the shared pool for minutes"))
  func overridesAndInjectionAboveTheDirectRangeStayInTheirScope() async throws {
    let names = Self.manyNames("huntB many overridden")
    let container = Container()
    for name in names { container.register(type: HuntBBox.self, name: name, scope: .singleton) { HuntBBox(name) } }
    let last = names[69_999]
    let outside = try container.resolve(type: HuntBBox.self, name: last)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for tag in ["left", "right"] {
        group.addTask {
          try await withOverrides {
            $0.register(type: HuntBBox.self, name: last, scope: .singleton) { HuntBBox(tag) }
          } operation: {
            let inside = try container.resolve(type: HuntBBox.self, name: last)
            #expect(inside.tag == tag)
            #expect(try container.resolve(type: HuntBBox.self, name: last) === inside)
            let injected = await withContainer(container) { HuntBTypeHolder(name: last).box }
            #expect(injected === inside)
          }
        }
      }
      try await group.waitForAll()
    }
    #expect(try container.resolve(type: HuntBBox.self, name: last) === outside)
  }

  @Test(.enabled(if: !isThreadSanitized, "70,000 registrations under the sanitizer hold the shared pool for minutes"))
  func seventyThousandKeysEachKeepTheirSingleton() async throws {
    let container = Container()
    var first: [Int: HuntBBox] = [:]
    for number in 0..<70_000 {
      let box = try container[\.[huntBMany: number]]
      if number % 7_000 == 0 || number >= 69_990 { first[number] = box }
    }
    for (number, box) in first {
      #expect(try container[\.[huntBMany: number]] === box, "\(number): the container kept its singleton")
      #expect(box.tag == "many \(number)")
    }
    let other = Container()
    #expect(try other[\.[huntBMany: 69_999]] !== first[69_999], "another container has its own")
    let scoped = try await withOverrides {
      $0.register(\.[huntBMany: 69_999], scope: .singleton) { HuntBBox("scoped") }
    } operation: {
      (try container[\.[huntBMany: 69_999]], try container[\.[huntBMany: 69_999]], try container[\.[huntBMany: 69_998]])
    }
    #expect(scoped.0.tag == "scoped" && scoped.0 === scoped.1)
    #expect(scoped.2 !== first[69_998], "the app's singletons are made again in a scope")
    #expect(try container[\.[huntBMany: 69_999]] === first[69_999])
  }

  // MARK: A singleton registered in an override scope belongs to that scope

  /// Runs `body` in `count` override scopes open at once, each registering its own
  /// `\.huntBShared` singleton tagged with its number; returns what each returned, by number.
  private func inParallelScopes<T: Sendable>(
    _ count: Int = 4,
    _ body: @escaping @Sendable (_ tag: String, _ barrier: Rendezvous) async throws -> T
  ) async throws -> [String: T] {
    let barrier = Rendezvous(parties: count)
    return try await withThrowingTaskGroup(of: (String, T).self) { group in
      for number in 0..<count {
        let tag = "scope \(number)"
        group.addTask {
          try await withOverrides {
            $0.register(\.huntBShared, scope: .singleton) { HuntBBox(tag) }
          } operation: {
            (tag, try await body(tag, barrier))
          }
        }
      }
      return try await group.reduce(into: [String: T]()) { $0[$1.0] = $1.1 }
    }
  }

  @Test func parallelScopesKeepTheirSingletonThroughLazyInjected() async throws {
    let container = Container()
    let results = try await inParallelScopes { tag, barrier in
      let holder = await withContainer(container) { HuntBLazyHolder() }
      await barrier.arrive()
      // Read after every scope registered: each holder remembers its own scope.
      let lazy = holder.shared
      let direct = try container[\.huntBShared]
      return [lazy, direct, holder.shared]
    }
    #expect(results.count == 4)
    for (tag, boxes) in results {
      #expect(boxes.allSatisfy { $0.tag == tag && $0 === boxes[0] }, "\(tag): \(boxes.map(\.tag))")
    }
    #expect(try container[\.huntBShared].tag == "default")
  }

  @Test func aLazyInjectedReadAfterItsScopeEndedStillReadsThatScope() async throws {
    // `@LazyInjected` remembers the override scope current when its instance was made.
    let container = Container()
    let results = try await inParallelScopes { tag, _ in
      (await withContainer(container) { HuntBLazyHolder() }, try container[\.huntBShared])
    }
    for (tag, (holder, inside)) in results {
      let read = holder.shared
      #expect(read.tag == tag)
      #expect(read === inside)
    }
  }

  @Test func handlesMadeInsideAScopeResolveInItFromAnotherTaskAndAfterItEnds() async throws {
    let container = Container()
    let results = try await inParallelScopes { tag, barrier in
      let handles = try container[\.huntBHandles]
      let direct = container.provider(\.huntBShared)
      let lazy = container.lazy(\.huntBShared)
      await barrier.arrive()
      // From a detached task: no task-local scope, the handles carry theirs.
      let fromDetached = try await Task.detached {
        [try handles.provider.get(), try handles.lazy.value, try direct.get(), try lazy.value]
      }.value
      return (handles, direct, lazy, fromDetached, try container[\.huntBShared])
    }
    #expect(results.count == 4)
    for (tag, (handles, direct, lazy, fromDetached, inside)) in results {
      #expect(fromDetached.allSatisfy { $0 === inside }, "\(tag): \(fromDetached.map(\.tag))")
      // The scope has ended: the handles still resolve in it.
      #expect(try handles.provider.get().tag == tag)
      #expect(try direct.get().tag == tag)
      #expect(try lazy.value === inside)
      #expect(try handles.lazy.value === inside)
    }
  }

  @Test func nestedScopesInParallelTasksKeepTheirOwnSingletons() async throws {
    let container = Container()
    let results = try await inParallelScopes { tag, barrier in
      let outer = try container[\.huntBShared]
      let (inner, innerAgain) = try await withOverrides {
        $0.register(\.huntBUnique) { HuntBBox("inner") }
      } operation: {
        await barrier.arrive()
        return (try container[\.huntBShared], await withContainer(container) { HuntBInjectedHolder().shared })
      }
      let renamed = try await withOverrides {
        $0.register(\.huntBShared, scope: .singleton) { HuntBBox(tag + " nested") }
      } operation: {
        (try container[\.huntBShared], try container[\.huntBShared])
      }
      #expect(renamed.0 === renamed.1)
      #expect(renamed.0.tag == tag + " nested")
      return [outer, inner, innerAgain, try container[\.huntBShared]]
    }
    for (tag, boxes) in results {
      #expect(boxes.allSatisfy { $0.tag == tag && $0 === boxes[0] }, "\(tag): \(boxes.map(\.tag))")
    }
  }

  @Test func childContainersInParallelScopesShareTheirScopesSingleton() async throws {
    let container = Container()
    let childMadeOutside = container.makeChild()
    let results = try await inParallelScopes { tag, barrier in
      let childMadeInside = container.makeChild()
      await barrier.arrive()
      let viaInjected = await withContainer(childMadeOutside) { HuntBInjectedHolder().shared }
      let viaLazyInjected = await withContainer(childMadeInside) { HuntBLazyHolder().shared }
      let boxes = [
        try container[\.huntBShared], try childMadeOutside[\.huntBShared], try childMadeInside[\.huntBShared],
        try childMadeInside.makeChild()[\.huntBShared], viaInjected, viaLazyInjected,
      ]
      return boxes
    }
    for (tag, boxes) in results {
      #expect(boxes.allSatisfy { $0.tag == tag && $0 === boxes[0] }, "\(tag): \(boxes.map(\.tag))")
    }
    #expect(try childMadeOutside[\.huntBShared].tag == "default")
  }

  @Test func aSingletonAChildRegistersInAScopeIsTheChildsInThatScope() async throws {
    let parent = Container()
    let child = parent.makeChild()
    child.register(\.huntBShared, scope: .singleton) { HuntBBox("child") }
    let outsideChild = try child[\.huntBShared]
    let results = try await inParallelScopes { tag, barrier in
      await barrier.arrive()
      return (try parent[\.huntBShared], try child[\.huntBShared])
    }
    for (tag, (fromParent, fromChild)) in results {
      #expect(fromParent.tag == tag)
      #expect(fromChild.tag == tag, "the scope's override replaces the child's registration too")
      #expect(fromChild === fromParent, "one per container hierarchy in a scope")
    }
    #expect(try child[\.huntBShared] === outsideChild)
  }

  @Test func theAppsSingletonsAreMadeAgainInEachParallelScopeFromItsOverride() async throws {
    let container = Container()
    let child = container.makeChild()
    let outside = try container[\.huntBDependent]
    let outsideCached = try container[\.huntBCachedDependent]
    let outsideWeak = try container[\.huntBWeakDependent]
    let results = try await inParallelScopes { tag, barrier in
      await barrier.arrive()
      let dependent = try container[\.huntBDependent]
      let cached = try container[\.huntBCachedDependent]
      let weak = try container[\.huntBWeakDependent]
      let viaChild = try child[\.huntBDependent]
      let viaInjected = await withContainer(child) { HuntBDependentHolder().dependent }
      #expect(try container[\.huntBWeakDependent] === weak)
      // A nested scope that overrides the dependency again reaches the app's singleton too.
      let nested = try await withOverrides {
        $0.register(\.huntBShared, scope: .singleton) { HuntBBox(tag + " nested") }
      } operation: {
        try container[\.huntBDependent]
      }
      #expect(nested.captured?.tag == tag + " nested")
      return [dependent, cached, weak, viaChild, viaInjected]
    }
    #expect(results.count == 4)
    for (tag, boxes) in results {
      #expect(boxes.allSatisfy { $0.captured?.tag == tag }, "\(tag): \(boxes.map { $0.captured?.tag })")
      #expect(boxes[0] === boxes[3] && boxes[0] === boxes[4], "\(tag): one app singleton per scope")
    }
    #expect(try container[\.huntBDependent] === outside)
    #expect(try container[\.huntBCachedDependent] === outsideCached)
    #expect(try container[\.huntBWeakDependent] === outsideWeak)
    #expect(outside.captured?.tag == "default")
  }

  @Test func aHandleMadeBeforeAScopeOpenedResolvesOutsideIt() async throws {
    let container = Container()
    let provider = container.provider(\.huntBShared)
    let lazy = container.lazy(\.huntBDependent)
    let holder = await withContainer(container) { HuntBLazyHolder() }
    let results = try await inParallelScopes { tag, barrier in
      await barrier.arrive()
      return [try provider.get(), try lazy.value, holder.shared, try container[\.huntBShared]]
    }
    for (tag, boxes) in results {
      #expect(boxes[0].tag == "default" && boxes[2].tag == "default", "\(tag)")
      #expect(boxes[1].captured?.tag == "default", "\(tag)")
      #expect(boxes[3].tag == tag)
    }
  }

  // MARK: The task's container

  @Test func childTasksInheritTheTasksContainerAndDetachedTasksDoNot() async throws {
    let container = Container()
    container.register(\.huntBShared, scope: .singleton) { HuntBBox("mine") }
    try await withContainer(container) {
      async let fromAsyncLet = Container.current === container
      let fromGroup = await withTaskGroup(of: Bool.self) { group in
        for _ in 0..<4 { group.addTask { Container.current === container } }
        return await group.reduce(true) { $0 && $1 }
      }
      let fromTask = await Task { Container.current === container }.value
      let fromDetached = await Task.detached { Container.current === Container.shared }.value
      let injectedInChild = await Task { HuntBInjectedHolder().shared }.value
      #expect(await fromAsyncLet)
      #expect(fromGroup)
      #expect(fromTask)
      #expect(fromDetached, "a detached task resolves from Container.shared")
      let resolved = try container[\.huntBShared]
      #expect(injectedInChild === resolved)
    }
    #expect(Container.current === Container.shared)
  }

  @Test func nestedWithContainerRestoresTheOuterContainer() async throws {
    let outer = Container()
    let inner = Container()
    outer.register(\.huntBShared) { HuntBBox("outer") }
    inner.register(\.huntBShared) { HuntBBox("inner") }
    await withContainer(outer) {
      #expect(HuntBInjectedHolder().shared.tag == "outer")
      await withContainer(inner) {
        #expect(HuntBInjectedHolder().shared.tag == "inner")
        #expect(HuntBLazyHolder().shared.tag == "inner")
      }
      #expect(HuntBInjectedHolder().shared.tag == "outer")
    }
  }

  @Test func aSynchronousWithContainerOnAThreadOutsideAnyTask() async throws {
    let container = Container()
    container.register(\.huntBShared) { HuntBBox("thread") }
    let tag = await onThreadOutsideAnyTask {
      withContainer(container) { HuntBInjectedHolder().shared.tag + "," + HuntBLazyHolder().shared.tag }
    }
    #expect(tag == "thread,thread")
  }

  @Test(.container { $0.register(\.huntBShared, scope: .singleton) { HuntBBox("trait container") } })
  func theContainerTraitGivesInjectedAContainerOfItsOwn() async throws {
    #expect(Container.current !== Container.shared)
    #expect(!Container.shared.isRegistered(\.huntBShared), "the trait leaves Container.shared alone")
    #expect(Container.current.isRegistered(\.huntBShared))
    let injected = HuntBInjectedHolder().shared
    #expect(injected.tag == "trait container")
    #expect(HuntBLazyHolder().shared === injected)
    let fromChild = await Task { HuntBInjectedHolder().shared }.value
    #expect(fromChild === injected)
    let fromDetached = await Task.detached { Container.current === Container.shared }.value
    #expect(fromDetached)
  }

  @Test(
    .container { $0.register(\.huntBShared, scope: .singleton) { HuntBBox("trait container") } },
    .overrides { $0.register(\.huntBShared, scope: .singleton) { HuntBBox("trait override") } })
  func theOverridesTraitAppliesToTheContainerTraitsContainer() async throws {
    let injected = HuntBInjectedHolder().shared
    #expect(injected.tag == "trait override")
    #expect(HuntBLazyHolder().shared === injected)
    #expect(try Container.current[\.huntBShared] === injected)
  }

  @Test(.overrides { $0.register(\.huntBShared, scope: .singleton) { HuntBBox("override one") } })
  func overridesTraitOne() async throws {
    let container = Container()
    let box = try container[\.huntBShared]
    #expect(box.tag == "override one")
    try await Task.sleep(for: .milliseconds(20))
    #expect(try container[\.huntBShared] === box)
    #expect(HuntBInjectedHolder().shared.tag == "override one")
  }

  @Test(.overrides { $0.register(\.huntBShared, scope: .singleton) { HuntBBox("override two") } })
  func overridesTraitTwo() async throws {
    let container = Container()
    let box = try container[\.huntBShared]
    #expect(box.tag == "override two")
    try await Task.sleep(for: .milliseconds(20))
    #expect(try container[\.huntBShared] === box)
    #expect(HuntBInjectedHolder().shared.tag == "override two")
  }
}

final class HuntBInjectedHolder {
  @Injected(\.huntBShared) var shared: HuntBBox
}

final class HuntBDependentHolder {
  @Injected(\.huntBDependent) var dependent: HuntBBox
}

final class HuntBLazyHolder: @unchecked Sendable {
  // Safe: only read by one task at a time in these tests.
  @LazyInjected(\.huntBShared) var shared: HuntBBox
}

/// Holds an `Injected` of a named type registration. (Not `@Injected var box: HuntBBox` assigned in
/// the initializer: a wrapper that can be made with no arguments is, before the initializer runs,
/// and would resolve the unnamed type.)
final class HuntBTypeHolder {
  let injected: Injected<HuntBBox>
  var box: HuntBBox { injected.wrappedValue }
  init(name: String) { injected = Injected(type: HuntBBox.self, name: name) }
}
