import Knapsack
import Testing

extension Dependencies {
  var assemblyStorageName: Key<String> { .required() }
  var assemblyList: Key<[String]> { Key { [] } }
}

/// A module's registrations: storage.
struct AssemblyStorage: Assembly {
  let name: String
  func assemble(into container: Container) {
    container.register(\.assemblyStorageName) { name }
    container.register(\.storage, scope: .singleton) { r in InMemoryStorage(name: try r[\.assemblyStorageName]) }
  }
}

/// A module's registrations that depend on another module's: the todo feature.
struct AssemblyFeature: Assembly {
  func assemble(into container: Container) {
    container.register(\.repository) { r in Repository(storage: try r[\.storage]) }
    container.register(type: (any TypedService).self, name: "feature") { NamedService("feature") }
  }
}

/// Appends to a list, so that the order of assemblies shows.
struct AssemblyAppending: Assembly {
  let item: String
  func assemble(into container: Container) {
    let item = item
    // A registration replaces the earlier one: the last assembly wins.
    container.register(\.assemblyList) { [item] }
  }
}

@Suite struct AssemblyTests {
  @Test func containerIsBuiltFromAssemblies() async throws {
    let container = Container(assemblies: [AssemblyStorage(name: "sqlite"), AssemblyFeature()])
    let repository = try container[\.repository]
    #expect(repository.storage.name == "sqlite")
    #expect(repository.storage === (try container[\.storage]))
    #expect(try container.resolve(type: (any TypedService).self, name: "feature").name == "feature")
  }

  @Test func assembliesRunInOrderAndLaterOnesWin() async throws {
    let container = Container(assemblies: [AssemblyAppending(item: "first"), AssemblyAppending(item: "second")])
    #expect(try container[\.assemblyList] == ["second"])
    let reversed = Container(assemblies: [AssemblyAppending(item: "second"), AssemblyAppending(item: "first")])
    #expect(try reversed[\.assemblyList] == ["first"])
  }

  @Test func installAddsAssembliesToAnExistingContainer() async throws {
    let container = Container()
    #expect(throws: ResolutionError.self) { try container[\.assemblyStorageName] }
    container.install([AssemblyStorage(name: "installed")])
    #expect(try container[\.assemblyStorageName] == "installed")
    container.install([AssemblyStorage(name: "again")])
    #expect(try container[\.assemblyStorageName] == "again")
  }

  @Test func assemblyInstalledInAChildStaysInTheChild() async throws {
    let parent = Container(assemblies: [AssemblyStorage(name: "app")])
    let session = parent.makeChild()
    session.install([AssemblyFeature()])
    #expect(try session[\.repository].storage.name == "app")
    #expect(!parent.isRegistered(type: (any TypedService).self, name: "feature"))
    #expect(session.isRegistered(type: (any TypedService).self, name: "feature"))
  }

  @Test func emptyAssemblyListGivesAnEmptyContainer() async throws {
    let container = Container(assemblies: [])
    #expect(!container.isRegistered(\.assemblyStorageName))
    #expect(try container[\.storage].name == "memory")
  }
}
