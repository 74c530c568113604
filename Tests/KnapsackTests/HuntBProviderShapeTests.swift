import Knapsack
import Testing

// Point 8 of the issue: the seed app's provider protocol, written by hand and unchanged, is
// backed by a Knapsack `Container` with nothing but a conformance.

enum HuntBSeed {
  protocol DependencyProvider {
    func resolve<T>() throws -> T
  }

  protocol Storage: AnyObject, Sendable { var name: String { get } }
  final class SQLStorage: Storage { let name = "sql" }
  struct ViewModel: Sendable {
    let storage: any Storage
    let now: @Sendable () -> Int
  }

  /// Seed-style code: it only knows the protocol.
  static func makeViewModel(_ provider: any DependencyProvider) throws -> ViewModel {
    ViewModel(storage: try provider.resolve(), now: try provider.resolve())
  }

  static func makeViewModelGenerically(_ provider: some DependencyProvider) throws -> ViewModel {
    try provider.resolve()
  }
}

extension Container: HuntBSeed.DependencyProvider {}

@Suite struct HuntBProviderShapeTests {
  func makeContainer() -> Container {
    let container = Container()
    container.register(type: (any HuntBSeed.Storage).self, scope: .singleton) { HuntBSeed.SQLStorage() }
    container.register(type: (@Sendable () -> Int).self) { { 7 } }
    container.register(type: HuntBSeed.ViewModel.self) { r in
      // The resolver has the provider's shape too.
      HuntBSeed.ViewModel(storage: try r.resolve(), now: try r.resolve())
    }
    return container
  }

  @Test func aContainerIsTheSeedsDependencyProvider() throws {
    let container = makeContainer()
    let provider: any HuntBSeed.DependencyProvider = container
    let model = try HuntBSeed.makeViewModel(provider)
    #expect(model.storage.name == "sql")
    #expect(model.now() == 7)
    #expect(try HuntBSeed.makeViewModel(provider).storage === model.storage, "the singleton scope holds")
    let generic = try HuntBSeed.makeViewModelGenerically(container)
    #expect(generic.storage === model.storage)
  }

  @Test func aMissingTypeThroughTheProviderThrowsAResolutionErrorNamingIt() throws {
    let provider: any HuntBSeed.DependencyProvider = Container()
    let error = #expect(throws: ResolutionError.self) { try HuntBSeed.makeViewModel(provider) }
    #expect(error?.kind == .notRegistered)
    #expect(error?.description.contains("Storage") == true, "\(String(describing: error))")
  }

  @Test func theProviderSeesAChildsRegistrationsAndATestsOverrides() throws {
    let container = makeContainer()
    let child = container.makeChild()
    final class Fake: HuntBSeed.Storage { let name = "fake" }
    child.register(type: (any HuntBSeed.Storage).self) { Fake() }
    #expect(try HuntBSeed.makeViewModel(child).storage.name == "fake")
    #expect(try HuntBSeed.makeViewModel(container).storage.name == "sql")
    let inScope = try withOverrides {
      $0.register(type: (any HuntBSeed.Storage).self) { Fake() }
    } operation: {
      try HuntBSeed.makeViewModel(container).storage.name
    }
    #expect(inScope == "fake")
  }

  @Test func aNonSendableTypeAskedOfTheProviderIsReportedNotCrashed() throws {
    final class NotSendable {}
    let provider: any HuntBSeed.DependencyProvider = makeContainer()
    #expect(throws: ResolutionError.self) { let _: NotSendable = try provider.resolve() }
  }
}
