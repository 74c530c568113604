import Knapsack
import Synchronization
import Testing

// A factory that resolves without its resolver (through a container it captured, or through the
// `@Injected` properties of an instance it builds) continues its own resolution, whichever kind
// of factory it is: the graph scope, the trace, an error's path and `validate()` see one
// resolution. Synchronous and main-actor factories always did; asynchronous ones started a new
// top-level resolution.

final class EnclosingLeaf: Sendable {}

/// Reads the graph-scoped leaf through `@Injected`.
struct EnclosingGraphUser: Sendable {
  @Injected(\.enclosingGraphLeaf) var leaf: EnclosingLeaf
}

/// Keeps a unique dependency: a captive one when a singleton keeps it.
struct EnclosingKeeper: Sendable {
  @Injected(\.enclosingUnique) var kept: EnclosingLeaf
}

extension Dependencies {
  var enclosingGraphLeaf: Key<EnclosingLeaf> { Key { EnclosingLeaf() }.scope(.graph) }
  var enclosingUnique: Key<EnclosingLeaf> { Key { EnclosingLeaf() } }
  var enclosingRequired: Key<EnclosingLeaf> { .required() }
  var enclosingSync: Key<Bool> { Key { false } }
  var enclosingAsync: AsyncKey<Bool> { AsyncKey { false } }
  var enclosingMainActor: MainActorKey<Bool> { MainActorKey { false } }
  var enclosingAsyncArgument: DependencyKey<AsyncKind, Int, Bool> { DependencyKey { _, _ in false } }
  var enclosingAsyncKeeper: AsyncKey<EnclosingKeeper> { AsyncKey { EnclosingKeeper() }.scope(.singleton) }
  var enclosingSyncKeeper: Key<EnclosingKeeper> { Key { EnclosingKeeper() }.scope(.singleton) }
  var enclosingAsyncMulti: AsyncMultibinding<Bool> { AsyncMultibinding() }
}

/// How a factory asks for a dependency without its resolver.
enum AskWithoutResolver: String, CaseIterable, Sendable {
  case capturedContainer, injectedProperty
}

@Suite struct EnclosingStepAcrossKindsTests {
  /// Registers each kind's factory to compare the graph-scoped leaf its resolver gives with the one
  /// `ask` gives.
  private func registerSharing(_ container: Container, _ ask: AskWithoutResolver) {
    @Sendable func same(_ resolver: Resolver) throws -> Bool {
      let fromResolver = try resolver[\.enclosingGraphLeaf]
      let other =
        switch ask {
        case .capturedContainer: try container[\.enclosingGraphLeaf]
        case .injectedProperty: EnclosingGraphUser().leaf
        }
      return fromResolver === other
    }
    container.register(\.enclosingSync) { r in try same(r) }
    container.register(\.enclosingAsync) { r in try same(r) }
    container.register(\.enclosingMainActor) { r in try same(r) }
    container.register(\.enclosingAsyncArgument) { r, _ in try same(r) }
  }

  @Test(
    "A factory of every kind shares its graph-scoped instances with what it asks a captured container or an @Injected property for",
    arguments: AskWithoutResolver.allCases)
  func graphScopeIsShared(ask: AskWithoutResolver) async throws {
    let container = Container()
    registerSharing(container, ask)
    #expect(try container[\.enclosingSync])
    #expect(try await container.resolve(\.enclosingAsync))
    #expect(try await container.resolve(\.enclosingMainActor))
    #expect(try await container.resolve(\.enclosingAsyncArgument, argument: 1))
    // A lazy or provider made from the container, read by the factory, continues it too.
    container.register(\.enclosingAsync) { r in
      let fromResolver = try r[\.enclosingGraphLeaf]
      let viaProvider = try container.provider(\.enclosingGraphLeaf).get()
      let viaLazy = try container.lazy(\.enclosingGraphLeaf).value
      return fromResolver === viaProvider && fromResolver === viaLazy
    }
    #expect(try await container.resolve(\.enclosingAsync))
  }

  @Test("An async factory's resolution through a captured container is traced under it")
  func traceNamesTheAsyncFactory() async throws {
    let container = Container()
    let observer = RecordingObserver()
    container.observe(observer)
    container.register(\.enclosingAsync) { _ in
      _ = try container[\.enclosingUnique]
      _ = EnclosingGraphUser()
      _ = try await container.resolve(\.enclosingMainActor)
      return true
    }
    _ = try await container.resolve(\.enclosingAsync)
    let events = observer.events.all
    for name in ["\\.enclosingUnique", "\\.enclosingGraphLeaf", "\\.enclosingMainActor"] {
      let event = try #require(events.first { $0.dependency.name == name })
      #expect(event.requestedBy?.name == "\\.enclosingAsync", "\(name)")
      #expect(event.depth == 1, "\(name)")
    }
    #expect(observer.starts.all.contains("\\.enclosingUnique@1"))
  }

  @Test("A missing key that an async factory asks a captured container for has the factory on its path")
  func errorPathGoesThroughTheAsyncFactory() async throws {
    let container = Container()
    container.register(\.enclosingAsync) { _ in
      _ = try container[\.enclosingRequired]
      return true
    }
    let error = try await #require(throws: ResolutionError.self) { try await container.resolve(\.enclosingAsync) }
    #expect(error.kind == .requiredKeyNotProvided)
    #expect(error.path.map(\.name) == ["\\.enclosingAsync", "\\.enclosingRequired"])

    container.register(\.enclosingAsync) { _ in
      _ = try await container.resolve(\.enclosingAsyncMulti)
      return true
    }
    container.contribute(to: \.enclosingAsyncMulti) { _ in
      _ = try container[\.enclosingRequired]
      return true
    }
    let report = await container.validate()
    let problems = report.problems(.requiredKeyNotProvided)
    #expect(
      problems.contains {
        $0.path.map(\.name).first == "\\.enclosingAsync" && $0.path.last?.name == "\\.enclosingRequired"
      })
  }

  @Test("validate() gives the path through an async factory that asks a captured container")
  func validationPathGoesThroughTheAsyncFactory() async throws {
    let container = Container()
    container.register(\.enclosingAsync) { _ in
      _ = try container[\.enclosingRequired]
      return true
    }
    container.register(\.enclosingAsyncArgument) { _, _ in
      _ = try container[\.enclosingRequired]
      return true
    }
    let report = await container.validate(arguments: [\Dependencies.enclosingAsyncArgument: 1])
    let paths = report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) }
    #expect(paths.contains(["\\.enclosingAsync", "\\.enclosingRequired"]), "\(paths)")
    #expect(paths.contains { $0.first?.hasPrefix("\\.enclosingAsyncArgument") == true && $0.count == 2 }, "\(paths)")
  }

  @Test("validate() finds a captive dependency an async singleton keeps through @Injected, as a sync one's")
  func captiveThroughInjectedInAsyncSingleton() async throws {
    let container = Container()
    let sync = await container.validate(including: [\Dependencies.enclosingSyncKeeper])
    let async = await container.validate(including: [\Dependencies.enclosingAsyncKeeper])
    #expect(sync.problems(.captiveDependency).count == 1)
    #expect(async.problems(.captiveDependency).count == 1)
    #expect(async.problems(.captiveDependency).first?.dependency.name == "\\.enclosingAsyncKeeper")
    #expect(async.problems(.captiveDependency).first?.message.contains("\\.enclosingUnique") == true)
  }

  @Test("An async factory that asks a captured container for itself is a cycle, not a runaway")
  func cycleThroughCapturedContainerInAsyncFactory() async throws {
    let container = Container()
    container.register(\.enclosingAsync) { _ in try await container.resolve(\.enclosingAsync) }
    let error = try await #require(throws: ResolutionError.self) { try await container.resolve(\.enclosingAsync) }
    #expect(error.kind == .cycle)
    #expect(error.path.map(\.name) == ["\\.enclosingAsync", "\\.enclosingAsync"])
  }

  @Test("An unstructured task an async factory starts is not part of its resolution")
  func unstructuredTaskStartsItsOwnResolution() async throws {
    let container = Container()
    container.register(\.enclosingAsync) { r in
      let fromResolver = try r[\.enclosingGraphLeaf]
      let fromTask = try await Task { try container[\.enclosingGraphLeaf] }.value
      return fromResolver !== fromTask
    }
    #expect(try await container.resolve(\.enclosingAsync))
  }
}

@Suite struct ValidationInsideAFactoryTests {
  @Test("validate() called inside an async factory runs its roots as roots, not as steps of that factory")
  func validationInsideAnAsyncFactory() async throws {
    let container = Container()
    let checked = Container()
    checked.register(\.enclosingSync) { _ in
      _ = try checked[\.enclosingRequired]
      return true
    }
    checked.register(\.enclosingAsync) { r in try r[\.enclosingSync] }
    container.register(\.enclosingAsyncArgument) { _, _ in
      let report = await checked.validate()
      let paths = report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) }
      #expect(paths == [["\\.enclosingAsync", "\\.enclosingSync", "\\.enclosingRequired"]], "\(paths)")
      let graph = await checked.graph()
      #expect(
        graph.nodes.map(\.dependency.name).sorted() == [
          "\\.enclosingAsync", "\\.enclosingRequired", "\\.enclosingSync",
        ])
      #expect(
        graph.edges == [
          DependencyGraph.Edge(from: "\\.enclosingAsync", to: "\\.enclosingSync"),
          DependencyGraph.Edge(from: "\\.enclosingSync", to: "\\.enclosingRequired"),
        ])
      return true
    }
    #expect(try await container.resolve(\.enclosingAsyncArgument, argument: 1))
  }

  @Test(
    "validate() called by a factory that a run of the same container (or of a child) calls checks nothing, and the run ends",
    arguments: [false, true])
  func validationCalledByAFactoryItRuns(ofChild: Bool) async throws {
    let container = Container()
    let nestedCounts = Mutex<[Int]>([])
    container.register(\.enclosingAsync) { _ in
      let nested = await (ofChild ? container.makeChild() : container).validate()
      nestedCounts.withLock { $0.append(nested.checkedCount) }
      _ = try container[\.enclosingRequired]
      return true
    }
    let report = await container.validate()
    #expect(nestedCounts.withLock { $0 } == [0])
    #expect(report.checkedCount == 2)
    #expect(
      report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) }
        == [["\\.enclosingAsync", "\\.enclosingRequired"]])
    // Outside a run, the factory's own check runs in full.
    nestedCounts.withLock { $0 = [] }
    await #expect(throws: ResolutionError.self) { try await container.resolve(\.enclosingAsync) }
    #expect(nestedCounts.withLock { $0 } == [0, 2])
  }

  @Test("A task a factory starts during a run, which validates after the run ended, checks in full")
  func taskThatOutlivesTheRunValidatesInFull() async throws {
    let container = Container()
    let (runEnded, signal) = AsyncStream<Void>.makeStream()
    let later = Mutex<Task<Int, Never>?>(nil)
    container.register(\.enclosingAsync) { _ in
      later.withLock { task in
        guard task == nil else { return }
        task = Task {
          for await _ in runEnded { break }
          return await container.validate().checkedCount
        }
      }
      return true
    }
    #expect(await container.validate().checkedCount == 1)
    signal.yield()
    let task = try #require(later.withLock { $0 })
    #expect(await task.value == 1)
  }
}

// A factory that throws is one problem, whichever root reaches it first.

struct ThrowingFactoryFailure: Error {}

extension Dependencies {
  // In name order: \.throwingAAsker, \.throwingB, \.throwingCAsker.
  var throwingAAsker: Key<String> { Key { "a" } }
  var throwingB: Key<String> { Key { "b" } }
  var throwingCAsker: Key<String> { Key { "c" } }
}

@Suite struct ThrowingFactoryReportedOnceTests {
  @Test(
    "A throwing factory is one problem with the asker's path, whether the asker sorts before it or after",
    arguments: [false, true])
  func oneProblemInEitherOrder(askerSortsLater: Bool) async {
    let container = Container()
    let asker = askerSortsLater ? \Dependencies.throwingCAsker : \Dependencies.throwingAAsker
    container.register(asker) { r in try r[\.throwingB] }
    container.register(\.throwingB) { () throws -> String in throw ThrowingFactoryFailure() }
    let report = await container.validate()
    #expect(report.problems.count == 1, "\(report)")
    let problem = report.problems.first
    #expect(problem?.kind == .factoryFailed)
    #expect(problem?.path.count == 2)
    #expect(problem?.path.last?.name == "\\.throwingB")
  }

  @Test("A parent's throwing singleton asked for by a child's registration is one problem when the child is validated")
  func oneProblemThroughAChild() async {
    let parent = Container()
    parent.register(\.throwingB, scope: .singleton) { () throws -> String in throw ThrowingFactoryFailure() }
    let child = parent.makeChild()
    child.register(\.throwingAAsker) { r in try r[\.throwingB] }
    let report = await child.validate()
    #expect(report.problems.count == 1, "\(report)")
    #expect(report.problems.first?.path.map(\.name) == ["\\.throwingAAsker", "\\.throwingB"])
  }
}
