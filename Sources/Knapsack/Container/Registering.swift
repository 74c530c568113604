extension Container {
  /// Registers the factory that provides a key in this container, replacing the key's default
  /// (and any earlier registration here).
  ///
  /// ```swift
  /// container.register(\.storage, scope: .singleton) { r in try SQLiteStorage(path: r[\.dataPath]) }
  /// ```
  ///
  /// Every kind of key registers the same way; only the factory's shape follows the kind: it
  /// takes the argument of an ``ArgumentKey``, is `async` for an ``AsyncKey`` and `@MainActor`
  /// for a ``MainActorKey``.
  ///
  /// - Parameters:
  ///   - key: The key to provide.
  ///   - scope: The lifetime of the values; nil keeps the key's default scope. For a key with
  ///     an argument, a shared scope keeps one instance per `Hashable` argument value.
  ///   - hasSideEffects: Pass true for a factory that validation must not call (it opens a
  ///     connection or writes a file): ``validate(including:arguments:)`` then counts the key as
  ///     provided and lists it as not run.
  ///   - dispose: Closes a shared instance when the container is disposed (see ``dispose()``);
  ///     values that conform to ``Disposable`` need none.
  ///   - fileID: The file of the registration, for error messages; leave the default.
  ///   - line: The line of the registration, for error messages; leave the default.
  ///   - factory: Makes the value; it receives a ``Resolver`` for its own dependencies.
  @inlinable
  public func register<V>(
    _ key: KeyPath<Dependencies, Key<V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable (Resolver) throws -> V
  ) {
    add(key, Factory(.resolverOnly(factory)), scope, hasSideEffects, dispose, fileID, line)
  }

  /// Registers a factory that needs no other dependency: `container.register(\.clock) { SystemClock() }`.
  @inlinable
  public func register<V>(
    _ key: KeyPath<Dependencies, Key<V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable () throws -> V
  ) {
    add(key, Factory(.plain(factory)), scope, hasSideEffects, dispose, fileID, line)
  }

  /// Not available: a ``Key``'s factory is synchronous; declare an ``AsyncKey`` for one that
  /// awaits. (Without it, the compiler reports only that no `register` matches.)
  @available(
    *, unavailable,
    message: "a Key's factory cannot await: declare the key as AsyncKey<Value> to register a factory that awaits"
  )
  public func register<V>(
    _ key: KeyPath<Dependencies, Key<V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable (Resolver) async throws -> V
  ) {}

  /// Not available: see the overload above, for a factory that takes no resolver.
  @available(
    *, unavailable,
    message: "a Key's factory cannot await: declare the key as AsyncKey<Value> to register a factory that awaits"
  )
  public func register<V>(
    _ key: KeyPath<Dependencies, Key<V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable () async throws -> V
  ) {}

  /// Registers the factory of an ``ArgumentKey``: `container.register(\.profile) { r, id in ... }`.
  @inlinable
  public func register<A, V>(
    _ key: KeyPath<Dependencies, ArgumentKey<A, V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable (Resolver, A) throws -> V
  ) {
    add(key, Factory(.sync(factory)), scope, hasSideEffects, dispose, fileID, line)
  }

  /// Registers an asynchronous factory for an ``AsyncKey``.
  ///
  /// ```swift
  /// container.register(\.database, scope: .singleton) { r in try await Database.open(r[\.databaseURL]) }
  /// ```
  @inlinable
  public func register<V>(
    _ key: KeyPath<Dependencies, AsyncKey<V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable (Resolver) async throws -> V
  ) {
    add(key, Factory(.async { r, _ in try await factory(r) }), scope, hasSideEffects, dispose, fileID, line)
  }

  /// Registers an asynchronous factory that needs no other dependency:
  /// `container.register(\.database) { try await Database.open(.inMemory) }`.
  @inlinable
  public func register<V>(
    _ key: KeyPath<Dependencies, AsyncKey<V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable () async throws -> V
  ) {
    add(key, Factory(.async { _, _ in try await factory() }), scope, hasSideEffects, dispose, fileID, line)
  }

  /// Registers an asynchronous factory for an asynchronous key that takes an argument.
  @inlinable
  public func register<A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<AsyncKind, A, V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver, A) async throws -> V
  ) {
    add(key, Factory(.async(factory)), scope, hasSideEffects, dispose, fileID, line)
  }

  /// Not available: the factory of a key that takes an argument receives it. (Without it, the
  /// compiler finds no `register` that matches.)
  @available(
    *, unavailable,
    message: "this key takes an argument: its factory receives it too, `{ r, argument in ... }`"
  )
  public func register<A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<AsyncKind, A, V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable (Resolver) async throws -> V
  ) {}

  /// Not available: the factory of a key that takes an argument receives it. (Without it, the
  /// compiler finds no `register` that matches.)
  @available(
    *, unavailable,
    message: "this key takes an argument: its factory receives it too, `{ r, argument in ... }`"
  )
  public func register<A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<AsyncKind, A, V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable () async throws -> V
  ) {}

  /// Registers the factory of a ``MainActorKey``; it runs on the main actor.
  @inlinable
  public func register<V>(
    _ key: KeyPath<Dependencies, MainActorKey<V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @MainActor @Sendable (Resolver) throws -> V
  ) {
    add(key, Factory(.mainActor { r, _ in try factory(r) }), scope, hasSideEffects, dispose, fileID, line)
  }

  /// Registers a main-actor factory that needs no other dependency:
  /// `container.register(\.screen) { ScreenModel() }`.
  @inlinable
  public func register<V>(
    _ key: KeyPath<Dependencies, MainActorKey<V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @MainActor @Sendable () throws -> V
  ) {
    add(key, Factory(.mainActor { _, _ in try factory() }), scope, hasSideEffects, dispose, fileID, line)
  }

  /// Not available: a main-actor factory runs synchronously; declare an ``AsyncKey`` for one
  /// that awaits. (Without it, the compiler says the key is not an `AsyncKey`.)
  @available(
    *, unavailable,
    message:
      "a MainActorKey's factory runs synchronously on the main actor and cannot await: declare the key as AsyncKey<Value>, or pass what it awaits in from an AsyncKey"
  )
  public func register<V>(
    _ key: KeyPath<Dependencies, MainActorKey<V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver) async throws -> V
  ) {}

  /// Not available: the factory of a key that takes an argument receives it.
  @available(
    *, unavailable,
    message: "this key takes an argument: its factory receives it too, `{ r, argument in ... }`"
  )
  public func register<A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<SyncKind, A, V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable (Resolver) throws -> V
  ) {}

  /// Not available: the factory of a key that takes an argument receives it.
  @available(
    *, unavailable,
    message: "this key takes an argument: its factory receives it too, `{ r, argument in ... }`"
  )
  public func register<A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<SyncKind, A, V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable () throws -> V
  ) {}

  /// Registers the main-actor factory of a main-actor key that takes an argument.
  @inlinable
  public func register<A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<MainActorKind, A, V>>, scope: Scope? = nil,
    hasSideEffects: Bool = false, dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @MainActor @Sendable (Resolver, A) throws -> V
  ) {
    add(key, Factory(.mainActor(factory)), scope, hasSideEffects, dispose, fileID, line)
  }

  /// Not available: the factory of a key that takes an argument receives it. (Without it, the
  /// compiler finds no `register` that matches.)
  @available(
    *, unavailable,
    message: "this key takes an argument: its factory receives it too, `{ r, argument in ... }`"
  )
  public func register<A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<MainActorKind, A, V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @MainActor @Sendable (Resolver) throws -> V
  ) {}

  /// Not available: the factory of a key that takes an argument receives it. (Without it, the
  /// compiler finds no `register` that matches.)
  @available(
    *, unavailable,
    message: "this key takes an argument: its factory receives it too, `{ r, argument in ... }`"
  )
  public func register<A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<MainActorKind, A, V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @MainActor @Sendable () throws -> V
  ) {}

  /// Registers a factory for a type, with an optional name, for dynamic and plugin cases and the
  /// `DependencyProvider` style. Prefer keys where you can: they are checked by the compiler.
  ///
  /// ```swift
  /// container.register(type: (any LocalStorage).self, name: "secure") { r in EncryptedStorage(key: try r.resolve()) }
  /// let secure = try container.resolve(type: (any LocalStorage).self, name: "secure")
  /// ```
  @inlinable
  public func register<T: Sendable>(
    type: T.Type, name: String? = nil, scope: Scope = .unique, hasSideEffects: Bool = false,
    dispose: (@Sendable (T) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable (Resolver) throws -> T
  ) {
    add(type, name, Factory(.resolverOnly(factory)), scope, hasSideEffects, dispose, fileID, line)
  }

  /// Registers a factory for a type that needs no other dependency.
  @inlinable
  public func register<T: Sendable>(
    type: T.Type, name: String? = nil, scope: Scope = .unique, hasSideEffects: Bool = false,
    dispose: (@Sendable (T) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable () throws -> T
  ) {
    add(type, name, Factory(.plain(factory)), scope, hasSideEffects, dispose, fileID, line)
  }

  /// Whether a factory for the key is registered in this container or one of its ancestors, or
  /// by the override scope open in this task, as a resolution here would find it (a key's
  /// default does not count).
  public func isRegistered<K, A, V>(_ key: KeyPath<Dependencies, DependencyKey<K, A, V>>) -> Bool {
    servingContainer().effectiveRegistration(KeyTable.index(of: key)) != nil
  }

  /// Not available: a multibinding is never missing. (Without this, the compiler says that
  /// generic parameters could not be inferred.)
  @available(
    *, unavailable,
    message:
      "a multibinding is never missing: it resolves to what was contributed, possibly nothing; resolve it and check `isEmpty`"
  )
  public func isRegistered<K, E>(_ key: KeyPath<Dependencies, MultibindingKey<K, E>>) -> Bool { false }

  /// Not available: a key is told apart by its key path, not by a name. (Without this, the
  /// compiler asks for the labels of a type registration.)
  @available(
    *, unavailable,
    message:
      "a key needs no name: its key path tells it apart; declare another key for a second registration, or register a type, `register(type:name:)`"
  )
  public func register<K, A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<K, A, V>>, name: String, scope: Scope? = nil,
    hasSideEffects: Bool = false, dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable (Resolver) throws -> V
  ) {}

  /// Not available: see the overload above, for a factory that needs no dependency.
  @available(
    *, unavailable,
    message:
      "a key needs no name: its key path tells it apart; declare another key for a second registration, or register a type, `register(type:name:)`"
  )
  public func register<K, A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<K, A, V>>, name: String, scope: Scope? = nil,
    hasSideEffects: Bool = false, dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable () throws -> V
  ) {}

  /// Whether a factory for the type (and name) is registered here or in an ancestor, or by the
  /// override scope open in this task.
  public func isRegistered<T: Sendable>(type: T.Type, name: String? = nil) -> Bool {
    servingContainer().effectiveRegistration(KeyTable.index(of: type, name: name)) != nil
  }

  /// Not available: a key is registered with a factory that makes its value, not with a value.
  /// (Without it, the compiler finds no `register` that matches.)
  @_disfavoredOverload
  @available(
    *, unavailable,
    message:
      "pass a factory that makes the value, `container.register(\\.key) { value }`: it runs each time the key's scope needs an instance"
  )
  public func register<K, A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<K, A, V>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil, _ value: V
  ) {}

  /// Not available: a type is registered with a factory that makes its value, not with a value.
  /// (Without it, the compiler finds no `register` that matches.)
  @_disfavoredOverload
  @available(
    *, unavailable,
    message:
      "pass a factory that makes the value, `container.register(type: T.self) { value }`: it runs each time the registration's scope needs an instance"
  )
  public func register<T>(
    type: T.Type, name: String? = nil, scope: Scope = .unique, hasSideEffects: Bool = false,
    dispose: (@Sendable (T) async throws -> Void)? = nil, _ value: T
  ) {}

  // The routines below are inlined into each `register` call, so that the factory is wrapped in
  // its existential by the caller's specialized code (`Factory`'s metadata cached per call site)
  // rather than looked up in the runtime's generic cache on every call. What needs no type is
  // left out of line: an app registers thousands of types, each call site is code of its own.

  /// The routine behind every `register` for a key.
  @inlinable
  func add<K, A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<K, A, V>>, _ factory: Factory<A, V>, _ scope: Scope?,
    _ hasSideEffects: Bool, _ dispose: (@Sendable (V) async throws -> Void)?, _ fileID: StaticString, _ line: UInt
  ) {
    add(key: key, factory as any RegistrationFactory, scope, hasSideEffects, Self.eraseDispose(dispose), fileID, line)
  }

  /// The scope a registration of the key at `index` takes when it names none: the one the key
  /// declares with `.scope(_:)`, a required key's included.
  func defaultScope(of index: Int) -> Scope {
    KeyTable.shared.descriptor(index).declaredScope
  }

  /// The routine behind every `register(type:)`.
  @inlinable
  func add<T: Sendable>(
    _ type: T.Type, _ name: String?, _ factory: Factory<Void, T>, _ scope: Scope, _ hasSideEffects: Bool,
    _ dispose: (@Sendable (T) async throws -> Void)?, _ fileID: StaticString, _ line: UInt
  ) {
    add(
      type: type, name, factory as any RegistrationFactory, scope, hasSideEffects, Self.eraseDispose(dispose), fileID,
      line)
  }

  @inlinable
  static func eraseDispose<V: Sendable>(
    _ dispose: (@Sendable (V) async throws -> Void)?
  ) -> (@Sendable (any Sendable) async throws -> Void)? {
    guard let dispose else { return nil }
    return { value in
      if let typed = value as? V { try await dispose(typed) }
    }
  }
}
