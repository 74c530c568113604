/// Where a resolution happens: a container, and the resolution step that asks (if any).
/// Engine plumbing shared by ``Container`` and ``Resolver``.
@usableFromInline
struct ResolutionContext: @unchecked Sendable {
  // Safe: `frame` is dereferenced only after checking that it is the calling thread's current
  // frame (so it is alive and owned by this thread); the other fields are immutable references
  // to Sendable objects.
  @usableFromInline let container: Container
  @usableFromInline let frame: UnsafeMutablePointer<Frame>?
  @usableFromInline let serial: UInt
  @usableFromInline let asyncFrame: AsyncFrame?

  @inlinable
  init(container: Container, frame: UnsafeMutablePointer<Frame>? = nil, asyncFrame: AsyncFrame? = nil) {
    self.container = container
    self.frame = frame
    self.serial = frame?.pointee.serial ?? 0
    self.asyncFrame = asyncFrame
  }

  /// Whether this is a factory's resolver whose factory is still running: its resolutions
  /// continue that factory's path, in its container, with no override scope applied again.
  @inlinable
  var isLiveStep: Bool {
    if let asyncFrame { return !asyncFrame.isFinished }
    guard let frame else { return false }
    return ThreadFrame.current == frame && frame.pointee.serial == serial
  }

  /// The frame a synchronous resolution from here continues (for an error's path).
  var parentFrame: UnsafeMutablePointer<Frame>? {
    if isLiveStep { return asyncFrame?.pointer ?? frame }
    return FactoryCall.withEnclosingStep(inside: ThreadFrame.current) { $0 }
  }

  /// Resolves `index` synchronously from here.
  @inlinable
  func resolve<Argument: Sendable, Value: Sendable>(_ index: Int, _ argument: Argument) throws -> Value {
    if isLiveStep {
      return try container.resolveSync(index, argument, parent: asyncFrame?.pointer ?? frame)
    }
    // A container, or a resolver kept beyond its factory: a top-level resolution, which
    // continues the step running here, if any (a factory that asks a container it captured, or
    // builds an instance whose `@Injected` properties resolve), in the override scope open in
    // this task, if any. The step on this thread is passed; with none, the engine looks for an
    // asynchronous factory that awaits this code (see ``Container/resolveSync(_:_:parent:)``).
    if let overlay = OverrideScope.activeOverlay(of: container) {
      return try overlay._withUnsafeGuaranteedRef { try $0.resolveSync(index, argument, parent: ThreadFrame.current) }
    }
    return try container.resolveSync(index, argument, parent: ThreadFrame.current)
  }

  /// Resolves `index` from asynchronous code.
  func resolveAsync<Argument: Sendable, Value: Sendable>(_ index: Int, _ argument: Argument) async throws -> Value {
    if let asyncFrame, !asyncFrame.isFinished {
      return try await container.resolveAsync(index, argument, parent: asyncFrame)
    }
    // A top-level resolution, which continues the asynchronous factory awaiting this code, if any.
    let awaiting = FactoryCall.awaitingStep(inside: ThreadFrame.current)
    return try await container.servingContainer().resolveAsync(index, argument, parent: awaiting)
  }

  /// ``resolve(_:_:)`` for a call of the user's at `site` (see ``asked(for:at:_:)``). Written
  /// out, not through `asked`: its closure makes every resolution retain and release the
  /// container (S3 +47 instructions, and two threads contend for the count).
  @inlinable
  func resolve<Argument: Sendable, Value: Sendable>(
    _ index: Int, _ argument: Argument, askedAt site: CallSite
  ) throws -> Value {
    do {
      return try resolve(index, argument)
    } catch {
      throw ResolutionError.requested(error, index, at: site)
    }
  }

  /// ``resolveAsync(_:_:)`` for a call of the user's at `site` (see ``asked(for:at:_:)``).
  func resolveAsync<Argument: Sendable, Value: Sendable>(
    _ index: Int, _ argument: Argument, askedAt site: CallSite
  ) async throws -> Value {
    try await Self.asked(for: index, at: site) { try await resolveAsync(index, argument) }
  }

  /// Runs `resolution`, the resolution of `index` a call of the user's at `site` asked for: an
  /// error about `index` itself names the site (``ResolutionError/requestedAt``). Every public
  /// way to ask for a key or a type does this: here, in ``resolve(_:_:askedAt:)`` (written out)
  /// or in a handle's `located`. The site costs nothing until something fails.
  static func asked<R>(for index: Int, at site: CallSite, _ resolution: () throws -> R) throws -> R {
    do {
      return try resolution()
    } catch {
      throw ResolutionError.requested(error, index, at: site)
    }
  }

  /// ``asked(for:at:_:)`` for an asynchronous `resolution`.
  static func asked<R>(for index: Int, at site: CallSite, _ resolution: () async throws -> R) async throws -> R {
    do {
      return try await resolution()
    } catch {
      throw ResolutionError.requested(error, index, at: site)
    }
  }
}

/// Something that resolves dependencies: a ``Container``, or the ``Resolver`` a factory receives.
///
/// Every method throws ``ResolutionError`` rather than returning nil or trapping. A type outside
/// Knapsack that conforms resolves from ``Container/current``.
public protocol Resolving: Sendable {}

extension Resolving {
  /// Where resolutions made through this value happen.
  @inlinable
  var resolutionContext: ResolutionContext {
    if let container = self as? Container { return ResolutionContext(container: container) }
    if let resolver = self as? Resolver { return resolver.context }
    return ResolutionContext(container: .current)
  }
}

extension Resolving {
  /// Resolves a key: `try container.resolve(\.storage)`.
  ///
  /// Like every `resolve` and subscript, it takes the line of the call: an error about the key
  /// names it (``ResolutionError/requestedAt``). Leave `fileID` and `line` to their defaults.
  @inlinable
  public func resolve<V>(
    _ key: consuming KeyPath<Dependencies, Key<V>>, fileID: StaticString = #fileID, line: UInt = #line
  ) throws -> V {
    // Each `resolve` takes its key over, so the call site has no release to make after it (see
    // `KeyTable.index(taking:)`).
    try resolutionContext.resolve(KeyTable.index(taking: key), (), askedAt: CallSite(fileID, line))
  }

  /// Resolves a key: `try container[\.storage]`.
  @inlinable
  public subscript<V>(
    _ key: KeyPath<Dependencies, Key<V>>, fileID fileID: StaticString = #fileID, line line: UInt = #line
  ) -> V {
    // A subscript cannot take its key over (see `resolve(_:)`): it borrows it.
    get throws { try resolutionContext.resolve(KeyTable.index(of: key), (), askedAt: CallSite(fileID, line)) }
  }

  /// Resolves a key that takes a runtime argument.
  ///
  /// ```swift
  /// let model = try container.resolve(\.profile, argument: userID)
  /// ```
  @inlinable
  public func resolve<A, V>(
    _ key: consuming KeyPath<Dependencies, ArgumentKey<A, V>>, argument: A, fileID: StaticString = #fileID,
    line: UInt = #line
  ) throws -> V {
    try resolutionContext.resolve(KeyTable.index(taking: key), argument, askedAt: CallSite(fileID, line))
  }

  /// Not available: the argument is passed with its label, for a key of every kind. (Without
  /// it, the compiler asks for the labels of a type resolution, or for a synchronous key.)
  @available(*, unavailable, message: "pass the argument with its label: `resolve(\\.key, argument: value)`")
  public func resolve<K, A, V>(_ key: KeyPath<Dependencies, DependencyKey<K, A, V>>, _ argument: A) throws -> V {
    throw UnavailableCall()
  }

  /// Not available: a key that takes an argument is resolved with one. (Without it, the
  /// compiler says the key path is not a `Key`'s.)
  @available(*, unavailable, message: "this key takes an argument: pass it, `resolve(\\.key, argument: value)`")
  public func resolve<A, V>(_ key: KeyPath<Dependencies, ArgumentKey<A, V>>) throws -> V { throw UnavailableCall() }

  /// Not available: an asynchronous key that takes an argument is resolved with one.
  @available(*, unavailable, message: "this key takes an argument: pass it, `resolve(\\.key, argument: value)`")
  public func resolve<A, V>(_ key: KeyPath<Dependencies, DependencyKey<AsyncKind, A, V>>) async throws -> V {
    throw UnavailableCall()
  }

  /// Not available: a main-actor key that takes an argument is resolved with one.
  @available(*, unavailable, message: "this key takes an argument: pass it, `resolve(\\.key, argument: value)`")
  @MainActor
  public func resolve<A, V>(_ key: KeyPath<Dependencies, DependencyKey<MainActorKind, A, V>>) throws -> V {
    throw UnavailableCall()
  }

  /// Not available: a key that takes an argument is resolved with one.
  @available(
    *, unavailable, message: "this key takes an argument: resolve it with `resolve(\\.key, argument: value)`"
  )
  public subscript<A, V>(_ key: KeyPath<Dependencies, ArgumentKey<A, V>>) -> V {
    get throws { throw UnavailableCall() }
  }

  /// Not available: an asynchronous key that takes an argument is resolved with one. (Without
  /// it, the compiler says the key path is not an `AsyncKey`'s.)
  @available(
    *, unavailable,
    message: "this key takes an argument: resolve it with `try await resolve(\\.key, argument: value)`"
  )
  public subscript<A, V>(_ key: KeyPath<Dependencies, DependencyKey<AsyncKind, A, V>>) -> V {
    get async throws { throw UnavailableCall() }
  }

  /// Not available: a main-actor key that takes an argument is resolved with one. (Without it,
  /// the compiler says the key path is not a `MainActorKey`'s.)
  @available(
    *, unavailable, message: "this key takes an argument: resolve it with `resolve(\\.key, argument: value)`"
  )
  public subscript<A, V>(_ key: KeyPath<Dependencies, DependencyKey<MainActorKind, A, V>>) -> V {
    get throws { throw UnavailableCall() }
  }

  /// Not available: a key is told apart by its key path, not by a name. (Without it, the
  /// compiler asks for the `type:` label of a type resolution.)
  @available(
    *, unavailable,
    message:
      "a key needs no name: its key path tells it apart; resolve it with `resolve(\\.key)`, or resolve a type registered with a name, `resolve(type: T.self, name: name)`"
  )
  public func resolve<Key: DependencyKeyType>(_ key: KeyPath<Dependencies, Key>, name: String?) throws -> Key.Value {
    throw UnavailableCall()
  }

  /// Resolves a key whose factory is asynchronous.
  ///
  /// ```swift
  /// let database = try await container.resolve(\.database)
  /// ```
  public func resolve<A, V>(
    _ key: consuming KeyPath<Dependencies, DependencyKey<AsyncKind, A, V>>, argument: A,
    fileID: StaticString = #fileID, line: UInt = #line
  ) async throws -> V {
    try await resolutionContext.resolveAsync(KeyTable.index(taking: key), argument, askedAt: CallSite(fileID, line))
  }

  /// Resolves an ``AsyncKey``: `try await container.resolve(\.database)`.
  public func resolve<V>(
    _ key: consuming KeyPath<Dependencies, AsyncKey<V>>, fileID: StaticString = #fileID, line: UInt = #line
  ) async throws -> V {
    try await resolutionContext.resolveAsync(KeyTable.index(taking: key), (), askedAt: CallSite(fileID, line))
  }

  /// Resolves an ``AsyncKey``: `try await container[\.database]`.
  public subscript<V>(
    _ key: KeyPath<Dependencies, AsyncKey<V>>, fileID fileID: StaticString = #fileID, line line: UInt = #line
  ) -> V {
    get async throws {
      try await resolutionContext.resolveAsync(KeyTable.index(of: key), (), askedAt: CallSite(fileID, line))
    }
  }

  /// Resolves a main-actor key from main-actor code.
  @MainActor
  public func resolve<V>(
    _ key: consuming KeyPath<Dependencies, MainActorKey<V>>, fileID: StaticString = #fileID, line: UInt = #line
  ) throws -> V {
    try resolutionContext.resolve(KeyTable.index(taking: key), (), askedAt: CallSite(fileID, line))
  }

  /// Resolves a main-actor key from any asynchronous code: hops to the main actor to run it.
  public func resolve<V>(
    _ key: consuming KeyPath<Dependencies, MainActorKey<V>>, fileID: StaticString = #fileID, line: UInt = #line
  ) async throws -> V {
    try await resolutionContext.resolveAsync(KeyTable.index(taking: key), (), askedAt: CallSite(fileID, line))
  }

  /// Resolves a main-actor key that takes an argument, from main-actor code.
  @MainActor
  public func resolve<A, V>(
    _ key: consuming KeyPath<Dependencies, DependencyKey<MainActorKind, A, V>>, argument: A,
    fileID: StaticString = #fileID, line: UInt = #line
  ) throws -> V {
    try resolutionContext.resolve(KeyTable.index(taking: key), argument, askedAt: CallSite(fileID, line))
  }

  /// Resolves a main-actor key: `try container[\.todoScreen]`.
  @MainActor
  public subscript<V>(
    _ key: KeyPath<Dependencies, MainActorKey<V>>, fileID fileID: StaticString = #fileID, line line: UInt = #line
  ) -> V {
    get throws { try resolutionContext.resolve(KeyTable.index(of: key), (), askedAt: CallSite(fileID, line)) }
  }

  /// Resolves a type registered with `register(type:name:scope:...)`.
  ///
  /// ```swift
  /// let secure = try container.resolve(type: (any LocalStorage).self, name: "secure")
  /// ```
  ///
  /// - Parameters:
  ///   - type: The type to resolve.
  ///   - name: The name it was registered with, if any.
  ///   - fileID: The file of the call, named by the error if nothing is registered for the type
  ///     (``ResolutionError/requestedAt``); leave the default.
  ///   - line: The line of the call; leave the default.
  @inlinable
  public func resolve<T: Sendable>(
    type: T.Type, name: String? = nil, fileID: StaticString = #fileID, line: UInt = #line
  ) throws -> T {
    try resolutionContext.resolve(KeyTable.index(of: type, name: name), (), askedAt: CallSite(fileID, line))
  }

  /// Resolves a type registered with `register(type:name:scope:...)`, like
  /// ``resolve(type:name:fileID:line:)`` but with no call site to name: the shape a protocol of
  /// your own may require, `func resolve<T: Sendable>(type: T.Type, name: String?) throws -> T`,
  /// which `Container` and ``Resolver`` then satisfy with no adapter.
  @_disfavoredOverload
  public func resolve<T: Sendable>(type: T.Type, name: String?) throws -> T {
    let index = KeyTable.index(of: type, name: name)
    do {
      return try resolutionContext.resolve(index, ())
    } catch {
      throw ResolutionError.requestedWithoutSite(error, index)
    }
  }

  // Unavailable overloads that exist only so that the compiler names the mistake. Without
  // them, a call whose result type cannot be inferred gets "failed to produce diagnostic".

  /// Not available: say which type to resolve, `let value: T = try container.resolve()`.
  @available(
    *, unavailable,
    message: "say which type to resolve: `let value: T = try container.resolve()`, or `resolve(type: T.self)`"
  )
  public func resolve() throws -> Never { throw UnavailableCall() }

  /// Not available: a registered type takes no argument; a key does. (Without it, the compiler
  /// finds no `resolve` that matches.)
  @available(
    *, unavailable,
    message:
      "a registered type takes no argument: declare a key that takes one, `ArgumentKey<Argument, Value>`, and resolve it with `resolve(\\.key, argument: value)`"
  )
  public func resolve<T, A>(type: T.Type, name: String? = nil, argument: A) throws -> T { throw UnavailableCall() }

  /// Resolves the type the caller expects, registered without a name: the shape of a
  /// hand-written `DependencyProvider`.
  ///
  /// ```swift
  /// protocol DependencyProvider { func resolve<T>() throws -> T }
  /// extension Container: DependencyProvider {}
  /// let storage: any LocalStorage = try container.resolve()
  /// ```
  ///
  /// A direct call names its line if nothing is registered for the type
  /// (``ResolutionError/requestedAt``); through a protocol of your own, which passes no line, it
  /// cannot.
  ///
  /// - Parameters:
  ///   - fileID: The file of the call; leave the default.
  ///   - line: The line of the call; leave the default.
  public func resolve<T>(fileID: StaticString = #fileID, line: UInt = #line) throws -> T {
    do {
      return try resolveExpected()
    } catch {
      throw ResolutionError.requested(error, KeyTable.index(of: T.self, name: nil), at: CallSite(fileID, line))
    }
  }

  /// Resolves the type the caller expects, like ``resolve(fileID:line:)`` but with no call site
  /// to name: the witness of a hand-written `DependencyProvider`'s `func resolve<T>() throws -> T`,
  /// which `Container` and ``Resolver`` satisfy with no adapter.
  @_disfavoredOverload
  public func resolve<T>() throws -> T {
    do {
      return try resolveExpected()
    } catch {
      throw ResolutionError.requestedWithoutSite(error, KeyTable.index(of: T.self, name: nil))
    }
  }

  /// The routine behind both: the type `T`, registered without a name, cast from the erased
  /// value (`T` need not be `Sendable`: a `DependencyProvider`'s requirement does not say so).
  private func resolveExpected<T>() throws -> T {
    let context = resolutionContext
    let index = KeyTable.index(of: T.self, name: nil)
    let value = try context.container.resolveErased(index, context)
    guard let typed = value as? T else {
      throw context.container.failure(.factoryMismatch, index, nil)
    }
    return typed
  }
}

extension Container {
  /// Resolves a type-registered `index` whose static type the caller cannot name as `Sendable`.
  func resolveErased(_ index: Int, _ context: ResolutionContext) throws -> any Sendable {
    let serving = context.isLiveStep ? context.container : context.container.servingContainer()
    guard let registration = serving.effectiveRegistration(index)?.0 else {
      throw serving.failure(.notRegistered, index, context.parentFrame)
    }
    return try registration.resolveErased(context)
  }
}

extension Container: Resolving {}

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
  @usableFromInline let context: ResolutionContext

  @inlinable
  init(container: Container, frame: UnsafeMutablePointer<Frame>) {
    context = ResolutionContext(container: container, frame: frame)
  }

  init(container: Container, asyncFrame: AsyncFrame) {
    context = ResolutionContext(container: container, asyncFrame: asyncFrame)
  }

  var container: Container { context.container }
}

extension KeyTable {
  /// The index of a key of any kind, registering it on first sight with its own description.
  /// Static, so that a hit in the cache does not touch ``shared``.
  @inlinable
  static func index<K: KeyKind, A: Sendable, V: Sendable>(of key: KeyPath<Dependencies, DependencyKey<K, A, V>>) -> Int
  {
    AddressCache.lookup(ObjectIdentifier(key)) ?? shared.slowIndex(of: key)
  }

  /// ``index(of:)`` for a key path the caller hands over: its reference is kept, not released.
  /// Every key path looked up becomes immortal (see ``remember(_:index:)``), so keeping one
  /// reference changes nothing, and the call site is spared a release per resolution.
  @inlinable
  static func index<K: KeyKind, A: Sendable, V: Sendable>(
    taking key: consuming KeyPath<Dependencies, DependencyKey<K, A, V>>
  ) -> Int {
    let index = index(of: key)
    _ = Unmanaged.passRetained(consume key)
    return index
  }

  @usableFromInline
  func slowIndex<K: KeyKind, A: Sendable, V: Sendable>(of key: KeyPath<Dependencies, DependencyKey<K, A, V>>) -> Int {
    index(of: key as AnyKeyPath) { Dependencies()[keyPath: key].descriptor(index: $0, keyPath: key) }
  }

  static func index<K, E>(of key: KeyPath<Dependencies, MultibindingKey<K, E>>) -> Int {
    shared.index(of: key as AnyKeyPath) { Dependencies()[keyPath: key].descriptor(index: $0, keyPath: key) }
  }

  static func name(_ keyPath: AnyKeyPath, _ declaration: Declaration) -> String {
    "\\.\(declaration.name)"
  }

  /// The type's name as Swift spells it, with `any` before an existential (`any LocalStorage`);
  /// `qualified`, with its module and enclosing types (`TodoKit.Sync.Config`).
  static func typeName(_ type: Any.Type, qualified: Bool = false) -> String {
    // `_typeName` reads the runtime's name; `String(describing:)` would first look for protocol
    // conformances of the metatype, which scans every conformance in the process.
    let name = _typeName(type, qualified: qualified)
    // The first word of type metadata is its kind; 0x303 marks an existential.
    let kind = unsafeBitCast(type, to: UnsafePointer<UInt>.self).pointee
    return kind == 0x303 && name != "Any" && name != "AnyObject" ? "any \(name)" : name
  }
}
