import Knapsack
import Testing

// A provider protocol an app already has: the seed app's, written by hand and unchanged, is
// backed by a Knapsack `Container` with nothing but a conformance.

enum PartSeed {
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

extension Container: PartSeed.DependencyProvider {}

@Suite struct ProviderProtocolShapeTests {
  func makeContainer() -> Container {
    let container = Container()
    container.register(type: (any PartSeed.Storage).self, scope: .singleton) { PartSeed.SQLStorage() }
    container.register(type: (@Sendable () -> Int).self) { { 7 } }
    container.register(type: PartSeed.ViewModel.self) { r in
      // The resolver has the provider's shape too.
      PartSeed.ViewModel(storage: try r.resolve(), now: try r.resolve())
    }
    return container
  }

  @Test func aContainerIsTheSeedsDependencyProvider() throws {
    let container = makeContainer()
    let provider: any PartSeed.DependencyProvider = container
    let model = try PartSeed.makeViewModel(provider)
    #expect(model.storage.name == "sql")
    #expect(model.now() == 7)
    #expect(try PartSeed.makeViewModel(provider).storage === model.storage, "the singleton scope holds")
    let generic = try PartSeed.makeViewModelGenerically(container)
    #expect(generic.storage === model.storage)
  }

  @Test func aMissingTypeThroughTheProviderThrowsAResolutionErrorNamingIt() throws {
    let provider: any PartSeed.DependencyProvider = Container()
    let error = #expect(throws: ResolutionError.self) { try PartSeed.makeViewModel(provider) }
    #expect(error?.kind == .notRegistered)
    #expect(error?.description.contains("Storage") == true, "\(String(describing: error))")
  }

  @Test func theProviderSeesAChildsRegistrationsAndATestsOverrides() throws {
    let container = makeContainer()
    let child = container.makeChild()
    final class Fake: PartSeed.Storage { let name = "fake" }
    child.register(type: (any PartSeed.Storage).self) { Fake() }
    #expect(try PartSeed.makeViewModel(child).storage.name == "fake")
    #expect(try PartSeed.makeViewModel(container).storage.name == "sql")
    let inScope = try withOverrides {
      $0.register(type: (any PartSeed.Storage).self) { Fake() }
    } operation: {
      try PartSeed.makeViewModel(container).storage.name
    }
    #expect(inScope == "fake")
  }

  @Test func aNonSendableTypeAskedOfTheProviderIsReportedNotCrashed() throws {
    final class NotSendable {}
    let provider: any PartSeed.DependencyProvider = makeContainer()
    #expect(throws: ResolutionError.self) { let _: NotSendable = try provider.resolve() }
  }
}
