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
