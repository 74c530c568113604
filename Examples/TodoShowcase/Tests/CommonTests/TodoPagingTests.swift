import Common
import Foundation
import Testing

@Suite("Paging a list held in memory")
struct TodoPagingTests {
  private static func item(_ seconds: Double, id: String = UUID().uuidString) -> TodoItem {
    TodoItem(id: UUID(uuidString: id)!, title: "At \(seconds)", created: Date(timeIntervalSince1970: seconds))
  }

  @Test("Pages follow creation time, then id, whatever order the list is kept in")
  func order() {
    let tieA = Self.item(5, id: "00000000-0000-0000-0000-00000000000A")
    let tieB = Self.item(5, id: "00000000-0000-0000-0000-00000000000B")
    let early = Self.item(1)
    let late = Self.item(9)
    let list = [late, tieB, early, tieA]

    let first = list.page(after: nil, limit: 2)
    #expect(first.items == [early, tieA])
    #expect(first.next == TodoCursor(tieA))
    #expect(first.total == 4)
    let second = list.page(after: first.next, limit: 2)
    #expect(second.items == [tieB, late])
    #expect(second.next == nil)
  }

  @Test("A cursor whose item is gone still starts right after where that item was")
  func deletedCursorItem() {
    let items = (1...5).map { Self.item(Double($0)) }
    let cursor = TodoCursor(items[1])
    let withoutIt = items.filter { $0.id != items[1].id } + [Self.item(0.5)]
    #expect(withoutIt.page(after: cursor, limit: 10).items == Array(items[2...]))
  }

  @Test("A cursor survives its text form; malformed text is no cursor", arguments: ["", "12", "x~y", "1~not-a-uuid"])
  func cursorText(malformed: String) {
    let cursor = TodoCursor(Self.item(1.25))
    #expect(TodoCursor(text: cursor.text) == cursor)
    #expect(cursor.text.hasPrefix("1250000~"))
    #expect(TodoCursor(text: malformed) == nil)
  }
}
