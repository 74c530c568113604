// The code samples of the DocC catalog (Sources/Knapsack/Knapsack.docc), compiled and run.
//
// Every line of a ```swift block in the catalog's articles also appears in this file
// (scripts/check-doc-samples.sh checks it), so a change to the API that breaks a sample breaks
// the build or a test here. Keep the two in step: change the sample here first, then copy it.
//
// Its names (todoStore, dateSource, TodoItem, ...) are the docs' example app: other tests must not reuse them.

public import Foundation
public import Knapsack
import KnapsackTesting
import Observation
import Synchronization
import Testing

// MARK: - The example app's types (not shown in full in the articles)

public struct TodoItem: Sendable, Hashable, Identifiable {
  public let id: Int
  public var title: String
  public var created: Date
}

/// Where todos are kept.
public protocol TodoStore: Sendable {
  func all() -> [TodoItem]
  @discardableResult func add(_ title: String, at date: Date) -> TodoItem
}

/// Todos kept in memory.
final class InMemoryTodoStore: TodoStore {
  private let items: Mutex<[TodoItem]>

  init(_ items: [TodoItem] = []) { self.items = Mutex(items) }

  func all() -> [TodoItem] { items.withLock { $0 } }

  func add(_ title: String, at date: Date) -> TodoItem {
    items.withLock { items in
      let item = TodoItem(id: items.count + 1, title: title, created: date)
      items.append(item)
      return item
    }
  }
}

/// Stands in for a store that writes a file; it only remembers the path here.
final class FileTodoStore: TodoStore {
  let path: String
  private let memory = InMemoryTodoStore()

  init(path: String) { self.path = path }

  func all() -> [TodoItem] { memory.all() }
  func add(_ title: String, at date: Date) -> TodoItem { memory.add(title, at: date) }
}

/// Tells the time.
public protocol DateSource: Sendable {
  var now: Date { get }
}

struct SystemDateSource: DateSource {
  var now: Date { Date() }
}

struct FixedDateSource: DateSource {
  let now: Date
}

final class TodoRepository: Sendable {
  let store: any TodoStore
  let dates: any DateSource

  init(store: any TodoStore, dates: any DateSource) {
    self.store = store
    self.dates = dates
  }

  @discardableResult func add(_ title: String) -> TodoItem { store.add(title, at: dates.now) }
  func all() -> [TodoItem] { store.all() }
}

struct TodoDetailModel: Sendable {
  let item: TodoItem?

  init(id: TodoItem.ID, store: any TodoStore) {
    item = store.all().first { $0.id == id }
  }
}

/// Counts instances, so the scope samples can tell one instance from another.
final class InstanceCounter: Sendable {
  static let made = Atomic<Int>(0)
  let number = InstanceCounter.made.add(1, ordering: .relaxed).newValue
}

final class UnitOfWork: Sendable {
  let serial = InstanceCounter()
}

final class ImageCache: Sendable {
  let serial = InstanceCounter()
}

final class FeatureFlags: Sendable {
  let serial = InstanceCounter()
  static func load() -> FeatureFlags { FeatureFlags() }
}

struct TodoSaver: Sendable {
  let items: ItemWriter
  let tags: TagWriter
}

struct ItemWriter: Sendable { let work: UnitOfWork }
struct TagWriter: Sendable { let work: UnitOfWork }

struct User: Sendable, Equatable {
  let name: String
}

final class Inbox: Sendable {
  let notifier: Notifier
  init(notifier: Notifier) { self.notifier = notifier }
}

final class Notifier: Sendable {
  let inbox: Lazy<Key<Inbox>>
  init(inbox: Lazy<Key<Inbox>>) { self.inbox = inbox }
}

final class TodoScreen {
  @Injected(\.todoStore) var store: any TodoStore
  @LazyInjected(\.todoRepository) var repository: TodoRepository
}

actor TodoDatabase {
  let path: String
  let log: DisposalLog?
  private(set) var isClosed = false
  static let opened = Atomic<Int>(0)

  private init(path: String, log: DisposalLog?) {
    self.path = path
    self.log = log
  }

  static func open(path: String, log: DisposalLog? = nil) async throws -> TodoDatabase {
    await Task.yield()
    opened.add(1, ordering: .relaxed)
    return TodoDatabase(path: path, log: log)
  }

  func close() {
    isClosed = true
    log?.append("database")
  }
}

/// Records what was disposed, in order; each test makes its own.
final class DisposalLog: Sendable {
  private let entries = Mutex<[String]>([])
  func append(_ entry: String) { entries.withLock { $0.append(entry) } }
  var all: [String] { entries.withLock { $0 } }
}

/// Pushes todos to a server while it runs.
final class TodoSyncService: Disposable {
  let database: TodoDatabase
  let log: DisposalLog?
  init(database: TodoDatabase, log: DisposalLog? = nil) {
    self.database = database
    self.log = log
  }
  func dispose() async throws { log?.append("sync") }
}

/// A signed-in user's session; it signs out when disposed.
final class UserSession: Disposable {
  let user: User
  let log: DisposalLog?
  init(user: User, log: DisposalLog? = nil) {
    self.user = user
    self.log = log
  }
  func dispose() async throws { log?.append("session") }
}

struct DiskFull: Error, CustomStringConvertible {
  var description: String { "disk full" }
}

/// A file handle whose close fails.
final class FailingFile: Disposable {
  func dispose() async throws { throw DiskFull() }
}

struct TodoSync: Sendable {
  let database: TodoDatabase
  let store: any TodoStore
}

@MainActor final class TodoListModel {
  let repository: TodoRepository
  init(repository: TodoRepository) { self.repository = repository }
  var titles: [String] { repository.all().map(\.title) }
}

struct PrefilledTodoStore: TodoStore {
  func all() -> [TodoItem] { [TodoItem(id: 1, title: "Water the plants", created: .distantPast)] }
  func add(_ title: String, at date: Date) -> TodoItem { TodoItem(id: 2, title: title, created: date) }
}

// MARK: - GettingStarted.md, Keys.md: declaring keys

extension Dependencies {
  /// Where todos are kept. Apps replace the in-memory default at their composition root.
  public var todoStore: Key<any TodoStore> { Key { InMemoryTodoStore() }.scope(.singleton) }

  /// Tells the time. Only the app knows which clock to use, so there is no default.
  public var dateSource: Key<any DateSource> { .required() }
}

extension Dependencies {
  var todoFilePath: Key<String> { Key { "todos.json" }.scope(.singleton) }

  var todoRepository: Key<TodoRepository> {
    Key { r in TodoRepository(store: try r[\.todoStore], dates: try r[\.dateSource]) }
  }
}

// MARK: Keys.md: runtime arguments

extension Dependencies {
  var todoDetail: ArgumentKey<TodoItem.ID, TodoDetailModel> {
    ArgumentKey { r, id in TodoDetailModel(id: id, store: try r[\.todoStore]) }
  }
}

// MARK: Scopes.md

extension Dependencies {
  var unitOfWork: Key<UnitOfWork> { Key { UnitOfWork() }.scope(.graph) }
  var imageCache: Key<ImageCache> { Key { ImageCache() }.scope(.weak) }
  var featureFlags: Key<FeatureFlags> { Key { FeatureFlags.load() }.scope(.cached) }

  var todoSaver: Key<TodoSaver> {
    Key { r in TodoSaver(items: try r[\.itemWriter], tags: try r[\.tagWriter]) }
  }
  var itemWriter: Key<ItemWriter> { Key { r in ItemWriter(work: try r[\.unitOfWork]) } }
  var tagWriter: Key<TagWriter> { Key { r in TagWriter(work: try r[\.unitOfWork]) } }
}

// MARK: ContainersAndChildScopes.md

struct StorageAssembly: Assembly {
  func assemble(into container: Container) {
    container.register(\.todoStore, scope: .singleton) { r in FileTodoStore(path: try r[\.todoFilePath]) }
  }
}

struct ClockAssembly: Assembly {
  func assemble(into container: Container) {
    container.register(\.dateSource) { SystemDateSource() }
  }
}

extension Dependencies {
  /// The signed-in user: registered in each session's child container.
  var currentUser: Key<User> { .required() }
}

// MARK: InjectionAndCycles.md

extension Dependencies {
  var inbox: Key<Inbox> { Key { r in Inbox(notifier: try r[\.notifier]) }.scope(.singleton) }
  var notifier: Key<Notifier> { Key { r in Notifier(inbox: r.lazy(\.inbox)) }.scope(.singleton) }
}

// MARK: AsyncAndActors.md

extension Dependencies {
  var todoDatabase: AsyncKey<TodoDatabase> {
    AsyncKey { r in try await TodoDatabase.open(path: try r[\.todoFilePath]) }.scope(.singleton)
  }

  var todoSync: AsyncKey<TodoSync> {
    AsyncKey { r in TodoSync(database: try await r.resolve(\.todoDatabase), store: try r[\.todoStore]) }
  }

  var todoListModel: MainActorKey<TodoListModel> {
    MainActorKey { r in TodoListModel(repository: try r[\.todoRepository]) }
  }
}

// MARK: Lifecycle.md

extension TodoDatabase: Disposable {
  func dispose() async throws {
    close()
  }
}

extension Dependencies {
  var todoSyncService: AsyncKey<TodoSyncService> {
    AsyncKey { r in TodoSyncService(database: try await r.resolve(\.todoDatabase)) }.scope(.singleton)
  }

  var userSession: Key<UserSession> { .required() }
  var exportFile: Key<FailingFile> { Key { FailingFile() }.scope(.singleton) }
}

// MARK: Diagnostics.md

/// Keeps every resolution it sees.
final class ResolutionRecorder: ResolutionObserver {
  private let recorded = Mutex<[ResolutionEvent]>([])

  func didResolve(_ event: ResolutionEvent) {
    recorded.withLock { $0.append(event) }
  }

  var events: [ResolutionEvent] { recorded.withLock { $0 } }
}

/// A store that logs every call, wrapped around another store by a decorator.
final class LoggingTodoStore: TodoStore {
  let wrapped: any TodoStore
  init(wrapping store: any TodoStore) { wrapped = store }
  func all() -> [TodoItem] { wrapped.all() }
  func add(_ title: String, at date: Date) -> TodoItem { wrapped.add(title, at: date) }
}

/// A store that keeps the last result, wrapped around another store by a decorator.
final class CachingTodoStore: TodoStore {
  let wrapped: any TodoStore
  init(wrapping store: any TodoStore) { wrapped = store }
  func all() -> [TodoItem] { wrapped.all() }
  func add(_ title: String, at date: Date) -> TodoItem { wrapped.add(title, at: date) }
}

/// Receives analytics events.
public protocol AnalyticsSink: Sendable {
  var name: String { get }
}

struct ConsoleSink: AnalyticsSink {
  var name: String { "console" }
}

struct FileSink: AnalyticsSink {
  let path: String
  var name: String { "file" }
}

struct ServerSink: AnalyticsSink {
  var name: String { "server" }
}

struct CoreAnalyticsAssembly: Assembly {
  func assemble(into container: Container) {
    container.contribute(to: \.analyticsSinks, scope: .singleton) { ConsoleSink() }
    container.contribute(to: \.analyticsSinks) { r in FileSink(path: try r[\.todoFilePath]) }
  }
}

struct ServerAnalyticsAssembly: Assembly {
  func assemble(into container: Container) {
    container.contribute(to: \.analyticsSinks, scope: .singleton) { ServerSink() }
  }
}

extension Dependencies {
  var analyticsSinks: Multibinding<any AnalyticsSink> { Multibinding() }
}

/// A file that must be closed, but is not `Disposable`.
final class ExportFile: Sendable {
  private let state = Atomic<Bool>(false)
  var isClosed: Bool { state.load(ordering: .relaxed) }
  func close() async throws { state.store(true, ordering: .relaxed) }
}

extension Dependencies {
  var exportLog: Key<ExportFile> { Key { ExportFile() }.scope(.singleton) }
}

struct NotConfigured: Error, CustomStringConvertible {
  var description: String { "no data directory configured" }
}

// MARK: - Tests

@Suite struct GettingStartedSamples {
  @Test func quickStart() async throws {
    let container = Container()
    container.register(\.dateSource) { SystemDateSource() }

    let repository = try container[\.todoRepository]
    repository.add("Buy milk")
    #expect(repository.all().map(\.title) == ["Buy milk"])
  }

  @Test func compositionRoot() async throws {
    let container = Container()
    container.register(\.todoStore, scope: .singleton) { r in FileTodoStore(path: try r[\.todoFilePath]) }
    container.register(\.dateSource) { SystemDateSource() }

    let store = try container.resolve(\.todoStore)
    #expect((store as? FileTodoStore)?.path == "todos.json")
  }

  @Test func requiredKeyError() async throws {
    let container = Container()
    do {
      _ = try container[\.todoRepository]
    } catch let error as ResolutionError {
      print(error)
      #expect(error.kind == .requiredKeyNotProvided)
      #expect(error.pathDescription == "\\.todoRepository → \\.dateSource")
      #expect(error.dependency.location?.fileID == "KnapsackTests/DocumentationSamplesTests.swift")
    }
    let error = #expect(throws: ResolutionError.self) { try container[\.todoRepository] }
    #expect(
      error?.description.hasPrefix("Knapsack: required key \\.dateSource (any DateSource) was never provided.") == true)
    #expect(error?.description.contains("  path: \\.todoRepository → \\.dateSource") == true)
    // The line of the repository's factory, where its key is made (its declaration site).
    let declared = try #require(error?.path.first?.location)
    #expect(error?.requestedAt == declared)
    #expect(error?.description.contains("  fix: register it at the composition root") == true)
  }
}

@Suite struct KeysSamples {
  @Test func keysResolve() async throws {
    let container = Container()
    container.register(\.dateSource) { SystemDateSource() }
    let store = try container.resolve(\.todoStore)
    let sameStore = try container[\.todoStore]
    #expect(store as AnyObject === sameStore as AnyObject)
    let database = try await container[\.todoDatabase]
    #expect(try await container.resolve(\.todoDatabase) === database)
    #expect(container.isRegistered(\.dateSource))
    #expect(!container.isRegistered(\.todoStore))
  }

  @Test func argumentKeys() async throws {
    let container = Container()
    let store = try container[\.todoStore]
    let item = store.add("Call the plumber", at: .now)

    let detail = try container.resolve(\.todoDetail, argument: item.id)
    #expect(detail.item?.title == "Call the plumber")

    container.register(\.todoDetail) { r, id in TodoDetailModel(id: id, store: PrefilledTodoStore()) }
    #expect(try container.resolve(\.todoDetail, argument: 1).item?.title == "Water the plants")
  }

  @Test func typeRegistrations() async throws {
    let container = Container()
    container.register(type: (any TodoStore).self, name: "archive", scope: .singleton) { InMemoryTodoStore() }
    container.register(type: TodoRepository.self) { r in
      TodoRepository(store: try r.resolve(type: (any TodoStore).self, name: "archive"), dates: SystemDateSource())
    }

    let archive = try container.resolve(type: (any TodoStore).self, name: "archive")
    let repository = try container.resolve(type: TodoRepository.self)
    #expect(repository.store as AnyObject === archive as AnyObject)

    let error = #expect(throws: ResolutionError.self) { try container.resolve(type: (any TodoStore).self) }
    #expect(error?.kind == .notRegistered)
  }
}

@Suite struct ScopesSamples {
  @Test func uniqueIsNewEachTime() async throws {
    let container = Container()
    let first = try container[\.todoSaver]
    let second = try container[\.todoSaver]
    #expect(first.items.work !== second.items.work)
  }

  @Test func graphIsSharedWithinOneResolution() async throws {
    let container = Container()
    let saver = try container[\.todoSaver]
    #expect(saver.items.work === saver.tags.work)

    let next = try container[\.todoSaver]
    #expect(next.items.work !== saver.items.work)
  }

  @Test func weakLivesWhileHeld() async throws {
    let container = Container()
    var cache: ImageCache? = try container[\.imageCache]
    #expect(try container[\.imageCache] === cache)

    let number = cache?.serial.number
    cache = nil
    #expect(try container[\.imageCache].serial.number != number)
  }

  @Test func cachedCanBeReset() async throws {
    let container = Container()
    let flags = try container[\.featureFlags]
    #expect(try container[\.featureFlags] === flags)

    container.resetCached()
    #expect(try container[\.featureFlags] !== flags)
  }

  @Test func singletonIsMadeOnce() async throws {
    let container = Container()
    let stores = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<1_000 {
        group.addTask { ObjectIdentifier(try container[\.todoStore] as AnyObject) }
      }
      return try await group.reduce(into: Set()) { $0.insert($1) }
    }
    #expect(stores.count == 1)
  }

  @Test func registrationChoosesItsScope() async throws {
    let container = Container()
    container.register(\.imageCache, scope: .singleton) { ImageCache() }
    let number = try container[\.imageCache].serial.number
    #expect(try container[\.imageCache].serial.number == number)
  }
}

@Suite struct ContainersSamples {
  @Test func assemblies() async throws {
    let container = Container(assemblies: [StorageAssembly(), ClockAssembly()])
    #expect(try container[\.todoStore] is FileTodoStore)
  }

  @Test func childContainers() async throws {
    let container = Container(assemblies: [StorageAssembly()])

    let session = container.makeChild()
    session.register(\.currentUser) { User(name: "ada") }
    session.register(\.dateSource) { FixedDateSource(now: .distantPast) }

    #expect(try session[\.currentUser].name == "ada")
    #expect(throws: ResolutionError.self) { try container[\.currentUser] }

    let repository = try session[\.todoRepository]
    let store = try container[\.todoStore]
    #expect(repository.dates.now == .distantPast)
    #expect(repository.store as AnyObject === store as AnyObject)

    try await session.dispose()
    #expect(throws: ResolutionError.self) { try session[\.currentUser] }
  }
}

@Suite struct InjectionSamples {
  @Test func propertyWrappers() async {
    await withOverrides {
      $0.register(\.dateSource) { FixedDateSource(now: .distantPast) }
    } operation: {
      let screen = TodoScreen()
      screen.repository.add("Read the docs")
      #expect(screen.store.all().map(\.title) == ["Read the docs"])
    }
  }

  @Test func lazyBreaksTheCycle() async throws {
    let container = Container()
    let inbox = try container[\.inbox]
    #expect(try inbox.notifier.inbox.value === inbox)
  }

  @Test func providersResolveEachTime() async throws {
    let container = Container()
    let saver = container.provider(\.todoSaver)
    #expect(try saver.get().items.work !== saver.get().items.work)

    let flags = container.lazy(\.featureFlags)
    #expect(try flags.value === flags.value)
  }

  @Test func cycleError() async throws {
    let container = Container()
    container.register(\.notifier, scope: .singleton) { r in
      _ = try r[\.inbox]
      return Notifier(inbox: r.lazy(\.inbox))
    }
    let error = #expect(throws: ResolutionError.self) { try container[\.inbox] }
    print(error?.description ?? "")
    #expect(error?.kind == .cycle)
    #expect(error?.pathDescription == "\\.inbox → \\.notifier → \\.inbox")
    #expect(error?.description.hasPrefix("Knapsack: dependency cycle: \\.inbox → \\.notifier → \\.inbox.") == true)
  }
}

@Suite struct TestingSamples {
  @Test func addsATodo() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.dateSource) { FixedDateSource(now: .distantPast) }
    } operation: {
      let repository = try container[\.todoRepository]
      repository.add("Buy milk")
      #expect(repository.all().map(\.title) == ["Buy milk"])
    }
  }

  @Test func opensAnInMemoryDatabase() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.todoDatabase) { r async throws in try await TodoDatabase.open(path: ":memory:") }
    } operation: {
      let database = try await container.resolve(\.todoDatabase)
      #expect(database.path == ":memory:")
    }
  }

  @Test func scopesDisposeWhatTheyMade() async throws {
    let container = Container()
    let database = try await withOverrides {
      $0.register(\.todoDatabase, scope: .singleton) { r async throws in try await TodoDatabase.open(path: ":memory:") }
    } operation: {
      try await container.resolve(\.todoDatabase)
    }
    #expect(await database.isClosed)
  }

  @Test func synchronousScope() async throws {
    let container = Container()
    let titles = try await withOverrides {
      $0.register(\.todoStore) { PrefilledTodoStore() }
    } operation: {
      try container[\.todoStore].all().map(\.title)
    }
    #expect(titles == ["Water the plants"])
  }

  @Test func nestedScopes() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.dateSource) { FixedDateSource(now: .distantPast) }
    } operation: {
      try await withOverrides {
        $0.register(\.dateSource) { FixedDateSource(now: .distantFuture) }
      } operation: {
        let now = try container[\.dateSource].now
        #expect(now == .distantFuture)
      }
      #expect(try container[\.dateSource].now == .distantPast)
    }
  }

  @Test func singletonsStayInsideTheScope() async throws {
    let container = Container()
    let outside = try container[\.todoStore]
    try await withOverrides {
      $0.register(\.dateSource) { FixedDateSource(now: .distantPast) }
    } operation: {
      let inside = try container[\.todoStore]
      inside.add("Only in here", at: .now)
      #expect(inside as AnyObject !== outside as AnyObject)
    }
    #expect(outside.all().isEmpty)
  }
}

@Suite(.overrides { $0.register(\.dateSource) { FixedDateSource(now: .distantPast) } })
struct TodoRepositoryTests {
  let container = Container()

  @Test func startsEmpty() async throws {
    #expect(try container[\.todoRepository].all().isEmpty)
  }

  @Test func stampsNewTodos() async throws {
    let item = try container[\.todoRepository].add("Buy milk")
    #expect(item.created == .distantPast)
  }

  @Test(.overrides { $0.register(\.todoStore) { PrefilledTodoStore() } })
  func readsTheStore() async throws {
    #expect(try container[\.todoRepository].all().map(\.title) == ["Water the plants"])
  }
}

@Suite struct ParallelTests {
  let container = Container()

  @Test(.overrides { $0.register(\.dateSource) { FixedDateSource(now: .distantPast) } })
  func inThePast() async throws {
    #expect(try container[\.dateSource].now == .distantPast)
  }

  @Test(.overrides { $0.register(\.dateSource) { FixedDateSource(now: .distantFuture) } })
  func inTheFuture() async throws {
    #expect(try container[\.dateSource].now == .distantFuture)
  }
}

@Suite struct AsyncAndActorsSamples {
  @Test func asyncKeys() async throws {
    let container = Container()
    let database = try await container.resolve(\.todoDatabase)
    #expect(database.path == "todos.json")

    container.register(\.todoDatabase, scope: .singleton) { r async throws in
      try await TodoDatabase.open(path: ":memory:")
    }
    #expect(try await container.resolve(\.todoDatabase).path == ":memory:")
  }

  @Test func asyncFactoriesResolveOtherKeys() async throws {
    let container = Container()
    let sync = try await container.resolve(\.todoSync)
    let database = try await container.resolve(\.todoDatabase)
    #expect(sync.database === database)
  }

  @Test func asyncSingletonIsMadeOnce() async throws {
    let container = Container()
    container.register(\.todoDatabase, scope: .singleton) { r async throws in
      try await TodoDatabase.open(path: "once")
    }
    let databases = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<100 {
        group.addTask { ObjectIdentifier(try await container.resolve(\.todoDatabase)) }
      }
      return try await group.reduce(into: Set()) { $0.insert($1) }
    }
    #expect(databases.count == 1)
  }

  @Test func failedCreationIsNotCached() async throws {
    struct Unavailable: Error {}
    let attempts = Atomic<Int>(0)
    let container = Container()
    container.register(\.todoDatabase, scope: .singleton) { r async throws in
      if attempts.add(1, ordering: .relaxed).newValue == 1 { throw Unavailable() }
      return try await TodoDatabase.open(path: "retry")
    }
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.todoDatabase) }
    #expect(error?.kind == .factoryFailed)
    #expect(try await container.resolve(\.todoDatabase).path == "retry")
  }

  @MainActor @Test func mainActorKeys() async throws {
    let container = Container()
    container.register(\.dateSource) { SystemDateSource() }
    let model = try container[\.todoListModel]
    #expect(model.titles.isEmpty)
  }

  /// The key is declared without `@MainActor`, so code off the main actor names it: an assembly
  /// registers it, and a nonisolated asynchronous function resolves it with `await`.
  @Test func mainActorKeysFromElsewhere() async throws {
    struct ScreensAssembly: Assembly {
      func assemble(into container: Container) {
        container.register(\.todoListModel) { r in TodoListModel(repository: try r[\.todoRepository]) }
      }
    }
    @Sendable func elsewhere(_ container: Container) async throws -> TodoListModel {
      try await container.resolve(\.todoListModel)
    }
    let container = Container(assemblies: [ScreensAssembly()])
    container.register(\.dateSource) { SystemDateSource() }
    let model = try await Task.detached { try await elsewhere(container) }.value
    #expect(await model.titles.isEmpty)
  }
}

@Suite struct LifecycleSamples {
  @Test func disposeClosesTheDatabase() async throws {
    let container = Container()
    let database = try await container.resolve(\.todoDatabase)
    try await container.dispose()
    #expect(await database.isClosed)
    #expect(container.isDisposed)
  }

  @Test func reverseOrderWithASessionChild() async throws {
    let log = DisposalLog()
    let container = Container()
    container.register(\.todoDatabase, scope: .singleton) { r async throws in
      try await TodoDatabase.open(path: ":memory:", log: log)
    }
    container.register(\.todoSyncService, scope: .singleton) { r async throws in
      TodoSyncService(database: try await r.resolve(\.todoDatabase), log: log)
    }
    let session = container.makeChild()
    session.register(\.userSession, scope: .singleton) { UserSession(user: User(name: "ada"), log: log) }

    _ = try await container.resolve(\.todoSyncService)
    _ = try session[\.userSession]

    try await container.dispose()
    #expect(log.all == ["session", "sync", "database"])
    #expect(throws: ResolutionError.self) { try session[\.userSession] }
  }

  @Test func disposeRunsOnceUnderConcurrentCalls() async throws {
    let log = DisposalLog()
    let container = Container()
    container.register(\.userSession, scope: .singleton) { UserSession(user: User(name: "ada"), log: log) }
    _ = try container[\.userSession]

    async let first: Void = container.dispose()
    async let second: Void = container.dispose()
    _ = try await (first, second)
    #expect(log.all == ["session"])
  }

  @Test func errorsAreCollected() async throws {
    let container = Container()
    _ = try container[\.exportFile]
    let database = try await container.resolve(\.todoDatabase)

    do {
      try await container.dispose()
      Issue.record("dispose should have thrown")
    } catch let error as DisposalError {
      for failure in error.failures {
        print(failure)
      }
      #expect(error.failures.map(\.description) == ["\\.exportFile: disk full"])
    }
    #expect(await database.isClosed)
  }

  @Test func resolvingAfterDisposeThrows() async throws {
    let container = Container()
    try await container.dispose()
    let error = #expect(throws: ResolutionError.self) { try container[\.todoStore] }
    #expect(error?.kind == .containerDisposed)
  }
}

@Suite struct DiagnosticsSamples {
  @Test func observingResolutions() async throws {
    let container = Container()
    container.register(\.dateSource) { SystemDateSource() }
    let recorder = ResolutionRecorder()
    container.observe(recorder)

    _ = try container[\.todoRepository]
    _ = try container[\.todoRepository]

    let firstResolution = recorder.events.prefix(3)
    #expect(firstResolution.map(\.dependency.name) == ["\\.todoStore", "\\.dateSource", "\\.todoRepository"])
    #expect(firstResolution.map(\.depth) == [1, 1, 0])
    #expect(recorder.events.filter { $0.dependency.name == "\\.todoStore" }.map(\.outcome) == [.created, .reused])

    container.observe(nil)
  }

  @Test func failedResolutionsAreObserved() async throws {
    let container = Container()
    let recorder = ResolutionRecorder()
    container.observe(recorder)
    #expect(throws: ResolutionError.self) { try container[\.todoRepository] }
    let repository = recorder.events.first { $0.dependency.name == "\\.todoRepository" }
    #expect(repository?.outcome == .failed)
  }

  @Test func tracerMarksFailures() async throws {
    let trees = Mutex<[String]>([])
    let container = Container()
    container.observe(ResolutionTracer { tree in trees.withLock { $0.append(tree) } })
    #expect(throws: ResolutionError.self) { try container[\.todoRepository] }
    #expect(trees.withLock { $0 }.first?.hasPrefix("\\.todoRepository (unique) failed in") == true)
  }
}

@Suite struct ValidationSamples {
  @Test func appGraphIsValid() async {
    let container = Container(assemblies: [StorageAssembly(), ClockAssembly()])
    #expect(await container.validate(including: [\.todoRepository]).isValid)
  }

  @Test func appGraphIsValidWithTheHelper() async {
    let container = Container(assemblies: [StorageAssembly(), ClockAssembly()])
    await expectValidGraph(container, including: [\.todoRepository])
  }

  /// The container of the article's example report (its printed report is in the article,
  /// checked by MessageCatalogTests).
  static func everyProblemContainer() -> Container {
    let container = Container()
    container.register(\.todoRepository, scope: .singleton) { r in
      TodoRepository(store: try r[\.todoStore], dates: try r[\.dateSource])
    }
    container.register(type: TodoRepository.self) { r in
      TodoRepository(store: try r.resolve(type: (any TodoStore).self, name: "archive"), dates: SystemDateSource())
    }
    container.register(\.notifier, scope: .singleton) { r in
      _ = try r[\.inbox]
      return Notifier(inbox: r.lazy(\.inbox))
    }
    container.register(\.todoSaver, scope: .singleton) { r in
      TodoSaver(items: try r[\.itemWriter], tags: try r[\.tagWriter])
    }
    container.register(\.todoFilePath) { throw NotConfigured() }
    return container
  }

  @Test func everyProblemIsReported() async {
    let container = Self.everyProblemContainer()
    let report = await container.validate(including: [\.todoRepository])
    print(report)
    #expect(!report.isValid)
    #expect(
      report.problems.map(\.kind) == [
        .requiredKeyNotProvided, .notRegistered, .cycle, .captiveDependency, .captiveDependency, .factoryFailed,
      ])
    #expect(report.problems(.captiveDependency).map(\.dependency.name) == ["\\.todoSaver", "\\.todoSaver"])
    #expect(report.problems(.cycle).first?.path.map(\.name) == ["\\.notifier", "\\.inbox", "\\.notifier"])
    #expect(report.description.hasPrefix("Knapsack validation: 6 problems in 12 dependencies.\n"))
  }

  @Test func reportsAreCodable() async throws {
    let container = Container()
    container.register(\.todoFilePath) { throw NotConfigured() }
    let report = await container.validate()
    let decoded = try JSONDecoder().decode(ValidationReport.self, from: JSONEncoder().encode(report))
    #expect(decoded == report)
  }

  @Test func skippedFactories() async {
    let container = Container()
    container.register(\.exportLog, scope: .singleton, hasSideEffects: true) { ExportFile() }
    let report = await container.validate()
    #expect(report.isValid)
    #expect(report.skipped.map(\.name) == ["\\.exportLog"])
  }

  @Test func graphExports() async {
    let container = Container(assemblies: [StorageAssembly(), ClockAssembly()])
    let graph = await container.graph(including: [\.todoRepository])
    #expect(
      graph.dot == #"""
        digraph Knapsack {
          rankdir=LR;
          node [shape=box, fontname="Helvetica"];
          "\\.dateSource" [label="\\.dateSource\nany DateSource\nunique"];
          "\\.todoFilePath" [label="\\.todoFilePath\nString\nsingleton"];
          "\\.todoRepository" [label="\\.todoRepository\nTodoRepository\nunique"];
          "\\.todoStore" [label="\\.todoStore\nany TodoStore\nsingleton"];
          "\\.todoRepository" -> "\\.dateSource";
          "\\.todoRepository" -> "\\.todoStore";
          "\\.todoStore" -> "\\.todoFilePath";
        }

        """#)
    #expect(
      graph.mermaid == #"""
        graph LR
          n0["\.dateSource<br/>any DateSource · unique"]
          n1["\.todoFilePath<br/>String · singleton"]
          n2["\.todoRepository<br/>TodoRepository · unique"]
          n3["\.todoStore<br/>any TodoStore · singleton"]
          n2 --> n0
          n2 --> n3
          n3 --> n1

        """#)
    #expect(graph.edges.contains(DependencyGraph.Edge(from: "\\.todoStore", to: "\\.todoFilePath")))
  }

  @Test func tracing() async throws {
    let trees = Mutex<[String]>([])
    let container = Container(assemblies: [StorageAssembly(), ClockAssembly()])
    container.observe(ResolutionTracer { tree in trees.withLock { $0.append(tree) } })
    _ = try container[\.todoRepository]
    _ = try container[\.todoRepository]
    container.observe(nil)

    let timed = /[0-9]+\.[0-9]{3} ms/
    let recorded = trees.withLock { $0 }.map { $0.replacing(timed, with: "0.000 ms") }
    #expect(
      recorded == [
        #"""
        \.todoRepository (unique) created in 0.000 ms
          \.todoStore (singleton) created in 0.000 ms
            \.todoFilePath (singleton) created in 0.000 ms
          \.dateSource (unique) created in 0.000 ms
        """#,
        #"""
        \.todoRepository (unique) created in 0.000 ms
          \.todoStore (singleton) reused in 0.000 ms
          \.dateSource (unique) created in 0.000 ms
        """#,
      ])
  }

  @Test func printingTracer() async throws {
    let container = Container(assemblies: [StorageAssembly(), ClockAssembly()])
    container.observe(ResolutionTracer())
    _ = try container[\.todoRepository]
    container.observe(nil)
  }

  @Test func profiling() async throws {
    let container = Container(assemblies: [StorageAssembly(), ClockAssembly()])
    let profiler = StartupProfiler()
    container.observe(profiler)
    _ = try container[\.todoRepository]
    container.observe(nil)
    print(profiler.report(limit: 5))
    #expect(profiler.slowestFactories.count == 4)
  }
}

@Suite struct MultibindingAndDecoratorSamples {
  @Test func contributionsFromTwoAssemblies() async throws {
    let container = Container(assemblies: [CoreAnalyticsAssembly(), ServerAnalyticsAssembly()])
    let sinks = try container[\.analyticsSinks]
    #expect(sinks.map(\.name) == ["console", "file", "server"])
  }

  @Test func aProviderOfTheElements() async throws {
    let container = Container(assemblies: [CoreAnalyticsAssembly(), ServerAnalyticsAssembly()])
    let sinks = container.provider(\.analyticsSinks)  // Provider<Multibinding<any AnalyticsSink>>
    #expect(try sinks.get().map(\.name) == ["console", "file", "server"])
    let typed: Provider<Multibinding<any AnalyticsSink>> = sinks
    #expect(try typed.get().count == 3)
  }

  @Test func childContributionsComeAfterTheParents() async throws {
    let container = Container(assemblies: [CoreAnalyticsAssembly()])
    let session = container.makeChild()
    session.install([ServerAnalyticsAssembly()])
    #expect(try session[\.analyticsSinks].map(\.name) == ["console", "file", "server"])
    #expect(try container[\.analyticsSinks].map(\.name) == ["console", "file"])
  }

  @Test func decoratorsCompose() async throws {
    let container = Container()
    container.decorate(\.todoStore) { r, store in LoggingTodoStore(wrapping: store) }
    container.decorate(\.todoStore) { r, store in CachingTodoStore(wrapping: store) }

    let store = try container[\.todoStore]
    #expect((store as? CachingTodoStore)?.wrapped is LoggingTodoStore)
  }

  @Test func decoratorsWrapOverrides() async throws {
    let container = Container()
    container.decorate(\.todoStore) { r, store in LoggingTodoStore(wrapping: store) }
    try await withOverrides {
      $0.register(\.todoStore) { PrefilledTodoStore() }
    } operation: {
      let store = try container[\.todoStore]
      #expect((store as? LoggingTodoStore)?.wrapped is PrefilledTodoStore)
    }
  }
}

@Suite struct DisposeClosureSamples {
  @Test func disposeClosures() async throws {
    let container = Container()
    container.register(\.exportLog, scope: .singleton, dispose: { file in try await file.close() }) { ExportFile() }
    let file = try container[\.exportLog]
    try await container.dispose()
    #expect(file.isClosed)
  }
}

// MARK: - InjectionAndCycles.md: an @Observable view model (at the end: the message catalog
// quotes lines of this file above)

@MainActor @Observable final class TodoListViewModel {
  @ObservationIgnored @Injected(\.todoStore) var store: any TodoStore
  @ObservationIgnored @LazyInjected(\.todoRepository) var repository: TodoRepository
  var titles: [String] = []
}

@Suite struct ObservableInjectionSamples {
  /// InjectionAndCycles.md: an `@Observable` view model marks its wrapped properties
  /// `@ObservationIgnored` (the macro would make them computed, which a wrapper cannot wrap).
  @MainActor @Test func observableViewModel() async {
    await withOverrides {
      $0.register(\.dateSource) { FixedDateSource(now: .distantPast) }
    } operation: {
      let model = TodoListViewModel()
      model.repository.add("Read the docs")
      model.titles = model.store.all().map(\.title)
      #expect(model.titles == ["Read the docs"])
    }
  }
}

// MARK: - Migrating.md (at the end: the message catalog quotes lines of this file above)

struct TodoStorageAssembly: Assembly {
  func assemble(into container: Container) {
    container.register(type: (any TodoStore).self, name: "main", scope: .singleton) {
      FileTodoStore(path: "todos.json")
    }
    container.register(type: (any DateSource).self) { SystemDateSource() }
    container.register(type: TodoRepository.self) { r in
      TodoRepository(store: try r.resolve(type: (any TodoStore).self, name: "main"), dates: try r.resolve())
    }
  }
}

enum TodoTestDefaults {
  @Sendable static func register(_ container: Container) {
    container.register(\.dateSource) { FixedDateSource(now: .distantPast) }
    container.register(\.todoStore) { InMemoryTodoStore() }
  }
}

@Suite struct MigratingSamples {
  @Test func fromSwinject() async throws {
    let container = Container(assemblies: [TodoStorageAssembly()])
    let repository = try container.resolve(type: TodoRepository.self)
    #expect((repository.store as? FileTodoStore)?.path == "todos.json")
    #expect(try container.resolve(type: TodoRepository.self).store as AnyObject === repository.store as AnyObject)
    #expect(await container.validate().isValid)
  }

  @Test func typesAndKeysSideBySide() async throws {
    let container = Container(assemblies: [TodoStorageAssembly()])
    container.register(\.todoStore) { r in try r.resolve(type: (any TodoStore).self, name: "main") }
    container.register(type: (any DateSource).self) { r in try r[\.dateSource] }
    container.register(\.dateSource) { FixedDateSource(now: .distantPast) }

    let byType = try container.resolve(type: (any TodoStore).self, name: "main")
    #expect(try container[\.todoStore] as AnyObject === byType as AnyObject)
    #expect(try container.resolve(type: TodoRepository.self).dates.now == .distantPast)
    #expect(await container.validate(including: [\.todoRepository]).isValid)
  }

  @Test(.container { $0.register(\.todoStore) { PrefilledTodoStore() } })
  func screenReadsTheTestsStore() throws {
    #expect(try Container.current[\.todoStore].all().map(\.title) == ["Water the plants"])
    #expect(TodoScreen().store.all().map(\.title) == ["Water the plants"])
  }
}

@Suite(.overrides(TodoTestDefaults.register))
struct TodoFeatureTests {
  @Test func stampsTodosWithTheFixedDate() async throws {
    let item = try Container()[\.todoRepository].add("Buy milk")
    #expect(item.created == .distantPast)
  }
}
