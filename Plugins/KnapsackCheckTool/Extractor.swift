import SwiftParser
import SwiftSyntax

/// The comment that silences the missing-provider error for a key provided only at run time.
let silencingMarker = "knapsack-check: runtime-provided"

/// Whether `comment` (with its `//` or `/*`) is the silencing comment: the marker is its text,
/// after the comment's own punctuation, not a word inside other text.
func isSilencingComment(_ comment: String) -> Bool {
  let text = comment.drop { $0 == "/" || $0 == "*" || $0 == "!" }.drop(while: \.isWhitespace)
  return text.hasPrefix(silencingMarker)
}

/// The pieces of `trivia` after its last blank line (two line breaks with nothing but spaces or
/// tabs between): the comments attached to what follows.
func afterLastBlankLine(_ trivia: [TriviaPiece]) -> ArraySlice<TriviaPiece> {
  var start = 0
  var breaks = 0
  for (index, piece) in trivia.enumerated() {
    switch piece {
    case .newlines(let count), .carriageReturns(let count), .carriageReturnLineFeeds(let count):
      breaks += count
      if breaks > 1 { start = index + 1 }
    case .spaces, .tabs: continue
    default: breaks = 0
    }
  }
  return trivia[start...]
}

/// The multibinding kinds: keys that contributions provide, never required.
let multibindingKinds: Set<String> = ["Multibinding", "AsyncMultibinding", "MainActorMultibinding", "MultibindingKey"]

/// The key kinds declared in `extension Dependencies`: the aliases and the generic types they name.
let keyKinds = Set(["Key", "AsyncKey", "MainActorKey", "ArgumentKey", "DependencyKey"]).union(multibindingKinds)

/// The modules a file imports, read line by line without parsing (for a file that cannot
/// declare, register or resolve a key): `import M`, `public import M`, `@testable import M`,
/// `import struct M.T`.
func importedModules(_ source: String) -> [String] {
  source.split(whereSeparator: \.isNewline).compactMap { line in
    let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
    let accessLevels: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
    guard let position = words.firstIndex(of: "import"),
      words[..<position].allSatisfy({ $0.hasPrefix("@") || accessLevels.contains($0) }),
      position + 1 < words.count
    else { return nil }
    let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let", "actor"]
    let path =
      kinds.contains(words[position + 1]) && position + 2 < words.count ? words[position + 2] : words[position + 1]
    return String(path.prefix { $0 != "." })
  }
}

/// The types a file declares at its top level, read line by line without parsing (for a file that
/// cannot declare, register or resolve a key): every kind by name, and the structs and enums, the
/// value types, apart (`struct Session`, `@available(iOS 15, *) public enum Mode: String`). A line
/// that starts with a space is inside another declaration, and its type is a nested one, not
/// counted (``FactsCollector`` qualifies those in the files it parses).
func topLevelTypes(_ source: String) -> (declared: [String], valueTypes: [String], typeAliases: [String]) {
  let modifiers: Set<Substring> = [
    "public", "internal", "fileprivate", "private", "package", "indirect", "final", "nonisolated", "frozen", "open",
  ]
  let kinds: Set<Substring> = ["struct", "enum", "class", "actor", "protocol", "typealias"]
  var declared: [String] = []
  var valueTypes: [String] = []
  var typeAliases: [String] = []
  for line in source.split(whereSeparator: \.isNewline) {
    guard let first = line.first, !first.isWhitespace else { continue }
    let words = withoutAttributeArguments(line).split(whereSeparator: { $0 == " " || $0 == "\t" })
    guard let position = words.firstIndex(where: { !$0.hasPrefix("@") && !modifiers.contains($0) }),
      kinds.contains(words[position]), position + 1 < words.count
    else { continue }
    let name = String(words[position + 1].prefix(while: \.isIdentifierPart))
    guard !name.isEmpty else { continue }
    declared.append(name)
    if words[position] == "struct" || words[position] == "enum" { valueTypes.append(name) }
    if words[position] == "typealias" { typeAliases.append(name) }
  }
  return (declared, valueTypes, typeAliases)
}

/// `line` without the parenthesized arguments of its attributes: `@available(iOS 15, *) struct X`
/// becomes `@available struct X`.
func withoutAttributeArguments(_ line: Substring) -> String {
  var result = ""
  var depth = 0
  var inAttribute = false
  for character in line {
    if depth > 0 {
      if character == "(" { depth += 1 } else if character == ")" { depth -= 1 }
      continue
    }
    if character == "@" {
      inAttribute = true
    } else if inAttribute, character == "(" {
      depth = 1
      continue
    } else if !character.isIdentifierPart {
      inAttribute = false
    }
    result.append(character)
  }
  return result
}

/// Reads one file's key declarations, registrations and resolutions.
func extractFacts(path: String, module: String, source: String) -> FileFacts {
  let tree = Parser.parse(source: source)
  let collector = FactsCollector(path: path, module: module, tree: tree)
  collector.walk(tree)
  return collector.facts
}

final class FactsCollector: SyntaxVisitor {
  let converter: SourceLocationConverter
  let path: String
  let module: String
  var facts = FileFacts()

  init(path: String, module: String, tree: SourceFileSyntax) {
    self.path = path
    self.module = module
    converter = SourceLocationConverter(fileName: path, tree: tree)
    super.init(viewMode: .sourceAccurate)
  }

  func site(_ node: some SyntaxProtocol) -> Site {
    let location = node.startLocation(converter: converter)
    return Site(file: path, line: location.line, column: location.column, module: module)
  }

  override func visit(_ node: ImportDeclSyntax) -> SyntaxVisitorContinueKind {
    facts.imports.append(node.path.first?.name.text ?? "")
    return .skipChildren
  }

  override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
    if let name = qualifiedName(node) { facts.valueTypes.append(name) }
    injectingType(node)
    return declaredType(node)
  }

  override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
    if let name = qualifiedName(node) { facts.valueTypes.append(name) }
    injectingType(node)
    return declaredType(node)
  }

  override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
    injectingType(node)
    return declaredType(node)
  }

  override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind {
    injectingType(node)
    return declaredType(node)
  }
  override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind { declaredType(node) }
  override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind {
    facts.typeAliases.append(node.name.text)
    return declaredType(node)
  }

  /// Notes the name of a type the file declares (see ``FileFacts/declaredTypes``).
  func declaredType(_ node: some NamedDeclSyntax) -> SyntaxVisitorContinueKind {
    facts.declaredTypes.append(node.name.text)
    if let name = qualifiedName(node), name.contains(".") { facts.nestedTypes.append(name) }
    return .visitChildren
  }

  /// Notes what a type's instances resolve when made (see ``InjectingType``): its `@Injected` and
  /// `@LazyInjected` properties, and the types its stored properties and initializers make.
  func injectingType(_ node: some NamedDeclSyntax & DeclGroupSyntax) {
    guard let name = qualifiedName(node) else { return }
    var type = InjectingType(name: name)
    if node.is(ClassDeclSyntax.self), let inherited = node.inheritanceClause?.inheritedTypes.first?.type {
      let written = inherited.trimmedDescription
      type.superclass = Construction(
        type: String(written.prefix { $0 != "<" }), context: name, call: "\(node.name.text): \(written)",
        site: site(inherited))
    }
    record(type, members: node.memberBlock.members)
  }

  /// Records `type` with what `members` add to it, if anything.
  func record(_ type: InjectingType, members: MemberBlockItemListSyntax) {
    var type = type
    injections(in: members, into: &type)
    if !type.injections.isEmpty || !type.lazyInjections.isEmpty || !type.constructions.isEmpty
      || type.superclass != nil
    {
      facts.injectingTypes.append(type)
    }
  }

  /// The `@Injected` and `@LazyInjected` properties among `members` (in every clause of `#if`), and
  /// the calls that may make a type in stored property initializers and initializers.
  func injections(in members: MemberBlockItemListSyntax, into type: inout InjectingType) {
    for member in members {
      if let conditional = member.decl.as(IfConfigDeclSyntax.self) {
        for clause in conditional.clauses {
          if case .decls(let nested) = clause.elements { injections(in: nested, into: &type) }
        }
      } else if let initializer = member.decl.as(InitializerDeclSyntax.self), let body = initializer.body {
        type.constructions += constructions(in: body)
      } else if let variable = member.decl.as(VariableDeclSyntax.self) {
        let modifiers = Set(variable.modifiers.map(\.name.text))
        guard modifiers.isDisjoint(with: ["static", "class", "lazy"]) else { continue }
        for binding in variable.bindings where binding.accessorBlock == nil {
          if let value = binding.initializer?.value { type.constructions += constructions(in: value) }
        }
        for attribute in variable.attributes {
          guard let attribute = attribute.as(AttributeSyntax.self),
            let binding = variable.bindings.first
          else { continue }
          let wrapper = attribute.attributeName.trimmedDescription
          if wrapper == "Injected" || wrapper == "Knapsack.Injected" {
            type.injections.append(injection(attribute, binding))
          } else if wrapper == "LazyInjected" || wrapper == "Knapsack.LazyInjected" {
            var reference = injection(attribute, binding)
            reference.keepsFirstValue = true
            type.lazyInjections.append(reference)
          }
        }
      }
    }
  }

  /// What an `@Injected` or `@LazyInjected` attribute resolves: `(\.key)`, `(\.key, argument:
  /// x)`, `(type: T.self, name: "n")`, or, with no key path and no type, the property's type, with
  /// or without `container:`.
  func injection(_ attribute: AttributeSyntax, _ binding: PatternBindingSyntax) -> Reference {
    let site = site(attribute)
    var arguments: LabeledExprListSyntax = []
    if case .argumentList(let list) = attribute.arguments { arguments = list }
    var name: String?
    if let nameArgument = arguments.first(where: { $0.label?.text == "name" }),
      !nameArgument.expression.is(NilLiteralExprSyntax.self)
    {
      guard let literal = stringLiteral(nameArgument.expression) else {
        return Reference(target: nil, site: site, unfollowable: "a name computed at run time")
      }
      name = literal
    }
    if let first = arguments.first, first.label == nil {
      guard let keyPath = first.expression.as(KeyPathExprSyntax.self) else {
        return Reference(target: nil, site: site, unfollowable: "a key path computed at run time")
      }
      guard let key = keyName(keyPath) else {
        return Reference(target: nil, site: site, unfollowable: "a key path with several components")
      }
      return Reference(target: .key(key), site: site)
    }
    if let typeArgument = arguments.first(where: { $0.label?.text == "type" }) {
      guard isTypeExpression(typeArgument.expression),
        let base = typeArgument.expression.as(MemberAccessExprSyntax.self)?.base
      else { return Reference(target: nil, site: site, unfollowable: "the type is computed at run time") }
      return Reference(target: .type(typeText(base), name: name), site: site)
    }
    guard let type = binding.typeAnnotation?.type else {
      return Reference(target: nil, site: site, unfollowable: "the property's type is not written")
    }
    return Reference(target: .type(type.trimmedDescription, name: name), site: site)
  }

  /// The calls under `node` that may make a type (see ``ReferenceFinder/constructions``).
  func constructions(in node: some SyntaxProtocol) -> [Construction] {
    let finder = ReferenceFinder(collector: self, factory: nil)
    finder.walk(node)
    return finder.constructions
  }

  /// `Outer.Inner` for a node inside `Inner`, nested in `Outer` (or in an extension of it); nil
  /// outside every type.
  func enclosingTypes(_ node: some SyntaxProtocol) -> String? {
    var names: [String] = []
    var current = node.parent
    while let parent = current {
      if let outer = parent.as(ExtensionDeclSyntax.self) {
        names.insert(typeName(outer.extendedType), at: 0)
      } else if let outer = parent.asProtocol((any NamedDeclSyntax).self), parent.isProtocol((any DeclGroupSyntax).self)
      {
        names.insert(outer.name.text, at: 0)
      }
      current = parent.parent
    }
    return names.isEmpty ? nil : names.joined(separator: ".")
  }

  override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
    let name = node.extendedType.trimmedDescription
    guard name == "Dependencies" || name == "Knapsack.Dependencies" else {
      // An extension's initializers may make types too (it declares no stored property).
      record(InjectingType(name: typeName(node.extendedType)), members: node.memberBlock.members)
      return .visitChildren
    }
    declarations(in: node.memberBlock.members)
    return .skipChildren
  }

  override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
    switch calleeName(node) {
    case "register": registration(node)
    case "contribute": contribution(node)
    default: keyPathCall(node)
    }
    return .visitChildren
  }

  /// A call that passes a key path of `Dependencies`, `singleton(\.clock) { ... }`: a
  /// registration if the function it calls is a registration helper (see ``RegisteringFunction``).
  func keyPathCall(_ call: FunctionCallExprSyntax) {
    guard let callee = calleeName(call), !["resolve", "lazy", "provider", "withOverrides"].contains(callee) else {
      return
    }
    for (index, argument) in call.arguments.enumerated() {
      guard let keyPath = argument.expression.as(KeyPathExprSyntax.self), let key = keyName(keyPath) else { continue }
      let closure =
        call.trailingClosure
        ?? call.arguments.reversed().lazy.compactMap { $0.expression.as(ClosureExprSyntax.self) }
        .first
      facts.keyPathCalls.append(
        KeyPathCall(
          callee: callee, argument: index, label: argument.label?.text, key: key,
          labels: call.arguments.map { $0.label?.text }, scopes: call.arguments.map { literalScope($0.expression) },
          resolves: closure.map { references(in: $0, factory: $0) } ?? [],
          constructions: closure.map { constructions(in: $0) } ?? [],
          deferred: closure.map { handles(in: $0, factory: $0) } ?? [], site: site(call), isInLoop: isInLoop(call),
          isOverride: isInOverrideScope(call)))
      return
    }
  }

  /// A `register` call whose key path is a parameter of the function it is in: that function is
  /// a registration helper, recorded as such (see ``RegisteringFunction``).
  func registeringFunction(_ call: FunctionCallExprSyntax, key: String) -> Bool {
    var current = call.parent
    while let parent = current, !parent.is(FunctionDeclSyntax.self) { current = parent.parent }
    guard let function = current?.as(FunctionDeclSyntax.self) else { return false }
    let parameters = Array(function.signature.parameterClause.parameters)
    func name(_ parameter: FunctionParameterSyntax) -> String { (parameter.secondName ?? parameter.firstName).text }
    guard let position = parameters.firstIndex(where: { name($0) == key }) else { return false }
    func label(_ parameter: FunctionParameterSyntax) -> String? {
      parameter.firstName.text == "_" ? nil : parameter.firstName.text
    }
    var scope: String?
    var scopeParameter: Int?
    var scopeDefault: String?
    if let argument = call.arguments.first(where: { $0.label?.text == "scope" }) {
      if let member = argument.expression.as(MemberAccessExprSyntax.self) {
        scope = member.declName.baseName.text
      } else if let reference = argument.expression.as(DeclReferenceExprSyntax.self),
        let parameter = parameters.firstIndex(where: { name($0) == reference.baseName.text })
      {
        scopeParameter = parameter
        // `scope: Scope = .singleton`: what a call that passes no scope registers with.
        scopeDefault = parameters[parameter].defaultValue.flatMap { literalScope($0.value) }
      }
    }
    facts.registeringFunctions.append(
      RegisteringFunction(
        name: function.name.text, parameter: position, label: label(parameters[position]), scope: scope,
        scopeParameter: scopeParameter, scopeDefault: scopeDefault, parameterLabels: parameters.map(label),
        site: site(call)))
    return true
  }

  /// `Outer.Name` for a type declared in `Outer` or in an extension of it; nil for a local type.
  func qualifiedName(_ node: some NamedDeclSyntax) -> String? {
    var names = [node.name.text]
    var current = node.parent
    while let parent = current {
      if let outer = parent.as(ExtensionDeclSyntax.self) {
        names.insert(outer.extendedType.trimmedDescription, at: 0)
      } else if let outer = parent.asProtocol((any NamedDeclSyntax).self), parent.isProtocol((any DeclGroupSyntax).self)
      {
        names.insert(outer.name.text, at: 0)
      } else if parent.is(CodeBlockSyntax.self) || parent.is(ClosureExprSyntax.self)
        || parent.is(AccessorBlockSyntax.self)
      {
        return nil
      }
      current = parent.parent
    }
    return names.joined(separator: ".")
  }

  /// The key declarations among the members of `extension Dependencies`, in every clause of `#if`.
  func declarations(in members: MemberBlockItemListSyntax) {
    for member in members {
      if let variable = member.decl.as(VariableDeclSyntax.self) {
        declaration(variable)
      } else if let subscriptKey = member.decl.as(SubscriptDeclSyntax.self) {
        subscriptDeclaration(subscriptKey)
      } else if let conditional = member.decl.as(IfConfigDeclSyntax.self) {
        for clause in conditional.clauses {
          if case .decls(let nested) = clause.elements { declarations(in: nested) }
        }
      }
    }
  }

  /// A computed property of a key type in `extension Dependencies`. A `static` one is not a key:
  /// no key path of `Dependencies` names it, so nothing can register it.
  func declaration(_ variable: VariableDeclSyntax) {
    guard !variable.modifiers.contains(where: { ["static", "class"].contains($0.name.text) }),
      let binding = variable.bindings.first,
      let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier,
      let type = binding.typeAnnotation?.type, let body = binding.accessorBlock
    else { return }
    let generic =
      type.as(IdentifierTypeSyntax.self).map { ($0.name.text, $0.genericArgumentClause) }
      ?? type.as(MemberTypeSyntax.self).map { ($0.name.text, $0.genericArgumentClause) }
    guard var (kind, arguments) = generic else { return }
    // A type alias of the app's own, `typealias ClockKey = Key<any AppClock>`: a key if its getter
    // makes one, `.required()` or `Key { ... }` (its value type is not known).
    if !keyKinds.contains(kind) {
      guard let expression = getterExpression(body).map({ keyExpression($0).key }) else { return }
      let isImplicitRequired =
        isRequired(expression)
        && (expression.as(FunctionCallExprSyntax.self)?.calledExpression ?? expression).as(MemberAccessExprSyntax.self)?
          .base == nil
      let madeKind = expression.as(FunctionCallExprSyntax.self).flatMap { constructedKind($0.calledExpression) }
      guard isImplicitRequired || madeKind != nil else { return }
      kind = madeKind ?? "Key"
      arguments = nil
    }
    let valueType = arguments?.arguments.last.map { normalizedType($0.argument.trimmedDescription) } ?? ""
    // `ArgumentKey<A, V>`, or `DependencyKey<Kind, A, V>` with an argument other than `Void`.
    let genericArguments = arguments.map { Array($0.arguments) } ?? []
    let takesArgument =
      kind == "ArgumentKey"
      || (kind == "DependencyKey" && genericArguments.count == 3
        && !["Void", "()", "Swift.Void"].contains(genericArguments[1].argument.trimmedDescription))
    // The key is the getter's expression: `.required()`, `Key { r in ... }`, under its modifiers.
    let (key, scope) = getterExpression(body).map(keyExpression) ?? (nil, nil)
    let required = !multibindingKinds.contains(kind) && key.map(isRequired) ?? false
    let call = key?.as(FunctionCallExprSyntax.self)
    let factory = call?.trailingClosure ?? call?.arguments.last?.expression.as(ClosureExprSyntax.self)
    // The key's leading comments: before the declaration, and between its attributes and
    // modifiers and `var` (`@available(*, deprecated)` on the line above the comment).
    let specifier = variable.bindingSpecifier.id
    let heading = variable.tokens(viewMode: .sourceAccurate).prefix { $0.id != specifier } + [variable.bindingSpecifier]
    let trivia = heading.flatMap { Array($0.leadingTrivia.pieces) + Array($0.trailingTrivia.pieces) }
    // Only the comments attached to the key, after the last blank line: a commented-out
    // declaration further up, or prose that mentions the marker, does not silence it.
    let comments = afterLastBlankLine(trivia).compactMap { piece -> String? in
      switch piece {
      case .lineComment(let text), .blockComment(let text), .docLineComment(let text), .docBlockComment(let text):
        text
      default: nil
      }
    }
    facts.declarations.append(
      KeyDeclaration(
        id: .key(plainName(name)), typeText: type.trimmedDescription, valueType: valueType,
        takesArgument: takesArgument, isRequired: required,
        scope: scope ?? "unique", resolves: required ? [] : references(in: body, factory: factory),
        constructions: required ? [] : constructions(in: body),
        deferred: required ? [] : handles(in: body, factory: factory),
        isAlias: !required && factory.map(isAlias) ?? false, site: site(binding.pattern),
        isSilenced: comments.contains(where: isSilencingComment)))
  }

  /// A subscript of a key type in `extension Dependencies`, `subscript(store name: String) ->
  /// Key<any Store>`: a key per argument, which ones are registered is known only at run time. A
  /// required one is a remark: nothing checks that each argument the app uses has a registration.
  func subscriptDeclaration(_ node: SubscriptDeclSyntax) {
    let type = node.returnClause.type
    let kind = type.as(IdentifierTypeSyntax.self)?.name.text ?? type.as(MemberTypeSyntax.self)?.name.text
    guard let kind, keyKinds.contains(kind), !multibindingKinds.contains(kind), let body = node.accessorBlock,
      let expression = getterExpression(body), isRequired(keyExpression(expression).key)
    else { return }
    facts.uncheckedKeys.append(
      Reference(
        target: nil, site: site(node.subscriptKeyword),
        unfollowable:
          "a required subscript key, one key per argument: which arguments are registered is known only at run time (validate(including:) checks those it is given)"
      ))
  }

  /// `container.register(\.key, scope:) { ... }` or `register(type: T.self, name:, scope:) { ... }`;
  /// the factory may also be a function (`SystemClock.init`), whose resolutions cannot be read.
  func registration(_ call: FunctionCallExprSyntax) {
    guard let factory = factoryArgument(of: call), let first = call.arguments.first else { return }
    let label = first.label?.text
    // `register(singleton: \.clock) { ... }`: a key path under a label Knapsack's `register` does
    // not have is passed to a function of the app's, a registration helper if one is declared so.
    if label != nil, label != "type", first.expression.is(KeyPathExprSyntax.self) {
      keyPathCall(call)
      return
    }
    guard label == nil || label == "type" else { return }
    var scope: String?
    var name: String?
    var nameIsLiteral = true
    for argument in call.arguments {
      switch argument.label?.text {
      case "scope": scope = argument.expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text
      case "name":
        if let literal = stringLiteral(argument.expression) {
          name = literal
        } else if !argument.expression.is(NilLiteralExprSyntax.self) {
          nameIsLiteral = false
        }
      default: break
      }
    }
    // Knapsack registers a type only with its label, `register(type: T.self)`: an unlabeled
    // `register(T.self)` is another library's (Swinject's, say), and so is one whose first
    // argument is a literal (a router's `register("/items") { ... }`).
    if label == nil, isTypeExpression(first.expression) || isLiteral(first.expression) { return }
    let id: DependencyID?
    var why = "the key path is computed at run time"
    if label == nil, let keyPath = first.expression.as(KeyPathExprSyntax.self) {
      id = keyName(keyPath).map(DependencyID.key)
      if id == nil { why = unfollowedKeyPath(keyPath) }
    } else if let member = first.expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "self",
      let base = member.base
    {
      id = nameIsLiteral ? .type(typeText(base), name: name) : nil
      why = "the registration's name is computed at run time"
    } else {
      id = nil
      if label == "type" { why = "the type is computed at run time" }
    }
    // An override provides its key only inside its scope: not a provider of the graph (its
    // factory is not followed either), but noted for the message of a key it alone registers.
    if isInOverrideScope(call) {
      if let id { facts.overrideRegistrations.append(Reference(target: id, site: site(call))) }
      return
    }
    // `register(key, ...)` with the key a parameter: the calls of the function register.
    if id == nil, label == nil, let reference = first.expression.as(DeclReferenceExprSyntax.self),
      registeringFunction(call, key: reference.baseName.text)
    {
      return
    }
    guard let id else {
      facts.unfollowedRegistrations.append(Reference(target: nil, site: site(call), unfollowable: why))
      return
    }
    facts.registrations.append(
      Registration(
        id: id, scope: scope, resolves: resolutions(of: factory), constructions: factoryConstructions(factory),
        deferred: factory.as(ClosureExprSyntax.self).map { handles(in: $0, factory: $0) } ?? [],
        isAlias: factory.as(ClosureExprSyntax.self).map(isAlias) ?? false,
        site: site(call),
        caveat: isInLoop(call) ? "this registration is in a loop" : nil, madeType: madeType(factory)))
  }

  /// The factory a `register` or `contribute` call passes: its trailing closure, or its last
  /// argument when that has no label.
  func factoryArgument(of call: FunctionCallExprSyntax) -> ExprSyntax? {
    let last = call.arguments.count > 1 ? call.arguments.last.flatMap { $0.label == nil ? $0.expression : nil } : nil
    return call.trailingClosure.map(ExprSyntax.init) ?? last
  }

  /// The type a factory makes when its body is one expression (or `return`) that calls a type by
  /// name, `{ BillingConfig() }`, `{ r in try Billing.Config(r[\.x]) }`, or the factory is
  /// `BillingConfig.init`: nil for anything else.
  func madeType(_ factory: ExprSyntax) -> String? {
    guard let closure = factory.as(ClosureExprSyntax.self) else {
      return factory.as(MemberAccessExprSyntax.self)?.declName.baseName.text == "init" ? constructedType(factory) : nil
    }
    guard closure.statements.count == 1, let item = closure.statements.first?.item else { return nil }
    let expression = withoutTryAndAwait(item.as(ExprSyntax.self) ?? item.as(ReturnStmtSyntax.self)?.expression)
    return expression?.as(FunctionCallExprSyntax.self).flatMap { constructedType($0.calledExpression) }
  }

  /// `expression` without the `try` and `await` in front of it: `r[\.x]` for `try await r[\.x]`.
  func withoutTryAndAwait(_ expression: ExprSyntax?) -> ExprSyntax? {
    var expression = expression
    while let current = expression {
      if let tried = current.as(TryExprSyntax.self) {
        expression = tried.expression
      } else if let awaited = current.as(AwaitExprSyntax.self) {
        expression = awaited.expression
      } else {
        break
      }
    }
    return expression
  }

  /// What a factory resolves; for one that is not a closure (a function), a resolution the check
  /// cannot follow.
  func resolutions(of factory: ExprSyntax) -> [Reference] {
    factory.as(ClosureExprSyntax.self).map { references(in: $0, factory: $0) } ?? [
      Reference(
        target: nil, site: site(factory),
        unfollowable: "the factory \(factory.trimmedDescription) is not a closure, so what it resolves is not read")
    ]
  }

  /// The calls in a factory that may make a type; for a factory given as an initializer
  /// (`TodoScreen.init`), that initializer.
  func factoryConstructions(_ factory: ExprSyntax) -> [Construction] {
    if let closure = factory.as(ClosureExprSyntax.self) { return constructions(in: closure) }
    guard factory.as(MemberAccessExprSyntax.self)?.declName.baseName.text == "init",
      let type = constructedType(factory)
    else { return [] }
    return [
      Construction(type: type, context: enclosingTypes(factory), call: factory.trimmedDescription, site: site(factory))
    ]
  }

  /// Whether `factory` only hands out another dependency's instance: its body is one expression
  /// (or `return`), a resolution through its resolver that the check follows, `try r[\.x]`,
  /// `try await r.resolve(\.x)` or `try r.resolve(type: T.self)`.
  func isAlias(_ factory: ClosureExprSyntax) -> Bool {
    guard factory.statements.count == 1, let item = factory.statements.first?.item else { return false }
    let expression = withoutTryAndAwait(
      item.as(ExprSyntax.self) ?? item.as(ReturnStmtSyntax.self)?.expression
        ?? item.as(ExpressionStmtSyntax.self)?.expression)
    guard let expression else { return false }
    let finder = ReferenceFinder(collector: self, factory: factory)
    let calledOnResolver: Bool
    if let subscriptCall = expression.as(SubscriptCallExprSyntax.self) {
      calledOnResolver = finder.isResolver(subscriptCall.calledExpression)
    } else if let call = expression.as(FunctionCallExprSyntax.self), call.trailingClosure == nil,
      let member = call.calledExpression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "resolve",
      let base = member.base
    {
      calledOnResolver = finder.isResolver(base)
    } else {
      calledOnResolver = false
    }
    // One resolution the check follows, of a key or a type, and nothing else.
    guard calledOnResolver else { return false }
    let found = references(in: expression, factory: factory)
    return found.count == 1 && found[0].target != nil
  }

  /// Whether `call` is in the configuration closure of `withOverrides` (its first argument or its
  /// first trailing closure, not `operation:`), whose registrations are overrides of one scope.
  func isInOverrideScope(_ call: FunctionCallExprSyntax) -> Bool {
    var current = call.parent
    while let parent = current {
      if let closure = parent.as(ClosureExprSyntax.self) {
        let outer =
          closure.parent?.as(FunctionCallExprSyntax.self)
          ?? closure.parent?.parent?.parent?.as(FunctionCallExprSyntax.self)
        if let outer, calleeName(outer) == "withOverrides" {
          // `withOverrides({ ... }) { operation }` passes it as the first argument, else it is
          // the first trailing closure.
          let first = outer.arguments.first.flatMap { $0.label == nil ? $0.expression : nil }
          let configuration = first ?? outer.trailingClosure.map(ExprSyntax.init)
          if configuration?.id == closure.id { return true }
        }
      }
      current = parent.parent
    }
    return false
  }

  /// `container.contribute(to: \.key, scope:) { r in ... }`: one contribution to a multibinding,
  /// with its own scope and what its factory resolves.
  func contribution(_ call: FunctionCallExprSyntax) {
    guard let first = call.arguments.first, first.label?.text == "to" else { return }
    guard !isInOverrideScope(call) else { return }
    guard let keyPath = first.expression.as(KeyPathExprSyntax.self), let name = keyName(keyPath) else {
      facts.unfollowedRegistrations.append(
        Reference(target: nil, site: site(call), unfollowable: "the key path is computed at run time"))
      return
    }
    let scope = call.arguments.first { $0.label?.text == "scope" }?.expression.as(MemberAccessExprSyntax.self)?
      .declName.baseName.text
    guard let factory = factoryArgument(of: call) else { return }
    facts.contributions.append(
      Registration(
        id: .key(name), scope: scope ?? "unique", resolves: resolutions(of: factory),
        constructions: factoryConstructions(factory),
        deferred: factory.as(ClosureExprSyntax.self).map { handles(in: $0, factory: $0) } ?? [], site: site(call)))
  }

  /// Every resolution inside a factory: `r[\.x]`, `r.resolve(\.x)`, `r.resolve(T.self, name:)`, and
  /// each call that `factory` passes its resolver to.
  func references(in node: some SyntaxProtocol, factory: ClosureExprSyntax?) -> [Reference] {
    let finder = ReferenceFinder(collector: self, factory: factory)
    finder.walk(node)
    return finder.found
  }

  /// The `Lazy` and `Provider` handles a factory makes, `r.lazy(\.x)`, `r.provider(type: T.self,
  /// name:)`: what they resolve later, after the factory returned (see ``ReferenceFinder/handles``).
  func handles(in node: some SyntaxProtocol, factory: ClosureExprSyntax?) -> [Reference] {
    let finder = ReferenceFinder(collector: self, factory: factory)
    finder.walk(node)
    return finder.handles
  }

  func isInLoop(_ node: some SyntaxProtocol) -> Bool {
    var current = node.parent
    while let parent = current {
      if parent.is(ForStmtSyntax.self) || parent.is(WhileStmtSyntax.self) || parent.is(RepeatStmtSyntax.self) {
        return true
      }
      if let closure = parent.as(ClosureExprSyntax.self), let call = closure.parent?.as(FunctionCallExprSyntax.self),
        ["forEach", "map", "compactMap", "flatMap", "reduce"].contains(calleeName(call))
      {
        return true
      }
      if parent.is(FunctionDeclSyntax.self) { return false }
      current = parent.parent
    }
    return false
  }
}

/// Finds resolutions in one factory body.
final class ReferenceFinder: SyntaxVisitor {
  let collector: FactsCollector
  /// The factory closure, and the name of its resolver parameter (`$0` when it names none).
  let factory: ClosureExprSyntax?
  let resolver: String?
  var found: [Reference] = []
  /// What the `Lazy` and `Provider` handles the factory makes resolve on first use (`r.lazy(\.x)`,
  /// `r.provider(type: T.self, name: "n")`): each needs a provider, but is no edge of a cycle, as
  /// `validate()` checks what a handle resolves as a root of its own; a `Lazy` is an edge of a
  /// captive dependency, since it keeps the first value it reads.
  var handles: [Reference] = []
  /// The calls that may make an instance of a type: `TodoScreen(...)`, `TodoScreen.init(...)`,
  /// `Feature.TodoScreen(...)`, `Box<Int>(...)` (see ``constructedType(_:)``).
  var constructions: [Construction] = []

  init(collector: FactsCollector, factory: ClosureExprSyntax?) {
    self.collector = collector
    self.factory = factory
    switch factory?.signature?.parameterClause {
    case .simpleInput(let names): resolver = names.first?.name.text
    case .parameterClause(let clause): resolver = clause.parameters.first.map { ($0.secondName ?? $0.firstName).text }
    case nil: resolver = factory == nil ? nil : "$0"
    }
    super.init(viewMode: .sourceAccurate)
  }

  /// Whether `expression` is the factory's resolver (`$0` only in the factory itself, not in a
  /// closure inside it).
  func isResolver(_ expression: ExprSyntax) -> Bool {
    guard let resolver, expression.as(DeclReferenceExprSyntax.self)?.baseName.text == resolver else { return false }
    guard resolver == "$0" else { return true }
    var current = expression.parent
    while let parent = current, !parent.is(ClosureExprSyntax.self) { current = parent.parent }
    return current?.id == factory?.id
  }

  override func visit(_ node: SubscriptCallExprSyntax) -> SyntaxVisitorContinueKind {
    // `value[keyPath: \.name]` is a key path subscript of any value, not a resolution.
    if node.arguments.count == 1, node.arguments.first?.label == nil, namesAValue(node.calledExpression),
      let keyPath = node.arguments.first?.expression.as(KeyPathExprSyntax.self)
    {
      if let name = keyName(keyPath) {
        found.append(Reference(target: .key(name), site: collector.site(node)))
      } else if keyPath.root == nil {
        found.append(Reference(target: nil, site: collector.site(node), unfollowable: unfollowedKeyPath(keyPath)))
      }
    }
    return .visitChildren
  }

  override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
    if let type = constructedType(node.calledExpression) {
      let arguments = node.arguments.isEmpty && node.trailingClosure == nil ? "()" : "(...)"
      constructions.append(
        Construction(
          type: type, context: collector.enclosingTypes(node),
          call: node.calledExpression.trimmedDescription + arguments, site: collector.site(node)))
    }
    let callee = calleeName(node)
    if !["resolve", "lazy", "provider"].contains(callee), node.arguments.contains(where: { isResolver($0.expression) })
    {
      let labels = node.arguments.map { "\($0.label?.text ?? "_"):" }.joined()
      found.append(
        Reference(
          target: nil, site: collector.site(node),
          unfollowable:
            "it passes the resolver to \(node.calledExpression.trimmedDescription)(\(labels)): what it resolves is not followed"
        ))
    }
    if callee == "lazy" || callee == "provider" {
      handle(node)
      return .visitChildren
    }
    guard callee == "resolve" else { return .visitChildren }
    // A type's own `resolve` (`Locator.resolve(...)`) is not a container's or a resolver's.
    if let member = node.calledExpression.as(MemberAccessExprSyntax.self), let base = member.base,
      !namesAValue(base)
    {
      return .visitChildren
    }
    let site = collector.site(node)
    guard let first = node.arguments.first, first.label == nil || first.label?.text == "type" else {
      found.append(
        Reference(target: nil, site: site, unfollowable: "a resolution whose type is inferred (`resolve()`)"))
      return .visitChildren
    }
    // Knapsack resolves a type only with its label, `resolve(type: T.self)`: an unlabeled
    // `resolve(T.self)` is another library's (a service locator's, Swinject's).
    if first.label == nil, isTypeExpression(first.expression) { return .visitChildren }
    if first.label == nil, let keyPath = first.expression.as(KeyPathExprSyntax.self) {
      if let name = keyName(keyPath) {
        found.append(Reference(target: .key(name), site: site))
      } else {
        found.append(Reference(target: nil, site: site, unfollowable: unfollowedKeyPath(keyPath)))
      }
    } else if let member = first.expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "self",
      let base = member.base
    {
      found.append(typeReference(base, node, site))
    } else {
      found.append(Reference(target: nil, site: site, unfollowable: "a key path computed at run time"))
    }
    return .visitChildren
  }
}

extension ReferenceFinder {
  /// `lazy(\.key)`, `lazy(\.key, argument:)`, `provider(\.key)`, `lazy(type: T.self, name:)` or
  /// `provider(type: T.self, name:)` on a value (the resolver, a container): one of ``handles``.
  func handle(_ node: FunctionCallExprSyntax) {
    if let member = node.calledExpression.as(MemberAccessExprSyntax.self), let base = member.base, !namesAValue(base) {
      return
    }
    guard let first = node.arguments.first else { return }
    let site = collector.site(node)
    let keepsFirstValue = calleeName(node) == "lazy"
    if first.label == nil, let keyPath = first.expression.as(KeyPathExprSyntax.self), let name = keyName(keyPath) {
      handles.append(Reference(target: .key(name), site: site, keepsFirstValue: keepsFirstValue))
    } else if first.label?.text == "type", isTypeExpression(first.expression),
      let base = first.expression.as(MemberAccessExprSyntax.self)?.base
    {
      var reference = typeReference(base, node, site)
      reference.keepsFirstValue = keepsFirstValue
      handles.append(reference)
    }
  }

  /// A reference to the type `base` names (`T` of `T.self`), with the call's `name:` if it
  /// passes one (`name: nil` is no name); unfollowable if the name is computed at run time.
  func typeReference(_ base: ExprSyntax, _ node: FunctionCallExprSyntax, _ site: Site) -> Reference {
    let nameArgument = node.arguments.first {
      $0.label?.text == "name" && !$0.expression.is(NilLiteralExprSyntax.self)
    }
    if let nameArgument, stringLiteral(nameArgument.expression) == nil {
      return Reference(target: nil, site: site, unfollowable: "a name computed at run time")
    }
    let name = nameArgument.flatMap { stringLiteral($0.expression) }
    return Reference(target: .type(typeText(base), name: name), site: site)
  }
}

/// The type a call's callee names, without `.init` and generic arguments: `TodoScreen` for
/// `TodoScreen`, `TodoScreen.init` or `TodoScreen<Int>`, `Feature.TodoScreen` for
/// `Feature.TodoScreen`. Types are told by their capital letters, as Swift's naming conventions
/// spell them (`Mode.custom(1)`, a case, and `Screen.make()`, a static method, are not types);
/// nil for anything else, and for Knapsack's key types and `Self`.
func constructedType(_ callee: ExprSyntax) -> String? {
  var expression = callee
  if let member = expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "init" {
    guard let base = member.base else { return nil }
    expression = base
  }
  var names: [String] = []
  while true {
    if let generic = expression.as(GenericSpecializationExprSyntax.self) {
      expression = generic.expression
    } else if let reference = expression.as(DeclReferenceExprSyntax.self) {
      names.insert(plainName(reference.baseName), at: 0)
      break
    } else if let member = expression.as(MemberAccessExprSyntax.self), let base = member.base {
      names.insert(plainName(member.declName.baseName), at: 0)
      expression = base
    } else {
      return nil
    }
  }
  guard let last = names.last, names.allSatisfy({ $0.first?.isUppercase == true }), !keyKinds.contains(last),
    last != "Self"
  else { return nil }
  return names.joined(separator: ".")
}

/// A type's name as an extension or a member type writes it, without generic arguments:
/// `API.Screen` for `API.Screen`, `Box` for `Box<Int>`.
func typeName(_ type: TypeSyntax) -> String {
  if let member = type.as(MemberTypeSyntax.self) { return typeName(member.baseType) + "." + member.name.text }
  if let identifier = type.as(IdentifierTypeSyntax.self) { return identifier.name.text }
  return type.trimmedDescription
}

func calleeName(_ call: FunctionCallExprSyntax) -> String? {
  if let member = call.calledExpression.as(MemberAccessExprSyntax.self) { return member.declName.baseName.text }
  if let reference = call.calledExpression.as(DeclReferenceExprSyntax.self) { return reference.baseName.text }
  return nil
}

/// Why the check does not follow a key path that ``keyName(_:)`` gives no key for.
func unfollowedKeyPath(_ keyPath: KeyPathExprSyntax) -> String {
  if keyPath.components.contains(where: { $0.component.is(KeyPathSubscriptComponentSyntax.self) }) {
    return
      "the key path \(keyPath.trimmedDescription) names a subscript key, one key per argument, which the check does not follow"
  }
  return "a key path with several components"
}

/// `x` for `\.x`, `\Dependencies.x` or `\Knapsack.Dependencies.x`; nil for longer paths.
func keyName(_ keyPath: KeyPathExprSyntax) -> String? {
  var components = Array(keyPath.components)
  if let root = keyPath.root?.trimmedDescription {
    switch root {
    case "Dependencies", "Knapsack.Dependencies": break
    // The parser reads `\Knapsack.Dependencies.x` as the root `Knapsack` and two components.
    case "Knapsack":
      guard
        components.first?.component.as(KeyPathPropertyComponentSyntax.self)?.declName.baseName.text
          == "Dependencies"
      else { return nil }
      components.removeFirst()
    default: return nil
    }
  }
  guard components.count == 1, let component = components.first,
    let property = component.component.as(KeyPathPropertyComponentSyntax.self)
  else { return nil }
  return plainName(property.declName.baseName)
}

/// Whether `expression` names a value (the resolver, a captured container: `r`, `$0`,
/// `container`, `self.container`, `Container.shared`) rather than a type, whose static
/// subscript or method (`Defaults[\.apiHost]`) is not a resolution. Types are told by their
/// capital letter, as Swift's naming conventions spell them.
func namesAValue(_ expression: ExprSyntax) -> Bool {
  let name =
    expression.as(DeclReferenceExprSyntax.self)?.baseName.text
    ?? expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text
  guard let first = name?.first else { return true }
  return !first.isUppercase
}

/// Whether `expression` is a literal: a string, a number, a Boolean, `nil`, an array or a
/// dictionary.
func isLiteral(_ expression: ExprSyntax) -> Bool {
  expression.is(StringLiteralExprSyntax.self) || expression.is(IntegerLiteralExprSyntax.self)
    || expression.is(FloatLiteralExprSyntax.self) || expression.is(BooleanLiteralExprSyntax.self)
    || expression.is(NilLiteralExprSyntax.self) || expression.is(ArrayExprSyntax.self)
    || expression.is(DictionaryExprSyntax.self)
}

/// Whether `expression` is a metatype, `T.self`.
func isTypeExpression(_ expression: ExprSyntax) -> Bool {
  expression.as(MemberAccessExprSyntax.self).map { $0.declName.baseName.text == "self" && $0.base != nil } ?? false
}

/// An identifier without its backticks: `default` for `` `default` ``, `api token` for `` `api token` ``.
func plainName(_ token: TokenSyntax) -> String { token.identifier?.name ?? token.text }

func stringLiteral(_ expression: ExprSyntax) -> String? {
  guard let literal = expression.as(StringLiteralExprSyntax.self), literal.segments.count == 1,
    let segment = literal.segments.first?.as(StringSegmentSyntax.self)
  else { return nil }
  return segment.content.text
}

/// The type of `T.self` as written, with the parentheses of `(any P).self` removed.
func typeText(_ base: ExprSyntax) -> String {
  var parser = Parser(base.trimmedDescription)
  let type = TypeSyntax.parse(from: &parser)
  if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first,
    only.firstName == nil
  {
    return only.type.trimmedDescription
  }
  return type.trimmedDescription
}

/// A type's spelling for matching, so that every spelling of one type is the same text: without
/// `any`, redundant parentheses, a leading `Swift.` and spaces, and with `Array<T>`, `Optional<T>`
/// and `Dictionary<K, V>` written `[T]`, `T?` and `[K:V]`.
func normalizedType(_ text: String) -> String {
  // A plain name, the common case, needs no parse.
  if text.allSatisfy(\.isIdentifierPart) { return text }
  var parser = Parser(text)
  return normalized(TypeSyntax.parse(from: &parser))
}

func normalized(_ type: TypeSyntax) -> String {
  if let existential = type.as(SomeOrAnyTypeSyntax.self) { return normalized(existential.constraint) }
  if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first,
    only.firstName == nil
  {
    return normalized(only.type)
  }
  if let array = type.as(ArrayTypeSyntax.self) { return "[\(normalized(array.element))]" }
  if let dictionary = type.as(DictionaryTypeSyntax.self) {
    return "[\(normalized(dictionary.key)):\(normalized(dictionary.value))]"
  }
  if let optional = type.as(OptionalTypeSyntax.self) { return optionalType(normalized(optional.wrappedType)) }
  if let identifier = type.as(IdentifierTypeSyntax.self) {
    return genericType(identifier.name.text, identifier.genericArgumentClause)
  }
  if let member = type.as(MemberTypeSyntax.self) {
    let name = genericType(member.name.text, member.genericArgumentClause)
    return member.baseType.trimmedDescription == "Swift" ? name : "\(normalized(member.baseType)).\(name)"
  }
  return type.trimmedDescription.filter { !$0.isWhitespace }
}

/// `Name<A,B>`, or the sugared form of `Array`, `Optional` and `Dictionary`.
func genericType(_ name: String, _ clause: GenericArgumentClauseSyntax?) -> String {
  let arguments = clause?.arguments.map { normalizedType($0.argument.trimmedDescription) } ?? []
  switch (name, arguments.first, arguments.last, arguments.count) {
  case ("Array", let element?, _, 1): return "[\(element)]"
  case ("Optional", let wrapped?, _, 1): return optionalType(wrapped)
  case ("Dictionary", let key?, let value?, 2): return "[\(key):\(value)]"
  default: return arguments.isEmpty ? name : "\(name)<\(arguments.joined(separator: ","))>"
  }
}

/// `T?`, with parentheses around a function or a composition.
func optionalType(_ wrapped: String) -> String {
  wrapped.contains("->") || wrapped.contains("&") ? "(\(wrapped))?" : "\(wrapped)?"
}

/// The expression a computed property's getter returns: its only expression, or its last `return`.
func getterExpression(_ accessors: AccessorBlockSyntax) -> ExprSyntax? {
  let statements: CodeBlockItemListSyntax?
  switch accessors.accessors {
  case .getter(let items): statements = items
  case .accessors(let list):
    statements = list.first { $0.accessorSpecifier.tokenKind == .keyword(.get) }?.body?.statements
  }
  switch statements?.last?.item {
  case .expr(let expression): return expression
  case .stmt(let statement): return statement.as(ReturnStmtSyntax.self)?.expression
  default: return nil
  }
}

/// The scope `expression` names if it is a literal one: `.singleton`, `Scope.singleton` or
/// `Knapsack.Scope.singleton`.
func literalScope(_ expression: ExprSyntax) -> String? {
  guard let member = expression.as(MemberAccessExprSyntax.self) else { return nil }
  guard let base = member.base else { return member.declName.baseName.text }
  return ["Scope", "Knapsack.Scope"].contains(base.trimmedDescription) ? member.declName.baseName.text : nil
}

/// A key expression without the modifiers called on it (`.scope(_:)`), and the scope that the
/// outermost `.scope(_:)` sets: a `.scope(_:)` inside the factory closure is not the key's.
func keyExpression(_ expression: ExprSyntax) -> (key: ExprSyntax, scope: String?) {
  var key = expression
  var scope: String?
  while let call = key.as(FunctionCallExprSyntax.self),
    let member = call.calledExpression.as(MemberAccessExprSyntax.self),
    let base = member.base, member.declName.baseName.text != "required"
  {
    if scope == nil, member.declName.baseName.text == "scope" {
      scope = call.arguments.first?.expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text
    }
    key = base
  }
  return (key, scope)
}

/// The key kind a call makes, `Key` for `Key { ... }`, `Knapsack.Key { ... }` or
/// `Key<Int>.required()`; nil for anything else.
func constructedKind(_ callee: ExprSyntax) -> String? {
  var expression = callee
  if let member = expression.as(MemberAccessExprSyntax.self), let base = member.base,
    ["required", "init"].contains(member.declName.baseName.text)
  {
    expression = base
  }
  if let generic = expression.as(GenericSpecializationExprSyntax.self) { expression = generic.expression }
  let name =
    expression.as(DeclReferenceExprSyntax.self)?.baseName.text
    ?? expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text
  return name.flatMap { keyKinds.contains($0) ? $0 : nil }
}

/// `.required()`, `.required`, `Key.required(...)`, `DependencyKey<K, A, V>.required(...)`.
func isRequired(_ key: ExprSyntax) -> Bool {
  let callee = key.as(FunctionCallExprSyntax.self)?.calledExpression ?? key
  return callee.as(MemberAccessExprSyntax.self)?.declName.baseName.text == "required"
}
