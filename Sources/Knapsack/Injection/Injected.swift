/// Injects a dependency into a property of a type that cannot take it through its initializer.
///
/// The value is resolved when the enclosing instance is initialized: from the container you pass;
/// else, in an instance that a factory makes, from the container making it (so the app resolves
/// what ``Container/validate(including:arguments:)`` checked, and a cycle through the property is
/// the resolution's own); else from ``Container/current`` (the task's container set by
/// ``withContainer(_:operation:)-(_,()->R)`` or the testing trait, else ``Container/shared``). The
/// override scope open in the current task, if any, applies.
///
/// ```swift
/// final class TodoScreen {
///   @Injected(\.storage) var storage: any LocalStorage
/// }
/// ```
///
/// A property wrapper cannot throw. `@Injected` and ``LazyInjected`` are Knapsack's only APIs
/// that stop the program when resolution fails, naming the property's file and line and the
/// full ``ResolutionError``; use ``Container/validate(including:arguments:)`` in a test to know
/// beforehand, or resolve explicitly with `try`. In a validation run, an `@Injected` property of
/// something a factory makes resolves from the run's copy of the container making it, and its
/// dependency shows in the graph; one that cannot be resolved there is reported as the failure of the
/// factory that made the instance, and the program goes on (reading the property in that run,
/// in the factory or the instance's initializer, still stops it: there is no value to read).
@propertyWrapper
public struct Injected<Value: Sendable>: Sendable {
  /// The value, or, in a validation run, why there is none (see ``resolve(_:_:from:_:)``).
  private let resolved: Resolved

  private enum Resolved: Sendable {
    case value(Value)
    case failed(InjectionFailure)
  }

  /// The injected value.
  public var wrappedValue: Value {
    switch resolved {
    case .value(let value): value
    case .failed(let failure): failure.stop()
    }
  }

  /// Resolves with `resolve`. A failure stops the program, but in a validation run, which it
  /// tells instead (a property wrapper cannot throw): the run reports it as the failure of the
  /// factory that made this instance, which goes on, so the run finds it without stopping.
  private static func resolve(
    _ fileID: StaticString, _ line: UInt, from source: InjectionSource,
    _ resolve: () throws -> Value
  ) -> Resolved {
    do {
      return .value(try resolve())
    } catch {
      // A failure the run reports, or a registration with side effects that it does not call
      // (and lists as skipped, with the dependency whose factory made this instance).
      guard error is ResolutionError || error is ValidationSkipped, let recorder = OverrideScope.current?.recorder
      else {
        stopResolving("@Injected", fileID, line, from: source.reason, error)
      }
      recorder.noteInjectionFailure(error)
      return .failed(InjectionFailure(fileID: fileID, line: line, error: error))
    }
  }

  /// Resolves `key` now.
  public init(
    _ key: KeyPath<Dependencies, Key<Value>>, container: Container? = nil, fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    let source = InjectionSource(container)
    resolved = Self.resolve(fileID, line, from: source) {
      try source.container.resolve(key, fileID: fileID, line: line)
    }
  }

  /// Resolves a main-actor key now, on the main actor.
  @MainActor
  public init(
    _ key: KeyPath<Dependencies, MainActorKey<Value>>, container: Container? = nil, fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    let source = InjectionSource(container)
    resolved = Self.resolve(fileID, line, from: source) {
      try source.container.resolve(key, fileID: fileID, line: line)
    }
  }

  /// Resolves every element contributed to a multibinding now.
  public init<Element>(
    _ key: KeyPath<Dependencies, Multibinding<Element>>, container: Container? = nil, fileID: StaticString = #fileID,
    line: UInt = #line
  ) where Value == [Element] {
    let source = InjectionSource(container)
    resolved = Self.resolve(fileID, line, from: source) {
      try source.container.resolve(key, fileID: fileID, line: line)
    }
  }

  /// Resolves every element contributed to a main-actor multibinding now, on the main actor.
  @MainActor
  public init<Element>(
    _ key: KeyPath<Dependencies, MainActorMultibinding<Element>>, container: Container? = nil,
    fileID: StaticString = #fileID, line: UInt = #line
  ) where Value == [Element] {
    let source = InjectionSource(container)
    resolved = Self.resolve(fileID, line, from: source) {
      try source.container.resolve(key, fileID: fileID, line: line)
    }
  }

  /// Not available: a multibinding, synchronous or main-actor, resolves to the array of its
  /// elements, so the property is declared as one. (Without it, the compiler finds no
  /// initializer that matches.)
  @available(
    *, unavailable,
    message: "a multibinding resolves to the array of its elements: declare the property as `[Element]`"
  )
  public init<K, E>(
    _ key: KeyPath<Dependencies, MultibindingKey<K, E>>, container: Container? = nil, fileID: StaticString = #fileID,
    line: UInt = #line
  ) { self.init(type: Value.self, container: container, fileID: fileID, line: line) }

  /// Not available: a multibinding takes no argument. (Without it, the compiler finds no
  /// initializer that matches.)
  @available(
    *, unavailable,
    message: "a multibinding takes no argument: write `@Injected(\\.key)`, and pass what an element needs to its key"
  )
  public init<K, E, A>(
    _ key: KeyPath<Dependencies, MultibindingKey<K, E>>, argument: A, container: Container? = nil,
    fileID: StaticString = #fileID, line: UInt = #line
  ) { self.init(type: Value.self, container: container, fileID: fileID, line: line) }

  /// Not available: a property wrapper cannot await the contributions of an asynchronous
  /// multibinding. (Without it, the compiler finds no initializer that matches.)
  @available(
    *, unavailable,
    message: "a property wrapper cannot await: resolve an AsyncMultibinding with `try await container.resolve(\\.key)`"
  )
  public init<E>(
    _ key: KeyPath<Dependencies, AsyncMultibinding<E>>, container: Container? = nil, fileID: StaticString = #fileID,
    line: UInt = #line
  ) { self.init(type: Value.self, container: container, fileID: fileID, line: line) }

  /// Not available: a property wrapper cannot await an asynchronous key, with an argument or
  /// without one.
  @available(
    *, unavailable,
    message:
      "a property wrapper cannot await: resolve an AsyncKey with `try await container.resolve(\\.key)`, for example in an async initializer"
  )
  public init<A>(
    _ key: KeyPath<Dependencies, DependencyKey<AsyncKind, A, Value>>, argument: A? = nil, container: Container? = nil,
    fileID: StaticString = #fileID, line: UInt = #line
  ) { self.init(type: Value.self, container: container, fileID: fileID, line: line) }

  /// Resolves a key that takes an argument now, for `argument`.
  public init<Argument>(
    _ key: KeyPath<Dependencies, ArgumentKey<Argument, Value>>, argument: Argument, container: Container? = nil,
    fileID: StaticString = #fileID, line: UInt = #line
  ) {
    let source = InjectionSource(container)
    resolved = Self.resolve(fileID, line, from: source) {
      try source.container.resolve(key, argument: argument, fileID: fileID, line: line)
    }
  }

  /// Resolves a main-actor key that takes an argument now, for `argument`, on the main actor.
  @MainActor
  public init<Argument>(
    _ key: KeyPath<Dependencies, DependencyKey<MainActorKind, Argument, Value>>, argument: Argument,
    container: Container? = nil, fileID: StaticString = #fileID, line: UInt = #line
  ) {
    let source = InjectionSource(container)
    resolved = Self.resolve(fileID, line, from: source) {
      try source.container.resolve(key, argument: argument, fileID: fileID, line: line)
    }
  }

  /// Not available: a key that takes an argument gets it when the property is declared.
  @available(
    *, unavailable,
    message: "this key takes an argument: pass it, `@Injected(\\.key, argument: value)`"
  )
  public init<A>(
    _ key: KeyPath<Dependencies, ArgumentKey<A, Value>>, container: Container? = nil, fileID: StaticString = #fileID,
    line: UInt = #line
  ) { self.init(type: Value.self, container: container, fileID: fileID, line: line) }

  /// Not available: a main-actor key that takes an argument gets it when the property is
  /// declared. (Without it, the compiler says the key path is not one of a `MainActorKey`.)
  @available(
    *, unavailable,
    message: "this key takes an argument: pass it, `@Injected(\\.key, argument: value)`"
  )
  public init<A>(
    _ key: KeyPath<Dependencies, DependencyKey<MainActorKind, A, Value>>, container: Container? = nil,
    fileID: StaticString = #fileID, line: UInt = #line
  ) { self.init(type: Value.self, container: container, fileID: fileID, line: line) }

  /// Resolves a registered type now.
  public init(
    type: Value.Type = Value.self, name: String? = nil, container: Container? = nil,
    fileID: StaticString = #fileID, line: UInt = #line
  ) {
    let source = InjectionSource(container)
    resolved = Self.resolve(fileID, line, from: source) {
      try source.container.resolve(type: type, name: name, fileID: fileID, line: line)
    }
  }
}

/// Like ``Injected``, but resolves on first access instead of at initialization.
///
/// The container it resolves from is chosen at initialization as ``Injected``'s is (the one
/// passed, else the one whose factory makes the instance, else ``Container/current``) and
/// remembered with the override scope open then, for the first access. In a singleton or cached
/// instance, which its container keeps (or in a dependency the container makes for one), it
/// holds that container weakly, so that the two do not keep each other alive: read it while the
/// container lives (a read after the container is gone stops the program, saying so). A
/// main-actor key's property must be first read on the main actor (in a `@MainActor` type, it
/// is).
@propertyWrapper
public struct LazyInjected<Value: Sendable>: Sendable {
  /// The first access's read through the key's provider, then the value it kept: synchronously,
  /// on the main thread for a main-actor key (the engine reports any other thread as the error it
  /// is).
  private let read: @Sendable () throws -> Value
  private let fileID: StaticString
  private let line: UInt
  /// Why the property resolves from the container it does, for the message if it cannot. Not
  /// the container itself: the provider holds that (weakly for a validation run's copy, and for a
  /// singleton or cached instance of the container, see ``Provider``).
  private let source: InjectionSource.Reason

  /// Remembers `key`, the container and the open override scope; resolves on first access.
  public init(
    _ key: KeyPath<Dependencies, Key<Value>>, container: Container? = nil, fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    let source = InjectionSource(container)
    self.init(source.container.lazy(key, fileID: fileID, line: line), fileID, line, from: source)
  }

  /// Remembers a main-actor key, the container and the open override scope; resolves on first
  /// access, which must be on the main actor. Main-actor isolated, like ``Injected``'s: a type
  /// that is not is a compile error, not a read that stops the program off the main actor.
  @MainActor
  public init(
    _ key: KeyPath<Dependencies, MainActorKey<Value>>, container: Container? = nil, fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    let source = InjectionSource(container)
    self.init(source.container.lazy(key, fileID: fileID, line: line), fileID, line, from: source)
  }

  /// Remembers a multibinding, the container and the open override scope; resolves every
  /// element contributed on first access.
  public init<Element>(
    _ key: KeyPath<Dependencies, Multibinding<Element>>, container: Container? = nil, fileID: StaticString = #fileID,
    line: UInt = #line
  ) where Value == [Element] {
    let source = InjectionSource(container)
    self.init(source.container.lazy(key, fileID: fileID, line: line), fileID, line, from: source)
  }

  /// Remembers a main-actor multibinding, the container and the open override scope; resolves
  /// every element on first access, which must be on the main actor (so main-actor isolated).
  @MainActor
  public init<Element>(
    _ key: KeyPath<Dependencies, MainActorMultibinding<Element>>, container: Container? = nil,
    fileID: StaticString = #fileID, line: UInt = #line
  ) where Value == [Element] {
    let source = InjectionSource(container)
    self.init(source.container.lazy(key, fileID: fileID, line: line), fileID, line, from: source)
  }

  /// Not available: a multibinding, synchronous or main-actor, resolves to the array of its
  /// elements, so the property is declared as one. (Without it, the compiler finds no
  /// initializer that matches.)
  @available(
    *, unavailable,
    message: "a multibinding resolves to the array of its elements: declare the property as `[Element]`"
  )
  public init<K, E>(
    _ key: KeyPath<Dependencies, MultibindingKey<K, E>>, container: Container? = nil, fileID: StaticString = #fileID,
    line: UInt = #line
  ) { self.init(type: Value.self, container: container, fileID: fileID, line: line) }

  /// Not available: a multibinding takes no argument. (Without it, the compiler finds no
  /// initializer that matches.)
  @available(
    *, unavailable,
    message:
      "a multibinding takes no argument: write `@LazyInjected(\\.key)`, and pass what an element needs to its key"
  )
  public init<K, E, A>(
    _ key: KeyPath<Dependencies, MultibindingKey<K, E>>, argument: A, container: Container? = nil,
    fileID: StaticString = #fileID, line: UInt = #line
  ) { self.init(type: Value.self, container: container, fileID: fileID, line: line) }

  /// Not available: a property wrapper cannot await the contributions of an asynchronous
  /// multibinding. (Without it, the compiler finds no initializer that matches.)
  @available(
    *, unavailable,
    message: "a property wrapper cannot await: resolve an AsyncMultibinding with `try await container.resolve(\\.key)`"
  )
  public init<E>(
    _ key: KeyPath<Dependencies, AsyncMultibinding<E>>, container: Container? = nil, fileID: StaticString = #fileID,
    line: UInt = #line
  ) { self.init(type: Value.self, container: container, fileID: fileID, line: line) }

  /// Not available: a property wrapper cannot await an asynchronous key, with an argument or
  /// without one.
  @available(
    *, unavailable,
    message:
      "a property wrapper cannot await: resolve an AsyncKey with `try await container.resolve(\\.key)`, or keep `container.lazy(\\.key)` and read `try await lazy.value`"
  )
  public init<A>(
    _ key: KeyPath<Dependencies, DependencyKey<AsyncKind, A, Value>>, argument: A? = nil, container: Container? = nil,
    fileID: StaticString = #fileID, line: UInt = #line
  ) { self.init(type: Value.self, container: container, fileID: fileID, line: line) }

  /// Remembers a key that takes an argument, `argument`, the container and the open override
  /// scope; resolves on first access.
  public init<Argument>(
    _ key: KeyPath<Dependencies, ArgumentKey<Argument, Value>>, argument: Argument, container: Container? = nil,
    fileID: StaticString = #fileID, line: UInt = #line
  ) {
    let source = InjectionSource(container)
    self.init(
      source.container.lazy(key, argument: argument, fileID: fileID, line: line), fileID, line, from: source)
  }

  /// Remembers a main-actor key that takes an argument, `argument`, the container and the open
  /// override scope; resolves on first access, which must be on the main actor (so main-actor
  /// isolated).
  @MainActor
  public init<Argument>(
    _ key: KeyPath<Dependencies, DependencyKey<MainActorKind, Argument, Value>>, argument: Argument,
    container: Container? = nil, fileID: StaticString = #fileID, line: UInt = #line
  ) {
    let source = InjectionSource(container)
    self.init(
      source.container.lazy(key, argument: argument, fileID: fileID, line: line), fileID, line, from: source)
  }

  /// Not available: a key that takes an argument gets it when the property is declared.
  @available(
    *, unavailable,
    message: "this key takes an argument: pass it, `@LazyInjected(\\.key, argument: value)`"
  )
  public init<A>(
    _ key: KeyPath<Dependencies, ArgumentKey<A, Value>>, container: Container? = nil, fileID: StaticString = #fileID,
    line: UInt = #line
  ) { self.init(type: Value.self, container: container, fileID: fileID, line: line) }

  /// Not available: a main-actor key that takes an argument gets it when the property is
  /// declared. (Without it, the compiler says the key path is not one of a `MainActorKey`.)
  @available(
    *, unavailable,
    message: "this key takes an argument: pass it, `@LazyInjected(\\.key, argument: value)`"
  )
  public init<A>(
    _ key: KeyPath<Dependencies, DependencyKey<MainActorKind, A, Value>>, container: Container? = nil,
    fileID: StaticString = #fileID, line: UInt = #line
  ) { self.init(type: Value.self, container: container, fileID: fileID, line: line) }

  /// Remembers a registered type; resolves it on first access.
  public init(
    type: Value.Type = Value.self, name: String? = nil, container: Container? = nil,
    fileID: StaticString = #fileID, line: UInt = #line
  ) {
    // The property asks for the type: an error names its line, as a handle's names the line
    // that made it.
    let source = InjectionSource(container)
    self.init(
      source.container.lazy(type: type, name: name, fileID: fileID, line: line), fileID, line, from: source)
  }

  private init<K>(_ lazy: Lazy<K>, _ fileID: StaticString, _ line: UInt, from source: InjectionSource)
  where K.Value == Value {
    read = { try lazy.provider.read(lazy.storage, lazy.argument) }
    self.fileID = fileID
    self.line = line
    self.source = source.reason
  }

  /// The injected value, resolved on first access.
  public var wrappedValue: Value {
    do {
      return try read()
    } catch {
      stopResolving("@LazyInjected", fileID, line, from: source, error)
    }
  }
}

/// The container a property wrapper resolves from, chosen when it is made, and why (for its
/// message if it cannot).
struct InjectionSource: Sendable {
  let container: Container
  let reason: Reason

  enum Reason: Sendable {
    /// The one passed as `container:`.
    case given
    /// The container whose factory is making the instance: the app's, or in a validation run
    /// the run's copy of it, so that both resolve alike.
    case factory
    /// ``Container/current``, set for the task by ``withContainer(_:operation:)-(_,()->R)`` or
    /// the testing trait.
    case task
    /// ``Container/current``, which is ``Container/shared`` when nothing set one for the task.
    case shared

    var description: String {
      switch self {
      case .given: "the container passed as `container:`"
      case .factory: "the container whose factory is making this instance"
      case .task: "Container.current, the task's container (set by withContainer(_:) or the .container trait)"
      case .shared:
        "Container.current, which is Container.shared here: no factory is making this instance, and no"
          + " withContainer(_:) or .container trait set a container for this task; pass `container:`, or make"
          + " this instance inside withContainer(_:)"
      }
    }
  }

  /// The source of a property wrapper given `container`: that container, else the one whose
  /// factory is running here (making the instance), else ``Container/current``.
  init(_ container: Container?) {
    if let container {
      (self.container, reason) = (container, .given)
    } else if let making = Container.makingHere {
      (self.container, reason) = (making.container, .factory)
    } else if let task = Container.taskContainer {
      (self.container, reason) = (task, .task)
    } else {
      (self.container, reason) = (.shared, .shared)
    }
  }
}

/// Stops the program for a property wrapper that cannot resolve from `source` (see
/// ``stopProgram(_:_:_:)``).
private func stopResolving(
  _ wrapper: String, _ fileID: StaticString, _ line: UInt, from source: InjectionSource.Reason, _ error: any Error
) -> Never {
  // In a dry run (a `@LazyInjected` read there), the problem is one `validate()` would report,
  // but the property has no value to give: say what to do instead.
  if let skipped = error as? ValidationSkipped {
    stopProgram("\(wrapper) at \(fileID):\(line) \(skipped.unreadable)", fileID, line)
  }
  let inValidation =
    OverrideScope.current?.recorder != nil
    ? "\n(during validate(): a property wrapper cannot throw, so validation cannot report this problem;"
      + " pass the dependency to the initializer from the factory's resolver instead)" : ""
  stopProgram(
    "\(wrapper) at \(fileID):\(line) could not resolve its dependency from \(source.description).\n\(error)\(inValidation)",
    fileID, line)
}

/// The one place where Knapsack stops the program, for a property wrapper, which cannot throw:
/// `message` names the property's file and line, given as the stop's own.
private func stopProgram(_ message: String, _ fileID: StaticString, _ line: UInt) -> Never {
  fatalError(message, file: fileID, line: line)
}

/// An `@Injected` property that a validation run could not resolve (a ``ResolutionError``), or
/// did not (a ``ValidationSkipped``), and told: reading it stops the program, since there is no
/// value to read.
private final class InjectionFailure: Sendable {
  let fileID: StaticString
  let line: UInt
  let error: any Error

  init(fileID: StaticString, line: UInt, error: any Error) {
    self.fileID = fileID
    self.line = line
    self.error = error
  }

  func stop() -> Never {
    if let skipped = error as? ValidationSkipped {
      stopProgram("@Injected at \(fileID):\(line) \(skipped.unreadable)", fileID, line)
    }
    stopProgram(
      "@Injected at \(fileID):\(line) was read during validate(), which could not resolve it: the instance the"
        + " run made has no value to read, so the run stops here instead of reporting the problem. Pass the"
        + " dependency to the initializer from the factory's resolver, and validate() reports it.\n\(error)",
      fileID, line)
  }
}

/// Runs `operation` with `container` as the task's ``Container/current``: ``Injected`` and
/// ``LazyInjected`` properties initialized in it (and in its child tasks) resolve from that
/// container, but in an instance a factory makes, which resolve from the container making it.
/// Parallel tests each set their own, with no shared global.
public func withContainer<R>(
  _ container: Container, isolation: isolated (any Actor)? = #isolation, operation: () async throws -> R
) async rethrows -> R {
  try await Container.$taskContainer.withValue(container, operation: operation)
}

/// Runs a synchronous `operation` with `container` as the task's ``Container/current``.
@_disfavoredOverload
public func withContainer<R>(_ container: Container, operation: () throws -> R) rethrows -> R {
  try Container.$taskContainer.withValue(container, operation: operation)
}
