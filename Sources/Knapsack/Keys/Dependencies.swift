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

/// A typed dependency key with a synchronous factory.
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
public struct Key<Value: Sendable>: Sendable {
  let maker: SyncMaker<Value>?
  let defaultScope: Scope
  let declaration: Declaration

  /// Creates a key whose default factory receives a ``Resolver`` for its own dependencies.
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver) throws -> Value
  ) {
    maker = SyncMaker(factory)
    defaultScope = .unique
    declaration = Declaration(name, fileID, line)
  }

  /// Creates a key whose default factory needs no other dependency.
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable () throws -> Value
  ) {
    maker = SyncMaker { _ in try factory() }
    defaultScope = .unique
    declaration = Declaration(name, fileID, line)
  }

  private init(required declaration: Declaration) {
    maker = nil
    defaultScope = .unique
    self.declaration = declaration
  }

  private init(maker: SyncMaker<Value>?, scope: Scope, declaration: Declaration) {
    self.maker = maker
    self.defaultScope = scope
    self.declaration = declaration
  }

  /// A key with no default: the app (or a test) must register a factory for it.
  ///
  /// Resolving it unregistered throws ``ResolutionError`` with kind
  /// ``ResolutionError/Kind/requiredKeyNotProvided``, naming the key and where it was declared.
  public static func required(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line
  ) -> Key {
    Key(required: Declaration(name, fileID, line))
  }

  /// A key with no default. Prefer ``required(_:fileID:line:)``, which also records where the key
  /// was declared, so that errors can point there.
  public static var required: Key { Key(required: Declaration(nil, nil, nil)) }

  /// Returns the key with a different default scope.
  ///
  /// The scope applies to the default factory; a registration chooses its own scope.
  public func scope(_ scope: Scope) -> Key {
    Key(maker: maker, scope: scope, declaration: declaration)
  }
}

/// A typed dependency key whose value needs asynchronous set-up, such as opening a database.
///
/// Only `try await container.resolve(\.key)` resolves it, so forgetting `await` is a compile error.
/// Under concurrent first use, a shared instance is created exactly once; a failed creation is
/// not cached and the next resolution tries again.
///
/// ```swift
/// extension Dependencies {
///   var database: AsyncKey<Database> { AsyncKey { r in try await Database.open(r[\.databaseURL]) }.scope(.singleton) }
/// }
/// ```
public struct AsyncKey<Value: Sendable>: Sendable {
  let maker: AsyncMaker<Value>?
  let defaultScope: Scope
  let declaration: Declaration

  /// Creates a key whose default factory is asynchronous.
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver) async throws -> Value
  ) {
    maker = AsyncMaker(factory)
    defaultScope = .unique
    declaration = Declaration(name, fileID, line)
  }

  private init(maker: AsyncMaker<Value>?, scope: Scope, declaration: Declaration) {
    self.maker = maker
    self.defaultScope = scope
    self.declaration = declaration
  }

  /// An asynchronous key with no default: the app or a test must register a factory.
  public static func required(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line
  ) -> AsyncKey {
    AsyncKey(maker: nil, scope: .unique, declaration: Declaration(name, fileID, line))
  }

  /// Returns the key with a different default scope.
  public func scope(_ scope: Scope) -> AsyncKey {
    AsyncKey(maker: maker, scope: scope, declaration: declaration)
  }
}

/// A key whose factory takes a runtime argument, such as a view model for a given user id.
///
/// The argument's type is part of the key, so passing the wrong type is a compile error. Use a
/// tuple or a small struct for several values. Values are made anew on each resolution.
///
/// ```swift
/// extension Dependencies {
///   var profile: ArgumentKey<UserID, ProfileViewModel> {
///     ArgumentKey { r, id in ProfileViewModel(id: id, api: try r[\.api]) }
///   }
/// }
/// let model = try container.resolve(\.profile, argument: userID)
/// ```
public struct ArgumentKey<Argument, Value: Sendable>: Sendable {
  let maker: ArgumentMaker<Argument, Value>?
  let declaration: Declaration

  /// Creates a key with a default factory that receives the argument.
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @Sendable (Resolver, Argument) throws -> Value
  ) {
    maker = ArgumentMaker(factory)
    declaration = Declaration(name, fileID, line)
  }

  private init(declaration: Declaration) {
    maker = nil
    self.declaration = declaration
  }

  /// An argument key with no default: the app or a test must register a factory.
  public static func required(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line
  ) -> ArgumentKey {
    ArgumentKey(declaration: Declaration(name, fileID, line))
  }
}

/// A key whose value must be made on the main actor, such as a view model.
///
/// Its factory runs on the main actor and only `@MainActor` code can resolve it: resolving it
/// from anywhere else is a compile error, not a run-time trap.
///
/// ```swift
/// extension Dependencies {
///   @MainActor var todoScreen: MainActorKey<TodoScreenModel> {
///     MainActorKey { r in TodoScreenModel(repository: try r[\.repository]) }
///   }
/// }
/// ```
public struct MainActorKey<Value: Sendable>: Sendable {
  let maker: MainActorMaker<Value>?
  let defaultScope: Scope
  let declaration: Declaration

  /// Creates a key whose default factory runs on the main actor.
  public init(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line,
    _ factory: @escaping @MainActor @Sendable (Resolver) throws -> Value
  ) {
    maker = MainActorMaker(factory)
    defaultScope = .unique
    declaration = Declaration(name, fileID, line)
  }

  private init(maker: MainActorMaker<Value>?, scope: Scope, declaration: Declaration) {
    self.maker = maker
    self.defaultScope = scope
    self.declaration = declaration
  }

  /// A main-actor key with no default: the app or a test must register a factory.
  public static func required(
    _ name: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line
  ) -> MainActorKey {
    MainActorKey(maker: nil, scope: .unique, declaration: Declaration(name, fileID, line))
  }

  /// Returns the key with a different default scope: ``Scope/unique`` or ``Scope/singleton``
  /// (other scopes behave like ``Scope/unique`` for main-actor keys).
  public func scope(_ scope: Scope) -> MainActorKey {
    MainActorKey(maker: maker, scope: scope, declaration: declaration)
  }
}

/// Where and how a key was declared.
struct Declaration: Sendable {
  let name: String?
  let location: CodeLocation?

  init(_ name: StaticString?, _ fileID: StaticString?, _ line: UInt?) {
    self.name = name.map { "\($0)" }
    if let fileID, let line {
      location = CodeLocation(fileID, line)
    } else {
      location = nil
    }
  }
}
