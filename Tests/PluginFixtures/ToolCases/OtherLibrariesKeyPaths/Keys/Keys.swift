import Knapsack

/// Key-path APIs of other libraries, read where a factory reads its dependencies: none of them is
/// a resolution, so none makes an edge (no cycle through `\.apiHost`, no missing type).
public struct DefaultsKeys { public var apiHost: String { "" } }
public enum Defaults {
  public static subscript(_ key: KeyPath<DefaultsKeys, String>) -> String { DefaultsKeys()[keyPath: key] }
}
public protocol Analytics: Sendable {}
public final class Tracker: Sendable { public init(_ analytics: (any Analytics)?) {} }
public final class ServiceLocator: @unchecked Sendable {
  public static let shared = ServiceLocator()
  public func resolve<T>(_ type: T.Type) -> T? { nil }
  public static func resolve<T>(_ key: KeyPath<DefaultsKeys, T>) -> T { DefaultsKeys()[keyPath: key] }
}

extension Dependencies {
  public var apiHost: Key<String> { Key { _ in Defaults[\.apiHost] } }
  public var fallbackHost: Key<String> { Key { _ in ServiceLocator.resolve(\.apiHost) } }
  public var tracker: Key<Tracker> { Key { _ in Tracker(ServiceLocator.shared.resolve((any Analytics).self)) } }
  public var storage: Key<String> { .required() }
}
