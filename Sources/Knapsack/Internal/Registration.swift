/// What kind of factory a registration holds, and for which argument type.
@usableFromInline
enum MakerKind: Sendable, Equatable {
  case sync, async, mainActor
  case argument(ObjectIdentifier)
}

/// A type-erased box around a user's factory closure.
///
/// The engine checks ``kind`` and ``valueType`` against the type it expects, then casts the box
/// back with `unsafeDowncast`, which costs nothing; a mismatch is reported as an error.
@usableFromInline
protocol Maker: AnyObject, Sendable {
  var kind: MakerKind { get }
  var valueType: ObjectIdentifier { get }
}

@usableFromInline
final class SyncMaker<Value: Sendable>: Maker {
  @usableFromInline let make: @Sendable (Resolver) throws -> Value
  init(_ make: @escaping @Sendable (Resolver) throws -> Value) { self.make = make }
  /// Makes a value without the caller knowing its type; used by validation.
  func makeAny(_ resolver: Resolver) throws -> any Sendable { try make(resolver) }
  @usableFromInline var kind: MakerKind { .sync }
  @usableFromInline var valueType: ObjectIdentifier { ObjectIdentifier(Value.self) }
}

final class AsyncMaker<Value: Sendable>: Maker {
  let make: @Sendable (Resolver) async throws -> Value
  init(_ make: @escaping @Sendable (Resolver) async throws -> Value) { self.make = make }
  var kind: MakerKind { .async }
  var valueType: ObjectIdentifier { ObjectIdentifier(Value.self) }
}

final class ArgumentMaker<Argument, Value: Sendable>: Maker {
  let make: @Sendable (Resolver, Argument) throws -> Value
  init(_ make: @escaping @Sendable (Resolver, Argument) throws -> Value) { self.make = make }
  var kind: MakerKind { .argument(ObjectIdentifier(Argument.self)) }
  var valueType: ObjectIdentifier { ObjectIdentifier(Value.self) }
}

final class MainActorMaker<Value: Sendable>: Maker {
  let make: @MainActor @Sendable (Resolver) throws -> Value
  init(_ make: @escaping @MainActor @Sendable (Resolver) throws -> Value) { self.make = make }
  var kind: MakerKind { .mainActor }
  var valueType: ObjectIdentifier { ObjectIdentifier(Value.self) }
}

/// A decorator: wraps what a dependency resolves to.
@usableFromInline
final class Decoration: Sendable {
  let apply: @Sendable (Resolver, any Sendable) throws -> any Sendable
  let location: CodeLocation
  init(location: CodeLocation, apply: @escaping @Sendable (Resolver, any Sendable) throws -> any Sendable) {
    self.apply = apply
    self.location = location
  }
}

/// How one dependency is made: an immutable record of a key default or a `register` call.
@usableFromInline
final class Registration: Sendable {
  @usableFromInline let index: Int
  @usableFromInline let scope: Scope
  @usableFromInline let maker: any Maker
  let kind: MakerKind
  let valueType: ObjectIdentifier
  private let site: Site
  let isDefault: Bool
  let validation: ValidationPolicy
  let dispose: (@Sendable (any Sendable) async throws -> Void)?

  /// Where the registration was made: kept as the compiler's static string until an error or a
  /// report needs it, so that registering allocates no string.
  private enum Site: Sendable {
    case known(CodeLocation?)
    case source(StaticString, UInt)
  }

  /// Where the registration (or, for a default, the key) was made.
  var location: CodeLocation? {
    switch site {
    case .known(let location): location
    case .source(let fileID, let line): CodeLocation(fileID, line)
    }
  }

  convenience init(
    index: Int, scope: Scope, maker: any Maker, location: CodeLocation?, isDefault: Bool,
    validation: ValidationPolicy = .resolve, dispose: (@Sendable (any Sendable) async throws -> Void)? = nil
  ) {
    self.init(
      index: index, scope: scope, maker: maker, site: .known(location), isDefault: isDefault, validation: validation,
      dispose: dispose)
  }

  convenience init(
    index: Int, scope: Scope, maker: any Maker, fileID: StaticString, line: UInt,
    validation: ValidationPolicy = .resolve, dispose: (@Sendable (any Sendable) async throws -> Void)? = nil
  ) {
    self.init(
      index: index, scope: scope, maker: maker, site: .source(fileID, line), isDefault: false, validation: validation,
      dispose: dispose)
  }

  private init(
    index: Int, scope: Scope, maker: any Maker, site: Site, isDefault: Bool, validation: ValidationPolicy,
    dispose: (@Sendable (any Sendable) async throws -> Void)?
  ) {
    self.index = index
    self.scope = scope
    self.maker = maker
    self.kind = maker.kind
    self.valueType = maker.valueType
    self.site = site
    self.isDefault = isDefault
    self.validation = validation
    self.dispose = dispose
  }

  var isAsync: Bool { kind == .async }
}

/// What ``Container/validate(including:)`` does with a registration.
public enum ValidationPolicy: Sendable, Hashable, Codable {
  /// Validation calls the factory in a throw-away copy of the container (the default).
  case resolve
  /// Validation never calls the factory, because it has side effects (opens a connection,
  /// writes a file). The registration counts as provided; its own dependencies are not followed.
  case skip
}
