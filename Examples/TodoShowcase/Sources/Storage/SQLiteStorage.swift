public import Common
public import Foundation
import GRDB

/// The default store: an SQLite database (through GRDB) with a table of JSON entries and a table
/// of to-do items, one row each.
///
/// Writes are transactions, so the server and the command line can share one database file.
/// The to-do list is kept row by row (``TodoItemStorage``): adding, changing or deleting an item
/// is one single-row statement, reading one item is one lookup by its primary key, and a page is
/// one indexed query in the list order. A list that an
/// earlier version kept as one JSON entry is moved into the rows when the database is opened.
/// A file that is not an SQLite database, or a database that belongs to another application,
/// gives a ``StorageError`` naming it, and is not changed.
///
/// A database the process may not change (the file is read-only, or its folder is, where SQLite
/// keeps its journal) is opened read-only: it can be read, and a change fails with
/// ``StorageError/readOnly(path:)`` naming the file or folder.
public final class SQLiteStorage: TodoItemStorage {
  /// Marks the database as ours (`PRAGMA application_id`): "TDSC".
  static let applicationID: Int32 = 0x5444_5343
  private static let header = Data("SQLite format 3\0".utf8)

  /// The database file.
  public let url: URL
  private let queue: DatabaseQueue
  /// The read-only file or folder that keeps this database from being changed, if any.
  private let readOnlyPath: String?

  /// Opens the database in `url`, creating it if it does not exist; read-only when it cannot be
  /// changed.
  public init(url: URL) throws {
    self.url = url
    try Self.checkHeader(of: url)
    let readOnlyPath = FileAccess.readOnlyPath(for: url)
    if let readOnlyPath, !FileManager.default.fileExists(atPath: url.path) {
      throw StorageError.readOnly(path: readOnlyPath)
    }
    self.readOnlyPath = readOnlyPath
    var configuration = Configuration()
    configuration.busyMode = .timeout(10)
    configuration.label = "TodoShowcase.SQLiteStorage"
    configuration.readonly = readOnlyPath != nil
    do {
      queue = try DatabaseQueue(path: url.path, configuration: configuration)
      try Self.prepare(queue, path: url.path, readOnlyPath: readOnlyPath)
    } catch let error as DatabaseError {
      throw Self.storageError(error, path: url.path)
    }
  }

  public func save<T: Encodable>(_ value: T, forKey key: String) throws {
    let json = try Self.encode(value)
    try write { db in
      try db.execute(
        sql: "INSERT INTO entries (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        arguments: [key, json]
      )
    }
  }

  public func load<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
    let json = try read { db in
      try String.fetchOne(db, sql: "SELECT value FROM entries WHERE key = ?", arguments: [key])
    }
    return try json.map { try decode(T.self, from: $0, key: key) }
  }

  public func remove(forKey key: String) throws {
    try write { db in
      try db.execute(sql: "DELETE FROM entries WHERE key = ?", arguments: [key])
    }
  }

  public func modify<T: Codable, Result>(
    _ type: T.Type,
    forKey key: String,
    default defaultValue: T,
    _ body: (inout T) throws -> Result
  ) throws -> Result {
    try write { db in
      let json = try String.fetchOne(db, sql: "SELECT value FROM entries WHERE key = ?", arguments: [key])
      var value = try json.map { try decode(T.self, from: $0, key: key) } ?? defaultValue
      let result = try body(&value)
      try db.execute(
        sql: "INSERT INTO entries (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        arguments: [key, try Self.encode(value)]
      )
      return result
    }
  }

  // MARK: - The to-do list, row by row

  private static let itemColumns = "id, title, done, created"

  public func allTodos() throws -> [TodoItem] {
    try read { db in
      try Row.fetchAll(db, sql: "SELECT \(Self.itemColumns) FROM todos ORDER BY created_us, id").map(Self.item)
    }
  }

  public func todoPage(after cursor: TodoCursor?, limit: Int) throws -> TodoPage {
    let limit = max(limit, 0)
    return try read { db in
      let rows =
        if let cursor {
          try Row.fetchAll(
            db,
            sql: """
              SELECT \(Self.itemColumns) FROM todos WHERE (created_us, id) > (?, ?)
              ORDER BY created_us, id LIMIT ?
              """,
            arguments: [cursor.microseconds, cursor.id, limit + 1]
          )
        } else {
          try Row.fetchAll(
            db, sql: "SELECT \(Self.itemColumns) FROM todos ORDER BY created_us, id LIMIT ?", arguments: [limit + 1])
        }
      let items = rows.prefix(limit).map(Self.item)
      let counts = try Row.fetchOne(db, sql: "SELECT count(*), coalesce(sum(done), 0) FROM todos")
      return TodoPage(
        items: items,
        next: rows.count > limit ? items.last.map(TodoCursor.init) : nil,
        total: counts?[0] ?? 0,
        done: counts?[1] ?? 0
      )
    }
  }

  /// The query for one item by id: a lookup in the primary key's index, one row read.
  static let itemByIDQuery = "SELECT \(itemColumns) FROM todos WHERE id = ?"

  public func todo(id: UUID) throws -> TodoItem? {
    try read { db in
      try Row.fetchOne(db, sql: Self.itemByIDQuery, arguments: [id.uuidString]).map(Self.item)
    }
  }

  public func insertTodo(_ item: TodoItem, maximum: Int) throws {
    try write { db in
      // In the write transaction, so writers racing at the limit cannot pass it together.
      let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM todos") ?? 0
      guard count < maximum else { throw TodoError.listFull(maximum: maximum) }
      try Self.insert(item, into: db)
    }
  }

  public func updateTodo(id: UUID, _ body: (inout TodoItem) throws -> Void) throws -> TodoItem {
    try write { db in
      guard
        var item = try Row.fetchOne(db, sql: Self.itemByIDQuery, arguments: [id.uuidString]).map(Self.item)
      else { throw TodoError.notFound(id) }
      try body(&item)
      try db.execute(
        sql: "UPDATE todos SET title = ?, done = ? WHERE id = ?",
        arguments: [item.title, item.done, id.uuidString]
      )
      return item
    }
  }

  public func deleteTodo(id: UUID) throws {
    try write { db in
      try db.execute(sql: "DELETE FROM todos WHERE id = ?", arguments: [id.uuidString])
      if db.changesCount == 0 { throw TodoError.notFound(id) }
    }
  }

  private static func insert(_ item: TodoItem, into db: Database) throws {
    try db.execute(
      sql: "INSERT INTO todos (id, title, done, created, created_us) VALUES (?, ?, ?, ?, ?)",
      arguments: [
        item.id.uuidString, item.title, item.done, item.created.timeIntervalSince1970,
        TodoCursor.microseconds(item.created),
      ]
    )
  }

  private static func item(_ row: Row) -> TodoItem {
    TodoItem(
      id: UUID(uuidString: row[0]) ?? UUID(),
      title: row[1],
      done: row[2],
      created: Date(timeIntervalSince1970: row[3])
    )
  }

  // MARK: - Helpers

  private func read<T>(_ body: (Database) throws -> T) throws -> T {
    do {
      return try queue.read(body)
    } catch let error as DatabaseError {
      throw Self.storageError(error, path: url.path)
    }
  }

  private func write<T>(_ body: (Database) throws -> T) throws -> T {
    if let readOnlyPath { throw StorageError.readOnly(path: readOnlyPath) }
    do {
      return try queue.write(body)
    } catch let error as DatabaseError {
      throw Self.storageError(error, path: url.path)
    }
  }

  /// What an SQLite failure means for the user: a damaged or foreign file is unreadable, a
  /// write refused for permissions is read-only, and anything else (a lock held too long, a
  /// full disk) is reported as SQLite words it.
  private static func storageError(_ error: DatabaseError, path: String) -> StorageError {
    let reason = error.message ?? "\(error.resultCode)"
    switch error.resultCode {
    case .SQLITE_NOTADB, .SQLITE_CORRUPT:
      return .unreadableFile(path: path, reason: reason)
    case .SQLITE_READONLY, .SQLITE_PERM:
      return .readOnly(path: path)
    default:
      return .fileSystem(path: path, reason: "SQLite: \(reason)")
    }
  }

  private static func encode<T: Encodable>(_ value: T) throws -> String {
    String(decoding: try StoreCoding.encoder().encode(value), as: UTF8.self)
  }

  private func decode<T: Decodable>(_ type: T.Type, from json: String, key: String) throws -> T {
    do {
      return try StoreCoding.decoder().decode(T.self, from: Data(json.utf8))
    } catch {
      throw StorageError.valueMismatch(path: url.path, key: key, reason: "\(error)")
    }
  }

  /// Refuses a non-empty file without SQLite's header before SQLite touches it.
  private static func checkHeader(of url: URL) throws {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return }
    defer { try? handle.close() }
    let prefix = (try? handle.read(upToCount: header.count)) ?? Data()
    if !prefix.isEmpty && prefix != header {
      throw StorageError.unreadableFile(path: url.path, reason: "not an SQLite database")
    }
  }

  /// Creates the schema in a new database; refuses a database that is not ours.
  ///
  /// A read-only database must already have the current schema: one that is new, or that
  /// keeps the list the way an earlier version did, would need a write first.
  private static func prepare(_ queue: DatabaseQueue, path: String, readOnlyPath: String?) throws {
    let (applicationID, objectCount, hasItemTable) = try queue.read { db in
      (
        try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0,
        try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0,
        try db.tableExists("todos")
      )
    }
    guard applicationID == Self.applicationID || (applicationID == 0 && objectCount == 0) else {
      throw StorageError.foreignFile(
        path: path,
        reason:
          "an SQLite database of another application (application_id \(applicationID), \(objectCount) schema objects)"
      )
    }
    if applicationID == Self.applicationID && hasItemTable { return }
    if let readOnlyPath { throw StorageError.readOnly(path: readOnlyPath) }
    if applicationID == Self.applicationID {
      try queue.write(createItemTable)
      return
    }
    try queue.write { db in
      try db.execute(sql: "PRAGMA application_id = \(Self.applicationID)")
      try db.execute(sql: "CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")
      try createItemTable(db)
    }
  }

  /// Creates the item table and its order index if missing, and moves a list kept as one JSON
  /// entry (by an earlier version) into it.
  private static func createItemTable(_ db: Database) throws {
    guard try !db.tableExists("todos") else { return }
    try db.execute(
      sql: """
        CREATE TABLE todos (
          id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL, done INTEGER NOT NULL,
          created REAL NOT NULL, created_us INTEGER NOT NULL);
        CREATE INDEX todos_order ON todos (created_us, id);
        """
    )
    let key = LiveTodoListViewModel.storageKey
    if let json = try String.fetchOne(db, sql: "SELECT value FROM entries WHERE key = ?", arguments: [key]),
      let items = try? StoreCoding.decoder().decode([TodoItem].self, from: Data(json.utf8))
    {
      for item in items { try insert(item, into: db) }
      try db.execute(sql: "DELETE FROM entries WHERE key = ?", arguments: [key])
    }
  }
}
