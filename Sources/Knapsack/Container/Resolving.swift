/// Where a resolution happens: a container, and the resolution step that asks (if any).
/// Opaque; it lets ``Container`` and ``Resolver`` share one resolution API.
public struct ResolutionContext: Sendable {
  @usableFromInline let container: Container
  @usableFromInline let frame: Frame?

  @inlinable
  init(container: Container, frame: Frame?) {
    self.container = container
    self.frame = frame
  }
}

/// Something that resolves dependencies: a ``Container``, or the ``Resolver`` a factory receives.
///
/// Every method throws ``ResolutionError`` rather than returning nil or trapping.
public protocol Resolving: Sendable {
  /// Where resolutions made through this value happen.
  var resolutionContext: ResolutionContext { get }
}

extension Resolving {
  /// Resolves a key.
  ///
  /// ```swift
  /// let storage = try container.resolve(\.storage)
  /// ```
  @inlinable
  public func resolve<V>(_ key: KeyPath<Dependencies, Key<V>>) throws -> V {
    let context = resolutionContext
    return try context.container.resolveValue(KeyTable.shared.index(of: key), context.liveFrame)
  }

  /// Resolves a key: `try container[\.storage]`.
  @inlinable
  public subscript<V>(_ key: KeyPath<Dependencies, Key<V>>) -> V {
    get throws { try resolve(key) }
  }

  /// Resolves a key whose factory is asynchronous.
  ///
  /// ```swift
  /// let database = try await container.resolve(\.database)
  /// ```
  public func resolve<V>(_ key: KeyPath<Dependencies, AsyncKey<V>>) async throws -> V {
    let context = resolutionContext
    return try await context.container.resolveValueAsync(KeyTable.shared.index(of: key), context.liveFrame)
  }

  /// Resolves a key that takes a runtime argument.
  ///
  /// ```swift
  /// let model = try container.resolve(\.profile, argument: userID)
  /// ```
  public func resolve<A, V>(_ key: KeyPath<Dependencies, ArgumentKey<A, V>>, argument: A) throws -> V {
    let context = resolutionContext
    return try context.container.resolveValue(KeyTable.shared.index(of: key), argument: argument, context.liveFrame)
  }

  /// Resolves a main-actor key; only main-actor code can call this.
  @MainActor
  public func resolve<V>(_ key: KeyPath<Dependencies, MainActorKey<V>>) throws -> V {
    let context = resolutionContext
    return try context.container.resolveOnMainActor(KeyTable.shared.index(of: key), context.liveFrame)
  }

  /// Resolves a main-actor key: `try container[\.todoScreen]`.
  @MainActor
  public subscript<V>(_ key: KeyPath<Dependencies, MainActorKey<V>>) -> V {
    get throws { try resolve(key) }
  }

  /// Resolves a type registered with `container.register(_:name:scope:...)`.
  ///
  /// ```swift
  /// let storage: any LocalStorage = try container.resolve()
  /// let secure = try container.resolve((any LocalStorage).self, name: "secure")
  /// ```
  @inlinable
  public func resolve<T: Sendable>(_ type: T.Type = T.self, name: String? = nil) throws -> T {
    let context = resolutionContext
    return try context.container.resolveValue(KeyTable.shared.index(of: type, name: name), context.liveFrame)
  }

  /// A ``Lazy`` that resolves the key on first use and then keeps the value.
  public func lazy<V>(_ key: KeyPath<Dependencies, Key<V>>) -> Lazy<V> {
    Lazy(index: KeyTable.shared.index(of: key), context: resolutionContext)
  }

  /// A ``Provider`` that resolves the key each time it is asked, honouring the key's scope.
  public func provider<V>(_ key: KeyPath<Dependencies, Key<V>>) -> Provider<V> {
    Provider(index: KeyTable.shared.index(of: key), context: resolutionContext)
  }

  /// A ``Lazy`` for a registered type.
  public func lazy<T: Sendable>(_ type: T.Type = T.self, name: String? = nil) -> Lazy<T> {
    Lazy(index: KeyTable.shared.index(of: type, name: name), context: resolutionContext)
  }

  /// A ``Provider`` for a registered type.
  public func provider<T: Sendable>(_ type: T.Type = T.self, name: String? = nil) -> Provider<T> {
    Provider(index: KeyTable.shared.index(of: type, name: name), context: resolutionContext)
  }
}

extension ResolutionContext {
  /// The frame to continue from; a resolver kept beyond its factory call starts afresh.
  @inlinable
  var liveFrame: Frame? {
    guard let frame, !frame.isFinished else { return nil }
    return frame
  }
}

extension Container: Resolving {
  /// Resolutions through the container itself start at the top level.
  @inlinable
  public var resolutionContext: ResolutionContext { ResolutionContext(container: self, frame: nil) }
}

/// What a factory receives to resolve its own dependencies.
///
/// It resolves from the container that is making the value, continues the resolution path
/// (for cycle detection, graph-scoped sharing and error messages), and is safe to keep: used
/// after the factory returned, it starts a fresh top-level resolution.
///
/// ```swift
/// container.register(\.repository) { r in TodoRepository(storage: try r[\.storage], clock: try r[\.clock]) }
/// ```
public struct Resolver: Resolving {
  /// The resolution this resolver continues.
  public let resolutionContext: ResolutionContext

  @inlinable
  init(container: Container, frame: Frame) {
    resolutionContext = ResolutionContext(container: container, frame: frame)
  }

  var container: Container { resolutionContext.container }
}

extension KeyTable {
  @inlinable
  func index<V>(of key: KeyPath<Dependencies, Key<V>>) -> Int {
    cache.lookup(ObjectIdentifier(key)) ?? slowIndex(of: key)
  }

  @usableFromInline
  func slowIndex<V>(of key: KeyPath<Dependencies, Key<V>>) -> Int {
    index(declared: key)
  }

  /// The index of any kind of key, registering it on first sight with its own description.
  func index<K: DeclaredKey>(declared key: KeyPath<Dependencies, K>) -> Int {
    index(of: key as AnyKeyPath) { Dependencies()[keyPath: key].descriptor(index: $0, keyPath: key) }
  }

  func index<V>(of key: KeyPath<Dependencies, AsyncKey<V>>) -> Int { index(declared: key) }

  func index<A, V>(of key: KeyPath<Dependencies, ArgumentKey<A, V>>) -> Int { index(declared: key) }

  @MainActor
  func index<V>(of key: KeyPath<Dependencies, MainActorKey<V>>) -> Int { index(declared: key) }

  func index<E>(of key: KeyPath<Dependencies, Multibinding<E>>) -> Int { index(declared: key) }

  static func name(_ keyPath: AnyKeyPath, _ declaration: Declaration) -> String {
    if let name = declaration.name { return "\\.\(name)" }
    return "\\Dependencies key of type \(typeName(type(of: keyPath).valueType))"
  }

  /// The type's name as Swift spells it, with `any` before an existential (`any LocalStorage`).
  static func typeName(_ type: Any.Type) -> String {
    // `_typeName` reads the runtime's name; `String(describing:)` would first look for protocol
    // conformances of the metatype, which scans every conformance in the process.
    let name = _typeName(type, qualified: false)
    // The first word of type metadata is its kind; 0x303 marks an existential.
    let kind = unsafeBitCast(type, to: UnsafePointer<UInt>.self).pointee
    return kind == 0x303 && name != "Any" && name != "AnyObject" ? "any \(name)" : name
  }
}
