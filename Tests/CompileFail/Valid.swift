// The control: correct uses of the same keys type-check with no diagnostic, so a failing
// snippet fails because of its mistake, not because the set-up is broken.
import Knapsack
import Observation

func correctUses(_ container: Container) async throws {
  let _: Store = try container[\.store]
  let _: Store = try container.resolve(\.store)
  let _: Store = try await container.resolve(\.database)
  let _: Store = try await container[\.database]
  container.register(\.store) { _ in Store() }
  container.register(\.database) { _ in Store() }
  let _: Store = try container.resolve(\.profile, argument: 7)
  let _: ScreenModel = try await container.resolve(\.screenModel)
  container.register(type: Store.self, name: "main") { Store() }
  container.register(\.store, scope: .singleton) { Store() }
  container.register(type: Store.self, name: "backup", scope: .singleton) { _ in Store() }
  let _: Store = try container.resolve(type: Store.self, name: "main")
  let _: Store = try container.resolve()
  // Factories that need no other dependency, for every kind without an argument.
  container.register(\.store) { Store() }
  container.register(\.database) { Store() }
  container.register(\.screenModel) { ScreenModel() }
  container.register(\.profile) { _, _ in Store() }
  container.register(\.remoteProfile) { _, _ in Store() }
  container.register(\.profileScreen) { _, _ in ScreenModel() }
  let _: Store = try container.provider(\.store).get()
  let _: Store = try container.provider(\.profile).get(1)
  let _: [Store] = try container.provider(\.plugins).get()
  let _: [Store] = try container[\.plugins]
  let _: [Store] = try container.lazy(\.plugins).value
  container.decorate(\.store) { _, store in store }
  container.decorate(\.database) { r, store in
    _ = try await r.resolve(\.database)
    return store
  }
  container.contribute(to: \.plugins) { _ in Store() }
  container.contribute(to: \.plugins) { Store() }
  // Keys of every kind with their argument, and handles of keys with and without one.
  let _: Store = try await container.resolve(\.remoteProfile, argument: 3)
  let _: ScreenModel = try await container.resolve(\.profileScreen, argument: 3)
  let _: ScreenModel = try await container.resolve(\.screenModel)
  let _: Store = try container.lazy(\.store).value
  let _: Store = try await container.lazy(\.database).value
  let _: Store = try await container.provider(\.remoteProfile).get(4)
  let _: Store = try container.lazy(\.profile, argument: 4).value
  let _: Store = try await container.lazy(\.remoteProfile, argument: 4).value
  // Overrides with the operation that sees them, asynchronous and synchronous.
  try await withOverrides {
    $0.register(\.store) { Store() }
  } operation: {
    let _: Store = try container[\.store]
  }
  let _: Store = try await withOverrides({ $0.register(\.store) { Store() } }, operation: { try container[\.store] })
}

func correctSynchronousOverrides(_ container: Container) throws {
  try withOverrides {
    $0.register(\.store) { Store() }
  } operation: {
    let _: Store = try container[\.store]
  }
}

final class ArgumentHolder {
  @Injected(\.profile, argument: 6) var profile: Store
  @LazyInjected(\.profile, argument: 7) var laterProfile: Store
  @Injected(\.plugins) var plugins: [Store]
  @LazyInjected(\.plugins) var laterPlugins: [Store]
}

extension Dependencies {
  var plainDatabase: AsyncKey<Store> { AsyncKey { Store() } }
  var plainScreenModel: MainActorKey<ScreenModel> { MainActorKey { ScreenModel() } }
  var plainKey: Key<Store> { Key { Store() } }
  var resolvingKey: Key<Store> { Key { r in try r[\.store] } }
  var requiredLabel: Key<String> { .required() }
  var requiredCount: Key<Int> { .required() }
}

@MainActor func correctMainActorUse(_ container: Container) throws {
  let _: ScreenModel = try container[\.screenModel]
  let _: ScreenModel = try container.resolve(\.screenModel)
  let _: ScreenModel = try container.resolve(\.profileScreen, argument: 5)
  let _: ScreenModel = try container.lazy(\.screenModel).value
  let _: ScreenModel = try container.lazy(\.profileScreen, argument: 5).value
}

@MainActor func correctAsyncMainActorUse(_ container: Container) async throws {
  let _: ScreenModel = try container[\.screenModel]
  let _: ScreenModel = try await container.resolve(\.screenModel)
}

@MainActor final class MainActorHolder {
  @Injected(\.screenModel) var screenModel: ScreenModel
  @LazyInjected(\.screenModel) var laterScreenModel: ScreenModel
  @Injected(\.profileScreen, argument: 8) var profileScreen: ScreenModel
  @LazyInjected(\.profileScreen, argument: 9) var laterProfileScreen: ScreenModel
}

/// An `@Observable` model marks its wrapped properties `@ObservationIgnored` (see
/// InjectedInObservableClass.swift).
@MainActor @Observable final class ObservableHolder {
  @ObservationIgnored @Injected(\.store) var store: Store
  @ObservationIgnored @LazyInjected(\.screenModel) var laterScreenModel: ScreenModel
  var count = 0
}
