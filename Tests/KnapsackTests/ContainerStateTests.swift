import Foundation
import Knapsack
import KnapsackTesting
import Synchronization
import Testing

// State as a user reads it: state belongs to its container (and to its override
// scope), replaced registrations are freed, and there is no limit on the number of keys.

final class PartBox: Sendable {
  let tag: String
  let captured: PartBox?
  init(_ tag: String, captured: PartBox? = nil) {
    self.tag = tag
    self.captured = captured
  }
}

extension Dependencies {
  var partShared: Key<PartBox> { Key { PartBox("default") }.scope(.singleton) }
  var partUnique: Key<PartBox> { Key { PartBox("default") } }
  /// An app singleton (and a cached and a weak one) made from `\.partShared`.
  var partDependent: Key<PartBox> {
    Key { r in PartBox("dependent", captured: try r[\.partShared]) }.scope(.singleton)
  }
  var partCachedDependent: Key<PartBox> {
    Key { r in PartBox("cached", captured: try r[\.partShared]) }.scope(.cached)
  }
  var partWeakDependent: Key<PartBox> { Key { r in PartBox("weak", captured: try r[\.partShared]) }.scope(.weak) }
  var partAsync: AsyncKey<PartBox> { AsyncKey { PartBox("default") }.scope(.singleton) }
  var partMain: MainActorKey<PartBox> { MainActorKey { PartBox("default") }.scope(.singleton) }
  var partArgument: ArgumentKey<Int, PartBox> { ArgumentKey { _, n in PartBox("default \(n)") } }
  var partAsyncArgument: DependencyKey<AsyncKind, Int, PartBox> {
    DependencyKey { (_: Resolver, n: Int) async throws in PartBox("default \(n)") }
  }
  var partMainArgument: DependencyKey<MainActorKind, Int, PartBox> {
    DependencyKey { (_: Resolver, n: Int) in PartBox("default \(n)") }
  }
  var partRequired: Key<PartBox> { .required() }
  /// One key per number: 70,000 of them are 70,000 keys.
  subscript(partMany number: Int) -> Key<PartBox> { Key { PartBox("many \(number)") }.scope(.singleton) }
  var partPlugins: Multibinding<PartBox> { Multibinding() }
  var partAsyncPlugins: AsyncMultibinding<PartBox> { AsyncMultibinding() }
  var partMainPlugins: MainActorMultibinding<PartBox> { MainActorMultibinding() }
  /// Resolves `\.partShared` through a `Lazy` and a `Provider` made in its factory.
  var partHandles: Key<PartHandles> {
    Key { r in PartHandles(lazy: r.lazy(\.partShared), provider: r.provider(\.partShared)) }
  }
}

struct PartHandles: Sendable {
  let lazy: Lazy<Key<PartBox>>
  let provider: Provider<Key<PartBox>>
}

/// Weak references to what a test watches, to see it freed.
final class PartWatch: Sendable {
  private let entries = Mutex<[(label: String, object: @Sendable () -> AnyObject?)]>([])

  /// Returns `object`, watched under `label`.
  func watch<T: AnyObject & Sendable>(_ label: String, _ object: T) -> T {
    entries.withLock { $0.append((label, { [weak object] in object })) }
    return object
  }

  var alive: [String] { entries.withLock { $0 }.filter { $0.object() != nil }.map(\.label) }
}

@Suite struct ContainerStateTests {
  // MARK: Replaced registrations are freed, for every kind

  /// Registers, for every kind of key, a factory that captures a watched box (and, for shared
  /// scopes, keeps what it made); resolves each; returns the watch.
  @MainActor
  private func registerEveryKind(into container: Container, scope: Scope) async throws -> PartWatch {
    let watch = PartWatch()
    func captured(_ label: String) -> PartBox { watch.watch(label, PartBox(label)) }
    do {
      let sync = captured("sync")
      container.register(\.partUnique, scope: scope) { PartBox("made", captured: sync) }
      let async = captured("async")
      container.register(\.partAsync, scope: scope) { () async throws in PartBox("made", captured: async) }
      let main = captured("main")
      container.register(\.partMain, scope: scope) { PartBox("made", captured: main) }
      let argument = captured("argument")
      container.register(\.partArgument, scope: scope) { _, n in PartBox("made \(n)", captured: argument) }
      let asyncArgument = captured("async argument")
      container.register(\.partAsyncArgument, scope: scope) { (_: Resolver, n: Int) async throws in
        PartBox("made \(n)", captured: asyncArgument)
      }
      let mainArgument = captured("main argument")
      container.register(\.partMainArgument, scope: scope) { (_: Resolver, n: Int) in
        PartBox("made \(n)", captured: mainArgument)
      }
      let required = captured("required")
      container.register(\.partRequired, scope: scope) { PartBox("made", captured: required) }
      let type = captured("type")
      container.register(type: PartBox.self, name: "part replaced", scope: scope) { PartBox("made", captured: type) }
      let typeWithResolver = captured("type with resolver")
      container.register(type: PartBox.self, name: "part replaced with resolver", scope: scope) { _ in
        PartBox("made", captured: typeWithResolver)
      }
      var made: [PartBox] = []
      made.append(try container[\.partUnique])
      made.append(try await container.resolve(\.partAsync))
      made.append(try container[\.partMain])
      made.append(try container.resolve(\.partArgument, argument: 1))
      made.append(try await container.resolve(\.partAsyncArgument, argument: 1))
      made.append(try container.resolve(\.partMainArgument, argument: 1))
      made.append(try container[\.partRequired])
      made.append(try container.resolve(type: PartBox.self, name: "part replaced"))
      made.append(try container.resolve(type: PartBox.self, name: "part replaced with resolver"))
      #expect(made.allSatisfy { $0.tag.hasPrefix("made") })
      for (offset, box) in made.enumerated() { _ = watch.watch("instance \(offset)", box) }
    }
    return watch
  }

  /// Replaces every registration `registerEveryKind` made, and resolves each again.
  @MainActor
  private func replaceEveryKind(in container: Container) async throws {
    container.register(\.partUnique) { PartBox("new") }
    container.register(\.partAsync) { () async throws in PartBox("new") }
    container.register(\.partMain) { PartBox("new") }
    container.register(\.partArgument) { _, n in PartBox("new \(n)") }
    container.register(\.partAsyncArgument) { (_: Resolver, n: Int) async throws in PartBox("new \(n)") }
    container.register(\.partMainArgument) { (_: Resolver, n: Int) in PartBox("new \(n)") }
    container.register(\.partRequired) { PartBox("new") }
    container.register(type: PartBox.self, name: "part replaced") { PartBox("new") }
    container.register(type: PartBox.self, name: "part replaced with resolver") { _ in PartBox("new") }
    #expect(try container[\.partUnique].tag == "new")
    #expect(try await container.resolve(\.partAsync).tag == "new")
    #expect(try container[\.partMain].tag == "new")
    #expect(try container.resolve(\.partArgument, argument: 1).tag == "new 1")
    #expect(try await container.resolve(\.partAsyncArgument, argument: 1).tag == "new 1")
    #expect(try container.resolve(\.partMainArgument, argument: 1).tag == "new 1")
    #expect(try container[\.partRequired].tag == "new")
    #expect(try container.resolve(type: PartBox.self, name: "part replaced").tag == "new")
    #expect(try container.resolve(type: PartBox.self, name: "part replaced with resolver").tag == "new")
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
    let watch = PartWatch()
    do {
      let sync = watch.watch("sync", PartBox("sync"))
      let main = watch.watch("main", PartBox("main"))
      let type = watch.watch("type", PartBox("type"))
      parent.register(\.partUnique, scope: scope) { PartBox("made", captured: sync) }
      parent.register(\.partMain, scope: scope) { PartBox("made", captured: main) }
      parent.register(type: PartBox.self, name: "part child replaced", scope: scope) {
        PartBox("made", captured: type)
      }
      _ = watch.watch("sync instance", try child[\.partUnique])
      _ = watch.watch("main instance", try child[\.partMain])
      _ = watch.watch("type instance", try child.resolve(type: PartBox.self, name: "part child replaced"))
    }
    parent.register(\.partUnique) { PartBox("new") }
    parent.register(\.partMain) { PartBox("new") }
    parent.register(type: PartBox.self, name: "part child replaced") { PartBox("new") }
    #expect(try child[\.partUnique].tag == "new")
    #expect(try child[\.partMain].tag == "new")
    #expect(try child.resolve(type: PartBox.self, name: "part child replaced").tag == "new")
    #expect(await freedSoon { watch.alive == [] })
  }

  @Test func aReplacedDecoratedRegistrationIsFreedWithItsDecoratorsCaptures() async throws {
    // Replacing a decorated key's registration keeps its decorators: they still apply to the new
    // factory. What the replaced factory captured is freed.
    let container = Container()
    let watch = PartWatch()
    do {
      let captured = watch.watch("factory", PartBox("factory"))
      container.register(\.partShared) { PartBox("old", captured: captured) }
      container.decorate(\.partShared) { _, box in PartBox("decorated " + box.tag) }
      _ = watch.watch("instance", try container[\.partShared])
    }
    container.register(\.partShared) { PartBox("new") }
    #expect(try container[\.partShared].tag == "decorated new")
    #expect(await freedSoon { watch.alive == [] })
  }

  @Test func aReplacedRegistrationIsFreedWhileAProviderOfItIsKept() async throws {
    let container = Container()
    let watch = PartWatch()
    let provider = container.provider(\.partShared)
    let lazy = container.lazy(\.partUnique)
    do {
      let captured = watch.watch("singleton factory", PartBox("captured"))
      let capturedUnique = watch.watch("unique factory", PartBox("captured"))
      container.register(\.partShared, scope: .singleton) { PartBox("old", captured: captured) }
      container.register(\.partUnique) { PartBox("old", captured: capturedUnique) }
      #expect(try provider.get().tag == "old")
    }
    container.register(\.partShared, scope: .singleton) { PartBox("new") }
    container.register(\.partUnique) { PartBox("new") }
    #expect(try provider.get().tag == "new", "a provider resolves again on every get()")
    #expect(try lazy.value.tag == "new", "a lazy never read resolves what is registered when it is read")
    _ = try container[\.partUnique]
    #expect(await freedSoon { watch.alive == [] })
  }

  @Test func replacedOverridesInsideAScopeAreFreedWhenTheScopeEnds() async throws {
    let container = Container()
    let watch = PartWatch()
    try await withOverrides { overrides in
      let captured = watch.watch("override", PartBox("captured"))
      overrides.register(\.partShared, scope: .singleton) { PartBox("override", captured: captured) }
    } operation: {
      _ = watch.watch("instance", try container[\.partShared])
      #expect(try container[\.partShared].tag == "override")
    }
    #expect(try container[\.partShared].tag == "default")
    #expect(await freedSoon { watch.alive == [] }, "nothing persists after the scope ends")
  }

  @Test func aReplacedRegistrationIsFreedFromAChildThatDecoratesItsSingleton() async throws {
    // The child keeps an instance of its own, made by the parent's registration and wrapped by
    // the child's decorator: replacing the parent's registration frees that one too.
    let parent = Container()
    let child = parent.makeChild()
    let watch = PartWatch()
    do {
      let captured = watch.watch("factory", PartBox("captured"))
      parent.register(\.partShared, scope: .singleton) { PartBox("old", captured: captured) }
      child.decorate(\.partShared) { _, box in PartBox("decorated " + box.tag, captured: box) }
      let decorated = try child[\.partShared]
      #expect(decorated.tag == "decorated old")
      _ = watch.watch("child's instance", decorated)
      _ = watch.watch("parent's instance", try parent[\.partShared])
    }
    parent.register(\.partShared, scope: .singleton) { PartBox("new") }
    #expect(try child[\.partShared].tag == "decorated new")
    #expect(try parent[\.partShared].tag == "new")
    #expect(await freedSoon { watch.alive == [] })
  }

  @Test func decoratorsAndContributionsOfAScopeAreFreedWhenItEnds() async throws {
    let container = Container()
    container.contribute(to: \.partPlugins) { _ in PartBox("app plugin") }
    let watch = PartWatch()
    try await withOverrides { overrides in
      let decorator = watch.watch("decorator", PartBox("decorator"))
      let contribution = watch.watch("contribution", PartBox("contribution"))
      overrides.decorate(\.partShared) { _, box in PartBox("decorated", captured: decorator) }
      overrides.contribute(to: \.partPlugins, scope: .singleton) { _ in
        PartBox("scope plugin", captured: contribution)
      }
    } operation: {
      _ = watch.watch("decorated instance", try container[\.partShared])
      let plugins = try container[\.partPlugins]
      #expect(Set(plugins.map(\.tag)) == ["app plugin", "scope plugin"])
      for plugin in plugins where plugin.tag == "scope plugin" { _ = watch.watch("plugin", plugin) }
    }
    #expect(try container[\.partShared].tag == "default")
    #expect(try container[\.partPlugins].map(\.tag) == ["app plugin"])
    #expect(await freedSoon { watch.alive == [] })
  }

  // MARK: No limit on the number of keys

  /// 70,000 type registrations with names of their own: the last ones have indices above 65,535.
  static func manyNames(_ prefix: String) -> [String] { (0..<70_000).map { "\(prefix) \($0)" } }

  @Test(.enabled(if: !isThreadSanitized, "70,000 registrations under the sanitizer hold the shared pool for minutes"))
  func singletonsAboveTheDirectRangeAreMadeOncePerContainer() throws {
    let names = Self.manyNames("part many singleton")
    let container = Container()
    let made = Counter()
    for name in names {
      container.register(type: PartBox.self, name: name, scope: .singleton) {
        made.increment()
        return PartBox(name)
      }
    }
    let other = Container()
    for name in names.suffix(10) {
      other.register(type: PartBox.self, name: name, scope: .singleton) { PartBox("other") }
    }
    for name in [names[0], names[65_535], names[65_536], names[69_999]] {
      let first = try container.resolve(type: PartBox.self, name: name)
      #expect(first.tag == name)
      #expect(try container.resolve(type: PartBox.self, name: name) === first, "\(name): one per container")
      #expect(
        try container.makeChild().resolve(type: PartBox.self, name: name) === first, "\(name): shared by a child")
    }
    #expect(made.count == 4)
    #expect(try other.resolve(type: PartBox.self, name: names[69_999]).tag == "other")
    #expect(try container.resolve(type: PartBox.self, name: names[69_999]).tag == names[69_999])
  }

  @Test(.enabled(if: !isThreadSanitized, "70,000 registrations under the sanitizer hold the shared pool for minutes"))
  func aReplacedRegistrationAboveTheDirectRangeIsFreed() async throws {
    let names = Self.manyNames("part many replaced")
    let container = Container()
    for name in names { container.register(type: PartBox.self, name: name) { PartBox(name) } }
    let last = names[69_999]
    let watch = PartWatch()
    do {
      let captured = watch.watch("captured", PartBox("captured"))
      container.register(type: PartBox.self, name: last, scope: .singleton) { PartBox("old", captured: captured) }
      _ = watch.watch("singleton", try container.resolve(type: PartBox.self, name: last))
    }
    container.register(type: PartBox.self, name: last, scope: .singleton) { PartBox("new") }
    #expect(try container.resolve(type: PartBox.self, name: last).tag == "new")
    #expect(try container.resolve(type: PartBox.self, name: last).tag == "new")
    #expect(await freedSoon { watch.alive == [] })
  }

  @Test(.enabled(if: !isThreadSanitized, "70,000 registrations under the sanitizer hold the shared pool for minutes"))
  func overridesAndInjectionAboveTheDirectRangeStayInTheirScope() async throws {
    let names = Self.manyNames("part many overridden")
    let container = Container()
    for name in names { container.register(type: PartBox.self, name: name, scope: .singleton) { PartBox(name) } }
    let last = names[69_999]
    let outside = try container.resolve(type: PartBox.self, name: last)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for tag in ["left", "right"] {
        group.addTask {
          try await withOverrides {
            $0.register(type: PartBox.self, name: last, scope: .singleton) { PartBox(tag) }
          } operation: {
            let inside = try container.resolve(type: PartBox.self, name: last)
            #expect(inside.tag == tag)
            #expect(try container.resolve(type: PartBox.self, name: last) === inside)
            let injected = await withContainer(container) { PartTypeHolder(name: last).box }
            #expect(injected === inside)
          }
        }
      }
      try await group.waitForAll()
    }
    #expect(try container.resolve(type: PartBox.self, name: last) === outside)
  }

  @Test(.enabled(if: !isThreadSanitized, "70,000 registrations under the sanitizer hold the shared pool for minutes"))
  func seventyThousandKeysEachKeepTheirSingleton() async throws {
    let container = Container()
    var first: [Int: PartBox] = [:]
    for number in 0..<70_000 {
      let box = try container[\.[partMany: number]]
      if number % 7_000 == 0 || number >= 69_990 { first[number] = box }
    }
    for (number, box) in first {
      #expect(try container[\.[partMany: number]] === box, "\(number): the container kept its singleton")
      #expect(box.tag == "many \(number)")
    }
    let other = Container()
    #expect(try other[\.[partMany: 69_999]] !== first[69_999], "another container has its own")
    let scoped = try await withOverrides {
      $0.register(\.[partMany: 69_999], scope: .singleton) { PartBox("scoped") }
    } operation: {
      (try container[\.[partMany: 69_999]], try container[\.[partMany: 69_999]], try container[\.[partMany: 69_998]])
    }
    #expect(scoped.0.tag == "scoped" && scoped.0 === scoped.1)
    #expect(scoped.2 !== first[69_998], "the app's singletons are made again in a scope")
    #expect(try container[\.[partMany: 69_999]] === first[69_999])
  }

  // MARK: A singleton registered in an override scope belongs to that scope

  /// Runs `body` in `count` override scopes open at once, each registering its own
  /// `\.partShared` singleton tagged with its number; returns what each returned, by number.
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
            $0.register(\.partShared, scope: .singleton) { PartBox(tag) }
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
      let holder = await withContainer(container) { PartLazyHolder() }
      await barrier.arrive()
      // Read after every scope registered: each holder remembers its own scope.
      let lazy = holder.shared
      let direct = try container[\.partShared]
      return [lazy, direct, holder.shared]
    }
    #expect(results.count == 4)
    for (tag, boxes) in results {
      #expect(boxes.allSatisfy { $0.tag == tag && $0 === boxes[0] }, "\(tag): \(boxes.map(\.tag))")
    }
    #expect(try container[\.partShared].tag == "default")
  }

  @Test func aLazyInjectedReadAfterItsScopeEndedStillReadsThatScope() async throws {
    // `@LazyInjected` remembers the override scope current when its instance was made.
    let container = Container()
    let results = try await inParallelScopes { tag, _ in
      (await withContainer(container) { PartLazyHolder() }, try container[\.partShared])
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
      let handles = try container[\.partHandles]
      let direct = container.provider(\.partShared)
      let lazy = container.lazy(\.partShared)
      await barrier.arrive()
      // From a detached task: no task-local scope, the handles carry theirs.
      let fromDetached = try await Task.detached {
        [try handles.provider.get(), try handles.lazy.value, try direct.get(), try lazy.value]
      }.value
      return (handles, direct, lazy, fromDetached, try container[\.partShared])
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
      let outer = try container[\.partShared]
      let (inner, innerAgain) = try await withOverrides {
        $0.register(\.partUnique) { PartBox("inner") }
      } operation: {
        await barrier.arrive()
        return (try container[\.partShared], await withContainer(container) { PartInjectedHolder().shared })
      }
      let renamed = try await withOverrides {
        $0.register(\.partShared, scope: .singleton) { PartBox(tag + " nested") }
      } operation: {
        (try container[\.partShared], try container[\.partShared])
      }
      #expect(renamed.0 === renamed.1)
      #expect(renamed.0.tag == tag + " nested")
      return [outer, inner, innerAgain, try container[\.partShared]]
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
      let viaInjected = await withContainer(childMadeOutside) { PartInjectedHolder().shared }
      let viaLazyInjected = await withContainer(childMadeInside) { PartLazyHolder().shared }
      let boxes = [
        try container[\.partShared], try childMadeOutside[\.partShared], try childMadeInside[\.partShared],
        try childMadeInside.makeChild()[\.partShared], viaInjected, viaLazyInjected,
      ]
      return boxes
    }
    for (tag, boxes) in results {
      #expect(boxes.allSatisfy { $0.tag == tag && $0 === boxes[0] }, "\(tag): \(boxes.map(\.tag))")
    }
    #expect(try childMadeOutside[\.partShared].tag == "default")
  }

  @Test func aSingletonAChildRegistersInAScopeIsTheChildsInThatScope() async throws {
    let parent = Container()
    let child = parent.makeChild()
    child.register(\.partShared, scope: .singleton) { PartBox("child") }
    let outsideChild = try child[\.partShared]
    let results = try await inParallelScopes { tag, barrier in
      await barrier.arrive()
      return (try parent[\.partShared], try child[\.partShared])
    }
    for (tag, (fromParent, fromChild)) in results {
      #expect(fromParent.tag == tag)
      #expect(fromChild.tag == tag, "the scope's override replaces the child's registration too")
      #expect(fromChild === fromParent, "one per container hierarchy in a scope")
    }
    #expect(try child[\.partShared] === outsideChild)
  }

  @Test func theAppsSingletonsAreMadeAgainInEachParallelScopeFromItsOverride() async throws {
    let container = Container()
    let child = container.makeChild()
    let outside = try container[\.partDependent]
    let outsideCached = try container[\.partCachedDependent]
    let outsideWeak = try container[\.partWeakDependent]
    let results = try await inParallelScopes { tag, barrier in
      await barrier.arrive()
      let dependent = try container[\.partDependent]
      let cached = try container[\.partCachedDependent]
      let weak = try container[\.partWeakDependent]
      let viaChild = try child[\.partDependent]
      let viaInjected = await withContainer(child) { PartDependentHolder().dependent }
      #expect(try container[\.partWeakDependent] === weak)
      // A nested scope that overrides the dependency again reaches the app's singleton too.
      let nested = try await withOverrides {
        $0.register(\.partShared, scope: .singleton) { PartBox(tag + " nested") }
      } operation: {
        try container[\.partDependent]
      }
      #expect(nested.captured?.tag == tag + " nested")
      return [dependent, cached, weak, viaChild, viaInjected]
    }
    #expect(results.count == 4)
    for (tag, boxes) in results {
      #expect(boxes.allSatisfy { $0.captured?.tag == tag }, "\(tag): \(boxes.map { $0.captured?.tag })")
      #expect(boxes[0] === boxes[3] && boxes[0] === boxes[4], "\(tag): one app singleton per scope")
    }
    #expect(try container[\.partDependent] === outside)
    #expect(try container[\.partCachedDependent] === outsideCached)
    #expect(try container[\.partWeakDependent] === outsideWeak)
    #expect(outside.captured?.tag == "default")
  }

  @Test func aHandleMadeBeforeAScopeOpenedResolvesOutsideIt() async throws {
    let container = Container()
    let provider = container.provider(\.partShared)
    let lazy = container.lazy(\.partDependent)
    let holder = await withContainer(container) { PartLazyHolder() }
    let results = try await inParallelScopes { tag, barrier in
      await barrier.arrive()
      return [try provider.get(), try lazy.value, holder.shared, try container[\.partShared]]
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
    container.register(\.partShared, scope: .singleton) { PartBox("mine") }
    try await withContainer(container) {
      async let fromAsyncLet = Container.current === container
      let fromGroup = await withTaskGroup(of: Bool.self) { group in
        for _ in 0..<4 { group.addTask { Container.current === container } }
        return await group.reduce(true) { $0 && $1 }
      }
      let fromTask = await Task { Container.current === container }.value
      let fromDetached = await Task.detached { Container.current === Container.shared }.value
      let injectedInChild = await Task { PartInjectedHolder().shared }.value
      #expect(await fromAsyncLet)
      #expect(fromGroup)
      #expect(fromTask)
      #expect(fromDetached, "a detached task resolves from Container.shared")
      let resolved = try container[\.partShared]
      #expect(injectedInChild === resolved)
    }
    #expect(Container.current === Container.shared)
  }

  @Test func nestedWithContainerRestoresTheOuterContainer() async throws {
    let outer = Container()
    let inner = Container()
    outer.register(\.partShared) { PartBox("outer") }
    inner.register(\.partShared) { PartBox("inner") }
    await withContainer(outer) {
      #expect(PartInjectedHolder().shared.tag == "outer")
      await withContainer(inner) {
        #expect(PartInjectedHolder().shared.tag == "inner")
        #expect(PartLazyHolder().shared.tag == "inner")
      }
      #expect(PartInjectedHolder().shared.tag == "outer")
    }
  }

  @Test func aSynchronousWithContainerOnAThreadOutsideAnyTask() async throws {
    let container = Container()
    container.register(\.partShared) { PartBox("thread") }
    let tag = await onThreadOutsideAnyTask {
      withContainer(container) { PartInjectedHolder().shared.tag + "," + PartLazyHolder().shared.tag }
    }
    #expect(tag == "thread,thread")
  }

  @Test(.container { $0.register(\.partShared, scope: .singleton) { PartBox("trait container") } })
  func theContainerTraitGivesInjectedAContainerOfItsOwn() async throws {
    #expect(Container.current !== Container.shared)
    #expect(!Container.shared.isRegistered(\.partShared), "the trait leaves Container.shared alone")
    #expect(Container.current.isRegistered(\.partShared))
    let injected = PartInjectedHolder().shared
    #expect(injected.tag == "trait container")
    #expect(PartLazyHolder().shared === injected)
    let fromChild = await Task { PartInjectedHolder().shared }.value
    #expect(fromChild === injected)
    let fromDetached = await Task.detached { Container.current === Container.shared }.value
    #expect(fromDetached)
  }

  @Test(
    .container { $0.register(\.partShared, scope: .singleton) { PartBox("trait container") } },
    .overrides { $0.register(\.partShared, scope: .singleton) { PartBox("trait override") } })
  func theOverridesTraitAppliesToTheContainerTraitsContainer() async throws {
    let injected = PartInjectedHolder().shared
    #expect(injected.tag == "trait override")
    #expect(PartLazyHolder().shared === injected)
    #expect(try Container.current[\.partShared] === injected)
  }

  @Test(.overrides { $0.register(\.partShared, scope: .singleton) { PartBox("override one") } })
  func overridesTraitOne() async throws {
    let container = Container()
    let box = try container[\.partShared]
    #expect(box.tag == "override one")
    try await Task.sleep(for: .milliseconds(20))
    #expect(try container[\.partShared] === box)
    #expect(PartInjectedHolder().shared.tag == "override one")
  }

  @Test(.overrides { $0.register(\.partShared, scope: .singleton) { PartBox("override two") } })
  func overridesTraitTwo() async throws {
    let container = Container()
    let box = try container[\.partShared]
    #expect(box.tag == "override two")
    try await Task.sleep(for: .milliseconds(20))
    #expect(try container[\.partShared] === box)
    #expect(PartInjectedHolder().shared.tag == "override two")
  }
}

final class PartInjectedHolder {
  @Injected(\.partShared) var shared: PartBox
}

final class PartDependentHolder {
  @Injected(\.partDependent) var dependent: PartBox
}

final class PartLazyHolder: @unchecked Sendable {
  // Safe: only read by one task at a time in these tests.
  @LazyInjected(\.partShared) var shared: PartBox
}

/// Holds an `Injected` of a named type registration. (Not `@Injected var box: PartBox` assigned in
/// the initializer: a wrapper that can be made with no arguments is, before the initializer runs,
/// and would resolve the unnamed type.)
final class PartTypeHolder {
  let injected: Injected<PartBox>
  var box: PartBox { injected.wrappedValue }
  init(name: String) { injected = Injected(type: PartBox.self, name: name) }
}
