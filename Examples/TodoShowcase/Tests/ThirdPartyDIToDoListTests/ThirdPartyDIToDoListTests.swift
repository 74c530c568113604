import Common
import ShowcaseTestSupport
import SnapshotTesting
import Testing
import ThirdPartyDIToDoList

@Suite("Swinject to-do list")
struct ThirdPartyDIToDoListTests {
  @Test("Given two stored items, the loaded screen renders them")
  func rendersTwoItems() throws {
    let screen = ThirdPartyDIToDoListFactory.make(storage: FakeStorage.withTwoItems())

    try screen.load()

    assertSnapshot(of: screen.render(), as: .lines)
  }

  @Test("Adding through the screen writes to the storage it was given")
  func addsToTheGivenStorage() throws {
    let storage = FakeStorage.withTwoItems()
    let screen = ThirdPartyDIToDoListFactory.make(storage: storage)

    try screen.viewModel.toggle(id: TodoFixtures.first.id)

    #expect(storage.storedItems.first?.done == true)
  }
}
