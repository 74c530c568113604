import Foundation

/// How a file store turns its JSON document into file bytes and back.
protocol DocumentCodec: Sendable {
  /// The permissions of a newly written file.
  var filePermissions: UInt16 { get }
  func seal(_ document: Data) throws -> Data
  /// The JSON document in `file`; throws a ``StorageError`` naming `path` when it is not one.
  func open(_ file: Data, path: String) throws -> Data
}

/// The shared engine of the JSON-file and encrypted-file stores: one JSON document holding
/// every entry, read and written whole, each change made under an exclusive file lock and written
/// atomically.
///
/// Reads take the file lock shared, so they never block each other. The last document read or
/// written stays decoded in memory together with the exact file bytes it came from: a read still
/// reads the file (so it sees another process's change at once) but decodes it again only when
/// the bytes differ.
struct FileDocumentStore: Sendable {
  static let format = "todo-showcase-store"
  static let version = 1

  private struct Document: Codable {
    var format: String
    var version: Int
    var entries: [String: JSONValue]
  }

  let url: URL
  let codec: any DocumentCodec
  private let lock: FileLock
  private let snapshot = Snapshot()

  init(url: URL, codec: any DocumentCodec) {
    self.url = url
    self.codec = codec
    self.lock = FileLock(path: url.path + ".lock")
  }

  /// Checks that the file, if it exists, is a readable store, without changing it.
  func validate() throws {
    try lock.withSharedLock { _ = try readEntries() }
  }

  func load<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
    try lock.withSharedLock {
      let bytes = try readBytes()
      if let value = snapshot.value(T.self, forKey: key, bytes: bytes) { return value }
      let entries = try entries(from: bytes)
      guard let entry = entries[key] else { return nil }
      let value = try decode(T.self, from: entry, key: key)
      snapshot.store(value, forKey: key, bytes: bytes)
      return value
    }
  }

  func modifyEntries<Result>(_ body: (inout [String: JSONValue]) throws -> Result) throws -> Result {
    try lock.withLock {
      var entries = try readEntries()
      let original = entries
      let result = try body(&entries)
      if entries != original {
        try writeEntries(entries)
      }
      return result
    }
  }

  func save<T: Encodable>(_ value: T, forKey key: String) throws {
    let entry = try encode(value)
    try modifyEntries { $0[key] = entry }
  }

  func remove(forKey key: String) throws {
    try modifyEntries { _ = $0.removeValue(forKey: key) }
  }

  func modify<T: Codable, Result>(
    forKey key: String,
    default defaultValue: T,
    _ body: (inout T) throws -> Result
  ) throws -> Result {
    try modifyEntries { entries in
      var value = try entries[key].map { try decode(T.self, from: $0, key: key) } ?? defaultValue
      let result = try body(&value)
      entries[key] = try encode(value)
      return result
    }
  }

  // MARK: - Reading and writing the document

  private func readEntries() throws -> [String: JSONValue] {
    try entries(from: try readBytes())
  }

  /// The file's bytes, or `nil` if there is no file yet.
  private func readBytes() throws -> Data? {
    do {
      return try Data(contentsOf: url)
    } catch CocoaError.fileReadNoSuchFile {
      return nil
    } catch {
      if !FileManager.default.fileExists(atPath: url.path) { return nil }
      throw StorageError.fileSystem(path: url.path, reason: "cannot read: \(error.localizedDescription)")
    }
  }

  private func entries(from bytes: Data?) throws -> [String: JSONValue] {
    guard let bytes else { return [:] }
    let json = try codec.open(bytes, path: url.path)
    let document: Document
    do {
      document = try StoreCoding.decoder().decode(Document.self, from: json)
    } catch {
      if (try? JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])) != nil {
        throw StorageError.foreignFile(path: url.path, reason: "valid JSON, but not a \(Self.format) document")
      }
      throw StorageError.unreadableFile(path: url.path, reason: "not valid JSON")
    }
    guard document.format == Self.format else {
      throw StorageError.foreignFile(path: url.path, reason: "its format is \"\(document.format)\"")
    }
    guard document.version <= Self.version else {
      throw StorageError.foreignFile(
        path: url.path,
        reason: "written by a newer version (\(document.version)) of this app"
      )
    }
    return document.entries
  }

  private func writeEntries(_ entries: [String: JSONValue]) throws {
    let document = Document(format: Self.format, version: Self.version, entries: entries)
    let json = try StoreCoding.encoder().encode(document)
    try AtomicFile.write(try codec.seal(json), to: url, permissions: .init(codec.filePermissions))
    snapshot.clear()
  }

  private func encode<T: Encodable>(_ value: T) throws -> JSONValue {
    let data = try StoreCoding.encoder().encode(value)
    return try StoreCoding.decoder().decode(JSONValue.self, from: data)
  }

  private func decode<T: Decodable>(_ type: T.Type, from entry: JSONValue, key: String) throws -> T {
    do {
      let data = try StoreCoding.encoder().encode(entry)
      return try StoreCoding.decoder().decode(T.self, from: data)
    } catch {
      throw StorageError.valueMismatch(path: url.path, key: key, reason: "\(error)")
    }
  }
}

/// The values decoded from the file's last-read bytes, by key: a read whose file bytes are the
/// same reuses them instead of decoding the document again.
///
/// `@unchecked Sendable`: `bytes` and `values` are only read or written while holding `lock`; a
/// value leaves the snapshot as a copy (the stores keep value types such as `[TodoItem]`).
private final class Snapshot: @unchecked Sendable {
  private let lock = NSLock()
  private var bytes: Data?
  private var values: [String: Any] = [:]

  func value<T>(_ type: T.Type, forKey key: String, bytes: Data?) -> T? {
    lock.withLock {
      guard let bytes, bytes == self.bytes else { return nil }
      return values[key] as? T
    }
  }

  func store<T>(_ value: T, forKey key: String, bytes: Data?) {
    lock.withLock {
      if bytes != self.bytes {
        self.bytes = bytes
        values = [:]
      }
      values[key] = value
    }
  }

  func clear() {
    lock.withLock {
      bytes = nil
      values = [:]
    }
  }
}
