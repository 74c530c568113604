import SwiftParser
import SwiftSyntax

/// The comment that silences the missing-provider error for a key provided only at run time.
let silencingMarker = "knapsack-check: runtime-provided"

/// The multibinding kinds: keys that contributions provide, never required.
let multibindingKinds: Set<String> = ["Multibinding", "AsyncMultibinding", "MainActorMultibinding"]

/// The key kinds declared in `extension Dependencies`.
let keyKinds = Set(["Key", "AsyncKey", "MainActorKey", "ArgumentKey"]).union(multibindingKinds)

/// Reads one file's key declarations, registrations and resolutions.
func extractFacts(path: String, source: String) -> FileFacts {
  let tree = Parser.parse(source: source)
  let collector = FactsCollector(path: path, tree: tree)
  collector.walk(tree)
  return collector.facts
}

final class FactsCollector: SyntaxVisitor {
  let converter: SourceLocationConverter
  let path: String
  var facts = FileFacts()

  init(path: String, tree: SourceFileSyntax) {
    self.path = path
    converter = SourceLocationConverter(fileName: path, tree: tree)
    super.init(viewMode: .sourceAccurate)
  }

  func site(_ node: some SyntaxProtocol) -> Site {
    let location = node.startLocation(converter: converter)
    return Site(file: path, line: location.line, column: location.column)
  }

  override func visit(_ node: ImportDeclSyntax) -> SyntaxVisitorContinueKind {
    let module = node.path.first?.name.text ?? ""
    facts.imports.append(module)
    if node.attributes.contains(where: { $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "_exported" })
    {
      facts.exportedImports.append(module)
    }
    return .skipChildren
  }

  override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
    facts.valueTypes.append(node.name.text)
    return .visitChildren
  }

  override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
    facts.valueTypes.append(node.name.text)
    return .visitChildren
  }

  override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
    let name = node.extendedType.trimmedDescription
    guard name == "Dependencies" || name == "Knapsack.Dependencies" else { return .visitChildren }
    for member in node.memberBlock.members {
      if let variable = member.decl.as(VariableDeclSyntax.self) { declaration(variable) }
    }
    return .skipChildren
  }

  override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
    if calleeName(node) == "register" { registration(node) }
    return .visitChildren
  }

  /// A computed property of a key type in `extension Dependencies`.
  func declaration(_ variable: VariableDeclSyntax) {
    guard let binding = variable.bindings.first,
      let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
      let type = binding.typeAnnotation?.type, let body = binding.accessorBlock
    else { return }
    let generic =
      type.as(IdentifierTypeSyntax.self).map { ($0.name.text, $0.genericArgumentClause) }
      ?? type.as(MemberTypeSyntax.self).map { ($0.name.text, $0.genericArgumentClause) }
    guard let (kind, arguments) = generic, keyKinds.contains(kind) else { return }
    let valueType = arguments?.arguments.last?.argument.trimmedDescription ?? ""
    let required = !multibindingKinds.contains(kind) && containsMember(named: "required", in: body)
    let comments = variable.leadingTrivia.pieces.compactMap { piece -> String? in
      switch piece {
      case .lineComment(let text), .blockComment(let text), .docLineComment(let text), .docBlockComment(let text):
        text
      default: nil
      }
    }
    facts.declarations.append(
      KeyDeclaration(
        id: .key(name), typeText: type.trimmedDescription, valueType: valueType, isRequired: required,
        scope: scopeName(in: body) ?? "unique", resolves: required ? [] : references(in: body),
        site: site(binding.pattern),
        isSilenced: comments.contains { $0.contains(silencingMarker) }))
  }

  /// `container.register(\.key, scope:) { ... }` or `register(type: T.self, name:, scope:) { ... }`.
  func registration(_ call: FunctionCallExprSyntax) {
    let closure = call.trailingClosure ?? call.arguments.last?.expression.as(ClosureExprSyntax.self)
    guard let closure, let first = call.arguments.first else { return }
    let label = first.label?.text
    guard label == nil || label == "type" else { return }
    var scope: String?
    var name: String?
    var nameIsLiteral = true
    for argument in call.arguments {
      switch argument.label?.text {
      case "scope": scope = argument.expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text
      case "name":
        if let literal = stringLiteral(argument.expression) { name = literal } else { nameIsLiteral = false }
      default: break
      }
    }
    let id: DependencyID?
    var why = "the key path is computed at run time"
    if label == nil, let keyPath = first.expression.as(KeyPathExprSyntax.self) {
      id = keyName(keyPath).map(DependencyID.key)
    } else if let member = first.expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "self",
      let base = member.base
    {
      id = nameIsLiteral ? .type(typeText(base), name: name) : nil
      why = "the registration's name is computed at run time"
    } else {
      id = nil
      if label == "type" { why = "the type is computed at run time" }
    }
    guard let id else {
      facts.unfollowedRegistrations.append(Reference(target: nil, site: site(call), unfollowable: why))
      return
    }
    facts.registrations.append(
      Registration(
        id: id, scope: scope, resolves: references(in: closure), site: site(call),
        caveat: isInLoop(call) ? "this registration is in a loop" : nil))
  }

  /// Every resolution inside a factory: `r[\.x]`, `r.resolve(\.x)`, `r.resolve(T.self, name:)`.
  func references(in node: some SyntaxProtocol) -> [Reference] {
    let finder = ReferenceFinder(collector: self)
    finder.walk(node)
    return finder.found
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
  var found: [Reference] = []

  init(collector: FactsCollector) {
    self.collector = collector
    super.init(viewMode: .sourceAccurate)
  }

  override func visit(_ node: SubscriptCallExprSyntax) -> SyntaxVisitorContinueKind {
    if node.arguments.count == 1, let keyPath = node.arguments.first?.expression.as(KeyPathExprSyntax.self),
      let name = keyName(keyPath)
    {
      found.append(Reference(target: .key(name), site: collector.site(node)))
    }
    return .visitChildren
  }

  override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
    guard calleeName(node) == "resolve" else { return .visitChildren }
    let site = collector.site(node)
    guard let first = node.arguments.first, first.label == nil || first.label?.text == "type" else {
      found.append(
        Reference(target: nil, site: site, unfollowable: "a resolution whose type is inferred (`resolve()`)"))
      return .visitChildren
    }
    if first.label == nil, let keyPath = first.expression.as(KeyPathExprSyntax.self) {
      if let name = keyName(keyPath) {
        found.append(Reference(target: .key(name), site: site))
      } else {
        found.append(Reference(target: nil, site: site, unfollowable: "a key path with several components"))
      }
    } else if let member = first.expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "self",
      let base = member.base
    {
      let nameArgument = node.arguments.first { $0.label?.text == "name" }
      if let nameArgument, stringLiteral(nameArgument.expression) == nil {
        found.append(Reference(target: nil, site: site, unfollowable: "a name computed at run time"))
      } else {
        let name = nameArgument.flatMap { stringLiteral($0.expression) }
        found.append(Reference(target: .type(typeText(base), name: name), site: site))
      }
    } else {
      found.append(Reference(target: nil, site: site, unfollowable: "a key path computed at run time"))
    }
    return .visitChildren
  }
}

func calleeName(_ call: FunctionCallExprSyntax) -> String? {
  if let member = call.calledExpression.as(MemberAccessExprSyntax.self) { return member.declName.baseName.text }
  if let reference = call.calledExpression.as(DeclReferenceExprSyntax.self) { return reference.baseName.text }
  return nil
}

/// `x` for `\.x` or `\Dependencies.x`; nil for longer paths.
func keyName(_ keyPath: KeyPathExprSyntax) -> String? {
  if let root = keyPath.root, !["Dependencies", "Knapsack.Dependencies"].contains(root.trimmedDescription) {
    return nil
  }
  guard keyPath.components.count == 1, let component = keyPath.components.first,
    let property = component.component.as(KeyPathPropertyComponentSyntax.self)
  else { return nil }
  return property.declName.baseName.text
}

func stringLiteral(_ expression: ExprSyntax) -> String? {
  guard let literal = expression.as(StringLiteralExprSyntax.self), literal.segments.count == 1,
    let segment = literal.segments.first?.as(StringSegmentSyntax.self)
  else { return nil }
  return segment.content.text
}

/// The type's text without spaces, with the outer parentheses of `(any P).self` removed.
func typeText(_ base: ExprSyntax) -> String {
  var text = base.trimmedDescription.filter { !$0.isWhitespace }
  if text.hasPrefix("("), text.hasSuffix(")") { text = String(text.dropFirst().dropLast()) }
  return text
}

func containsMember(named name: String, in node: some SyntaxProtocol) -> Bool {
  node.tokens(viewMode: .sourceAccurate).contains { token in
    token.tokenKind == .identifier(name) && token.previousToken(viewMode: .sourceAccurate)?.tokenKind == .period
  }
}

/// The scope in `.scope(.singleton)`, if the body sets one.
func scopeName(in node: some SyntaxProtocol) -> String? {
  let finder = ScopeFinder(viewMode: .sourceAccurate)
  finder.walk(node)
  return finder.scope
}

/// Finds `.scope(.name)` in a key's body.
final class ScopeFinder: SyntaxVisitor {
  var scope: String?

  override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
    if calleeName(node) == "scope", node.calledExpression.is(MemberAccessExprSyntax.self),
      let member = node.arguments.first?.expression.as(MemberAccessExprSyntax.self)
    {
      scope = member.declName.baseName.text
    }
    return .visitChildren
  }
}
