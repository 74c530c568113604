public import Common
import Foundation
import Synchronization

/// A store that keeps values in memory only; they are gone when the process ends.
public final class InMemoryStorage: LocalStorage {
  private let values = Mutex<[String: Data]>([:])

  public init() {}

  public func save<T: Encodable>(_ value: T, forKey key: String) throws {
    let data = try StoreCoding.encoder().encode(value)
    values.withLock { $0[key] = data }
  }

  public func load<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
    guard let data = values.withLock({ $0[key] }) else { return nil }
    return try StoreCoding.decoder().decode(T.self, from: data)
  }

  public func remove(forKey key: String) throws {
    _ = values.withLock { $0.removeValue(forKey: key) }
  }

  public func modify<T: Codable, Result>(
    _ type: T.Type,
    forKey key: String,
    default defaultValue: T,
    _ body: (inout T) throws -> Result
  ) throws -> Result {
    var result: Result?
    try values.withLock { values in
      var value = try values[key].map { try StoreCoding.decoder().decode(T.self, from: $0) } ?? defaultValue
      result = try body(&value)
      values[key] = try StoreCoding.encoder().encode(value)
    }
    return result!
  }
}
