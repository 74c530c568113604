extension Character {
  /// Whether the character may stand in a Swift identifier (a letter, a digit or `_`), as the
  /// line-by-line readers of the check take it.
  var isIdentifierPart: Bool { isLetter || isNumber || self == "_" }
}

/// A place in a source file, 1-based, as the compiler prints it.
struct Site: Codable, Hashable, Comparable {
  var file: String
  var line: Int
  var column: Int
  /// The module of the file, which the runtime names a file by (`#fileID`, `Module/Name.swift`).
  var module: String?

  static func < (lhs: Site, rhs: Site) -> Bool {
    (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
  }

  /// `file:line:column`, the prefix of a compiler diagnostic.
  var prefix: String { "\(file):\(line):\(column)" }

  /// `Module/Name.swift:line`, as the runtime names the place (the folder the file is in, when
  /// the module is not known), short enough to list several in one message.
  var short: String {
    let parts = file.split(separator: "/")
    let name = parts.last.map(String.init) ?? file
    let folder = module ?? (parts.count > 1 ? String(parts[parts.count - 2]) : nil)
    return "\(folder.map { "\($0)/" } ?? "")\(name):\(line)"
  }
}

/// A reference to a dependency: a key path into `Dependencies` or a type with an optional name.
struct DependencyID: Codable, Hashable, Comparable, CustomStringConvertible {
  /// `\.name` for a key; for a type, its spelling normalized by `normalizedType(_:)` (no spaces),
  /// followed by ` "name"` when it has one.
  var text: String
  var isType: Bool
  /// A type as the source spells it, for messages; not part of the identity.
  var written: String?

  static func key(_ name: String) -> DependencyID {
    let isPlain = !(name.first?.isNumber ?? true) && name.allSatisfy(\.isIdentifierPart)
    return DependencyID(text: isPlain ? "\\.\(name)" : "\\.`\(name)`", isType: false)
  }

  static func type(_ type: String, name: String?) -> DependencyID {
    let suffix = name.map { " \"\($0)\"" } ?? ""
    return DependencyID(text: normalizedType(type) + suffix, isType: true, written: type + suffix)
  }

  static func == (lhs: DependencyID, rhs: DependencyID) -> Bool { (lhs.text, lhs.isType) == (rhs.text, rhs.isType) }

  func hash(into hasher: inout Hasher) {
    hasher.combine(text)
    hasher.combine(isType)
  }

  static func < (lhs: DependencyID, rhs: DependencyID) -> Bool { lhs.text < rhs.text }

  var description: String { written ?? text }

  /// This type's spelling (its text without the name) and its name (` "audit"`, or empty).
  var typeAndName: (type: Substring, name: Substring) {
    guard let quote = text.range(of: " \"") else { return (text[...], "") }
    return (text[..<quote.lowerBound], text[quote.lowerBound...])
  }

  /// Whether this type and `other` are one type spelled with and without a qualifier: the
  /// enclosing type, `API.Session` and `Session`, or a module that the check could not tell the
  /// other spelling's from, with the same name if any. Types are qualified by their module when
  /// the check can tell it (see ``TypeNames``): two of different `modules` are two types.
  func isQualifiedSpelling(of other: DependencyID, modules: Set<String>) -> Bool {
    guard isType, other.isType, self != other else { return false }
    let (mine, myName) = typeAndName
    let (theirs, theirName) = other.typeAndName
    guard myName == theirName else { return false }
    func module(_ type: Substring) -> (module: Substring?, rest: Substring) {
      guard let dot = type.firstIndex(of: "."), modules.contains(String(type[..<dot])) else { return (nil, type) }
      return (type[..<dot], type[type.index(after: dot)...])
    }
    let (myModule, myRest) = module(mine)
    let (theirModule, theirRest) = module(theirs)
    if let myModule, let theirModule, myModule != theirModule { return false }
    return myRest == theirRest || myRest.hasSuffix("." + theirRest) || theirRest.hasSuffix("." + myRest)
  }

  /// This key told apart by the module that declares it: `\.config (Profile)` (see ``spelled``).
  func declared(in module: String) -> DependencyID {
    DependencyID(text: "\(text) (\(module))", isType: false)
  }

  /// This dependency with a note in parentheses: `\.ledger (singleton)`, or for a key told apart
  /// by its module, `\.ledger (Profile, singleton)`, in the group that already ends it.
  func noted(_ note: String) -> String {
    spelled == text || isType || isContribution ? "\(description) (\(note))" : "\(text.dropLast()), \(note))"
  }

  /// Whether this is one contribution to a multibinding, `\.sinks contribution (Sinks.swift:12)`:
  /// its parentheses hold its site, not a module.
  var isContribution: Bool { !isType && text.contains(" contribution (") }

  /// How a source file spells it: a key without the module that tells it apart (`\.config`).
  var spelled: String {
    guard !isType, !isContribution, text.hasSuffix(")"), let module = text.range(of: " (", options: .backwards) else {
      return description
    }
    return String(text[..<module.lowerBound])
  }
}

/// Something a factory resolves, or a resolution the check cannot follow.
struct Reference: Codable, Hashable {
  /// The dependency, or nil when the check cannot tell which one it is.
  var target: DependencyID?
  var site: Site
  /// Why the check cannot follow it, when `target` is nil.
  var unfollowable: String?
  /// For a resolution of an `@Injected` property of an instance that a factory makes, the
  /// property and the construction that led to it (`@Injected in TodoScreen, made by TodoScreen()
  /// at App/main.swift:7`); set by the analysis, never cached.
  var via: String?
  /// For a handle, whether it is a `Lazy` (`r.lazy(\.key)`, a `@LazyInjected` property), which
  /// keeps the first value it reads: a longer-lived holder keeps that value. A `Provider` resolves
  /// anew on each `get`.
  var keepsFirstValue = false
}

/// A call that may make an instance of a type: `TodoScreen(...)`, `TodoScreen.init(...)`,
/// `Feature.TodoScreen(...)`, in a factory or in a type's stored property initializers and
/// initializers. Whether it makes a type of the graph, and which, the analysis tells.
struct Construction: Codable, Hashable {
  /// The type as written, without `.init` and generic arguments: `TodoScreen`, `Feature.TodoScreen`.
  var type: String
  /// The types the call sits in, qualified in its module (`API`, `API.Inner`): Swift looks a name
  /// up in them first.
  var context: String?
  /// The call as messages show it: `TodoScreen()`, `TodoScreen(...)`, `TodoScreen.init`.
  var call: String
  var site: Site
}

/// A type declared in the file (struct, class, actor or enum, or an extension of one) that
/// resolves dependencies when an instance is made: its `@Injected` properties, or the types its
/// stored property initializers and initializers make, or a class with a superclass that may have
/// them. Recorded only when it has any.
struct InjectingType: Codable, Hashable {
  /// Qualified by the types it is nested in (`API.Screen`), not by its module.
  var name: String
  /// What its `@Injected` properties resolve, each at its attribute.
  var injections: [Reference] = []
  /// What its `@LazyInjected` properties resolve on first access, each at its attribute.
  var lazyInjections: [Reference] = []
  /// The calls in its stored property initializers (not `lazy` or `static` ones) and
  /// initializers that may make another type.
  var constructions: [Construction] = []
  /// For a class, the first type of its inheritance clause, its superclass if it is one: making
  /// an instance makes the superclass's `@Injected` properties too. Looked up like a construction
  /// in the class.
  var superclass: Construction?
}

/// A key declared in `extension Dependencies`.
struct KeyDeclaration: Codable, Hashable {
  var id: DependencyID
  /// `Key<T>`, `AsyncKey<T>`, ... as written.
  var typeText: String
  /// The value type (the last generic argument).
  var valueType: String
  /// The key takes an argument (`ArgumentKey`, or `DependencyKey` with one): a factory for it
  /// takes the resolver and the argument.
  var takesArgument: Bool
  var isRequired: Bool
  var scope: String
  var resolves: [Reference]
  /// The calls in the default factory that may make a type with `@Injected` properties.
  var constructions: [Construction] = []
  /// What it resolves later, after it returned: the `Lazy` and `Provider` handles it makes, and
  /// (added by the analysis) the `@LazyInjected` properties of the instances it makes.
  var deferred: [Reference] = []
  /// The default factory only hands out another key's instance (`Key { r in try r[\.other] }`).
  var isAlias = false
  var site: Site
  /// The key carries the `knapsack-check: runtime-provided` comment.
  var isSilenced: Bool
}

/// A `register` call that the check can follow.
struct Registration: Codable, Hashable {
  var id: DependencyID
  /// The scope argument; nil means the key's default scope (or unique for a type).
  var scope: String?
  var resolves: [Reference]
  /// The calls in the factory that may make a type with `@Injected` properties.
  var constructions: [Construction] = []
  /// What it resolves later, after it returned: the `Lazy` and `Provider` handles it makes, and
  /// (added by the analysis) the `@LazyInjected` properties of the instances it makes.
  var deferred: [Reference] = []
  /// The factory only hands out another key's instance (`{ r in try r[\.other] }`): an alias,
  /// whose instance lives as long as that key's.
  var isAlias = false
  var site: Site
  /// Why the count of this registration is uncertain (for example, it sits in a loop).
  var caveat: String?
  /// The type the factory makes when its body is one call that names it (`{ BillingConfig() }`):
  /// what tells keys of one name in several modules apart, as Swift does by the value's type.
  var madeType: String?
}

/// A function that registers the key its caller passes, a registration helper:
/// `func singleton<V>(_ key: KeyPath<Dependencies, Key<V>>, _ make: ...) { register(key, scope:
/// .singleton, make) }`. Each call that passes it a key path registers that key.
struct RegisteringFunction: Codable, Hashable {
  var name: String
  /// The position of the key path among the function's parameters, and its argument label.
  var parameter: Int
  var label: String?
  /// The scope its `register` call names, or the position of the parameter it passes as the
  /// scope (labelled or not) and that parameter's default (`scope: Scope = .singleton`), the scope
  /// of a call that passes none.
  var scope: String?
  var scopeParameter: Int?
  var scopeDefault: String?
  /// Its parameters' argument labels (nil for `_`): what matches a call's arguments to them.
  var parameterLabels: [String?] = []
  /// Its `register` call.
  var site: Site
}

/// A call that passes a key path to a function other than Knapsack's `register` and
/// `contribute`: a registration when the function is a ``RegisteringFunction``.
struct KeyPathCall: Codable, Hashable {
  var callee: String
  /// The key path's position among the arguments, its label and the key it names.
  var argument: Int
  var label: String?
  var key: String
  /// The labels of the arguments it passes (nil for none), and the scope each one is if it is a
  /// literal scope (`.singleton`, `Scope.singleton`): a helper's scope parameter it leaves out
  /// has its default. A trailing closure is no argument here.
  var labels: [String?] = []
  var scopes: [String?] = []
  /// What the closure it passes (its trailing closure, else its last closure argument) resolves.
  var resolves: [Reference] = []
  var constructions: [Construction] = []
  var deferred: [Reference] = []
  var site: Site
  var isInLoop = false
  /// Whether the call is in the configuration closure of `withOverrides`: a helper's
  /// registration there is an override, no provider of the graph.
  var isOverride = false
}

/// What one source file contributes to the graph. Cached per file.
struct FileFacts: Codable, Hashable {
  var imports: [String] = []
  var declarations: [KeyDeclaration] = []
  var registrations: [Registration] = []
  /// Contributions to multibindings, `contribute(to: \.key, scope:) { r in ... }`: the id is
  /// the multibinding's.
  var contributions: [Registration] = []
  /// Registrations the check cannot follow (a computed key path, a non-literal name).
  var unfollowedRegistrations: [Reference] = []
  /// Registrations in the configuration closure of `withOverrides { $0.register(...) }`: they
  /// provide their key only inside that override scope, so they are not providers of the graph.
  var overrideRegistrations: [Reference] = []
  /// Key declarations the check does not check, with why: a required subscript key.
  var uncheckedKeys: [Reference] = []
  /// Registration helpers declared in the file, and the calls that may be calls of one.
  var registeringFunctions: [RegisteringFunction] = []
  var keyPathCalls: [KeyPathCall] = []
  /// Structs and enums declared in the file, by qualified name (`API.Session` for one nested in
  /// `API`): a singleton may keep one of these.
  var valueTypes: [String] = []
  /// The names of every type the file declares (struct, enum, class, actor, protocol or type
  /// alias), unqualified: what tells two keys' types written alike apart.
  var declaredTypes: [String] = []
  /// The names among `declaredTypes` that are type aliases: the check does not know which type
  /// such a name stands for (`typealias Ledger = Billing.Ledger`).
  var typeAliases: [String] = []
  /// The nested types the file declares, qualified (`API.Session`): a name written inside `API`
  /// means the nested one first.
  var nestedTypes: [String] = []
  /// The types whose instances resolve dependencies when made (see ``InjectingType``).
  var injectingTypes: [InjectingType] = []
}
