public import Common
public import Foundation

/// A store kept in one readable JSON file.
///
/// Every change rewrites the file atomically (a temporary file renamed over the old one), under
/// a file lock shared with other processes using the same file. A file that is not such a store
/// gives a ``StorageError`` naming it and is never overwritten.
public struct JSONFileStorage: LocalStorage {
  private let store: FileDocumentStore

  /// The file the store lives in.
  public var url: URL { store.url }

  /// Opens the store in `url`, which is created on the first change. Throws if the file exists
  /// but is not a store.
  public init(url: URL) throws {
    store = FileDocumentStore(url: url, codec: PlainJSONCodec())
    try store.validate()
  }

  public func save<T: Encodable>(_ value: T, forKey key: String) throws {
    try store.save(value, forKey: key)
  }

  public func load<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
    try store.load(type, forKey: key)
  }

  public func remove(forKey key: String) throws {
    try store.remove(forKey: key)
  }

  public func modify<T: Codable, Result>(
    _ type: T.Type,
    forKey key: String,
    default defaultValue: T,
    _ body: (inout T) throws -> Result
  ) throws -> Result {
    try store.modify(forKey: key, default: defaultValue, body)
  }
}

struct PlainJSONCodec: DocumentCodec {
  var filePermissions: UInt16 { 0o644 }

  func seal(_ document: Data) throws -> Data {
    document + Data("\n".utf8)
  }

  func open(_ file: Data, path: String) throws -> Data {
    file
  }
}
