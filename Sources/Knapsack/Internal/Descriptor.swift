/// What the engine knows about one dependency: a key or a type (with an optional name).
struct Descriptor: Sendable {
  enum Kind: Sendable, Equatable {
    case key, asyncKey, argumentKey, mainActorKey, type, multibinding
  }

  let index: Int
  let kind: Kind
  /// `\.storage` for keys, `LocalStorage` or `LocalStorage (name: "secure")` for types.
  let displayName: String
  let typeName: String
  let declaration: CodeLocation?
  /// The key's default, or nil for required keys and types.
  let defaultRegistration: Registration?

  var reference: DependencyReference {
    DependencyReference(name: displayName, typeName: typeName, location: declaration)
  }
}

extension Descriptor {
  /// A key's descriptor: its name and declaration, and its default factory if it has one.
  init(
    _ kind: Kind, index: Int, keyPath: AnyKeyPath, declaration: Declaration, typeName: String, maker: (any Maker)?,
    scope: Scope
  ) {
    self.init(
      index: index, kind: kind, displayName: KeyTable.name(keyPath, declaration), typeName: typeName,
      declaration: declaration.location,
      defaultRegistration: maker.map {
        Registration(index: index, scope: scope, maker: $0, location: declaration.location, isDefault: true)
      })
  }
}

/// A key type that describes itself to the key table, whatever its value type.
protocol DeclaredKey {
  func descriptor(index: Int, keyPath: AnyKeyPath) -> Descriptor
}

extension Key: DeclaredKey {
  func descriptor(index: Int, keyPath: AnyKeyPath) -> Descriptor {
    Descriptor(
      .key, index: index, keyPath: keyPath, declaration: declaration, typeName: KeyTable.typeName(Value.self),
      maker: maker, scope: defaultScope)
  }
}

extension AsyncKey: DeclaredKey {
  func descriptor(index: Int, keyPath: AnyKeyPath) -> Descriptor {
    Descriptor(
      .asyncKey, index: index, keyPath: keyPath, declaration: declaration, typeName: KeyTable.typeName(Value.self),
      maker: maker, scope: defaultScope)
  }
}

extension ArgumentKey: DeclaredKey {
  func descriptor(index: Int, keyPath: AnyKeyPath) -> Descriptor {
    Descriptor(
      .argumentKey, index: index, keyPath: keyPath, declaration: declaration,
      typeName: KeyTable.typeName(Value.self), maker: maker, scope: .unique)
  }
}

extension MainActorKey: DeclaredKey {
  func descriptor(index: Int, keyPath: AnyKeyPath) -> Descriptor {
    Descriptor(
      .mainActorKey, index: index, keyPath: keyPath, declaration: declaration,
      typeName: KeyTable.typeName(Value.self), maker: maker, scope: defaultScope)
  }
}

extension Multibinding: DeclaredKey {
  func descriptor(index: Int, keyPath: AnyKeyPath) -> Descriptor {
    Descriptor(
      .multibinding, index: index, keyPath: keyPath, declaration: declaration,
      typeName: "[\(KeyTable.typeName(Element.self))]", maker: nil, scope: .unique)
  }
}
