import Common
import ManualDIToDoList
import ShowcaseTestSupport
import SnapshotTesting
import Testing

@Suite("Manual DI to-do list")
struct ManualDIToDoListTests {
  @Test("Given two stored items, the loaded screen renders them")
  func rendersTwoItems() throws {
    let screen = ManualDIToDoListFactory.make(storage: FakeStorage.withTwoItems())

    try screen.load()

    assertSnapshot(of: screen.render(), as: .lines)
  }

  @Test("Adding through the screen writes to the storage it was given")
  func addsToTheGivenStorage() throws {
    let storage = FakeStorage.withTwoItems()
    let screen = ManualDIToDoListFactory.make(storage: storage)

    try screen.viewModel.add(title: "Call the plumber")

    #expect(
      storage.storedItems.map(\.title) == ["Buy oat milk", "Ship the <Knapsack> README & demo", "Call the plumber"])
  }
}
