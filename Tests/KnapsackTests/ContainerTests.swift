import Knapsack
import Synchronization
import Testing

extension Dependencies {
  var containerToken: Key<Token> { Key { Token("default") }.scope(.singleton) }
  var containerUnique: Key<Token> { Key { Token("unique") } }
  var containerNumber: Key<Int> { Key { 0 } }
  var containerResource: Key<Resource> { .required() }
  var containerOtherResource: Key<Resource> { .required() }
}

/// Something that must be closed when its container goes away.
final class Resource: Disposable {
  let name: String
  let log: Collected<String>
  let failure: PlannedFailure?
  private let closings = Atomic<Int>(0)

  init(_ name: String, log: Collected<String>, failing failure: PlannedFailure? = nil) {
    self.name = name
    self.log = log
    self.failure = failure
  }

  var closeCount: Int { closings.load(ordering: .relaxed) }

  func dispose() async throws {
    closings.add(1, ordering: .relaxed)
    log.append(name)
    if let failure { throw failure }
  }
}

/// Records every event it is told about.
final class RecordingObserver: ResolutionObserver {
  let events = Collected<ResolutionEvent>()
  let starts = Collected<String>()
  func willResolve(_ dependency: DependencyReference, depth: Int) { starts.append("\(dependency.name)@\(depth)") }
  func didResolve(_ event: ResolutionEvent) { events.append(event) }
}

@Suite struct ContainerTests {
  @Test func containersAreIndependentValues() async throws {
    let first = Container()
    let second = Container()
    first.register(\.containerNumber) { 1 }
    #expect(try first[\.containerNumber] == 1)
    #expect(try second[\.containerNumber] == 0)
    #expect(try first[\.containerToken] !== second[\.containerToken])
  }

  @Test func sharedContainerIsOneInstance() async {
    // Only read here: tests never register into `Container.shared`.
    #expect(Container.shared === Container.shared)
  }

  @Test func singletonSurvivesUnrelatedRegistrations() async throws {
    let container = Container()
    let first = try container[\.containerToken]
    container.register(\.containerNumber) { 3 }
    Container().register(\.containerNumber) { 4 }
    #expect(try container[\.containerToken] === first)
    #expect(try container[\.containerNumber] == 3)
  }

  @Test func droppingAContainerReleasesItsSingletons() async throws {
    weak var probe: Token?
    do {
      let container = Container()
      container.register(\.containerToken, scope: .singleton) { Token("owned") }
      probe = try container[\.containerToken]
      #expect(probe != nil)
    }
    #expect(await freedSoon { probe == nil }, "a container's singleton outlived the container")
  }

  @Test func reRegisteringASingletonReplacesItsInstance() async throws {
    let container = Container()
    let first = try container[\.containerToken]
    container.register(\.containerToken, scope: .singleton) { Token("new") }
    let second = try container[\.containerToken]
    #expect(second !== first)
    #expect(second.label == "new")
  }

  @Test func resolverKeptAfterItsFactoryStartsAFreshResolution() async throws {
    let container = Container()
    let kept = Locked<Resolver?>(nil)
    container.register(\.containerUnique) { r in
      kept.withLock { $0 = r }
      return Token("keeper")
    }
    _ = try container[\.containerUnique]
    let resolver = try #require(kept.withLock { $0 })
    // Resolving the key whose factory made this resolver would be a cycle inside the factory;
    // after the factory returned it is a new top-level resolution.
    #expect(try resolver[\.containerUnique].label == "keeper")
    #expect(try resolver[\.containerNumber] == 0)
  }

  @Test func registeringAndResolvingFromManyTasksAtOnce() async throws {
    let container = Container()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<200 {
        group.addTask {
          if index.isMultiple(of: 2) {
            container.register(\.containerNumber) { index }
          }
          let token = try container[\.containerToken]
          #expect(try container[\.containerToken] === token)
          #expect(try container[\.containerNumber] >= 0)
        }
      }
      try await group.waitForAll()
    }
    #expect(try container[\.containerNumber].isMultiple(of: 2))
  }

  // MARK: Disposal

  @Test func disposeClosesSharedInstancesOnceInReverseOrder() async throws {
    let container = Container()
    let log = Collected<String>()
    container.register(\.containerResource, scope: .singleton) { Resource("first", log: log) }
    container.register(\.containerOtherResource, scope: .cached) { r in
      _ = try r[\.containerResource]
      return Resource("second", log: log)
    }
    let second = try container[\.containerOtherResource]
    let first = try container[\.containerResource]
    #expect(!container.isDisposed)
    async let one: Void = container.dispose()
    async let two: Void = container.dispose()
    _ = try await (one, two)
    #expect(log.all == ["second", "first"])
    #expect(first.closeCount == 1)
    #expect(second.closeCount == 1)
    #expect(container.isDisposed)
  }

  @Test func resolvingFromADisposedContainerThrows() async throws {
    let container = Container()
    _ = try container[\.containerToken]
    try await container.dispose()
    let error = #expect(throws: ResolutionError.self) { try container[\.containerToken] }
    #expect(error?.kind == .containerDisposed)
    #expect(error?.dependency.name == "\\.containerToken")
  }

  @Test func disposalFailuresAreCollectedAndEveryInstanceIsClosed() async throws {
    let container = Container()
    let log = Collected<String>()
    container.register(\.containerResource, scope: .singleton) {
      Resource("bad", log: log, failing: PlannedFailure("cannot close"))
    }
    container.register(\.containerOtherResource, scope: .singleton) { Resource("good", log: log) }
    _ = try container[\.containerResource]
    _ = try container[\.containerOtherResource]
    let error = await #expect(throws: DisposalError.self) { try await container.dispose() }
    #expect(error?.failures.count == 1)
    #expect(error?.failures.first?.dependency.name == "\\.containerResource")
    #expect(error?.failures.first?.error == "cannot close")
    #expect((error as (any Error)?)?.localizedDescription == error?.description)
    #expect(Set(log.all) == ["bad", "good"])
  }

  // MARK: Observation

  @Test func observerSeesCreationsAndReuses() async throws {
    let container = Container()
    let observer = RecordingObserver()
    container.observe(observer)
    container.register(\.containerUnique) { r in
      _ = try r[\.containerToken]
      return Token("observed")
    }
    _ = try container[\.containerUnique]
    _ = try container[\.containerToken]
    let events = observer.events.all
    let summary = events.map { "\($0.dependency.name) \($0.outcome.rawValue) depth \($0.depth)" }
    #expect(
      summary == [
        "\\.containerToken created depth 1",
        "\\.containerUnique created depth 0",
        "\\.containerToken reused depth 0",
      ])
    #expect(events.first?.requestedBy?.name == "\\.containerUnique")
    #expect(events.first?.scope == .singleton)
    #expect(events[1].registeredAt?.fileID == "KnapsackTests/ContainerTests.swift")
    #expect(observer.starts.all.first == "\\.containerUnique@0")

    container.observe(nil)
    _ = try container[\.containerUnique]
    #expect(observer.events.all.count == events.count)
  }

  @Test func observerOfAParentSeesItsChildsResolutions() async throws {
    let parent = Container()
    let observer = RecordingObserver()
    parent.observe(observer)
    let child = parent.makeChild()
    child.register(\.containerNumber) { 9 }
    #expect(try child[\.containerNumber] == 9)
    #expect(observer.events.all.map(\.dependency.name).contains("\\.containerNumber"))
  }
}
