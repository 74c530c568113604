/// What the engine knows about one dependency: a key or a type (with an optional name).
struct Descriptor: Sendable {
  enum Kind: Sendable, Equatable {
    case key, asyncKey, argumentKey, mainActorKey, type, multibinding
    /// One contribution to a multibinding: those made from one line in unrelated containers
    /// share their name; those of one line of containers (ancestors and descendants) are
    /// numbered apart.
    case contribution
  }

  let index: Int
  let kind: Kind
  /// `\.storage` for keys, `LocalStorage` or `LocalStorage (name: "secure")` for types.
  let displayName: String
  let typeName: String
  /// Where the key was declared (nil for a type).
  let declaration: CodeLocation?
  /// The key's default, or nil for required keys and types.
  let defaultRegistration: Registration?
  /// The scope the key declares with `.scope(_:)`, which a registration that names none takes:
  /// a required key's too, which has no default to carry it. Unique for a type.
  var declaredScope: Scope = .unique
  /// The type of the key's argument, for a key that takes one: what an error's path shows each
  /// step's argument as (see ``ArgumentText``).
  var argumentType: (any Sendable.Type)? = nil
  /// The type of the value it makes, for a key or a type (nil for a multibinding and a
  /// contribution): what tells whether a registered type conforms to a protocol an error asks
  /// for (see ``Container/nearMatches(to:excluding:limit:)``).
  var valueType: Any.Type? = nil

  var reference: DependencyReference {
    DependencyReference(name: displayName, typeName: typeName, location: declaration)
  }

  /// Whether this dependency is shown by the same name as others of that name: a contribution
  /// (the first from one line in each of several unrelated containers) or a type (named
  /// apart by its qualified name when it is first seen).
  var sharesItsName: Bool { kind == .contribution || declaration == nil }

  /// The module that declares the key (the first component of its file ID), if known.
  var module: String? {
    guard let declaration else { return nil }
    let module = declaration.fileID.prefix { $0 != "/" }
    return module.isEmpty ? nil : String(module)
  }

  /// This key, shown as `name`.
  func renamed(_ name: String) -> Descriptor {
    Descriptor(
      index: index, kind: kind, displayName: name, typeName: typeName, declaration: declaration,
      defaultRegistration: defaultRegistration, declaredScope: declaredScope, argumentType: argumentType,
      valueType: valueType)
  }
}

extension Descriptor {
  /// A key's descriptor: its name and declaration, and its default factory if it has one.
  init(
    _ kind: Kind, index: Int, keyPath: AnyKeyPath, declaration: Declaration, typeName: String,
    defaultRegistration: Registration?, declaredScope: Scope = .unique, argumentType: (any Sendable.Type)? = nil,
    valueType: Any.Type? = nil
  ) {
    self.init(
      index: index, kind: kind, displayName: KeyTable.name(keyPath, declaration), typeName: typeName,
      declaration: declaration.location, defaultRegistration: defaultRegistration, declaredScope: declaredScope,
      argumentType: argumentType, valueType: valueType)
  }
}

/// A key type that describes itself to the key table, whatever its value type.
protocol DeclaredKey {
  func descriptor(index: Int, keyPath: AnyKeyPath) -> Descriptor
}

extension DependencyKey: DeclaredKey {
  func descriptor(index: Int, keyPath: AnyKeyPath) -> Descriptor {
    let kind: Descriptor.Kind =
      if Argument.self != Void.self {
        .argumentKey
      } else if Kind.self == AsyncKind.self {
        .asyncKey
      } else if Kind.self == MainActorKind.self {
        .mainActorKey
      } else {
        .key
      }
    return Descriptor(
      kind, index: index, keyPath: keyPath, declaration: declaration, typeName: KeyTable.typeName(Value.self),
      defaultRegistration: factory.map {
        TypedRegistration(
          index: index, scope: defaultScope, factory: $0, location: declaration.location, isDefault: true)
      }, declaredScope: defaultScope, argumentType: Argument.self == Void.self ? nil : Argument.self,
      valueType: Value.self)
  }
}

extension MultibindingKey: DeclaredKey {
  func descriptor(index: Int, keyPath: AnyKeyPath) -> Descriptor {
    Descriptor(
      .multibinding, index: index, keyPath: keyPath, declaration: declaration,
      typeName: "[\(KeyTable.typeName(Element.self))]", defaultRegistration: nil)
  }
}
