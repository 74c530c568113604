import Common
import Foundation
import Knapsack
import KnapsackTesting
import KnapsackToDoList
import ShowcaseTestSupport
import SnapshotTesting
import Testing

@Suite("Knapsack to-do list")
struct KnapsackToDoListTests {
  @Test("Given two stored items, the loaded screen renders them")
  func rendersTwoItems() throws {
    let screen = KnapsackToDoListFactory.make(storage: FakeStorage.withTwoItems())

    try screen.load()

    assertSnapshot(of: screen.render(), as: .lines)
  }

  @Test("A container with the assembly makes a screen on the app's storage")
  func containerWithAssembly() throws {
    let storage = FakeStorage.withTwoItems()
    let container = Container(assemblies: [TodoListAssembly(storage: storage)])

    let screen = try KnapsackToDoListFactory.make(container: container)
    try screen.load()

    #expect(screen.viewModel.items == TodoFixtures.twoItems)
  }

  @Test("The feature's graph validates with the assembly and names the missing storage without it")
  func validation() async {
    let keys: [PartialKeyPath<Dependencies>] = [\Dependencies.todoListScreen]
    let valid = await Container(assemblies: [TodoListAssembly(storage: FakeStorage())]).validate(including: keys)
    #expect(valid.isValid, "\(valid)")

    let invalid = await Container().validate(including: keys)
    #expect(invalid.problems.map(\.dependency.name) == ["\\.todoStorage"])
  }

  @Test("A container without the storage fails with an error naming the required key")
  func missingStorageNamesTheKey() throws {
    #expect {
      try KnapsackToDoListFactory.make(container: Container())
    } throws: { error in
      "\(error)".contains("todoStorage")
    }
  }

  @Test(
    "Overrides replace the clock for this test only",
    .overrides {
      $0.register(\.todoStorage) { FakeStorage() }
      $0.register(\.todoClock) { TodoClock(now: { Date(timeIntervalSince1970: 0) }) }
    }
  )
  func overriddenClock() throws {
    let viewModel = try Container.shared[\.todoListViewModel]

    let item = try viewModel.add(title: "Stamped at the epoch")

    #expect(item.created == Date(timeIntervalSince1970: 0))
  }

  @Test("Screens made on different storages at the same time never see each other's items")
  func parallelScreensStayApart() async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<20 {
        group.addTask {
          let storage = FakeStorage()
          try storage.save([TodoItem(id: UUID(), title: "Item \(index)", created: Date())], forKey: "todos")
          let screen = KnapsackToDoListFactory.make(storage: storage)
          try screen.load()
          #expect(screen.viewModel.items.map(\.title) == ["Item \(index)"])
        }
      }
      try await group.waitForAll()
    }
  }
}
