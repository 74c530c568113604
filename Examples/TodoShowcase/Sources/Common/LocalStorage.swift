/// A key-value store for `Codable` values.
///
/// Implementations live in the `Storage` module (SQLite, JSON file, encrypted file, memory);
/// tests bring their own fakes. Every implementation is safe to share between tasks.
public protocol LocalStorage: Sendable {
  /// Stores `value` under `key`, replacing what was there.
  func save<T: Encodable>(_ value: T, forKey key: String) throws

  /// The value stored under `key`, or `nil` if there is none.
  func load<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T?

  /// Removes the value stored under `key`, if any.
  func remove(forKey key: String) throws

  /// Reads the value under `key` (or `defaultValue`), lets `body` change it and saves the result,
  /// as one step: no other `modify` or `save` on this storage interleaves with it.
  ///
  /// Nothing is saved when `body` throws.
  func modify<T: Codable, Result>(
    _ type: T.Type,
    forKey key: String,
    default defaultValue: T,
    _ body: (inout T) throws -> Result
  ) throws -> Result
}

extension LocalStorage {
  /// The value stored under `key`, its type inferred from the context.
  public func load<T: Decodable>(forKey key: String) throws -> T? {
    try load(T.self, forKey: key)
  }
}
