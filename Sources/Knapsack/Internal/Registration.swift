/// Type-erased boxes around the user's factory closures. The engine casts them back with `as?`
/// to the type it expects; a failed cast is reported as an error, never trapped.
final class SyncMaker<Value: Sendable>: Sendable {
  let make: @Sendable (Resolver) throws -> Value
  init(_ make: @escaping @Sendable (Resolver) throws -> Value) { self.make = make }
}

final class AsyncMaker<Value: Sendable>: Sendable {
  let make: @Sendable (Resolver) async throws -> Value
  init(_ make: @escaping @Sendable (Resolver) async throws -> Value) { self.make = make }
}

final class ArgumentMaker<Argument, Value: Sendable>: Sendable {
  let make: @Sendable (Resolver, Argument) throws -> Value
  init(_ make: @escaping @Sendable (Resolver, Argument) throws -> Value) { self.make = make }
}

final class MainActorMaker<Value: Sendable>: Sendable {
  let make: @MainActor @Sendable (Resolver) throws -> Value
  init(_ make: @escaping @MainActor @Sendable (Resolver) throws -> Value) { self.make = make }
}

/// A decorator: wraps what a dependency resolves to.
final class Decoration: Sendable {
  let apply: @Sendable (Resolver, any Sendable) throws -> any Sendable
  let location: SourceLocation
  init(location: SourceLocation, apply: @escaping @Sendable (Resolver, any Sendable) throws -> any Sendable) {
    self.apply = apply
    self.location = location
  }
}

/// How one dependency is made: an immutable record of a key default or a `register` call.
final class Registration: Sendable {
  let index: Int
  let scope: Scope
  let maker: any Sendable
  let location: SourceLocation?
  let isDefault: Bool
  let validation: ValidationPolicy
  let dispose: (@Sendable (any Sendable) async throws -> Void)?

  init(
    index: Int, scope: Scope, maker: any Sendable, location: SourceLocation?, isDefault: Bool,
    validation: ValidationPolicy = .resolve, dispose: (@Sendable (any Sendable) async throws -> Void)? = nil
  ) {
    self.index = index
    self.scope = scope
    self.maker = maker
    self.location = location
    self.isDefault = isDefault
    self.validation = validation
    self.dispose = dispose
  }

  var isAsync: Bool { maker is any AsyncMakerMarker }
}

protocol AsyncMakerMarker {}
extension AsyncMaker: AsyncMakerMarker {}

/// What ``Container/validate()`` does with a registration.
public enum ValidationPolicy: Sendable, Hashable, Codable {
  /// Validation calls the factory in a throw-away copy of the container (the default).
  case resolve
  /// Validation never calls the factory, because it has side effects (opens a connection,
  /// writes a file). The registration counts as provided; its own dependencies are not followed.
  case skip
}
