public import Common
public import Foundation
import GRDB

/// The default store: an SQLite database (through GRDB) with one table of JSON entries.
///
/// Writes are transactions, so the server and the command line can share one database file.
/// A file that is not an SQLite database, or a database that belongs to another application,
/// gives a ``StorageError`` naming it, and is not changed.
public final class SQLiteStorage: LocalStorage {
  /// Marks the database as ours (`PRAGMA application_id`): "TDSC".
  static let applicationID: Int32 = 0x5444_5343
  private static let header = Data("SQLite format 3\0".utf8)

  /// The database file.
  public let url: URL
  private let queue: DatabaseQueue

  /// Opens the database in `url`, creating it if it does not exist.
  public init(url: URL) throws {
    self.url = url
    try Self.checkHeader(of: url)
    var configuration = Configuration()
    configuration.busyMode = .timeout(10)
    configuration.label = "TodoShowcase.SQLiteStorage"
    do {
      queue = try DatabaseQueue(path: url.path, configuration: configuration)
      try Self.prepare(queue, path: url.path)
    } catch let error as StorageError {
      throw error
    } catch let error as DatabaseError {
      throw StorageError.unreadableFile(path: url.path, reason: error.message ?? "\(error.resultCode)")
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

  // MARK: - Helpers

  private func read<T>(_ body: (Database) throws -> T) throws -> T {
    do {
      return try queue.read(body)
    } catch let error as DatabaseError {
      throw StorageError.unreadableFile(path: url.path, reason: error.message ?? "\(error.resultCode)")
    }
  }

  private func write<T>(_ body: (Database) throws -> T) throws -> T {
    do {
      return try queue.write(body)
    } catch let error as DatabaseError {
      throw StorageError.unreadableFile(path: url.path, reason: error.message ?? "\(error.resultCode)")
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
  private static func prepare(_ queue: DatabaseQueue, path: String) throws {
    let (applicationID, objectCount) = try queue.read { db in
      (
        try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0,
        try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
      )
    }
    if applicationID == Self.applicationID { return }
    guard applicationID == 0 && objectCount == 0 else {
      throw StorageError.foreignFile(
        path: path,
        reason:
          "an SQLite database of another application (application_id \(applicationID), \(objectCount) schema objects)"
      )
    }
    try queue.write { db in
      try db.execute(sql: "PRAGMA application_id = \(Self.applicationID)")
      try db.execute(sql: "CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")
    }
  }
}
