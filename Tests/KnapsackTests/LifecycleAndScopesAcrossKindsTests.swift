import Foundation
import Knapsack
import Testing

// Disposal racing a creation of each kind, override scopes over a container hierarchy, resets and
// validation inside a scope, and isRegistered, for every kind of key.

@Suite struct LifecycleAndScopesAcrossKindsTests {
  @Test(.serialized, arguments: [KeyKindCase.async, .asyncArg, .main, .mainArg, .sync, .arg])
  func anInstanceWhoseCreationWasUnderWayWhenDisposalBeganIsClosedByIt(kind: KeyKindCase) async throws {
    let container = Container()
    let hold = FactoryHold()
    defer { hold.letGo() }
    let closed = Collected<String>()
    let close: @Sendable (Token) async throws -> Void = { closed.append($0.label) }
    let blocking: @Sendable () -> Token = { hold.blocking { Token("made") } }
    let suspending: @Sendable () async -> Token = { await hold.suspending { Token("made") } }
    switch kind.name {
    case "async": container.register(\.kindAsync, scope: .singleton, dispose: close) { _ in await suspending() }
    case "async argument":
      container.register(\.kindAsyncArg, scope: .singleton, dispose: close) { _, _ in await suspending() }
    case "main-actor": container.register(\.kindMain, scope: .singleton, dispose: close) { _ in blocking() }
    case "main-actor argument":
      container.register(\.kindMainArg, scope: .singleton, dispose: close) { _, _ in blocking() }
    case "argument": container.register(\.kindArg, scope: .singleton, dispose: close) { _, _ in blocking() }
    default: container.register(\.kindSync, scope: .singleton, dispose: close) { _ in blocking() }
    }
    let resolution = resolveOffThePool(kind, container)
    #expect(await waitUntil(timeout: hangBound) { hold.entered.count == 1 })
    let disposal = Task.detached { try await container.dispose() }
    // Disposal waits for the creation under way; let it end.
    try await Task.sleep(for: .milliseconds(20))
    hold.letGo()
    let received = try? await resolution.value
    try await disposal.value
    if let received {
      #expect(closed.all == [received.label], "a shared instance a resolution received is one disposal closes")
    } else {
      #expect(closed.all.count <= 1)
    }
    let after = await #expect(throws: ResolutionError.self) { try await kind.resolve(container, 1) }
    #expect(after?.kind == .containerDisposed)
  }

  @Test(arguments: KeyKindCase.all)
  func aSingletonRegisteredInAScopeIsSharedByTheHierarchyButNotByAnotherContainer(kind: KeyKindCase) async throws {
    let parent = Container()
    let child = parent.makeChild()
    let unrelated = Container()
    try await withOverrides {
      kind.register($0, .singleton, Counter(), "scoped", nil)
    } operation: { () async throws in
      let fromParent = try await kind.resolve(parent, 1)
      #expect(try await kind.resolve(child, 1) === fromParent)
      #expect(try await kind.resolve(parent, 1) === fromParent)
      let fromUnrelated = try await kind.resolve(unrelated, 1)
      #expect(fromUnrelated !== fromParent)
      #expect(fromUnrelated.label == fromParent.label)
    }
  }

  @Test(arguments: KeyKindCase.all)
  func aResetInAScopeDropsTheScopesCachedInstancesOnly(kind: KeyKindCase) async throws {
    let container = Container()
    kind.register(container, .cached, Counter(), "app", nil)
    let outside = try await kind.resolve(container, 1)
    try await withOverrides { _ in
    } operation: { () async throws in
      let inside = try await kind.resolve(container, 1)
      #expect(inside !== outside, "a scope keeps its own")
      #expect(try await kind.resolve(container, 1) === inside)
      container.resetCached()
      #expect(try await kind.resolve(container, 1) !== inside)
    }
    #expect(try await kind.resolve(container, 1) === outside, "the app's cached instance outlives the scope's reset")
  }

  @Test func validationInAScopeSeesTheScopesOverridesOfEveryKind() async throws {
    let container = Container()
    container.register(\.kindViewModel) { r in Token(try r[\.kindStorage].label) }
    container.register(\.kindAsyncArgNeeding) { r, _ in try r[\.kindStorage] }
    let arguments: [PartialKeyPath<Dependencies>: any Sendable] = [\.kindAsyncArgNeeding: 1, \.kindMainArgNeeding: 2]
    let outside = await container.validate(including: [\.kindScreen, \.kindMainArgNeeding], arguments: arguments)
    #expect(!outside.isValid)
    #expect(outside.problems(.requiredKeyNotProvided).count == 3, "\(outside)")
    let inside = await withOverrides {
      $0.register(\.kindStorage) { Token("fake") }
    } operation: { () async in
      await container.validate(including: [\.kindScreen, \.kindMainArgNeeding], arguments: arguments)
    }
    #expect(inside.isValid, "\(inside)")
    let replaced = await withOverrides {
      $0.register(\.kindViewModel) { Token("fake model") }
      $0.register(\.kindMainArgNeeding) { _, n in Token("fake \(n)") }
      $0.register(\.kindAsyncArgNeeding) { _, n in Token("fake \(n)") }
    } operation: { () async in
      await container.validate(including: [\.kindScreen, \.kindMainArgNeeding], arguments: arguments)
    }
    #expect(replaced.isValid, "\(replaced)")
  }

  @Test func isRegisteredSeesEveryKindInAncestorsAndScopesButNotDefaults() async throws {
    let parent = Container()
    let child = parent.makeChild()
    #expect(!child.isRegistered(\.kindMainArg))
    #expect(!child.isRegistered(\.kindAsyncArg))
    #expect(!child.isRegistered(\.kindMain))
    #expect(!child.isRegistered(\.kindAsync))
    parent.register(\.kindMainArg) { _, n in Token("\(n)") }
    parent.register(\.kindAsync) { _ in Token("a") }
    #expect(child.isRegistered(\.kindMainArg))
    #expect(child.isRegistered(\.kindAsync))
    await withOverrides {
      $0.register(\.kindAsyncArg) { _, n in Token("\(n)") }
      $0.register(\.kindMain) { _ in Token("m") }
    } operation: { () async in
      #expect(child.isRegistered(\.kindAsyncArg))
      #expect(child.isRegistered(\.kindMain))
      #expect(parent.isRegistered(\.kindMain))
    }
    #expect(!child.isRegistered(\.kindAsyncArg))
    #expect(!child.isRegistered(\.kindMain))
  }

  @Test(arguments: KeyKindCase.all)
  func disposingTwiceFromManyTasksClosesEveryKindOnce(kind: KeyKindCase) async throws {
    let container = Container()
    let closed = Collected<String>()
    kind.register(
      container, .singleton, Counter(), "once",
      { token in
        try await Task.sleep(for: .milliseconds(5))
        closed.append(token.label)
      })
    _ = try await kind.resolve(container, 1)
    _ = try await kind.resolve(container, 2)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<8 { group.addTask { try await container.dispose() } }
      try await group.waitForAll()
    }
    #expect(closed.all.count == (kind.takesArgument ? 2 : 1))
  }

  @Test(arguments: KeyKindCase.all)
  func disposalErrorsOfEveryKindNameTheKey(kind: KeyKindCase) async throws {
    let container = Container()
    kind.register(container, .singleton, Counter(), "failing", { _ in throw PlannedFailure("disk full") })
    _ = try await kind.resolve(container, 1)
    let error = await #expect(throws: DisposalError.self) { try await container.dispose() }
    #expect(error?.failures.map(\.dependency.name) == [kind.keyName])
    #expect(error?.failures.first?.error.contains("disk full") == true)
    #expect(error?.description.contains(kind.keyName) == true)
  }
}

@Suite struct ObserverHierarchyTests {
  @Test(arguments: KeyKindCase.all)
  func aChildsObserverSeesAParentsSharedInstanceOfEveryKindAsOneStep(kind: KeyKindCase) async throws {
    let parent = Container()
    let parents = KindEvents()
    parent.observe(parents)
    let child = parent.makeChild()
    let childs = KindEvents()
    child.observe(childs)
    kind.register(parent, .singleton, Counter(), "parent", nil)
    _ = try await kind.resolve(child, 1)
    _ = try await kind.resolve(child, 1)
    #expect(childs.outcomes(of: kind.keyName) == [.created, .reused])
    #expect(childs.events.all.count == 2)
    #expect(parents.outcomes(of: kind.keyName) == [.created, .reused], "the parent sees it too, once each")
    if kind.takesArgument {
      _ = try await kind.resolve(child, 2)
      #expect(childs.outcomes(of: kind.keyName) == [.created, .reused, .created], "one instance per argument")
    }
  }

  @Test(arguments: KeyKindCase.all)
  func aChildsObserverSeesAParentsSharedInstanceFail(kind: KeyKindCase) async throws {
    let parent = Container()
    let child = parent.makeChild()
    let childs = KindEvents()
    child.observe(childs)
    kind.registerFailingOnce(parent, .singleton, Counter())
    await #expect(throws: ResolutionError.self) { try await kind.resolve(child, 1) }
    _ = try await kind.resolve(child, 1)
    #expect(childs.outcomes(of: kind.keyName) == [.failed, .created])
  }

  @Test(arguments: KeyKindCase.all)
  func anObserverSeesEveryKindResolvedInAnOverrideScopeMadeFromItsContainer(kind: KeyKindCase) async throws {
    let container = Container()
    let observer = KindEvents()
    container.observe(observer)
    try await withOverrides {
      kind.register($0, .cached, Counter(), "scoped", nil)
    } operation: { () async throws in
      _ = try await kind.resolve(container, 1)
      _ = try await kind.resolve(container, 1)
    }
    #expect(observer.outcomes(of: kind.keyName) == [.created, .reused])
  }
}

@Suite struct ChildDecoratorAcrossKindsTests {
  @Test(arguments: KeyKindCase.all, [Scope.singleton, .cached, .weak])
  func aChildThatDecoratesAParentsSharedKeyOfEveryKindKeepsItsOwn(kind: KeyKindCase, scope: Scope) async throws {
    let parent = Container()
    let closed = Collected<String>()
    kind.register(parent, scope, Counter(), "made", { closed.append($0.label) })
    kind.decorate(parent, "p")
    let child = parent.makeChild()
    kind.decorate(child, "c")
    let suffix = kind.takesArgument ? " 1" : ""
    let fromParent = try await kind.resolve(parent, 1)
    let fromChild = try await kind.resolve(child, 1)
    #expect(fromParent.label == "made\(suffix)+p")
    #expect(fromChild.label == "made\(suffix)+p+c", "wrapped by both, the parent's decorators first")
    #expect(fromChild !== fromParent)
    #expect(try await kind.resolve(child, 1) === fromChild, "\(scope): the child shares its own")
    let grandchild = child.makeChild()
    #expect(try await kind.resolve(grandchild, 1) === fromChild, "and shares it with its children")
    if scope == .cached {
      parent.resetCached()
      #expect(try await kind.resolve(child, 1) === fromChild, "the parent's reset leaves the child's")
      #expect(try await kind.resolve(parent, 1) !== fromParent)
      child.resetCached()
      #expect(try await kind.resolve(child, 1) !== fromChild, "the child's reset clears it")
    }
    if scope == .singleton {
      try await child.dispose()
      #expect(closed.all == [fromChild.label], "the child disposes its own instance")
      #expect(try await kind.resolve(parent, 1) === fromParent)
    }
  }
}

@Suite struct ResetDisposalAcrossKindsTests {
  @Test(arguments: KeyKindCase.all)
  func disposeWaitsForTheSlowBackgroundDisposalOfWhatAResetDropped(kind: KeyKindCase) async throws {
    let parent = Container()
    let child = parent.makeChild()
    let closed = Collected<String>()
    kind.register(
      child, .cached, Counter(), "dropped",
      { token in
        try await Task.sleep(for: .milliseconds(40))
        closed.append(token.label)
      })
    let first = try await kind.resolve(child, 1)
    let second = try await kind.resolve(child, 2)
    child.resetCached()
    let third = try await kind.resolve(child, 1)
    try await parent.dispose()
    let expected = kind.takesArgument ? [first.label, second.label, third.label] : [first.label, third.label]
    #expect(
      closed.all.sorted() == expected.sorted(), "every dropped and kept instance closed before dispose() returned")
  }
}

/// An observer that writes each event through a logger it resolves from the container it observes.
final class KindLoggingObserver: ResolutionObserver {
  let container = Locked<Container?>(nil)
  let logged = Collected<String>()
  func didResolve(_ event: ResolutionEvent) {
    guard let container = container.withLock({ $0 }) else { return }
    if let logger = try? container[\.kindSync] { logged.append(logger.label + ": " + event.dependency.name) }
  }
}

@Suite struct ObserverResolvingTests {
  @Test func anObserverThatResolvesFromItsContainerSeesEveryKindOnceAndNotItsOwnResolutions() async throws {
    let container = Container()
    let observer = KindLoggingObserver()
    observer.container.withLock { $0 = container }
    container.register(\.kindSync, scope: .singleton) { Token("logger") }
    container.observe(observer)
    for kind in KeyKindCase.all where kind.name != "sync" { _ = try await kind.resolve(container, 1) }
    #expect(
      observer.logged.all == [
        "logger: \\.kindAsync", "logger: \\.kindMain", "logger: \\.kindArg", "logger: \\.kindAsyncArg",
        "logger: \\.kindMainArg",
      ],
      "\(observer.logged.all)")
  }
}
