/// A collection key: several modules contribute elements, and resolving it returns all of them.
///
/// Use it for plug-ins, analytics sinks, middleware: the module that consumes them declares the
/// key, and any module contributes with ``Container/contribute(to:scope:hasSideEffects:dispose:fileID:line:_:)-(KeyPath<Dependencies,Multibinding<E>>,_,_,_,_,_,(Resolver)->E)``.
///
/// ```swift
/// extension Dependencies {
///   var analyticsSinks: Multibinding<any AnalyticsSink> { Multibinding() }
/// }
/// container.contribute(to: \.analyticsSinks, scope: .singleton) { ConsoleSink() }
/// let sinks = try container.resolve(\.analyticsSinks)   // [any AnalyticsSink]
/// ```
///
/// The order is stable: a parent container's contributions before a child's, and within one
/// container the order in which they were contributed (so, for assemblies, the order of the
/// assemblies). Each contribution has its own scope. Inside an override scope, contributions
/// registered on the override container are appended after the overridden container's.
///
/// Like a key, a multibinding has a kind: ``Multibinding`` elements are made synchronously,
/// ``AsyncMultibinding`` elements may `await` (resolve it with `try await`), and
/// ``MainActorMultibinding`` elements are made on the main actor.
public struct MultibindingKey<Kind: KeyKind, Element: Sendable>: Sendable {
  let declaration: Declaration

  /// Declares the key.
  public init(_ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line) {
    declaration = Declaration(name, fileID, line)
  }
}

/// A multibinding whose elements are made synchronously.
public typealias Multibinding<Element: Sendable> = MultibindingKey<SyncKind, Element>

/// A multibinding whose elements may be made asynchronously; resolve it with `try await`.
public typealias AsyncMultibinding<Element: Sendable> = MultibindingKey<AsyncKind, Element>

/// A multibinding whose elements are made on the main actor.
public typealias MainActorMultibinding<Element: Sendable> = MultibindingKey<MainActorKind, Element>

extension Container {
  /// Adds an element to a ``Multibinding``; its factory runs with `scope` (unique by default).
  ///
  /// Like a registration, a contribution kept by its scope is closed by ``dispose()``: through
  /// `dispose`, if given, else through ``Disposable``.
  public func contribute<E>(
    to key: KeyPath<Dependencies, Multibinding<E>>, scope: Scope = .unique, hasSideEffects: Bool = false,
    dispose: (@Sendable (E) async throws -> Void)? = nil, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver) throws -> E
  ) {
    addContribution(
      to: key, Factory(.resolverOnly(factory)), scope, hasSideEffects, dispose, CodeLocation(fileID, line))
  }

  /// Adds an element to a ``Multibinding`` with a factory that resolves nothing:
  /// `container.contribute(to: \.sinks) { ConsoleSink() }`.
  public func contribute<E>(
    to key: KeyPath<Dependencies, Multibinding<E>>, scope: Scope = .unique, hasSideEffects: Bool = false,
    dispose: (@Sendable (E) async throws -> Void)? = nil, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable () throws -> E
  ) {
    addContribution(to: key, Factory(.plain(factory)), scope, hasSideEffects, dispose, CodeLocation(fileID, line))
  }

  /// Not available: a ``Multibinding``'s contributions are made synchronously.
  @_disfavoredOverload
  @available(
    *, unavailable,
    message:
      "a Multibinding's contributions cannot await: declare the key as AsyncMultibinding<Element> to contribute elements that await"
  )
  public func contribute<E>(
    to key: KeyPath<Dependencies, Multibinding<E>>, scope: Scope = .unique, hasSideEffects: Bool = false,
    dispose: (@Sendable (E) async throws -> Void)? = nil, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver) async throws -> E
  ) {}

  /// Not available: a ``Multibinding``'s contributions are made synchronously (a factory that
  /// resolves nothing, too).
  @_disfavoredOverload
  @available(
    *, unavailable,
    message:
      "a Multibinding's contributions cannot await: declare the key as AsyncMultibinding<Element> to contribute elements that await"
  )
  public func contribute<E>(
    to key: KeyPath<Dependencies, Multibinding<E>>, scope: Scope = .unique, hasSideEffects: Bool = false,
    dispose: (@Sendable (E) async throws -> Void)? = nil, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable () async throws -> E
  ) {}

  /// Not available: only a multibinding takes contributions; any other key is registered.
  @available(
    *, unavailable,
    message:
      "only a multibinding (Multibinding<Element>) takes contributions: register this key, `container.register(\\.key) { r in ... }`"
  )
  public func contribute<K, A, V>(
    to key: KeyPath<Dependencies, DependencyKey<K, A, V>>, scope: Scope = .unique, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver) throws -> V
  ) {}

  /// Not available: only a multibinding takes contributions (with a factory that resolves
  /// nothing, too).
  @available(
    *, unavailable,
    message:
      "only a multibinding (Multibinding<Element>) takes contributions: register this key, `container.register(\\.key) { ... }`"
  )
  public func contribute<K, A, V>(
    to key: KeyPath<Dependencies, DependencyKey<K, A, V>>, scope: Scope = .unique, hasSideEffects: Bool = false,
    dispose: (@Sendable (V) async throws -> Void)? = nil, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable () throws -> V
  ) {}

  /// Not available: a multibinding is not registered as a whole; each element is contributed.
  @available(
    *, unavailable,
    message:
      "a multibinding is not registered as a whole: contribute each element, `container.contribute(to: \\.key) { r in ... }`"
  )
  public func register<K, E>(
    _ key: KeyPath<Dependencies, MultibindingKey<K, E>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable ([E]) async throws -> Void)? = nil, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver) throws -> [E]
  ) {}

  /// Not available: a multibinding is not registered as a whole (with a factory that resolves
  /// nothing, too); each element is contributed.
  @available(
    *, unavailable,
    message:
      "a multibinding is not registered as a whole: contribute each element, `container.contribute(to: \\.key) { ... }`"
  )
  public func register<K, E>(
    _ key: KeyPath<Dependencies, MultibindingKey<K, E>>, scope: Scope? = nil, hasSideEffects: Bool = false,
    dispose: (@Sendable ([E]) async throws -> Void)? = nil, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable () throws -> [E]
  ) {}

  /// Adds an element to an ``AsyncMultibinding``; its factory may `await`.
  public func contribute<E>(
    to key: KeyPath<Dependencies, AsyncMultibinding<E>>, scope: Scope = .unique, hasSideEffects: Bool = false,
    dispose: (@Sendable (E) async throws -> Void)? = nil, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver) async throws -> E
  ) {
    let body = Factory<Void, E>.Body.async { resolver, _ in try await factory(resolver) }
    addContribution(to: key, Factory(body), scope, hasSideEffects, dispose, CodeLocation(fileID, line))
  }

  /// Adds an element to an ``AsyncMultibinding`` with a factory that resolves nothing; it may
  /// `await`.
  public func contribute<E>(
    to key: KeyPath<Dependencies, AsyncMultibinding<E>>, scope: Scope = .unique, hasSideEffects: Bool = false,
    dispose: (@Sendable (E) async throws -> Void)? = nil, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable () async throws -> E
  ) {
    let body = Factory<Void, E>.Body.async { _, _ in try await factory() }
    addContribution(to: key, Factory(body), scope, hasSideEffects, dispose, CodeLocation(fileID, line))
  }

  /// Adds an element to a ``MainActorMultibinding``; its factory runs on the main actor.
  public func contribute<E>(
    to key: KeyPath<Dependencies, MainActorMultibinding<E>>, scope: Scope = .unique, hasSideEffects: Bool = false,
    dispose: (@Sendable (E) async throws -> Void)? = nil, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @MainActor @Sendable (Resolver) throws -> E
  ) {
    let body = Factory<Void, E>.Body.mainActor { resolver, _ in try factory(resolver) }
    addContribution(to: key, Factory(body), scope, hasSideEffects, dispose, CodeLocation(fileID, line))
  }

  /// Adds an element to a ``MainActorMultibinding`` with a factory that resolves nothing; it runs
  /// on the main actor.
  public func contribute<E>(
    to key: KeyPath<Dependencies, MainActorMultibinding<E>>, scope: Scope = .unique, hasSideEffects: Bool = false,
    dispose: (@Sendable (E) async throws -> Void)? = nil, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @MainActor @Sendable () throws -> E
  ) {
    let body = Factory<Void, E>.Body.mainActor { _, _ in try factory() }
    addContribution(to: key, Factory(body), scope, hasSideEffects, dispose, CodeLocation(fileID, line))
  }

  /// The routine behind every `contribute`: registers the contribution under an index of its own.
  private func addContribution<K, E>(
    to key: KeyPath<Dependencies, MultibindingKey<K, E>>, _ factory: Factory<Void, E>, _ scope: Scope,
    _ hasSideEffects: Bool, _ dispose: (@Sendable (E) async throws -> Void)?, _ location: CodeLocation
  ) {
    let keyIndex = KeyTable.index(of: key)
    let keyName = KeyTable.shared.descriptor(keyIndex).displayName
    // Reports and graphs tell dependencies apart by name: a second contribution from one line
    // that a container sees (a loop, a helper called twice, here, in an ancestor or in a
    // descendant) is numbered. One numbering at a time, so that two made at once from one line
    // are not given one number.
    let place = KeyTable.ContributionPlace(key: keyIndex, location: location)
    let replaced = Self.contributionNumbering.withLock { _ in
      let related = inherited { [$0] } + descendants()
      let highest = related.map { container in container.state.withLock { $0.contributionOrdinals[place] ?? 0 } }.max()
      let site = KeyTable.ContributionSite(place: place, ordinal: (highest ?? 0) + 1)
      let number = site.ordinal == 1 ? "" : " #\(site.ordinal)"
      let index = KeyTable.shared.contributionIndex(at: site) { index in
        Descriptor(
          index: index, kind: .contribution, displayName: "\(keyName) contribution (\(location))\(number)",
          typeName: KeyTable.typeName(E.self), declaration: location, defaultRegistration: nil)
      }
      let registration = TypedRegistration(
        index: index, scope: scope, factory: factory, location: location, isDefault: false,
        hasSideEffects: hasSideEffects, dispose: Self.eraseDispose(dispose))
      // A contribution's index is its own in this container, so it replaces nothing; were it to,
      // the replaced registration would be let go after the locks (see `RegistrationMap.Replaced`).
      return state.withLock {
        $0.contributions[keyIndex, default: []].append(registration)
        $0.contributionOrdinals[place] = site.ordinal
        return $0.registrations.store(registration, at: index)
      }
    }
    invalidatePlans()
    _ = consume replaced
  }

  /// Held while a contribution is numbered (see ``addContribution(to:_:_:_:_:_:)``). Taken before
  /// any container's lock, never while one is held.
  private static let contributionNumbering = Locked(())

  /// This container's live descendants: its children, theirs, and so on (a work list, not
  /// recursion: a line of children may be deeper than the stack).
  private func descendants() -> [Container] {
    var found: [Container] = []
    var pending = [self]
    while let container = pending.popLast() {
      let children = container.state.withLock { $0.children.objects }
      found += children
      pending += children
    }
    return found
  }

  /// The contributions to `keyIndex` visible here, in their documented order.
  func contributions(to keyIndex: Int) -> [Int] {
    inherited { container in container.state.withLock { $0.contributions[keyIndex] ?? [] }.map(\.index) }
  }

  /// Checks the stack at a multibinding step below another. Every multibinding step checks: the
  /// contribution steps between them check only at every ``StackGuard/interval``-th depth, which
  /// a chain of multibindings and contributions, alternating, could step over.
  private func checkDepth(_ keyIndex: Int, _ frame: UnsafeMutablePointer<Frame>) throws {
    if frame.pointee.parent != nil { try checkStack(keyIndex, frame) }
  }

  /// Resolves every contribution to `keyIndex`, as one step of the resolution path.
  func resolveElements<E: Sendable>(_ keyIndex: Int, parent: UnsafeMutablePointer<Frame>?) throws -> [E] {
    let contributions = contributions(to: keyIndex)
    var frame = Frame(index: keyIndex, container: self, parent: parent)
    // No stack protector for the frame, as in `Container.produce`.
    return try _withUnprotectedUnsafeMutablePointer(to: &frame) { frame in
      defer { if parent == nil { frame.pointee.releaseGraph() } }
      // Each contribution's step throws it for a disposed container; a key with none has no step.
      if contributions.isEmpty, isDisposed { throw failure(.containerDisposed, keyIndex, frame) }
      try checkDepth(keyIndex, frame)
      let resolveAll = { () throws -> [E] in try contributions.map { try self.resolveSync($0, (), parent: frame) } }
      guard let observer = effectiveObserver else { return try resolveAll() }
      // Observed: the key itself is a node between its users and its contributions.
      return try Observation(
        observer, index: keyIndex, scope: .unique, registeredAt: nil, reused: false, parent: parent
      )
      .run(resolveAll)
    }
  }

  /// Resolves every contribution to `keyIndex` from asynchronous code, each the way its kind
  /// needs (awaited, or on the main actor), as one step of the resolution path.
  func resolveElementsAsync<E: Sendable>(_ keyIndex: Int, parent: AsyncFrame?) async throws -> [E] {
    let contributions = contributions(to: keyIndex)
    let frame = AsyncFrame(index: keyIndex, container: self, argument: (), parent: parent, keeps: false)
    defer { frame.finish() }
    if contributions.isEmpty, isDisposed { throw failure(.containerDisposed, keyIndex, frame.pointer) }
    try checkDepth(keyIndex, frame.pointer)
    let resolveAll = { () async throws -> [E] in
      var elements: [E] = []
      for index in contributions { elements.append(try await self.resolveAsync(index, (), parent: frame)) }
      return elements
    }
    guard let observer = effectiveObserver else { return try await resolveAll() }
    return try await Observation(
      observer, index: keyIndex, scope: .unique, registeredAt: nil, reused: false, parent: parent?.pointer
    )
    .runAsync(resolveAll)
  }
}

extension ResolutionContext {
  func resolveElements<E: Sendable>(_ keyIndex: Int) throws -> [E] {
    if isLiveStep { return try container.resolveElements(keyIndex, parent: asyncFrame?.pointer ?? frame) }
    return try FactoryCall.withEnclosingStep(inside: ThreadFrame.current) {
      try container.servingContainer().resolveElements(keyIndex, parent: $0)
    }
  }

  func resolveElementsAsync<E: Sendable>(_ keyIndex: Int) async throws -> [E] {
    if let asyncFrame, !asyncFrame.isFinished {
      return try await container.resolveElementsAsync(keyIndex, parent: asyncFrame)
    }
    let awaiting = FactoryCall.awaitingStep(inside: ThreadFrame.current)
    return try await container.servingContainer().resolveElementsAsync(keyIndex, parent: awaiting)
  }
}

extension Resolving {
  /// Not available: a multibinding takes no argument. (Without it, the compiler finds no
  /// `resolve` that matches.)
  @available(
    *, unavailable,
    message:
      "a multibinding takes no argument: resolve it with `resolve(\\.key)`, and pass what an element needs to its key"
  )
  public func resolve<K, E, A>(_ key: KeyPath<Dependencies, MultibindingKey<K, E>>, argument: A) throws -> [E] {
    throw UnavailableCall()
  }

  /// Resolves every element contributed to a ``Multibinding``, in their stable order.
  ///
  /// An error about the multibinding itself (a disposed container) names the line of the call
  /// (``ResolutionError/requestedAt``): leave `fileID` and `line` to their defaults.
  public func resolve<E>(
    _ key: KeyPath<Dependencies, Multibinding<E>>, fileID: StaticString = #fileID, line: UInt = #line
  ) throws -> [E] {
    try elements(KeyTable.index(of: key), CallSite(fileID, line))
  }

  /// Resolves every element contributed to a ``Multibinding``: `try container[\.plugins]`.
  public subscript<E>(
    _ key: KeyPath<Dependencies, Multibinding<E>>, fileID fileID: StaticString = #fileID, line line: UInt = #line
  ) -> [E] {
    get throws { try resolve(key, fileID: fileID, line: line) }
  }

  /// Resolves every element contributed to an ``AsyncMultibinding``, in their stable order.
  public func resolve<E>(
    _ key: KeyPath<Dependencies, AsyncMultibinding<E>>, fileID: StaticString = #fileID, line: UInt = #line
  ) async throws -> [E] {
    try await elementsAsync(KeyTable.index(of: key), CallSite(fileID, line))
  }

  /// Resolves every element contributed to an ``AsyncMultibinding``: `try await container[\.sinks]`.
  public subscript<E>(
    _ key: KeyPath<Dependencies, AsyncMultibinding<E>>, fileID fileID: StaticString = #fileID,
    line line: UInt = #line
  ) -> [E] {
    get async throws { try await resolve(key, fileID: fileID, line: line) }
  }

  /// Resolves every element contributed to a ``MainActorMultibinding``, on the main actor.
  @MainActor
  public func resolve<E>(
    _ key: KeyPath<Dependencies, MainActorMultibinding<E>>, fileID: StaticString = #fileID, line: UInt = #line
  ) throws -> [E] {
    try elements(KeyTable.index(of: key), CallSite(fileID, line))
  }

  /// Resolves every element contributed to a ``MainActorMultibinding``, on the main actor:
  /// `try container[\.screens]`.
  @MainActor
  public subscript<E>(
    _ key: KeyPath<Dependencies, MainActorMultibinding<E>>, fileID fileID: StaticString = #fileID,
    line line: UInt = #line
  ) -> [E] {
    get throws { try resolve(key, fileID: fileID, line: line) }
  }

  /// Resolves every element contributed to a ``MainActorMultibinding`` from any asynchronous
  /// code: each element is made on the main actor.
  public func resolve<E>(
    _ key: KeyPath<Dependencies, MainActorMultibinding<E>>, fileID: StaticString = #fileID, line: UInt = #line
  ) async throws -> [E] {
    try await elementsAsync(KeyTable.index(of: key), CallSite(fileID, line))
  }

  /// The elements of the multibinding at `index`, asked for at `site`: what each `resolve` of a
  /// multibinding runs.
  private func elements<E: Sendable>(_ index: Int, _ site: CallSite) throws -> [E] {
    try ResolutionContext.asked(for: index, at: site) { try resolutionContext.resolveElements(index) }
  }

  /// ``elements(_:_:)`` from asynchronous code.
  private func elementsAsync<E: Sendable>(_ index: Int, _ site: CallSite) async throws -> [E] {
    try await ResolutionContext.asked(for: index, at: site) { try await resolutionContext.resolveElementsAsync(index) }
  }
}
