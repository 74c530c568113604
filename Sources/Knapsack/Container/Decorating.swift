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
  public func decorate<K, A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<K, A, V>>, fileID: StaticString = #fileID, line: UInt = #line,
    _ decorator: @escaping @Sendable (Resolver, V) throws -> V
  ) {
    addDecoration(Self.decoration(decorator, CodeLocation(fileID, line)), to: KeyTable.index(of: key))
  }

  /// Wraps what a registered type (and name) resolves to.
  public func decorate<T: Sendable>(
    type: T.Type, name: String? = nil, fileID: StaticString = #fileID, line: UInt = #line,
    _ decorator: @escaping @Sendable (Resolver, T) throws -> T
  ) {
    addDecoration(
      Self.decoration(decorator, CodeLocation(fileID, line)), to: KeyTable.index(of: type, name: name))
  }

  private static func decoration<V: Sendable>(
    _ decorator: @escaping @Sendable (Resolver, V) throws -> V, _ location: CodeLocation
  ) -> Decoration {
    Decoration(location: location) { resolver, value in
      guard let typed = value as? V else { throw DecorationTypeMismatch(expected: "\(V.self)") }
      return try decorator(resolver, typed)
    }
  }
}

private struct DecorationTypeMismatch: Error, CustomStringConvertible {
  let expected: String
  var description: String { "a decorator expected a value of type \(expected)" }
}
