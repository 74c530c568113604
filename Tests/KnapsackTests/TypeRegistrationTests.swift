import Knapsack
import Testing

/// Types registered only by type (the `DependencyProvider` style); each test registers its own.
protocol TypedService: AnyObject, Sendable {
  var name: String { get }
}

final class NamedService: TypedService {
  let name: String
  init(_ name: String) { self.name = name }
}

final class TypedConsumer: Sendable {
  let service: any TypedService
  init(service: any TypedService) { self.service = service }
}

struct TypedPlugin: Sendable, Equatable {
  let id: Int
}

@Suite struct TypeRegistrationTests {
  @Test func resolvesARegisteredTypeWithTheTypeInferred() throws {
    let container = Container()
    container.register((any TypedService).self) { NamedService("plain") }
    let service: any TypedService = try container.resolve()
    #expect(service.name == "plain")
    #expect(try container.resolve((any TypedService).self).name == "plain")
  }

  @Test func namedRegistrationsAreSeparateFromEachOtherAndFromTheUnnamedOne() throws {
    let container = Container()
    container.register((any TypedService).self) { NamedService("plain") }
    container.register((any TypedService).self, name: "secure") { NamedService("secure") }
    container.register((any TypedService).self, name: "fast") { NamedService("fast") }
    #expect(try container.resolve((any TypedService).self).name == "plain")
    #expect(try container.resolve((any TypedService).self, name: "secure").name == "secure")
    #expect(try container.resolve((any TypedService).self, name: "fast").name == "fast")
  }

  @Test func missingTypeThrowsNotRegistered() throws {
    let container = Container()
    let error = #expect(throws: ResolutionError.self) { try container.resolve((any TypedService).self) }
    #expect(error?.kind == .notRegistered)
    // The exact spelling of an existential (`any TypedService`) is checked in ErrorTests.
    #expect(error?.dependency.typeName.hasSuffix("TypedService") == true)
    #expect(error?.dependency.name.hasSuffix("TypedService") == true)
    #expect(error?.description.contains("nothing is registered for") == true)
    #expect(error?.description.contains("TypedService") == true)
  }

  @Test func missingNameThrowsEvenWhenTheUnnamedOneExists() throws {
    let container = Container()
    container.register((any TypedService).self) { NamedService("plain") }
    let error = #expect(throws: ResolutionError.self) {
      try container.resolve((any TypedService).self, name: "secure")
    }
    #expect(error?.kind == .notRegistered)
    #expect(error?.dependency.name.contains("secure") == true)
  }

  @Test func factoriesResolveOtherTypes() throws {
    let container = Container()
    container.register((any TypedService).self, name: "secure") { NamedService("secure") }
    container.register(TypedConsumer.self) { r in
      TypedConsumer(service: try r.resolve((any TypedService).self, name: "secure"))
    }
    #expect(try container.resolve(TypedConsumer.self).service.name == "secure")
  }

  @Test func missingDependencyOfATypeShowsThePath() throws {
    let container = Container()
    container.register(TypedConsumer.self) { r in TypedConsumer(service: try r.resolve()) }
    let error = #expect(throws: ResolutionError.self) { try container.resolve(TypedConsumer.self) }
    #expect(error?.kind == .notRegistered)
    #expect(error?.dependency.typeName.hasSuffix("TypedService") == true)
    #expect(error?.path.count == 2)
    #expect(error?.path.first?.name == "TypedConsumer")
    #expect(error?.path.last?.name.hasSuffix("TypedService") == true)
    #expect(error?.description.contains("path: TypedConsumer → ") == true)
  }

  @Test func typeRegistrationsHonourScopes() throws {
    let container = Container()
    container.register(NamedService.self, scope: .singleton) { NamedService("one") }
    container.register(NamedService.self, name: "each", scope: .unique) { NamedService("each") }
    #expect(try container.resolve(NamedService.self) === container.resolve(NamedService.self))
    #expect(
      try container.resolve(NamedService.self, name: "each") !== container.resolve(NamedService.self, name: "each"))
  }

  @Test func valueTypesCanBeRegistered() throws {
    let container = Container()
    container.register(TypedPlugin.self) { TypedPlugin(id: 3) }
    #expect(try container.resolve() == TypedPlugin(id: 3))
  }

  @Test func typesAndKeysMix() throws {
    let container = Container()
    container.register((any TypedService).self) { r in NamedService("number \(try r[\.keyNumber])") }
    container.register(\.keyToken) { r in Token(try r.resolve((any TypedService).self).name) }
    #expect(try container[\.keyToken].label == "number 42")
  }

  @Test func isRegisteredForTypes() {
    let container = Container()
    #expect(!container.isRegistered((any TypedService).self))
    container.register((any TypedService).self, name: "secure") { NamedService("secure") }
    #expect(!container.isRegistered((any TypedService).self))
    #expect(container.isRegistered((any TypedService).self, name: "secure"))
    #expect(container.makeChild().isRegistered((any TypedService).self, name: "secure"))
  }

  @Test func lazyAndProviderWorkForTypes() throws {
    let container = Container()
    let counter = Counter()
    container.register(NamedService.self) {
      counter.increment()
      return NamedService("counted")
    }
    let lazy = container.lazy(NamedService.self)
    let provider = container.provider(NamedService.self)
    #expect(counter.count == 0)
    #expect(try lazy.value === lazy.value)
    #expect(counter.count == 1)
    #expect(try provider.get() !== provider.get())
    #expect(counter.count == 3)
  }
}
