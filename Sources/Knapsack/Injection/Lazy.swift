import Synchronization

/// A key type, whatever its kind, argument and value: what ``Provider`` and ``Lazy`` are generic
/// over, so that their type names the key they resolve (`Provider<Key<Session>>`,
/// `Lazy<AsyncKey<Database>>`).
public protocol DependencyKeyType: Sendable {
  /// How the key's factory runs.
  associatedtype Kind: KeyKind
  /// What the factory takes (`Void` for a key without an argument).
  associatedtype Argument: Sendable
  /// What the key resolves to.
  associatedtype Value: Sendable
}

extension DependencyKey: DependencyKeyType {}

/// A multibinding key resolves, with no argument, to the array of its elements.
extension MultibindingKey: DependencyKeyType {
  /// A multibinding takes no argument.
  public typealias Argument = Void
  /// All the elements contributed.
  public typealias Value = [Element]
}

/// A key whose value is the elements contributed to it: resolved by the multibinding step, not
/// through a registration of its own.
protocol ElementsKey {
  static func elements(_ context: ResolutionContext, _ index: Int) throws -> Any
  static func elementsAsync(_ context: ResolutionContext, _ index: Int) async throws -> Any
}

extension MultibindingKey: ElementsKey {
  static func elements(_ context: ResolutionContext, _ index: Int) throws -> Any {
    let elements: [Element] = try context.resolveElements(index)
    return elements
  }

  static func elementsAsync(_ context: ResolutionContext, _ index: Int) async throws -> Any {
    let elements: [Element] = try await context.resolveElementsAsync(index)
    return elements
  }
}

/// A way to resolve a dependency later, as often as needed.
///
/// Each `get` resolves again, so the key's scope decides whether it is the same instance. Get one
/// from a container or a resolver, `r.provider(\.session)`; it also breaks cycles. It works for
/// every kind of key: `get()` throws for a key, is `async` for an ``AsyncKey``, needs the main
/// actor for a ``MainActorKey`` (or `await`s it from elsewhere), and takes the argument of an
/// ``ArgumentKey``.
///
/// It resolves in the override scope it was made in (or in none, if it was made outside any),
/// whatever scope is open where it is called; but one made outside any scope and used in a
/// validation run (a factory captured it) resolves in the run's copies, as a captured container
/// does, so that `validate()` makes none of the app's instances. It holds its container, weakly
/// if a factory made it for a singleton or cached instance of that container (which keeps the
/// instance), or for a dependency the container makes for one; and then the override scope
/// weakly too, which keeps its copy of the container: used after the container (or the scope)
/// is gone, it then throws ``ResolutionError/Kind/containerDisposed``.
public struct Provider<Key: DependencyKeyType>: Sendable {
  let index: Int
  /// The container the handle resolves from, and the override scope it was made in, which it
  /// resolves in; a validation run's are held weakly (see ``Held``), and so are a container whose
  /// factory makes the handle for an instance the container keeps (see ``keptByItsContainer``),
  /// and the scope then, which keeps its copy of the container.
  private let heldContainer: Held<Container>
  /// Whether the handle was made, in a factory of its container, for a singleton or cached
  /// instance, which the container keeps, or for a dependency the container makes for one (see
  /// ``MakingStep/keepsWhatItMakes``): held strongly, the container and the instance would
  /// keep each other alive, and a child container simply dropped would never be released. What
  /// the error says once the container is gone.
  private let keptByItsContainer: Bool
  private let heldScope: Held<OverrideScope>
  var scope: OverrideScope? { heldScope.object }

  /// Whether the key is a multibinding, whose value is its elements (``ElementsKey``): known
  /// when the handle is made, so that `get` for a key casts nothing.
  private let isMultibinding: Bool
  /// The line of the user's code that made the handle: an error about what it resolves names it
  /// (``ResolutionError/requestedAt``).
  private let site: CallSite?

  /// `argument` is what a ``Lazy`` made with this provider resolves the key for, if it takes one;
  /// `lazyStorage`, that `Lazy`'s storage, which keeps the first value it reads.
  init(
    index: Int, container: Container, isMultibinding: Bool = false, site: CallSite? = nil,
    argument: (any Sendable)? = nil, lazyStorage: AnyObject? = nil
  ) {
    self.index = index
    self.isMultibinding = isMultibinding
    self.site = site
    let scope = OverrideScope.active
    let making = Container.makingHere
    keptByItsContainer =
      !container.isValidationCopy && making?.container === container && making?.keepsWhatItMakes == true
    heldContainer = Held(container, weakly: container.isValidationCopy || keptByItsContainer)
    // A shared instance made in an override scope lives in the scope's copy of the container,
    // which the scope keeps: held strongly, the scope would keep the copy, and the two each other.
    heldScope = Held(scope, weakly: scope?.recorder != nil || keptByItsContainer)
    // In a validation run, what the handle will resolve is checked too (for a `Lazy`'s argument,
    // unless the run was given a sample).
    scope?.noteDeferred(index, in: container, argument: argument, lazyStorage: lazyStorage, site: site)
  }

  /// The container the handle resolves from; for a handle a validation run made, an error once
  /// the run has ended.
  private var container: Container {
    get throws {
      if let container = heldContainer.object { return container }
      let dependency = KeyTable.shared.descriptor(index).reference
      throw ResolutionError(
        kind: .containerDisposed, dependency: dependency, path: [dependency],
        underlying: keptByItsContainer ? ResolutionError.handleContainerReleased : ResolutionError.handleRunEnded,
        requestedAt: site?.location)
    }
  }

  func resolve(_ argument: Key.Argument) throws -> Key.Value {
    do {
      let context = ResolutionContext(container: try container)
      if resolvesWhereCalled { return try resolve(argument, in: context) }
      return try OverrideScope.bind(scope) { try resolve(argument, in: context) }
    } catch {
      throw located(error)
    }
  }

  func resolveAsync(_ argument: Key.Argument) async throws -> Key.Value {
    do {
      let context = ResolutionContext(container: try container)
      if resolvesWhereCalled { return try await resolveAsync(argument, in: context) }
      return try await OverrideScope.$current.withValue(scope) { try await resolveAsync(argument, in: context) }
    } catch {
      throw located(error)
    }
  }

  /// `error`, naming the line that made the handle (see ``site``) if it is about what it resolves.
  private func located(_ error: any Error) -> any Error {
    site.map { ResolutionError.requested(error, index, at: $0) } ?? ResolutionError.requestedWithoutSite(error, index)
  }

  private func resolve(_ argument: Key.Argument, in context: ResolutionContext) throws -> Key.Value {
    guard isMultibinding, let elements = Key.self as? any ElementsKey.Type else {
      return try context.resolve(index, argument)
    }
    return try value(of: try elements.elements(context, index))
  }

  private func resolveAsync(_ argument: Key.Argument, in context: ResolutionContext) async throws -> Key.Value {
    guard isMultibinding, let elements = Key.self as? any ElementsKey.Type else {
      return try await context.resolveAsync(index, argument)
    }
    return try value(of: try await elements.elementsAsync(context, index))
  }

  /// The error for a reader of a `Lazy` of this handle's dependency that would wait for its first
  /// read, under way elsewhere, in a loop: the reader (at `parent`'s step, if any) waits for the
  /// read, which waits for … the reader (`loop`, from the dependency on).
  func waitCycle(_ loop: [Int], from parent: UnsafeMutablePointer<Frame>?) -> any Error {
    guard let container = heldContainer.object else { return cycleThroughHandle() }
    return located(container.crossResolutionCycle(loop, index, parent, underlying: ResolutionError.handleWaitNote))
  }

  /// Whether what this handle resolves is kept by the container that serves it: a singleton or
  /// cached instance. A `Lazy` holds such a value weakly when it is an object (see
  /// ``LazyStorage``): the container keeps it meanwhile, and two instances that reach each other
  /// through a `Lazy` (a cycle broken with one) do not keep each other alive once the container
  /// lets them go.
  var resolvesWhatItsContainerKeeps: Bool {
    guard !isMultibinding, let container = heldContainer.object else { return false }
    let serving = scope.flatMap { container.overlay(in: $0)?.takeUnretainedValue() } ?? container
    return serving.servingRegistration(index)?.scope.isDisposedByContainer ?? false
  }

  /// Whether a validation run serves this handle: one made outside any override scope and used
  /// in a dry run (a factory captured it) resolves in the run's copies, as a captured container
  /// does, so that the run makes no instance of the app's (nor calls a factory registered with
  /// side effects).
  var isServedByValidation: Bool { isServed(by: OverrideScope.active) }

  /// Whether this handle resolves in the scope open where it is called: its own, or a dry run's
  /// that serves it (see ``isServedByValidation``).
  private var resolvesWhereCalled: Bool {
    let active = OverrideScope.active
    return active === scope || isServed(by: active)
  }

  /// Whether `active`, the scope open where the handle is used, is a dry run's that serves it.
  private func isServed(by active: OverrideScope?) -> Bool { scope == nil && active?.recorder != nil }

  /// The value kept in `storage`, made by this handle's resolution for `argument` on the first
  /// read: how a ``Lazy`` of a key or a main-actor key, and a ``LazyInjected``, read
  /// synchronously. A dry run's value is not the app's: a read in one keeps nothing.
  func read(_ storage: LazyStorage<Key.Value>, _ argument: Key.Argument) throws -> Key.Value {
    try storage.value {
      try resolve(argument)
    } keeps: {
      !isServedByValidation
    } weakly: {
      resolvesWhatItsContainerKeeps
    } cycle: {
      waitCycle($0, from: $1)
    }
  }

  /// The error for a `Lazy` of this handle's dependency read while its own first read makes it:
  /// the dependency needs itself.
  func cycleThroughHandle() -> ResolutionError {
    let note = "its Lazy was read while the Lazy's first read was making it"
    // With its container, the error names where the dependency was registered too.
    if let container = heldContainer.object {
      return container.crossResolutionCycle([index, index], index, nil, underlying: note)
    }
    let dependency = KeyTable.shared.descriptor(index).reference
    return ResolutionError(
      kind: .cycle, dependency: dependency, path: [dependency, dependency],
      underlying: note)
  }

  /// A multibinding's elements as the key's value, which they are (``ElementsKey``).
  private func value(of elements: Any) throws -> Key.Value {
    guard let value = elements as? Key.Value else {
      let dependency = KeyTable.shared.descriptor(index).reference
      throw ResolutionError(
        kind: .factoryMismatch, dependency: dependency, path: [dependency],
        underlying: "its elements are \(type(of: elements)), not \(Key.Value.self)")
    }
    return value
  }
}

extension Provider {
  /// Not available: a provider has no value of its own; it resolves the key each time it is
  /// asked. (Without it, the compiler names a private member.)
  @available(
    *, unavailable,
    message:
      "a Provider resolves its key each time: call `get()`; for a value kept after the first read, make a `lazy(\\.key)`"
  )
  public var value: Key.Value { get throws { throw UnavailableCall() } }

  /// Not available: a provider's argument has no label. (Without it, the compiler reports only
  /// an extraneous label.)
  @available(*, unavailable, message: "a provider takes its argument without a label: `provider.get(value)`")
  public func get(argument: Key.Argument) throws -> Key.Value { throw UnavailableCall() }
}

extension Provider where Key.Kind == SyncKind, Key.Argument == Void {
  /// Resolves the dependency now.
  public func get() throws -> Key.Value { try resolve(()) }

  /// Not available: a key without an argument is resolved without one. (Without it, the
  /// compiler says the argument is not `()`, or, for a multibinding, gives up.)
  @available(*, unavailable, message: "this key takes no argument: call `provider.get()`")
  public func get<T>(_ argument: T) throws -> Key.Value { throw UnavailableCall() }
}

extension Provider where Key.Kind == SyncKind {
  /// Resolves the dependency now, for `argument`.
  public func get(_ argument: Key.Argument) throws -> Key.Value { try resolve(argument) }

  /// Not available: a key that takes an argument is resolved with one.
  @available(*, unavailable, message: "this key takes an argument: pass it, `provider.get(argument)`")
  public func get() throws -> Key.Value { throw UnavailableCall() }
}

extension Provider where Key.Kind == AsyncKind, Key.Argument == Void {
  /// Resolves the dependency now.
  public func get() async throws -> Key.Value { try await resolveAsync(()) }
}

extension Provider where Key.Kind == AsyncKind {
  /// Resolves the dependency now, for `argument`.
  public func get(_ argument: Key.Argument) async throws -> Key.Value { try await resolveAsync(argument) }

  /// Not available: a key that takes an argument is resolved with one.
  @available(*, unavailable, message: "this key takes an argument: pass it, `provider.get(argument)`")
  public func get() async throws -> Key.Value { throw UnavailableCall() }
}

extension Provider where Key.Kind == MainActorKind, Key.Argument == Void {
  /// Resolves the dependency now, on the main actor.
  @MainActor public func get() throws -> Key.Value { try resolve(()) }

  /// Resolves the dependency now from any asynchronous code, hopping to the main actor.
  public func get() async throws -> Key.Value { try await resolveAsync(()) }
}

extension Provider where Key.Kind == MainActorKind {
  /// Resolves the dependency now, for `argument`, on the main actor.
  @MainActor public func get(_ argument: Key.Argument) throws -> Key.Value { try resolve(argument) }

  /// Not available: a key that takes an argument is resolved with one.
  @available(*, unavailable, message: "this key takes an argument: pass it, `provider.get(argument)`")
  @MainActor public func get() throws -> Key.Value { throw UnavailableCall() }
}

/// A dependency resolved on first use and kept after that.
///
/// Get one from a container or a resolver, `r.lazy(\.cache)`, to defer an expensive dependency
/// or to break a cycle: the value is resolved from the same container (and override scope) when
/// first read, not while the factory that asked for it runs. Concurrent first reads resolve
/// once (an asynchronous reader whose task is cancelled while another task's first read is under
/// way throws `CancellationError` instead of waiting for it). `value` throws for a key, is
/// `async` for an ``AsyncKey`` and needs the main actor for a ``MainActorKey``. A key that takes
/// an argument gets it when the handle is made, `r.lazy(\.profile, argument: userID)`.
///
/// The value is kept strongly, except an object that its container keeps (a singleton or cached
/// instance), which is kept weakly: the `Lazy` hands out that instance while the container keeps
/// it, and resolves the key again once the container let it go and nothing else keeps it. So a
/// cycle of two singletons broken with a `Lazy` is no reference cycle once it was read.
public struct Lazy<Key: DependencyKeyType>: Sendable {
  let provider: Provider<Key>
  let storage: LazyStorage<Key.Value>
  /// What the first read resolves the key for.
  let argument: Key.Argument

  init(
    index: Int, container: Container, argument: Key.Argument, isMultibinding: Bool = false, site: CallSite? = nil
  ) {
    let storage = LazyStorage<Key.Value>(index: index)
    provider = Provider(
      index: index, container: container, isMultibinding: isMultibinding, site: site,
      argument: Key.Argument.self == Void.self ? nil : argument, lazyStorage: storage)
    self.storage = storage
    self.argument = argument
  }
}

extension Lazy where Key.Kind == SyncKind {
  /// The value, resolved on first access.
  public var value: Key.Value {
    get throws { try provider.read(storage, argument) }
  }
}

extension Lazy where Key.Kind == MainActorKind {
  /// The value, resolved on first access, on the main actor.
  @MainActor public var value: Key.Value {
    get throws { try provider.read(storage, argument) }
  }
}

extension Lazy where Key.Kind == AsyncKind {
  /// The value, resolved on first access.
  public var value: Key.Value {
    get async throws {
      let provider = provider
      let argument = argument
      return try await storage.asyncValue {
        try await provider.resolveAsync(argument)
      } keeps: {
        !provider.isServedByValidation
      } weakly: {
        provider.resolvesWhatItsContainerKeeps
      } reentered: {
        provider.cycleThroughHandle()
      } cycle: {
        provider.waitCycle($0, from: $1)
      }
    }
  }
}

/// The once-only storage behind ``Lazy`` and ``LazyInjected``.
///
/// The first reader makes the value in its own thread or task: a read that comes back to the same
/// storage while it is being made (a cycle through the handle) fails as a cycle instead of waiting
/// for itself. Synchronously it resolves again, on the same thread's path, and the engine reports
/// the cycle with that path; asynchronously it throws the caller's error at once. Concurrent
/// readers wait for the first one, through the engine's ``WaitGraph``, like a step waiting for a
/// shared instance: a wait that would close a loop (the first read needs, on another thread or in
/// a child task it awaits, what the reader is making) is a cycle error instead. A failure is not
/// kept: the next read tries again.
///
/// The value is kept strongly, except an object that its container keeps (a singleton or cached
/// instance), which is kept weakly: the container keeps it alive meanwhile, and a `Lazy` that
/// breaks a cycle of two singletons does not make a reference cycle of them once it was read.
/// Once the container let that object go (it was disposed, released or reset) and nothing else
/// keeps it, the next read resolves the key again.
final class LazyStorage<Value: Sendable>: WaitTarget {
  private enum State {
    case empty
    /// Being made by `maker` (a thread for a synchronous read, a task for an asynchronous one),
    /// which the wait graph knows as `holder`, with the asynchronous readers waiting for it.
    case making(maker: UInt, holder: WaitGraph.Holder, waiters: AsyncWaiters)
    case made(Value)
    /// An object its container keeps, held weakly.
    case madeWeakly(MadeInstance.Weak)
  }

  /// The dependency the handle resolves: what a wait for it is, in a cycle's path.
  private let index: Int
  private let state = Locked(State.empty)
  /// Held by a synchronous maker while it makes the value: other synchronous readers block on it.
  private let creation = BlockingLock()

  init(index: Int) { self.index = index }

  var holder: WaitGraph.Holder? {
    state.withLock { state in
      guard case .making(_, let holder, _) = state else { return nil }
      return holder
    }
  }

  /// What a reader does next.
  private enum Turn {
    case read(Value)
    case make
    case reenter
    case wait
  }

  /// What `reader` does next; if nobody is making the value, ``Turn/make``, and when `claiming`
  /// (the holder the maker will be), the making is claimed for `reader`. A synchronous maker (a
  /// holder that is a thread) takes `creation` with its claim, under the state's lock: a reader that then finds the
  /// value being made has the wait graph see it wait, and blocks on `creation` until it is done.
  private func turn(for reader: UInt, claiming holder: WaitGraph.Holder? = nil) -> Turn {
    state.withLock { state in
      switch state {
      case .made(let value): return .read(value)
      case .madeWeakly(let kept):
        if let value = kept.object as? Value { return .read(value) }
      // Let go by its container, and by everything else: made again, as if never read.
      case .empty: break
      case .making(let maker, _, _): return maker == reader ? .reenter : .wait
      }
      if let holder { state = .making(maker: reader, holder: holder, waiters: AsyncWaiters()) }
      if holder?.thread != nil { creation.lock() }
      return .make
    }
  }

  /// Ends a making: keeps `value` (or nothing, after a failure), weakly if it is an object and
  /// `weakly` (its container keeps it), and wakes the waiting readers.
  private func finish(with value: Value?, weakly: Bool = false) {
    let kept: State =
      if let value {
        weakly && type(of: value as Any) is AnyClass
          ? .madeWeakly(MadeInstance.Weak(object: value as AnyObject)) : .made(value)
      } else {
        .empty
      }
    let waiters = state.withLock { state in
      guard case .making(_, _, var waiters) = state else { return [CheckedContinuation<Void, Never>]() }
      state = kept
      return waiters.takeAll()
    }
    for waiter in waiters { waiter.resume() }
  }

  private func make(_ make: () throws -> Value, weakly: () -> Bool) throws -> Value {
    do {
      let value = try make()
      finish(with: value, weakly: weakly())
      return value
    } catch {
      finish(with: nil)
      throw error
    }
  }

  /// The value, made by `make` on the first read. `keeps` tells, when no value is kept yet,
  /// whether this read's value is to be kept (a dry run's is not: it is made and returned only);
  /// `weakly`, whether its container keeps it (an object is then kept weakly).
  /// `cycle` is the error for a wait that would close a loop (its dependencies, from this
  /// handle's on, and the step the reader runs in, if any).
  func value(
    _ make: () throws -> Value, keeps: () -> Bool, weakly: () -> Bool,
    cycle: ([Int], UnsafeMutablePointer<Frame>?) -> any Error
  ) throws -> Value {
    let reader = currentThreadID()
    while true {
      switch turn(for: reader) {
      case .read(let value): return value
      case .reenter: return try make()
      case .make:
        if !keeps() { return try make() }
        // Claims the making and takes `creation` in one step, so that every other reader finds it
        // being made and waits as a registered reader. Another thread may have claimed it
        // meanwhile (and be done by now): then look again.
        guard case .make = turn(for: reader, claiming: WaitGraph.Holder(thread: reader)) else {
          continue
        }
        defer { creation.unlock() }
        return try self.make(make, weakly: weakly)
      case .wait:
        // Blocks until the maker, which holds `creation` while it makes the value, is done (a
        // storage is read either synchronously or asynchronously, never both), then looks again.
        let step = ThreadFrame.current
        let (waiter, loop) = WaitGraph.shared.beginWait(for: self, index: index, step: step, thread: reader)
        if let loop { throw cycle(loop, step) }
        creation.lock()
        creation.unlock()
        WaitGraph.shared.endWait(reader: waiter)
      }
    }
  }

  /// The value, made by `make` on the first read. `keeps` tells, when no value is kept yet,
  /// whether this read's value is to be kept, and `weakly` how (see ``value(_:keeps:weakly:cycle:)``). `reentered` is
  /// the error for a read by the task making the value: an asynchronous resolution from a handle
  /// starts a path of its own, so the engine cannot see the loop. `cycle` is the error for a
  /// wait that would close a loop.
  func asyncValue(
    _ make: @escaping @Sendable () async throws -> Value, keeps: () -> Bool, weakly: () -> Bool,
    reentered: () -> any Error, cycle: ([Int], UnsafeMutablePointer<Frame>?) -> any Error
  ) async throws -> Value {
    // A task's address: unique among running tasks, and the maker's task runs until it is done.
    let reader = currentTaskAddress
    while true {
      switch turn(for: reader) {
      case .read(let value): return value
      case .reenter: throw reentered()
      case .make:
        if !keeps() { return try await make() }
        // The making runs as a call of its own, which the wait graph knows it by: a reader in a
        // child task it awaits is under it.
        let call = FactoryCall(frame: nil)
        guard case .make = turn(for: reader, claiming: WaitGraph.Holder(call: call)) else { continue }
        do {
          let value = try await call.run(make)
          finish(with: value, weakly: weakly())
          return value
        } catch {
          finish(with: nil)
          throw error
        }
      case .wait:
        // A cancelled reader does not wait for another task's first read (see the engine's wait
        // for a shared instance).
        try Task.checkCancellation()
        let (waiter, loop) = WaitGraph.shared.beginWait(for: self, index: index, step: nil, thread: nil)
        if let loop {
          // The path starts at the step of the factory call this code runs in, if any.
          throw FactoryCall.withInnermostStep { cycle(loop, $0) }
        }
        await AsyncWaiters.suspend(in: state) { state, waiter in
          guard case .making(let maker, let holder, var waiters) = state else { return nil }
          let number = waiters.add(waiter)
          state = .making(maker: maker, holder: holder, waiters: waiters)
          return number
        } delist: { state, number in
          guard case .making(let maker, let holder, var waiters) = state else { return nil }
          let waiter = waiters.remove(number)
          state = .making(maker: maker, holder: holder, waiters: waiters)
          return waiter
        }
        WaitGraph.shared.endWait(reader: waiter)
      }
    }
  }
}

extension Resolving {
  /// A ``Provider`` that resolves the key each time it is asked, honouring the key's scope.
  ///
  /// An error about the key names the line that made the provider
  /// (``ResolutionError/requestedAt``): leave `fileID` and `line` to their defaults.
  public func provider<K, A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<K, A, V>>, fileID: StaticString = #fileID, line: UInt = #line
  ) -> Provider<DependencyKey<K, A, V>> {
    Provider(index: KeyTable.index(of: key), container: resolutionContext.container, site: CallSite(fileID, line))
  }

  /// A ``Lazy`` that resolves the key on first use and then keeps the value (an object its
  /// container keeps, a singleton or cached instance, weakly: see ``Lazy``).
  ///
  /// An error about the key names the line that made the handle (``ResolutionError/requestedAt``):
  /// leave `fileID` and `line` to their defaults.
  public func lazy<K, V>(
    _ key: KeyPath<Dependencies, DependencyKey<K, Void, V>>, fileID: StaticString = #fileID, line: UInt = #line
  ) -> Lazy<DependencyKey<K, Void, V>> {
    lazy(key, argument: (), fileID: fileID, line: line)
  }

  /// A ``Lazy`` that resolves a key that takes an argument, for `argument`, on first use and
  /// then keeps the value.
  ///
  /// An error about the key names the line that made the handle (``ResolutionError/requestedAt``):
  /// leave `fileID` and `line` to their defaults.
  public func lazy<K, A, V>(
    _ key: KeyPath<Dependencies, DependencyKey<K, A, V>>, argument: A, fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> Lazy<DependencyKey<K, A, V>> {
    Lazy(
      index: KeyTable.index(of: key), container: resolutionContext.container, argument: argument,
      site: CallSite(fileID, line))
  }

  /// Not available: a key that takes an argument gets it when its ``Lazy`` is made.
  @available(
    *, unavailable,
    message: "this key takes an argument: pass it when the handle is made, `lazy(\\.key, argument: value)`"
  )
  public func lazy<K, A, V>(_ key: KeyPath<Dependencies, DependencyKey<K, A, V>>) -> Lazy<DependencyKey<K, Void, V>> {
    // Never called (it is unavailable); the type lets the call site's `.value` type-check, so
    // that the compiler reports this declaration's message.
    Lazy(
      index: KeyTable.index(of: key), container: resolutionContext.container, argument: (),
      site: CallSite(#fileID, #line))
  }

  /// A ``Provider`` of a multibinding's elements: each `get` resolves every contribution again,
  /// honouring each one's scope. An error about the multibinding itself names the line that made
  /// the provider.
  public func provider<K, E>(
    _ key: KeyPath<Dependencies, MultibindingKey<K, E>>, fileID: StaticString = #fileID, line: UInt = #line
  ) -> Provider<MultibindingKey<K, E>> {
    Provider(
      index: KeyTable.index(of: key), container: resolutionContext.container, isMultibinding: true,
      site: CallSite(fileID, line))
  }

  /// A ``Lazy`` that resolves a multibinding's elements on first use and then keeps them. An
  /// error about the multibinding itself names the line that made the handle.
  public func lazy<K, E>(
    _ key: KeyPath<Dependencies, MultibindingKey<K, E>>, fileID: StaticString = #fileID, line: UInt = #line
  ) -> Lazy<MultibindingKey<K, E>> {
    Lazy(
      index: KeyTable.index(of: key), container: resolutionContext.container, argument: (), isMultibinding: true,
      site: CallSite(fileID, line))
  }

  /// Not available: a multibinding takes no argument. (Without it, the compiler fails to
  /// produce a diagnostic for the call.)
  @available(
    *, unavailable,
    message:
      "a multibinding takes no argument: make its handle with `lazy(\\.key)`, and pass what an element needs to its key"
  )
  public func lazy<K, E, A>(
    _ key: KeyPath<Dependencies, MultibindingKey<K, E>>, argument: A, fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> Lazy<MultibindingKey<K, E>> {
    // Never called (it is unavailable); the type lets the call site's `.value` type-check, so
    // that the compiler reports this declaration's message.
    lazy(key, fileID: fileID, line: line)
  }

  /// A ``Provider`` for a registered type.
  ///
  /// - Parameters:
  ///   - type: The type to resolve.
  ///   - name: The name it was registered with, if any.
  ///   - fileID: The file of the call, named by the error if nothing is registered for the type
  ///     (``ResolutionError/requestedAt``); leave the default.
  ///   - line: The line of the call; leave the default.
  public func provider<T: Sendable>(
    type: T.Type, name: String? = nil, fileID: StaticString = #fileID, line: UInt = #line
  ) -> Provider<Key<T>> {
    Provider(
      index: KeyTable.index(of: type, name: name), container: resolutionContext.container,
      site: CallSite(fileID, line))
  }

  /// A ``Lazy`` for a registered type.
  ///
  /// - Parameters:
  ///   - type: The type to resolve.
  ///   - name: The name it was registered with, if any.
  ///   - fileID: The file of the call, named by the error if nothing is registered for the type
  ///     (``ResolutionError/requestedAt``); leave the default.
  ///   - line: The line of the call; leave the default.
  public func lazy<T: Sendable>(
    type: T.Type, name: String? = nil, fileID: StaticString = #fileID, line: UInt = #line
  ) -> Lazy<Key<T>> {
    Lazy(
      index: KeyTable.index(of: type, name: name), container: resolutionContext.container, argument: (),
      site: CallSite(fileID, line))
  }
}
