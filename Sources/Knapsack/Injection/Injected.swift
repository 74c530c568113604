/// Injects a dependency into a property of a type that cannot take it through its initializer.
///
/// The value is resolved when the enclosing instance is initialized: from the innermost
/// ``withOverrides(_:isolation:operation:)`` scope if one is open in the current task, else from
/// ``Container/shared`` (or the container you pass).
///
/// ```swift
/// final class TodoScreen {
///   @Injected(\.storage) var storage: any LocalStorage
/// }
/// ```
///
/// A property wrapper cannot throw. `@Injected` and ``LazyInjected`` are Knapsack's only APIs
/// that stop the program, with the full ``ResolutionError`` description, when resolution fails;
/// use ``Container/validate(including:)`` in a test to know beforehand, or resolve explicitly with `try`.
@propertyWrapper
public struct Injected<Value: Sendable>: Sendable {
  /// The injected value.
  public let wrappedValue: Value

  /// Resolves `key` now, from `container` (``Container/shared`` by default) or the open
  /// override scope.
  public init(_ key: KeyPath<Dependencies, Key<Value>>, container: Container = .shared) {
    wrappedValue = resolveOrStop { try container.resolve(key) }
  }

  /// Resolves a registered type now.
  public init(_ type: Value.Type = Value.self, name: String? = nil, container: Container = .shared) {
    wrappedValue = resolveOrStop { try container.resolve(type, name: name) }
  }
}

/// Like ``Injected``, but resolves on first access instead of at initialization.
///
/// The override scope open at initialization is remembered and used at first access.
@propertyWrapper
public struct LazyInjected<Value: Sendable>: Sendable {
  private let provider: Provider<Value>
  private let storage = LazyStorage<Value>()

  /// Remembers `key`, the container and the open override scope; resolves on first access.
  public init(_ key: KeyPath<Dependencies, Key<Value>>, container: Container = .shared) {
    provider = container.provider(key)
  }

  /// The injected value, resolved on first access.
  public var wrappedValue: Value {
    resolveOrStop { try storage.value { try provider.get() } }
  }
}

/// The one place where Knapsack stops the program: a property wrapper that cannot resolve.
private func resolveOrStop<Value>(_ resolve: () throws -> Value) -> Value {
  do {
    return try resolve()
  } catch {
    fatalError("@Injected could not resolve its dependency.\n\(error)")
  }
}
