import Knapsack

public protocol Store: Sendable {}
public final class SQLStore: Store { public init(name: String) {} }
public struct Settings: Sendable {
  public var host = "example.com"
  public init() {}
}

extension Dependencies {
  // One key per argument: a remark, since which ones are registered is known only at run time.
  public subscript(store name: String) -> Key<any Store> { .required() }
  // One with a default: nothing to say.
  public subscript(cache name: String) -> Key<any Store> { Key { SQLStore(name: name) } }
  // Resolves a subscript key: a remark at the resolution, not silence.
  public var main: Key<any Store> { Key { r in try r[\.[store: "main"]] } }
  // Reads a property of a value through a key path: no resolution of the key \.host (no cycle).
  public var host: Key<String> { Key { r in try r[\.settings][keyPath: \.host] } }
  public var settings: Key<Settings> { Key { Settings() } }
}
