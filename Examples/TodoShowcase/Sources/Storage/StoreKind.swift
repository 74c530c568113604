public import Common
public import Foundation

/// The kinds of store the app can run on, and where each keeps its files in a data directory.
public enum StoreKind: String, CaseIterable, Sendable {
  case sqlite
  case json
  case encrypted
  case memory

  /// The store's file in `directory`, or `nil` for the in-memory store.
  public func file(in directory: URL) -> URL? {
    switch self {
    case .sqlite: directory.appendingPathComponent("todos.sqlite")
    case .json: directory.appendingPathComponent("todos.json")
    case .encrypted: directory.appendingPathComponent("todos.encrypted")
    case .memory: nil
    }
  }

  /// The key file the encrypted store uses in `directory` when the key is not in the environment.
  public static func keyFile(in directory: URL) -> URL {
    directory.appendingPathComponent("todos.key")
  }

  /// Opens this kind of store in `directory`, which must exist.
  public func open(
    in directory: URL,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> any LocalStorage {
    switch self {
    case .sqlite:
      try SQLiteStorage(url: file(in: directory)!)
    case .json:
      try JSONFileStorage(url: file(in: directory)!)
    case .encrypted:
      try EncryptedFileStorage(
        url: file(in: directory)!,
        key: EncryptionKey.resolve(
          keyFile: Self.keyFile(in: directory),
          dataFile: file(in: directory),
          environment: environment
        )
      )
    case .memory:
      InMemoryStorage()
    }
  }
}
