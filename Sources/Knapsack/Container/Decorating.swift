extension Container {
  /// Wraps what a key of any kind resolves to, for logging, caching or metrics.
  ///
  /// ```swift
  /// container.decorate(\.storage) { r, storage in LoggingStorage(wrapping: storage, log: try r[\.log]) }
  /// ```
  ///
  /// Decorators compose: the first one registered wraps the value the factory made, the next one
  /// wraps that, and so on; a parent container's decorators apply before a child's. They apply to
  /// whatever factory provides the key, the key's default, a registration, or an override made
  /// with ``withOverrides(_:isolation:operation:)`` (whose own decorators come last). A shared
  /// instance is decorated once, when it is made. Add decorators before the first resolution:
  /// adding one later makes shared instances anew.
  ///
  /// An ``AsyncKey``'s decorator may be asynchronous, and a ``MainActorKey``'s runs on the main
  /// actor, like their factories: see the overloads below. (This one is disfavored so that a
  /// main-actor key's decorator is the main-actor one, and may use main-actor state, without
  /// saying `@MainActor`.)
  @_disfavoredOverload
  public func decorate<K, A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<K, A, V>>, fileID: StaticString = #fileID, line: UInt = #line,
    _ decorator: @escaping @Sendable (Resolver, V) throws -> V
  ) {
    addDecoration(.sync { r, value in try decorator(r, try Self.typed(value)) }, fileID, line, KeyTable.index(of: key))
  }

  /// Wraps what an asynchronous key resolves to with a decorator that may `await`, for example to
  /// resolve another asynchronous key.
  @_disfavoredOverload
  public func decorate<A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<AsyncKind, A, V>>, fileID: StaticString = #fileID, line: UInt = #line,
    _ decorator: @escaping @Sendable (Resolver, V) async throws -> V
  ) {
    addDecoration(
      .async { r, value in try await decorator(r, try Self.typed(value)) }, fileID, line, KeyTable.index(of: key))
  }

  /// Not available: a synchronous key's decorator runs where its factory does, and cannot await.
  @_disfavoredOverload
  @available(
    *, unavailable,
    message: "a Key's decorator cannot await, as its factory cannot: declare the key as AsyncKey<Value>"
  )
  public func decorate<A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<SyncKind, A, V>>, fileID: StaticString = #fileID, line: UInt = #line,
    _ decorator: @escaping @Sendable (Resolver, V) async throws -> V
  ) {}

  /// Wraps what a main-actor key resolves to with a decorator that runs on the main actor, as
  /// the key's factory does.
  public func decorate<A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<MainActorKind, A, V>>, fileID: StaticString = #fileID,
    line: UInt = #line, _ decorator: @escaping @MainActor @Sendable (Resolver, V) throws -> V
  ) {
    addDecoration(
      .mainActor { r, value in try decorator(r, try Self.typed(value)) }, fileID, line, KeyTable.index(of: key))
  }

  /// Not available: a multibinding has no decorator of its own; each contribution is a factory of
  /// its own, which can wrap what it contributes.
  @available(
    *, unavailable,
    message:
      "a multibinding has no decorator: wrap each element in the contribution that makes it, `contribute(to: \\.key) { r in Wrapped(...) }`"
  )
  public func decorate<K, E>(
    _ key: KeyPath<Dependencies, MultibindingKey<K, E>>, fileID: StaticString = #fileID, line: UInt = #line,
    _ decorator: @escaping @Sendable (Resolver, [E]) throws -> [E]
  ) {}

  /// Wraps what a registered type (and name) resolves to.
  public func decorate<T: Sendable>(
    type: T.Type, name: String? = nil, fileID: StaticString = #fileID, line: UInt = #line,
    _ decorator: @escaping @Sendable (Resolver, T) throws -> T
  ) {
    addDecoration(
      .sync { r, value in try decorator(r, try Self.typed(value)) }, fileID, line, KeyTable.index(of: type, name: name))
  }

  /// The routine behind every `decorate`: adds `apply`, made at `fileID`:`line`, to `index`.
  private func addDecoration(_ apply: Decoration.Apply, _ fileID: StaticString, _ line: UInt, _ index: Int) {
    addDecoration(Decoration(location: CodeLocation(fileID, line), apply: apply), to: index)
  }

  /// The value a decorator of `V` receives.
  private static func typed<V>(_ value: any Sendable) throws -> V {
    guard let typed = value as? V else { throw DecorationTypeMismatch(expected: "\(V.self)") }
    return typed
  }
}

private struct DecorationTypeMismatch: Error, CustomStringConvertible {
  let expected: String
  var description: String { "a decorator expected a value of type \(expected)" }
}
