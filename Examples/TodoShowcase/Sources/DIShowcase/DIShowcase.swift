@_exported public import Common
@_exported public import DependencyProviderToDoList
@_exported public import Knapsack
@_exported public import KnapsackToDoList
@_exported public import ManualDIToDoList
@_exported public import Storage
@_exported public import ThirdPartyDIToDoList

/// The four DI styles side by side, all on one storage.
///
/// This is the only module the app imports: it re-exports the shared model, the stores, every
/// feature module and Knapsack.
public struct Showcase: Sendable {
  /// The styles in tab order.
  public static let styles: [DIStyle] = [
    ManualDIToDoListFactory.style,
    DependencyProviderToDoListFactory.style,
    KnapsackToDoListFactory.style,
    ThirdPartyDIToDoListFactory.style,
  ]

  /// The app's one storage; every style's screen uses it.
  public let storage: any LocalStorage

  /// The app's Knapsack container: it serves the JSON API and is the graph on `/graph`.
  public let container: Container

  public init(storage: any LocalStorage) {
    self.storage = storage
    container = Container(assemblies: [TodoListAssembly(storage: storage)])
  }

  /// Makes the screen of the style with this id, through that style's factory, or `nil` for an
  /// unknown id.
  public func makeScreen(styleID: String) throws -> TodoListScreen? {
    switch styleID {
    case ManualDIToDoListFactory.style.id: ManualDIToDoListFactory.make(storage: storage)
    case DependencyProviderToDoListFactory.style.id: try DependencyProviderToDoListFactory.make(storage: storage)
    case KnapsackToDoListFactory.style.id: KnapsackToDoListFactory.make(storage: storage)
    case ThirdPartyDIToDoListFactory.style.id: ThirdPartyDIToDoListFactory.make(storage: storage)
    default: nil
    }
  }

  /// The view model behind the JSON API, resolved from ``container``.
  public func makeAPIViewModel() throws -> any TodoListViewModel {
    try KnapsackToDoListFactory.make(container: container).viewModel
  }

  /// The keys the app resolves at the top level; the graph and the validation start from them.
  ///
  /// Computed because `PartialKeyPath` is not `Sendable`, so the list cannot be a stored `static let`.
  public static var rootKeys: [PartialKeyPath<Dependencies>] { [\Dependencies.todoListScreen] }

  /// The app container's dependency graph, from a dry run that keeps no instance.
  public func dependencyGraph() async -> DependencyGraph {
    await container.graph(including: Self.rootKeys)
  }

  /// What `validate()` reports for the app container: checked before the first request.
  public func validation() async -> ValidationReport {
    await container.validate(including: Self.rootKeys)
  }

  /// The keys the broken graph names besides ``rootKeys``, so it shows the same keys as the live
  /// one: a dry run stops a factory at its first dependency that fails, and `todoListViewModel`
  /// asks for `\.todoStorage` (missing there) before `\.todoClock`, so it never reaches the clock.
  public static var keysPastTheMissingStorage: [PartialKeyPath<Dependencies>] { [\Dependencies.todoClock] }

  /// The same graph broken on purpose: a second container built like ``container`` but without
  /// the storage registration (``TodoListAssembly`` not installed), its graph (with the same keys
  /// as the live one, see ``keysPastTheMissingStorage``) and what `validate()` reports for it.
  /// The live ``container`` is never changed.
  public static func brokenOnPurpose() async -> (graph: DependencyGraph, report: ValidationReport) {
    let broken = Container(assemblies: [])
    let keys = rootKeys + keysPastTheMissingStorage
    return (await broken.graph(including: keys), await broken.validate(including: keys))
  }

  /// The graph of the DependencyProvider tab's container: its registrations by type.
  public func providerGraph() async -> DependencyGraph {
    await DependencyProviderToDoListFactory.makeContainer(storage: storage).graph()
  }

  /// What the Swinject tab's container registers, as Swinject describes each registration.
  public func swinjectRegistrations() -> [String] {
    ThirdPartyDIToDoListFactory.registrations(storage: storage)
  }
}
