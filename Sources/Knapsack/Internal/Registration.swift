/// How a factory runs; the same three kinds as ``KeyKind``.
@usableFromInline
enum FactoryKind: UInt8, Sendable, Equatable {
  // The raw value is the low two bits of ``Registration``'s packed flags.
  case sync, async, mainActor

  var name: String {
    switch self {
    case .sync: "a synchronous factory"
    case .async: "an asynchronous factory"
    case .mainActor: "a main-actor factory"
    }
  }
}

/// A user's factory closure, of one of the three kinds: a value, so that keeping it in a key or a
/// registration allocates nothing of its own.
@usableFromInline
struct Factory<Argument: Sendable, Value: Sendable>: Sendable {
  // A synchronous factory is kept in the shape the user wrote it, so that registering wraps
  // nothing in another closure (one allocation fewer per registration); `make` calls each shape.
  @usableFromInline
  enum Body: Sendable {
    case sync(@Sendable (Resolver, Argument) throws -> Value)
    /// A factory of a key without an argument (`Argument` is `Void`).
    case resolverOnly(@Sendable (Resolver) throws -> Value)
    /// A factory that needs no other dependency (`Argument` is `Void`).
    case plain(@Sendable () throws -> Value)
    case async(@Sendable (Resolver, Argument) async throws -> Value)
    case mainActor(@MainActor @Sendable (Resolver, Argument) throws -> Value)
  }

  @usableFromInline let body: Body

  @usableFromInline
  init(_ body: Body) { self.body = body }

  @usableFromInline var kind: FactoryKind {
    switch body {
    case .sync, .resolverOnly, .plain: .sync
    case .async: .async
    case .mainActor: .mainActor
    }
  }
}

/// A sample argument given to `validate(arguments:)` whose type the key does not take.
struct WrongSampleArgument: Error, CustomStringConvertible {
  let given: Any.Type
  let expected: Any.Type
  /// How the description starts: a problem's message and fix recognise the mistake by it.
  static let prefix = "the sample argument given to validate() is "
  /// How the description ends for a key that takes no argument.
  static let noArgument = "but the key takes no argument"

  var description: String {
    let takes = expected == Void.self ? Self.noArgument : "but the key takes \(KeyTable.typeName(expected))"
    return "\(Self.prefix)\(KeyTable.typeName(given)), \(takes)"
  }

  /// The mistake in `sample` for a key that takes an argument of type `expected` (nil: none),
  /// if it is one: what a key nobody registered is checked by, with its declared argument type.
  static func checking(_ sample: any Sendable, against expected: (any Sendable.Type)?) -> Self? {
    guard let expected else { return Self(given: type(of: sample), expected: Void.self) }
    func fits<Argument: Sendable>(_: Argument.Type) -> Bool { sample is Argument }
    return fits(expected) ? nil : Self(given: type(of: sample), expected: expected)
  }
}

/// What a decorator threw, named by where the decorator was added: a resolution's error says the
/// decorator failed, not the factory it decorates (``ResolutionError/description``).
struct DecoratorFailure: Error, CustomStringConvertible {
  /// How the description starts: the error's message recognises a decorator's failure by it.
  static let prefix = "its decorator added at "
  let location: CodeLocation
  let error: any Error

  var description: String { "\(Self.prefix)\(location) threw: \(error)" }

  /// `error`, or a decorator's failure naming `decoration` for an error that is not the
  /// library's own. A resolution error inside the decorator already names its dependency; one
  /// about a dependency the decorator of `step` (the index of the dependency it decorates) asked
  /// for itself says it was asked for where the decorator was added, since the path alone would
  /// blame the dependency's factory.
  static func wrapping(_ error: any Error, of decoration: Decoration, step: Int) -> any Error {
    if error is ValidationSkipped { return error }
    guard let resolutionError = error as? ResolutionError else {
      return DecoratorFailure(location: decoration.location, error: error)
    }
    guard let path = resolutionError.pathIndices, path.count >= 2, path[path.count - 2] == step else { return error }
    return ResolutionError.requested(error, path[path.count - 1], at: decoration.location)
  }

  /// Runs one synchronous decorator step of the dependency `step`, naming `decoration` in what it
  /// throws.
  static func naming<Value>(_ decoration: Decoration, step: Int, _ body: () throws -> Value) throws -> Value {
    do { return try body() } catch { throw wrapping(error, of: decoration, step: step) }
  }
}

/// A decorator: wraps what a dependency resolves to.
@usableFromInline
final class Decoration: Sendable {
  /// The decorator, in the shape its key's kind allows.
  enum Apply: Sendable {
    case sync(@Sendable (Resolver, any Sendable) throws -> any Sendable)
    case mainActor(@MainActor @Sendable (Resolver, any Sendable) throws -> any Sendable)
    case async(@Sendable (Resolver, any Sendable) async throws -> any Sendable)
  }

  let apply: Apply
  let location: CodeLocation
  init(location: CodeLocation, apply: Apply) {
    self.apply = apply
    self.location = location
  }
}

/// What a registration records besides its index and factory, packed into 24 bytes: where it was
/// made, its scope, its factory's kind and its flags. A container keeps these unboxed for every
/// key it registers (see ``RegistrationMap``); the ``Registration`` object a plan needs holds
/// them too.
@usableFromInline
struct RegistrationFields: Sendable {
  /// The address of the UTF-8 text of the `#fileID` of the `register` call, a static string of
  /// the program (immutable, never freed); 0 when ``extras`` holds the location.
  let file: UInt
  let extras: Registration.Extras?
  let line: UInt32
  let fileLength: UInt16
  let scope: Scope
  /// The factory's kind (the low two bits), `isDefault` and `hasSideEffects`.
  let bits: UInt8

  @usableFromInline
  init(
    scope: Scope, kind: FactoryKind, site: Registration.Site, isDefault: Bool, hasSideEffects: Bool,
    dispose: (@Sendable (any Sendable) async throws -> Void)?
  ) {
    self.scope = scope
    bits = kind.rawValue | (isDefault ? 4 : 0) | (hasSideEffects ? 8 : 0)
    var location: CodeLocation?
    switch site {
    case .source(let fileID, let line)
    where fileID.hasPointerRepresentation && fileID.utf8CodeUnitCount <= UInt16.max && line <= UInt32.max:
      file = UInt(bitPattern: fileID.utf8Start)
      fileLength = UInt16(fileID.utf8CodeUnitCount)
      self.line = UInt32(line)
    case .source(let fileID, let line):
      location = CodeLocation(fileID, line)
      (file, fileLength, self.line) = (0, 0, 0)
    case .known(let known):
      location = known
      (file, fileLength, self.line) = (0, 0, 0)
    }
    extras =
      location == nil && dispose == nil ? nil : Registration.Extras(location: location, dispose: dispose)
  }

  /// Where the registration (or, for a default, the key) was made.
  var location: CodeLocation {
    if let file = UnsafeRawPointer(bitPattern: file) {
      let text = String(decoding: UnsafeRawBufferPointer(start: file, count: Int(fileLength)), as: UTF8.self)
      return CodeLocation(fileID: text, line: Int(line))
    }
    return extras?.location ?? CodeLocation(fileID: "unknown", line: 0)
  }
}

/// A typed factory that can make the ``Registration`` object of the fields it was registered
/// with: what a container keeps, unboxed, for a key nothing has planned yet (see
/// ``RegistrationMap``).
///
/// Registering wraps the factory in this existential where the `register` call is compiled, with
/// the concrete types: there, finding `Factory`'s metadata is a load from a cache of that call
/// site, where generic code would look it up in the runtime's table on every registration.
@usableFromInline
protocol RegistrationFactory: Sendable {
  /// How the factory runs.
  var kind: FactoryKind { get }
  /// The registration of `index` with these fields and this factory.
  func registration(index: Int, fields: RegistrationFields) -> Registration
}

extension Factory: RegistrationFactory {
  @usableFromInline
  func registration(index: Int, fields: RegistrationFields) -> Registration {
    TypedRegistration(index: index, fields: fields, factory: self)
  }
}

/// How one dependency is made: an immutable record of a key default or a `register` call.
///
/// Every registration is a ``TypedRegistration``, which adds the typed factory; the engine casts
/// to it after checking the registration's class (``TypedRegistration`` of the argument and value
/// types it expects). A container makes this object only when something plans its key (see
/// ``RegistrationMap``): until then it keeps the fields and the factory unboxed. What few
/// registrations have (a `dispose:` closure, a location that is not a static string) lives in an
/// ``Extras`` object of their own.
@usableFromInline
class Registration: @unchecked Sendable {
  // Safe: every stored property is immutable, and the subclass adds only an immutable factory of
  // @Sendable closures.
  @usableFromInline let index: Int
  let fields: RegistrationFields

  final class Extras: Sendable {
    let location: CodeLocation?
    let dispose: (@Sendable (any Sendable) async throws -> Void)?
    init(location: CodeLocation?, dispose: (@Sendable (any Sendable) async throws -> Void)?) {
      self.location = location
      self.dispose = dispose
    }
  }

  /// Where the registration was made: kept as the compiler's static string until an error or a
  /// report needs it, so that registering allocates no string.
  @usableFromInline
  enum Site: Sendable {
    case known(CodeLocation)
    case source(StaticString, UInt)
  }

  init(index: Int, fields: RegistrationFields) {
    self.index = index
    self.fields = fields
  }

  @usableFromInline var scope: Scope { fields.scope }
  /// How the factory runs.
  @usableFromInline var kind: FactoryKind { FactoryKind(rawValue: fields.bits & 3) ?? .sync }
  /// Whether this is a key's default rather than a `register` call.
  var isDefault: Bool { fields.bits & 4 != 0 }
  /// Whether validation must not call the factory (it opens a connection, writes a file...).
  var hasSideEffects: Bool { fields.bits & 8 != 0 }
  /// What disposes of the instances this registration makes, if it was given one.
  var dispose: (@Sendable (any Sendable) async throws -> Void)? { fields.extras?.dispose }

  /// Where the registration (or, for a default, the key) was made.
  var location: CodeLocation { fields.location }

  /// The type the factory makes. Overridden by ``TypedRegistration``, the only subclass.
  var valueType: Any.Type { Any.self }
  /// Whether the factory takes an argument.
  var takesArgument: Bool { false }

  /// Resolves this registration's dependency once in `container` with its factory's own types:
  /// validation's dry run goes through the same resolution routine as the app. `argument` is the
  /// sample argument, if any.
  func dryRun(_ container: Container, argument: (any Sendable)?) async throws -> DryRunOutcome {
    .needsSample
  }

  /// How a registration's dry run ended, if it did not throw.
  enum DryRunOutcome {
    /// It needs an argument, and none of its type was given.
    case needsSample
    /// It made its instance: given back for a factory that takes no argument, else nil.
    case made((any Sendable)?)
  }

  /// Resolves this type registration's dependency through `context`, returning the value with
  /// its type erased: for callers that cannot name the type as `Sendable`.
  func resolveErased(_ context: ResolutionContext) throws -> any Sendable {
    throw context.container.failure(.factoryMismatch, index, nil)
  }

  /// A description of this factory as the error for a mismatch names it.
  var summary: String { kind.name }
}

/// A registration with its typed factory.
@usableFromInline
final class TypedRegistration<Argument: Sendable, Value: Sendable>: Registration, @unchecked Sendable {
  // Safe: `factory` is immutable and holds only @Sendable closures.
  @usableFromInline let factory: Factory<Argument, Value>

  /// A registration made where it is known (a key's default, a contribution).
  convenience init(
    index: Int, scope: Scope, factory: Factory<Argument, Value>, location: CodeLocation, isDefault: Bool,
    hasSideEffects: Bool = false, dispose: (@Sendable (any Sendable) async throws -> Void)? = nil
  ) {
    self.init(
      index: index,
      fields: RegistrationFields(
        scope: scope, kind: factory.kind, site: .known(location), isDefault: isDefault, hasSideEffects: hasSideEffects,
        dispose: dispose),
      factory: factory)
  }

  init(index: Int, fields: RegistrationFields, factory: Factory<Argument, Value>) {
    self.factory = factory
    super.init(index: index, fields: fields)
  }

  override var valueType: Any.Type { Value.self }
  override var takesArgument: Bool { Argument.self != Void.self }

  /// `()` for a factory that takes no argument; nil for one that takes an argument, even of type
  /// `any Sendable`, which `()` would also pass for.
  private static var noArgument: Argument? { Argument.self == Void.self ? () as? Argument : nil }

  override func dryRun(_ container: Container, argument sample: (any Sendable)?) async throws -> DryRunOutcome {
    let argument: Argument
    if let void = Self.noArgument {
      if let sample {
        throw container.failure(
          .factoryMismatch, index, nil, underlying: WrongSampleArgument(given: type(of: sample), expected: Void.self))
      }
      argument = void
    } else if let sample, let typed = sample as? Argument {
      // Unwrapped first: the optional itself would pass for an argument of type `any Sendable`.
      argument = typed
    } else if let sample {
      throw container.failure(
        .factoryMismatch, index, nil, underlying: WrongSampleArgument(given: type(of: sample), expected: Argument.self))
    } else {
      return .needsSample
    }
    let value: Value = try await container.resolveAsync(index, argument, parent: nil)
    return .made(Argument.self == Void.self ? value : nil)
  }

  override func resolveErased(_ context: ResolutionContext) throws -> any Sendable {
    guard let void = Self.noArgument else { throw context.container.failure(.factoryMismatch, index, nil) }
    let value: Value = try context.resolve(index, void)
    return value
  }

  override var summary: String {
    Argument.self == Void.self
      ? "\(kind.name) of \(KeyTable.typeName(Value.self))"
      : "\(kind.name) of \(KeyTable.typeName(Value.self)) taking \(KeyTable.typeName(Argument.self))"
  }
}
