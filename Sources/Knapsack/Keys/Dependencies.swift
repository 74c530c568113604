/// The namespace that holds every dependency key.
///
/// Declare a key as a computed property in an extension, next to the abstraction it provides,
/// in any module. A key either has a default factory or is marked required:
///
/// ```swift
/// extension Dependencies {
///   public var storage: Key<any LocalStorage> { Key { InMemoryStorage() }.scope(.singleton) }
///   public var clock: Key<any AppClock> { .required() }
/// }
/// ```
///
/// Containers, resolvers and overrides refer to keys by key path (`\.storage`), so a key that
/// does not exist, or a value of the wrong type, is a compile error.
public struct Dependencies: Sendable {
  init() {}
}

/// How a key's factory runs: ``SyncKind``, ``AsyncKind`` or ``MainActorKind``.
///
/// The kind is part of a key's type, so the compiler knows how the key must be resolved: with
/// `try`, with `try await`, or from `@MainActor` code.
public protocol KeyKind: Sendable {}

/// A key resolved synchronously, from any thread: ``Key`` and ``ArgumentKey``.
public enum SyncKind: KeyKind {}

/// A key whose factory is asynchronous, resolved with `try await`: ``AsyncKey``.
public enum AsyncKind: KeyKind {}

/// A key whose factory runs on the main actor: ``MainActorKey``. Main-actor code resolves it
/// synchronously; other asynchronous code resolves it with `try await`, which hops to the main
/// actor.
public enum MainActorKind: KeyKind {}

/// A typed dependency key: what ``Key``, ``AsyncKey``, ``MainActorKey`` and ``ArgumentKey``
/// name.
///
/// Declare keys as computed properties on ``Dependencies``. The closure is the default: the
/// container uses it until someone registers another factory for the key. The declaration site
/// (property name, file and line) is recorded for error messages.
///
/// ```swift
/// extension Dependencies {
///   var repository: Key<TodoRepository> {
///     Key { r in TodoRepository(storage: try r[\.storage]) }.scope(.singleton)
///   }
/// }
/// ```
///
/// Every kind supports every scope, `dispose:`, decorators, overrides, tracing, validation,
/// ``Lazy`` and ``Provider`` handles; the kind only decides how a value is made and resolved.
public struct DependencyKey<Kind: KeyKind, Argument: Sendable, Value: Sendable>: Sendable {
  let factory: Factory<Argument, Value>?
  let defaultScope: Scope
  let declaration: Declaration

  init(factory: Factory<Argument, Value>?, scope: Scope, declaration: Declaration) {
    self.factory = factory
    self.defaultScope = scope
    self.declaration = declaration
  }

  /// A key with no default: the app (or a test) must register a factory for it.
  ///
  /// Resolving it unregistered throws ``ResolutionError`` with kind
  /// ``ResolutionError/Kind/requiredKeyNotProvided``, naming the key and where it was declared.
  ///
  /// - Parameters:
  ///   - name: The key's property name; leave the default. (Labeled, so that a string passed
  ///     by mistake as a default, `.required("https://…")`, is refused with a message that says
  ///     so instead of being taken as the name.)
  ///   - fileID: The file of the declaration; leave the default.
  ///   - line: The line of the declaration; leave the default.
  public static func required(
    keyName name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line
  ) -> Self {
    Self(factory: nil, scope: .unique, declaration: Declaration(name, fileID, line))
  }

  /// Not available: a required key has no default value. (Without this, the compiler says the
  /// value is not a `StaticString`, the key's name.)
  @_disfavoredOverload
  @available(
    *, unavailable,
    message:
      "a required key has no default: register its value where the app is put together, `container.register(\\.key) { value }`, or give the key a default instead, `Key { value }`"
  )
  public static func required(_ value: Value, fileID: StaticString = #fileID, line: UInt = #line) -> Self {
    .required(fileID: fileID, line: line)
  }

  /// Not available: a required key has no default factory either.
  @available(
    *, unavailable,
    message:
      "a required key has no default: register its factory where the app is put together, `container.register(\\.key) { ... }`, or give the key a default instead, `Key { ... }`"
  )
  public static func required(
    fileID: StaticString = #fileID, line: UInt = #line, _ factory: @escaping @Sendable () throws -> Value
  ) -> Self {
    .required(fileID: fileID, line: line)
  }

  /// Returns the key with a different default scope.
  ///
  /// The scope applies to the default factory and to every registration of the key that names
  /// none; a required key's registrations take it too (`.required().scope(.singleton)`). A
  /// registration's own `scope:` wins.
  public func scope(_ scope: Scope) -> Self {
    Self(factory: factory, scope: scope, declaration: declaration)
  }
}

/// A key with a synchronous factory, resolved with `try container.resolve(\.key)` or
/// `try container[\.key]`.
public typealias Key<Value: Sendable> = DependencyKey<SyncKind, Void, Value>

/// A key whose value needs asynchronous set-up, such as opening a database.
///
/// Only `try await container.resolve(\.key)` resolves it, so forgetting `await` is a compile
/// error. Under concurrent first use, a shared instance is created exactly once; a failed
/// creation is not cached and the next resolution tries again.
///
/// ```swift
/// extension Dependencies {
///   var database: AsyncKey<Database> { AsyncKey { r in try await Database.open(r[\.databaseURL]) }.scope(.singleton) }
/// }
/// ```
public typealias AsyncKey<Value: Sendable> = DependencyKey<AsyncKind, Void, Value>

/// A key whose value must be made on the main actor, such as a view model.
///
/// Its factory runs on the main actor. `@MainActor` code resolves it synchronously; resolving it
/// synchronously from anywhere else is a compile error, and `try await container.resolve(\.key)`
/// hops to the main actor.
///
/// ```swift
/// extension Dependencies {
///   var todoScreen: MainActorKey<TodoScreenModel> {
///     MainActorKey { r in TodoScreenModel(repository: try r[\.repository]) }
///   }
/// }
/// ```
public typealias MainActorKey<Value: Sendable> = DependencyKey<MainActorKind, Void, Value>

/// A key whose factory takes a runtime argument, such as a view model for a given user id.
///
/// The argument's type is part of the key, so passing the wrong type is a compile error. Use a
/// small `Hashable` struct for several values (a tuple works for a key without a shared scope).
///
/// ```swift
/// extension Dependencies {
///   var profile: ArgumentKey<UserID, ProfileViewModel> {
///     ArgumentKey { r, id in ProfileViewModel(id: id, api: try r[\.api]) }
///   }
/// }
/// let model = try container.resolve(\.profile, argument: userID)
/// ```
///
/// A shared scope (singleton, cached, weak, graph) keeps one instance per argument value, told
/// apart by `==`, so its argument must be `Hashable`: resolving it with one that is not (a tuple)
/// throws ``ResolutionError/Kind/factoryMismatch``, which says so.
public typealias ArgumentKey<Argument: Sendable, Value: Sendable> = DependencyKey<SyncKind, Argument, Value>

extension DependencyKey where Kind == SyncKind, Argument == Void {
  /// Creates a key whose default factory receives a ``Resolver`` for its own dependencies.
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver) throws -> Value
  ) {
    self.init(
      factory: Factory(.resolverOnly(factory)), scope: .unique, declaration: Declaration(name, fileID, line))
  }

  /// Creates a key whose default factory needs no other dependency.
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable () throws -> Value
  ) {
    self.init(
      factory: Factory(.plain(factory)), scope: .unique, declaration: Declaration(name, fileID, line))
  }

  /// Not available: a ``Key``'s factory is synchronous; declare an ``AsyncKey`` for one that
  /// awaits.
  @available(
    *, unavailable,
    message: "a Key's factory cannot await: declare the key as AsyncKey<Value> (resolved with `try await`)"
  )
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver) async throws -> Value
  ) { self.init(name, fileID: fileID, line: line) { (_: Resolver) throws -> Value in throw UnavailableCall() } }

  /// Not available: a ``Key``'s factory is synchronous; declare an ``AsyncKey`` for one that
  /// awaits.
  @available(
    *, unavailable,
    message: "a Key's factory cannot await: declare the key as AsyncKey<Value> (resolved with `try await`)"
  )
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable () async throws -> Value
  ) { self.init(name, fileID: fileID, line: line) { (_: Resolver) throws -> Value in throw UnavailableCall() } }
}

extension DependencyKey where Kind == SyncKind {
  /// Creates a key whose default factory receives a ``Resolver`` and the argument.
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver, Argument) throws -> Value
  ) {
    self.init(factory: Factory(.sync(factory)), scope: .unique, declaration: Declaration(name, fileID, line))
  }

  /// Not available: the factory of a key that takes an argument receives it.
  @available(
    *, unavailable, message: "this key takes an argument: its factory receives it too, `{ r, argument in ... }`"
  )
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver) throws -> Value
  ) {
    self.init(name, fileID: fileID, line: line) { (_: Resolver, _: Argument) throws -> Value in throw UnavailableCall()
    }
  }

  /// Not available: the factory of a key that takes an argument receives it.
  @available(
    *, unavailable, message: "this key takes an argument: its factory receives it too, `{ r, argument in ... }`"
  )
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable () throws -> Value
  ) {
    self.init(name, fileID: fileID, line: line) { (_: Resolver, _: Argument) throws -> Value in throw UnavailableCall()
    }
  }
}

extension DependencyKey where Kind == AsyncKind, Argument == Void {
  /// Creates a key whose default factory is asynchronous.
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver) async throws -> Value
  ) {
    self.init(
      factory: Factory(.async { r, _ in try await factory(r) }), scope: .unique,
      declaration: Declaration(name, fileID, line))
  }

  /// Creates a key whose default asynchronous factory needs no other dependency.
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable () async throws -> Value
  ) {
    self.init(
      factory: Factory(.async { _, _ in try await factory() }), scope: .unique,
      declaration: Declaration(name, fileID, line))
  }
}

extension DependencyKey where Kind == AsyncKind {
  /// Creates a key whose default asynchronous factory takes an argument.
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver, Argument) async throws -> Value
  ) {
    self.init(factory: Factory(.async(factory)), scope: .unique, declaration: Declaration(name, fileID, line))
  }

  /// Not available: the factory of a key that takes an argument receives it. (Without it, the
  /// compiler finds no initializer that matches.)
  @available(
    *, unavailable, message: "this key takes an argument: its factory receives it too, `{ r, argument in ... }`"
  )
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver) async throws -> Value
  ) {
    self.init(name, fileID: fileID, line: line) { (_: Resolver, _: Argument) async throws -> Value in
      throw UnavailableCall()
    }
  }

  /// Not available: the factory of a key that takes an argument receives it. (Without it, the
  /// compiler finds no initializer that matches.)
  @available(
    *, unavailable, message: "this key takes an argument: its factory receives it too, `{ r, argument in ... }`"
  )
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable () async throws -> Value
  ) {
    self.init(name, fileID: fileID, line: line) { (_: Resolver, _: Argument) async throws -> Value in
      throw UnavailableCall()
    }
  }
}

extension DependencyKey where Kind == MainActorKind, Argument == Void {
  /// Creates a key whose default factory runs on the main actor.
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @MainActor @Sendable (Resolver) throws -> Value
  ) {
    self.init(
      factory: Factory(.mainActor { r, _ in try factory(r) }), scope: .unique,
      declaration: Declaration(name, fileID, line))
  }

  /// Creates a key whose default factory runs on the main actor and needs no other dependency.
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @MainActor @Sendable () throws -> Value
  ) {
    self.init(
      factory: Factory(.mainActor { _, _ in try factory() }), scope: .unique,
      declaration: Declaration(name, fileID, line))
  }

  /// Not available: a main-actor factory runs synchronously; declare an ``AsyncKey`` for one
  /// that awaits.
  @available(
    *, unavailable,
    message:
      "a MainActorKey's factory runs synchronously on the main actor and cannot await: declare the key as AsyncKey<Value>, or pass what it awaits in from an AsyncKey"
  )
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver) async throws -> Value
  ) { self.init(name, fileID: fileID, line: line) { (_: Resolver) throws -> Value in throw UnavailableCall() } }

  /// Not available: a main-actor factory runs synchronously; declare an ``AsyncKey`` for one
  /// that awaits.
  @available(
    *, unavailable,
    message:
      "a MainActorKey's factory runs synchronously on the main actor and cannot await: declare the key as AsyncKey<Value>, or pass what it awaits in from an AsyncKey"
  )
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable () async throws -> Value
  ) { self.init(name, fileID: fileID, line: line) { (_: Resolver) throws -> Value in throw UnavailableCall() } }
}

extension DependencyKey where Kind == MainActorKind {
  /// Creates a key whose default main-actor factory takes an argument.
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @MainActor @Sendable (Resolver, Argument) throws -> Value
  ) {
    self.init(factory: Factory(.mainActor(factory)), scope: .unique, declaration: Declaration(name, fileID, line))
  }

  /// Not available: the factory of a key that takes an argument receives it. (Without it, the
  /// compiler finds no initializer that matches.)
  @available(
    *, unavailable, message: "this key takes an argument: its factory receives it too, `{ r, argument in ... }`"
  )
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @MainActor @Sendable (Resolver) throws -> Value
  ) {
    self.init(name, fileID: fileID, line: line) { (_: Resolver, _: Argument) throws -> Value in throw UnavailableCall()
    }
  }

  /// Not available: the factory of a key that takes an argument receives it. (Without it, the
  /// compiler finds no initializer that matches.)
  @available(
    *, unavailable, message: "this key takes an argument: its factory receives it too, `{ r, argument in ... }`"
  )
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @MainActor @Sendable () throws -> Value
  ) {
    self.init(name, fileID: fileID, line: line) { (_: Resolver, _: Argument) throws -> Value in throw UnavailableCall()
    }
  }
}

/// Where and how a key was declared.
struct Declaration: Sendable {
  let name: String
  let location: CodeLocation

  init(_ name: StaticString, _ fileID: StaticString, _ line: UInt) {
    self.name = "\(name)"
    location = CodeLocation(fileID, line)
  }
}

extension Dependencies {
  /// Where the key at `key` was declared, such as `Storage/Keys.swift:12`: for tools and error
  /// messages of your own.
  ///
  /// ```swift
  /// print(Dependencies.declarationSite(of: \.storage))
  /// ```
  public static func declarationSite<Kind, Argument, Value>(
    of key: KeyPath<Dependencies, DependencyKey<Kind, Argument, Value>>
  ) -> CodeLocation {
    Dependencies()[keyPath: key].declaration.location
  }

  /// Where the multibinding at `key` was declared.
  public static func declarationSite<Kind, Element>(
    of key: KeyPath<Dependencies, MultibindingKey<Kind, Element>>
  ) -> CodeLocation {
    Dependencies()[keyPath: key].declaration.location
  }
}
