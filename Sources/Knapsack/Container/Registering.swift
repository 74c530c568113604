extension Container {
  /// Registers the factory that provides a key in this container, replacing the key's default
  /// (and any earlier registration here).
  ///
  /// ```swift
  /// container.register(\.storage, scope: .singleton) { r in try SQLiteStorage(path: r[\.dataPath]) }
  /// ```
  ///
  /// - Parameters:
  ///   - key: The key to provide.
  ///   - scope: The lifetime of the values; nil keeps the key's default scope.
  ///   - validation: Whether ``validate(including:)`` may call this factory (pass
  ///     ``ValidationPolicy/skip`` for factories with side effects).
  ///   - dispose: Closes a shared instance when the container is disposed (see ``dispose()``);
  ///     values that conform to ``Disposable`` need none.
  ///   - fileID: The file of the registration, for error messages; leave the default.
  ///   - line: The line of the registration, for error messages; leave the default.
  ///   - factory: Makes the value; it receives a ``Resolver`` for its own dependencies.
  public func register<V>(
    _ key: KeyPath<Dependencies, Key<V>>, scope: Scope? = nil, validation: ValidationPolicy = .resolve,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable (Resolver) throws -> V
  ) {
    let index = KeyTable.shared.index(of: key)
    add(
      Registration(
        index: index, scope: scope ?? defaultScope(index), maker: SyncMaker(factory),
        fileID: fileID, line: line, validation: validation, dispose: Self.eraseDispose(dispose)))
  }

  /// Registers a factory that needs no other dependency: `container.register(\.clock) { SystemClock() }`.
  public func register<V>(
    _ key: KeyPath<Dependencies, Key<V>>, scope: Scope? = nil, validation: ValidationPolicy = .resolve,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable () throws -> V
  ) {
    register(key, scope: scope, validation: validation, dispose: dispose, fileID: fileID, line: line) { _ in
      try factory()
    }
  }

  /// Registers an asynchronous factory for an ``AsyncKey``.
  ///
  /// ```swift
  /// container.register(\.database, scope: .singleton) { r async throws in try await Database.open(r[\.databaseURL]) }
  /// ```
  public func register<V>(
    _ key: KeyPath<Dependencies, AsyncKey<V>>, scope: Scope? = nil, validation: ValidationPolicy = .resolve,
    dispose: (@Sendable (V) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable (Resolver) async throws -> V
  ) {
    let index = KeyTable.shared.index(of: key)
    add(
      Registration(
        index: index, scope: scope ?? defaultScope(index), maker: AsyncMaker(factory),
        fileID: fileID, line: line, validation: validation, dispose: Self.eraseDispose(dispose)))
  }

  /// Registers the factory of an ``ArgumentKey``.
  public func register<A, V>(
    _ key: KeyPath<Dependencies, ArgumentKey<A, V>>, validation: ValidationPolicy = .resolve,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable (Resolver, A) throws -> V
  ) {
    let index = KeyTable.shared.index(of: key)
    add(
      Registration(
        index: index, scope: .unique, maker: ArgumentMaker(factory), fileID: fileID, line: line,
        validation: validation))
  }

  /// Registers the factory of a ``MainActorKey``; it runs on the main actor.
  @MainActor
  public func register<V>(
    _ key: KeyPath<Dependencies, MainActorKey<V>>, scope: Scope? = nil, validation: ValidationPolicy = .resolve,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @MainActor @Sendable (Resolver) throws -> V
  ) {
    let index = KeyTable.shared.index(of: key)
    add(
      Registration(
        index: index, scope: scope ?? defaultScope(index), maker: MainActorMaker(factory),
        fileID: fileID, line: line, validation: validation))
  }

  /// Registers a factory for a type, with an optional name, for dynamic and plugin cases and the
  /// `DependencyProvider` style. Prefer keys where you can: they are checked by the compiler.
  ///
  /// ```swift
  /// container.register((any LocalStorage).self, name: "secure") { r in EncryptedStorage(key: try r.resolve()) }
  /// let secure = try container.resolve((any LocalStorage).self, name: "secure")
  /// ```
  public func register<T: Sendable>(
    _ type: T.Type, name: String? = nil, scope: Scope = .unique, validation: ValidationPolicy = .resolve,
    dispose: (@Sendable (T) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable (Resolver) throws -> T
  ) {
    let index = KeyTable.shared.index(of: type, name: name)
    add(
      Registration(
        index: index, scope: scope, maker: SyncMaker(factory), fileID: fileID, line: line,
        validation: validation, dispose: Self.eraseDispose(dispose)))
  }

  /// Registers a factory for a type that needs no other dependency.
  public func register<T: Sendable>(
    _ type: T.Type, name: String? = nil, scope: Scope = .unique, validation: ValidationPolicy = .resolve,
    dispose: (@Sendable (T) async throws -> Void)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable () throws -> T
  ) {
    register(type, name: name, scope: scope, validation: validation, dispose: dispose, fileID: fileID, line: line) {
      _ in
      try factory()
    }
  }

  /// Whether a factory for the key is registered in this container or one of its ancestors
  /// (a key's default does not count).
  public func isRegistered<V>(_ key: KeyPath<Dependencies, Key<V>>) -> Bool {
    effectiveRegistration(KeyTable.shared.index(of: key)) != nil
  }

  /// Whether a factory for the type (and name) is registered here or in an ancestor.
  public func isRegistered<T: Sendable>(_ type: T.Type, name: String? = nil) -> Bool {
    effectiveRegistration(KeyTable.shared.index(of: type, name: name)) != nil
  }

  private static func eraseDispose<V: Sendable>(
    _ dispose: (@Sendable (V) async throws -> Void)?
  ) -> (@Sendable (any Sendable) async throws -> Void)? {
    guard let dispose else { return nil }
    return { value in
      if let typed = value as? V { try await dispose(typed) }
    }
  }

  private func defaultScope(_ index: Int) -> Scope {
    KeyTable.shared.descriptor(index).defaultRegistration?.scope ?? .unique
  }
}
