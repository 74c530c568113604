public import Common
import Foundation
import Synchronization

/// A storage for tests: values in memory, nothing shared between instances.
public final class FakeStorage: LocalStorage {
  private let values = Mutex<[String: Data]>([:])

  public init() {}

  /// A storage holding the two items of ``TodoFixtures/twoItems`` under the list's key.
  public static func withTwoItems() -> FakeStorage {
    let storage = FakeStorage()
    try! storage.save(TodoFixtures.twoItems, forKey: LiveTodoListViewModel.storageKey)
    return storage
  }

  /// The list as stored now.
  public var storedItems: [TodoItem] {
    (try? load([TodoItem].self, forKey: LiveTodoListViewModel.storageKey)) ?? []
  }

  public func save<T: Encodable>(_ value: T, forKey key: String) throws {
    let data = try Self.encoder.encode(value)
    values.withLock { $0[key] = data }
  }

  public func load<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
    try values.withLock { $0[key] }.map { try Self.decoder.decode(T.self, from: $0) }
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
      var value = try values[key].map { try Self.decoder.decode(T.self, from: $0) } ?? defaultValue
      result = try body(&value)
      values[key] = try Self.encoder.encode(value)
    }
    return result!
  }

  private static let encoder = JSONEncoder()
  private static let decoder = JSONDecoder()
}

/// Fixed items, so rendered HTML is the same on every run.
public enum TodoFixtures {
  public static let first = TodoItem(
    id: UUID(uuidString: "11111111-1111-1111-1111-111111111111")!,
    title: "Buy oat milk",
    done: false,
    created: Date(timeIntervalSince1970: 1_767_346_200)  // 2026-01-02 09:30 UTC
  )

  public static let second = TodoItem(
    id: UUID(uuidString: "22222222-2222-2222-2222-222222222222")!,
    title: "Ship the <Knapsack> README & demo",
    done: true,
    created: Date(timeIntervalSince1970: 1_767_459_900)  // 2026-01-03 17:05 UTC
  )

  public static let twoItems = [first, second]
}
