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
  @Test func manyRegistrationsAreEachFoundReplacedAndValidated() async throws {
    // 600 names span several of a container's 256-entry pages of registrations.
    let container = Container()
    let names = (0..<600).map { "plugin \($0)" }
    for (id, name) in names.enumerated() {
      container.register(type: TypedPlugin.self, name: name) { TypedPlugin(id: id) }
    }
    container.register(type: TypedPlugin.self, name: "plugin 300") { TypedPlugin(id: -300) }
    for (id, name) in names.enumerated() {
      #expect(try container.resolve(type: TypedPlugin.self, name: name) == TypedPlugin(id: id == 300 ? -300 : id))
    }
    let child = container.makeChild()
    #expect(child.isRegistered(type: TypedPlugin.self, name: "plugin 599"))
    #expect(!Container().isRegistered(type: TypedPlugin.self, name: "plugin 599"))
    let report = await container.validate()
    #expect(report.isValid)
    #expect(report.checkedCount == 600)
  }

  @Test func resolvesARegisteredTypeWithTheTypeInferred() async throws {
    let container = Container()
    container.register(type: (any TypedService).self) { NamedService("plain") }
    let service: any TypedService = try container.resolve()
    #expect(service.name == "plain")
    #expect(try container.resolve(type: (any TypedService).self).name == "plain")
  }

  @Test func namedRegistrationsAreSeparateFromEachOtherAndFromTheUnnamedOne() async throws {
    let container = Container()
    container.register(type: (any TypedService).self) { NamedService("plain") }
    container.register(type: (any TypedService).self, name: "secure") { NamedService("secure") }
    container.register(type: (any TypedService).self, name: "fast") { NamedService("fast") }
    #expect(try container.resolve(type: (any TypedService).self).name == "plain")
    #expect(try container.resolve(type: (any TypedService).self, name: "secure").name == "secure")
    #expect(try container.resolve(type: (any TypedService).self, name: "fast").name == "fast")
  }

  @Test func missingTypeThrowsNotRegistered() async throws {
    let container = Container()
    let error = #expect(throws: ResolutionError.self) { try container.resolve(type: (any TypedService).self) }
    #expect(error?.kind == .notRegistered)
    // The exact spelling of an existential (`any TypedService`) is checked in ErrorTests.
    #expect(error?.dependency.typeName.hasSuffix("TypedService") == true)
    #expect(error?.dependency.name.hasSuffix("TypedService") == true)
    #expect(error?.description.contains("nothing is registered for") == true)
    #expect(error?.description.contains("TypedService") == true)
  }

  @Test func missingNameThrowsEvenWhenTheUnnamedOneExists() async throws {
    let container = Container()
    container.register(type: (any TypedService).self) { NamedService("plain") }
    let error = #expect(throws: ResolutionError.self) {
      try container.resolve(type: (any TypedService).self, name: "secure")
    }
    #expect(error?.kind == .notRegistered)
    #expect(error?.dependency.name.contains("secure") == true)
  }

  @Test func factoriesResolveOtherTypes() async throws {
    let container = Container()
    container.register(type: (any TypedService).self, name: "secure") { NamedService("secure") }
    container.register(type: TypedConsumer.self) { r in
      TypedConsumer(service: try r.resolve(type: (any TypedService).self, name: "secure"))
    }
    #expect(try container.resolve(type: TypedConsumer.self).service.name == "secure")
  }

  @Test func missingDependencyOfATypeShowsThePath() async throws {
    let container = Container()
    container.register(type: TypedConsumer.self) { r in TypedConsumer(service: try r.resolve()) }
    let error = #expect(throws: ResolutionError.self) { try container.resolve(type: TypedConsumer.self) }
    #expect(error?.kind == .notRegistered)
    #expect(error?.dependency.typeName.hasSuffix("TypedService") == true)
    #expect(error?.path.count == 2)
    #expect(error?.path.first?.name == "TypedConsumer")
    #expect(error?.path.last?.name.hasSuffix("TypedService") == true)
    #expect(error?.description.contains("path: TypedConsumer → ") == true)
  }

  @Test func typeRegistrationsHonourScopes() async throws {
    let container = Container()
    container.register(type: NamedService.self, scope: .singleton) { NamedService("one") }
    container.register(type: NamedService.self, name: "each", scope: .unique) { NamedService("each") }
    #expect(try container.resolve(type: NamedService.self) === container.resolve(type: NamedService.self))
    #expect(
      try container.resolve(type: NamedService.self, name: "each")
        !== container.resolve(type: NamedService.self, name: "each"))
  }

  @Test func valueTypesCanBeRegistered() async throws {
    let container = Container()
    container.register(type: TypedPlugin.self) { TypedPlugin(id: 3) }
    #expect(try container.resolve() == TypedPlugin(id: 3))
  }

  @Test func typesAndKeysMix() async throws {
    let container = Container()
    container.register(type: (any TypedService).self) { r in NamedService("number \(try r[\.keyNumber])") }
    container.register(\.keyToken) { r in Token(try r.resolve(type: (any TypedService).self).name) }
    #expect(try container[\.keyToken].label == "number 42")
  }

  @Test func isRegisteredForTypes() async {
    let container = Container()
    #expect(!container.isRegistered(type: (any TypedService).self))
    container.register(type: (any TypedService).self, name: "secure") { NamedService("secure") }
    #expect(!container.isRegistered(type: (any TypedService).self))
    #expect(container.isRegistered(type: (any TypedService).self, name: "secure"))
    #expect(container.makeChild().isRegistered(type: (any TypedService).self, name: "secure"))
  }

  @Test func lazyAndProviderWorkForTypes() async throws {
    let container = Container()
    let counter = Counter()
    container.register(type: NamedService.self) {
      counter.increment()
      return NamedService("counted")
    }
    let lazy = container.lazy(type: NamedService.self)
    let provider = container.provider(type: NamedService.self)
    #expect(counter.count == 0)
    #expect(try lazy.value === lazy.value)
    #expect(counter.count == 1)
    #expect(try provider.get() !== provider.get())
    #expect(counter.count == 3)
  }
}
