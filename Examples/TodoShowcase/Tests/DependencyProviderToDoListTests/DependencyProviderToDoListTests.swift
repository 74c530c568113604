import Common
import Foundation
import ShowcaseTestSupport
import SnapshotTesting
import Testing

@testable import DependencyProviderToDoList

@Suite("DependencyProvider to-do list")
struct DependencyProviderToDoListTests {
  @Test("Given two stored items, the loaded screen renders them")
  func rendersTwoItems() throws {
    let screen = try DependencyProviderToDoListFactory.make(storage: FakeStorage.withTwoItems())

    try screen.load()

    assertSnapshot(of: screen.render(), as: .lines)
  }

  @Test("A provider without the view model fails with an error naming the missing type")
  func missingRegistrationNamesTheType() throws {
    struct EmptyProvider: DependencyProvider {
      func resolve<T: Sendable>() throws -> T {
        throw MissingDependency(type: "\(T.self)")
      }
    }
    struct MissingDependency: Error {
      let type: String
    }

    #expect {
      try DependencyProviderToDoListFactory.make(provider: EmptyProvider())
    } throws: { error in
      (error as? MissingDependency)?.type.hasSuffix("TodoListViewModel") == true
    }
  }

  @Test("The Knapsack-backed provider resolves by type and shares the registered storage")
  func providerSharesTheStorage() throws {
    let storage = FakeStorage()
    let provider = DependencyProviderToDoListFactory.makeProvider(storage: storage)
    let first: any TodoListViewModel = try provider.resolve()
    let second: any TodoListViewModel = try provider.resolve()

    try first.add(title: "Written by one")
    try second.load()

    #expect(second.items.map(\.title) == ["Written by one"])
  }
}
