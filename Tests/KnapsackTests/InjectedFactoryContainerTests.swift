import Knapsack
import Testing

// `@Injected` and `@LazyInjected` without `container:`, in an instance that a factory makes,
// resolve from the container making it: the app then resolves what `validate()` checked (the run
// makes the instance in its copy of that container). Outside any factory, they resolve from
// `Container.current`.

/// What the properties below read: which container provided it.
protocol FactoryContainerLabel: Sendable {
  var label: String { get }
}

struct FactoryContainerNamed: FactoryContainerLabel {
  let label: String
}

/// A holder that injects the label eagerly.
struct FactoryContainerHolder: Sendable {
  @Injected(\.factoryContainerLabel) var label: any FactoryContainerLabel
}

/// A holder that injects the label on first access.
struct FactoryContainerLazyHolder: Sendable {
  @LazyInjected(\.factoryContainerLabel) var label: any FactoryContainerLabel
}

/// A main-actor view model that injects the label, as a feature module's would.
@MainActor final class FactoryContainerViewModel {
  @Injected(\.factoryContainerLabel) var label: any FactoryContainerLabel
}

/// A container that only ``FactoryContainerGivenHolder`` names: made once, never changed.
enum FactoryContainerGiven {
  static let container: Container = {
    let container = Container()
    container.register(\.factoryContainerLabel) { FactoryContainerNamed(label: "given") }
    return container
  }()
}

/// A holder that names its container.
struct FactoryContainerGivenHolder: Sendable {
  @Injected(\.factoryContainerLabel, container: FactoryContainerGiven.container) var label: any FactoryContainerLabel
}

/// A wrapper a decorator makes around the value it decorates.
struct FactoryContainerDecorated: Sendable {
  let inner: FactoryContainerHolder
  @Injected(\.factoryContainerLabel) var label: any FactoryContainerLabel
}

extension Dependencies {
  var factoryContainerLabel: Key<any FactoryContainerLabel> { .required() }
  var factoryContainerHolder: Key<FactoryContainerHolder> { Key { FactoryContainerHolder() } }
  var factoryContainerLazyHolder: Key<FactoryContainerLazyHolder> { Key { FactoryContainerLazyHolder() } }
  var factoryContainerAsyncHolder: AsyncKey<FactoryContainerHolder> {
    AsyncKey { () async -> FactoryContainerHolder in
      await Task.yield()
      return FactoryContainerHolder()
    }
  }
  var factoryContainerArgumentHolder: ArgumentKey<Int, [FactoryContainerHolder]> {
    ArgumentKey { _, count in (0..<count).map { _ in FactoryContainerHolder() } }
  }
  /// Makes one holder in a child task (`async let`) and one in an unstructured `Task`.
  var factoryContainerTaskHolders: AsyncKey<[FactoryContainerLazyHolder]> {
    AsyncKey { () async -> [FactoryContainerLazyHolder] in
      async let child = FactoryContainerLazyHolder()
      let unstructured = await Task { FactoryContainerLazyHolder() }.value
      return [await child, unstructured]
    }
  }
  var factoryContainerViewModel: MainActorKey<FactoryContainerViewModel> {
    MainActorKey { FactoryContainerViewModel() }
  }
  var factoryContainerHolders: Multibinding<FactoryContainerHolder> { Multibinding() }
  var factoryContainerDecorated: Key<FactoryContainerDecorated> { .required() }
  var factoryContainerGivenHolder: Key<FactoryContainerGivenHolder> { Key { FactoryContainerGivenHolder() } }
  var factoryContainerSharedHolder: Key<FactoryContainerHolder> {
    Key { FactoryContainerHolder() }.scope(.singleton)
  }
}

@Suite struct InjectedFactoryContainerTests {
  /// A container that is not `Container.current`, and provides the label.
  private func container(_ label: String) -> Container {
    let container = Container()
    container.register(\.factoryContainerLabel) { FactoryContainerNamed(label: label) }
    return container
  }

  /// The case a new user met: `validate()` passed a view model whose `@Injected` property then
  /// stopped the app, because the app resolved it from `Container.shared`.
  @Test @MainActor func aViewModelThatValidatesResolvesInTheApp() async throws {
    let container = container("app")
    let report = await container.validate(including: [\.factoryContainerViewModel])
    #expect(report.isValid, "\(report)")
    #expect(try container[\.factoryContainerViewModel].label.label == "app")
    #expect(try await container.resolve(\.factoryContainerViewModel).label.label == "app")
  }

  @Test func everyKindOfFactoryMakesItsInstanceFromItsOwnContainer() async throws {
    let container = container("own")
    container.contribute(to: \.factoryContainerHolders) { FactoryContainerHolder() }
    container.register(\.factoryContainerDecorated) { FactoryContainerDecorated(inner: FactoryContainerHolder()) }
    container.decorate(\.factoryContainerDecorated) { _, value in FactoryContainerDecorated(inner: value.inner) }
    #expect(try container[\.factoryContainerHolder].label.label == "own")
    #expect(try await container[\.factoryContainerAsyncHolder].label.label == "own")
    #expect(try container.resolve(\.factoryContainerArgumentHolder, argument: 2).map(\.label.label) == ["own", "own"])
    #expect(try container[\.factoryContainerHolders].map(\.label.label) == ["own"])
    let decorated = try container[\.factoryContainerDecorated]
    #expect(decorated.label.label == "own" && decorated.inner.label.label == "own")
    #expect(await container.validate(including: [\.factoryContainerAsyncHolder, \.factoryContainerHolders]).isValid)
  }

  /// The factory's container wins over the task's: the instance belongs to the resolution that
  /// makes it. An instance made outside any factory still resolves from `Container.current`, and
  /// `container:` from the one it names.
  @Test func theFactorysContainerComesBeforeTheTasksAndAfterAGivenOne() throws {
    let own = container("own")
    let task = container("task")
    try withContainer(task) { () throws in
      #expect(try own[\.factoryContainerHolder].label.label == "own")
      #expect(FactoryContainerHolder().label.label == "task")
    }
    #expect(try own[\.factoryContainerGivenHolder].label.label == "given")
  }

  /// `@LazyInjected` remembers the factory's container, and reads from it after the factory
  /// returned, wherever the read happens.
  @Test func aLazyPropertyRemembersTheFactorysContainer() throws {
    let own = container("own")
    let holder = try own[\.factoryContainerLazyHolder]
    let task = container("task")
    let label = withContainer(task) { holder.label.label }
    #expect(label == "own")
  }

  /// A child task of an asynchronous factory is the factory's; an unstructured `Task` it starts
  /// is not, even awaited: what it makes resolves from `Container.current` there (InjectionAndCycles.md).
  @Test func childTasksOfAFactoryAreItsAndUnstructuredTasksAreNot() async throws {
    let own = container("own")
    let task = container("task")
    let holders = try await withContainer(task) { try await own.resolve(\.factoryContainerTaskHolders) }
    #expect(holders.map(\.label.label) == ["own", "task"])
  }

  /// A parent's shared instance is made by the parent, with the parent's registrations; a unique
  /// key resolved through a child is made by the child (ContainersAndChildScopes.md), and so are
  /// the properties of what it makes.
  @Test func parentsAndChildrenMakeThePropertiesOfWhatTheyMake() throws {
    let parent = container("parent")
    let child = parent.makeChild()
    child.register(\.factoryContainerLabel) { FactoryContainerNamed(label: "child") }
    #expect(try child[\.factoryContainerSharedHolder].label.label == "parent")
    #expect(try child[\.factoryContainerHolder].label.label == "child")
  }

  /// In an override scope, the factory's container is the scope's copy: the property sees the
  /// overrides, as a resolution would.
  @Test func aFactoryInAnOverrideScopeMakesThePropertiesWithTheOverrides() throws {
    let own = container("own")
    let label = try withOverrides {
      $0.register(\.factoryContainerLabel) { FactoryContainerNamed(label: "override") }
    } operation: {
      try own[\.factoryContainerHolder].label.label
    }
    #expect(label == "override")
    #expect(try own[\.factoryContainerHolder].label.label == "own")
  }

  /// A cycle through a property is the resolution's own: `validate()` reports it with the path.
  @Test func aCycleThroughAPropertyIsReportedWithItsPath() async throws {
    let container = Container()
    container.register(\.factoryContainerLabel) { r in
      FactoryContainerNamed(label: "cycle " + (try r[\.factoryContainerHolder]).label.label)
    }
    let report = await container.validate(including: [\.factoryContainerHolder])
    let cycles = report.problems(.cycle)
    #expect(cycles.count == 1, "\(report)")
    #expect(cycles.first?.path.map(\.name).contains("\\.factoryContainerLabel") == true, "\(report)")
  }

  /// When the factory's container cannot provide the property's key, the stop says which
  /// container that was.
  @Test func aMissingKeyStopsNamingTheFactorysContainer() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = try? Container()[\.factoryContainerHolder]
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(output.contains("from the container whose factory is making this instance"), "\(output)")
    #expect(output.contains("required key \\.factoryContainerLabel"), "\(output)")
  }
}

/// Made anew for each use.
final class FactoryContainerSession: Sendable {}

/// Kept for the container's life with the session its property resolved: a captive holder.
struct FactoryContainerDashboard: Sendable {
  @Injected(\.factoryContainerSession) var session: FactoryContainerSession
}

/// Reads a session on first access: the run checks its key as a root of its own.
struct FactoryContainerLazyDashboard: Sendable {
  @LazyInjected(\.factoryContainerSession) var session: FactoryContainerSession
}

extension Dependencies {
  var factoryContainerSession: Key<FactoryContainerSession> { Key { FactoryContainerSession() } }
  var factoryContainerDashboard: Key<FactoryContainerDashboard> {
    Key { FactoryContainerDashboard() }.scope(.singleton)
  }
  var factoryContainerLazyDashboard: Key<FactoryContainerLazyDashboard> {
    Key { FactoryContainerLazyDashboard() }.scope(.singleton)
  }
}

@Suite struct InjectedFactoryContainerValidationTests {
  /// A `@LazyInjected` property made in a run keeps no hold on the run's copy of the container
  /// (its handle holds that weakly): a copy kept alive past the run made the session that the
  /// dashboard's `@Injected` property keeps look handed out from elsewhere, and hid the captive
  /// holder (the build-time check's agreement case found it).
  @Test func aLazyPropertyInTheSameRunDoesNotHideACaptiveHolder() async throws {
    let alone = await Container().validate(including: [\.factoryContainerDashboard])
    #expect(alone.problems(.captiveDependency).map(\.dependency.name) == ["\\.factoryContainerDashboard"], "\(alone)")
    // The lazy dashboard is captive too: its singleton keeps the `Lazy` of its property, which
    // keeps the first session it reads.
    let both = await Container().validate(including: [\.factoryContainerDashboard, \.factoryContainerLazyDashboard])
    #expect(
      both.problems(.captiveDependency).map(\.dependency.name) == [
        "\\.factoryContainerDashboard", "\\.factoryContainerLazyDashboard",
      ], "\(both)")
  }
}
