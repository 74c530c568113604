import Common
import Foundation
import GRDB
import Testing

@testable import Storage

/// The SQLite store's row-per-item list, and the JSON store's shared-lock reads.
@Suite("The to-do list in the stores")
struct TodoItemStorageTests {
  private static func item(_ number: Int, done: Bool = false) -> TodoItem {
    TodoItem(
      id: UUID(), title: "Item \(number)", done: done,
      created: Date(timeIntervalSince1970: 1_700_000_000 + Double(number)))
  }

  @Test("SQLite keeps one row per item, pages in list order, and changes one row at a time")
  func sqliteRows() throws {
    let directory = try TemporaryDirectory()
    let storage = try SQLiteStorage(url: directory.file("todos.sqlite"))
    let items = (1...7).map { Self.item($0) }
    for item in items.reversed() { try storage.insertTodo(item, maximum: TodoList.maximumItems) }

    #expect(try storage.allTodos() == items)
    let first = try storage.todoPage(after: nil, limit: 3)
    #expect(first.items == Array(items[0..<3]))
    #expect(first.next == TodoCursor(items[2]))
    #expect(first.total == 7 && first.done == 0)
    let last = try storage.todoPage(after: TodoCursor(items[5]), limit: 3)
    #expect(last.items == [items[6]])
    #expect(last.next == nil)

    let toggled = try storage.updateTodo(id: items[3].id) { $0.done = true }
    #expect(toggled.done)
    #expect(try storage.todoPage(after: nil, limit: 1).done == 1)
    try storage.deleteTodo(id: items[0].id)
    #expect(try storage.allTodos() == [items[1], items[2], toggled, items[4], items[5], items[6]])
    #expect(throws: TodoError.notFound(items[0].id)) { try storage.deleteTodo(id: items[0].id) }
    #expect(throws: TodoError.notFound(items[0].id)) { try storage.updateTodo(id: items[0].id) { $0.done = true } }

    // The rows are the list: no whole-list JSON entry is written.
    let database = try DatabaseQueue(path: directory.file("todos.sqlite").path)
    let counts = try database.read { db in
      (
        try Int.fetchOne(db, sql: "SELECT count(*) FROM todos"),
        try Int.fetchOne(db, sql: "SELECT count(*) FROM entries")
      )
    }
    #expect(counts.0 == 6)
    #expect(counts.1 == 0)
  }

  @Test("Adding, changing and deleting an item each write exactly that one row")
  func sqliteWritesOneRow() throws {
    let directory = try TemporaryDirectory()
    let url = directory.file("todos.sqlite")
    let storage = try SQLiteStorage(url: url)
    let items = (1...3).map { Self.item($0) }
    for item in items { try storage.insertTodo(item, maximum: TodoList.maximumItems) }
    // Triggers record every row the store's statements write.
    let database = try DatabaseQueue(path: url.path)
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE written (what TEXT NOT NULL, id TEXT NOT NULL);
          CREATE TRIGGER on_insert AFTER INSERT ON todos BEGIN INSERT INTO written VALUES ('insert', new.id); END;
          CREATE TRIGGER on_update AFTER UPDATE ON todos BEGIN INSERT INTO written VALUES ('update', new.id); END;
          CREATE TRIGGER on_delete AFTER DELETE ON todos BEGIN INSERT INTO written VALUES ('delete', old.id); END;
          """
      )
    }
    let added = Self.item(4)
    try storage.insertTodo(added, maximum: TodoList.maximumItems)
    _ = try storage.updateTodo(id: items[1].id) { $0.title = "Renamed" }
    try storage.deleteTodo(id: items[0].id)

    let written = try database.read { db in
      try Row.fetchAll(db, sql: "SELECT what, id FROM written ORDER BY rowid").map {
        "\($0[0] as String) \($0[1] as String)"
      }
    }
    #expect(
      written == [
        "insert \(added.id.uuidString)", "update \(items[1].id.uuidString)", "delete \(items[0].id.uuidString)",
      ])
    #expect(try storage.allTodos().map(\.title) == ["Renamed", "Item 3", "Item 4"])
  }

  @Test("SQLite reads one item by its id with one lookup in the primary key's index, not a scan")
  func sqliteReadsOneItem() throws {
    let directory = try TemporaryDirectory()
    let url = directory.file("todos.sqlite")
    let storage = try SQLiteStorage(url: url)
    let items = (1...300).map { Self.item($0, done: $0 == 150) }
    for item in items { try storage.insertTodo(item, maximum: TodoList.maximumItems) }

    #expect(try storage.todo(id: items[149].id) == items[149])
    #expect(try storage.todo(id: items[0].id) == items[0])
    #expect(try storage.todo(id: UUID()) == nil)

    // The store's query, as SQLite plans it: a search of the primary key's index for `id = ?`.
    let database = try DatabaseQueue(path: url.path)
    let plan = try database.read { db in
      try Row.fetchAll(
        db, sql: "EXPLAIN QUERY PLAN \(SQLiteStorage.itemByIDQuery)", arguments: [items[0].id.uuidString]
      )
      .map { $0["detail"] as String }
    }
    #expect(plan.count == 1, "\(plan)")
    #expect(plan.allSatisfy { $0.hasPrefix("SEARCH todos USING INDEX") && $0.hasSuffix("(id=?)") }, "\(plan)")
  }

  @Test("SQLite refuses a new item once the list has the maximum, and stores nothing")
  func sqliteRefusesBeyondTheMaximum() throws {
    let directory = try TemporaryDirectory()
    let storage = try SQLiteStorage(url: directory.file("todos.sqlite"))
    let items = (1...3).map { Self.item($0) }
    for item in items { try storage.insertTodo(item, maximum: 3) }
    #expect(throws: TodoError.listFull(maximum: 3)) { try storage.insertTodo(Self.item(4), maximum: 3) }
    #expect(try storage.allTodos() == items)
  }

  @Test("A list an earlier version kept as one JSON entry moves into rows when the database opens")
  func sqliteMigratesTheOldEntry() throws {
    let directory = try TemporaryDirectory()
    let url = directory.file("todos.sqlite")
    let items = (1...3).map { Self.item($0, done: $0 == 2) }
    do {
      let database = try DatabaseQueue(path: url.path)
      try database.write { db in
        try db.execute(sql: "PRAGMA application_id = \(SQLiteStorage.applicationID)")
        try db.execute(sql: "CREATE TABLE entries (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")
        let json = String(decoding: try StoreCoding.encoder().encode(items), as: UTF8.self)
        try db.execute(sql: "INSERT INTO entries (key, value) VALUES ('todos', ?)", arguments: [json])
      }
    }
    let storage = try SQLiteStorage(url: url)
    #expect(try storage.allTodos() == items)
    #expect(try storage.load([TodoItem].self, forKey: "todos") == nil)
  }

  @Test("JSON reads hold the file lock shared: a read runs while another reader holds it")
  func jsonReadsShareTheLock() throws {
    let directory = try TemporaryDirectory()
    let url = directory.file("todos.json")
    let storage = try JSONFileStorage(url: url)
    try storage.save([Self.item(1)], forKey: "todos")
    let finished = DispatchSemaphore(value: 0)
    let otherReaderSucceeded = try FileLock(path: url.path + ".lock").withSharedLock {
      Thread.detachNewThread {
        _ = try? storage.load([TodoItem].self, forKey: "todos")
        finished.signal()
      }
      // With an exclusive lock for reads the other reader would wait until this one lets go.
      return finished.wait(timeout: .now() + 10) == .success
    }
    #expect(otherReaderSucceeded)
  }

  @Test("A JSON writer still waits for readers, and a reader sees another instance's change at once")
  func jsonWriterWaitsAndReadersSeeChanges() throws {
    let directory = try TemporaryDirectory()
    let url = directory.file("todos.json")
    let reader = try JSONFileStorage(url: url)
    let writer = try JSONFileStorage(url: url)
    try writer.save([Self.item(1)], forKey: "todos")
    #expect(try reader.load([TodoItem].self, forKey: "todos")?.map(\.title) == ["Item 1"])

    let finished = DispatchSemaphore(value: 0)
    let writerWaited = try FileLock(path: url.path + ".lock").withSharedLock {
      Thread.detachNewThread {
        try? writer.save([Self.item(1), Self.item(2)], forKey: "todos")
        finished.signal()
      }
      return finished.wait(timeout: .now() + 0.5) == .timedOut
    }
    #expect(writerWaited)
    finished.wait()
    // The reader's decoded copy is of older bytes: it reads the new file.
    #expect(try reader.load([TodoItem].self, forKey: "todos")?.map(\.title) == ["Item 1", "Item 2"])
  }

  @Test("Stored dates keep microseconds, so items made within one second keep their order")
  func datesKeepMicroseconds() throws {
    let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
    #expect(StoreCoding.text(of: date) == "2023-11-14T22:13:20.123456Z")
    let decoded = try #require(StoreCoding.date(from: StoreCoding.text(of: date)))
    #expect(TodoCursor.microseconds(decoded) == TodoCursor.microseconds(date))
    // Dates as earlier versions wrote them still read.
    #expect(StoreCoding.date(from: "2023-11-14T22:13:20Z") == Date(timeIntervalSince1970: 1_700_000_000))
    #expect(StoreCoding.date(from: "2023-11-14T22:13:20.5Z") == Date(timeIntervalSince1970: 1_700_000_000.5))
    #expect(StoreCoding.date(from: "2023-11-14T22:13:20.Z") == nil)
    #expect(StoreCoding.date(from: "yesterday") == nil)
  }
}
