/// How long a resolved instance lives and who shares it.
///
/// Attach a scope to a key's default with ``DependencyKey/scope(_:)`` or pass one to
/// `container.register(_:scope:...)`.
///
/// | Scope | Lifetime |
/// | --- | --- |
/// | ``unique`` | A new instance on every resolution (the default). |
/// | ``graph`` | Shared within one top-level resolution, then dropped. |
/// | ``weak`` | Shared while anyone else holds it, then released. Class instances only. |
/// | ``cached`` | Like ``singleton`` but can be cleared with ``Container/resetCached()``. |
/// | ``singleton`` | One instance per container, created lazily, exactly once. |
///
/// Custom lifetimes, such as a user session, are child containers: see ``Container/makeChild()``.
public struct Scope: Sendable, Hashable, Codable, CustomStringConvertible {

  @usableFromInline
  enum Kind: Int, Sendable, Codable, Comparable {
    case unique, graph, weak, cached, singleton
    @usableFromInline static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
  }

  @usableFromInline let kind: Kind

  init(kind: Kind) {
    self.kind = kind
  }

  /// A new instance on every resolution.
  public static let unique = Scope(kind: .unique)
  /// One instance shared by everything resolved during a single top-level resolution.
  public static let graph = Scope(kind: .graph)
  /// One instance shared while something else keeps a strong reference to it.
  ///
  /// Values that are not class instances cannot be held weakly: each resolution makes a new one,
  /// as for ``unique``, but in the container that registers the key (a parent, for a child that
  /// resolves it), like every shared scope.
  public static let weak = Scope(kind: .weak)
  /// One instance per container until ``Container/resetCached()`` clears it.
  public static let cached = Scope(kind: .cached)
  /// One instance per container, created on first use, exactly once even under concurrent first use.
  public static let singleton = Scope(kind: .singleton)

  // Other libraries' names for these scopes, unavailable so that the compiler says which one
  // to write instead of only that `Scope` has no such member (see the article "Coming from
  // Swinject, Factory or swift-dependencies").

  /// Not available: Swinject's `.transient` is ``unique``.
  @available(
    *, unavailable, renamed: "unique", message: "Knapsack calls this scope .unique: a new instance on every resolution"
  )
  public static var transient: Scope { .unique }

  /// Not available: Swinject's `.container` is ``singleton``.
  @available(
    *, unavailable, renamed: "singleton",
    message:
      "Knapsack calls this scope .singleton: one instance per container (and its children), made once; .cached is one that resetCached() clears"
  )
  public static var container: Scope { .singleton }

  /// Not available: Factory's `.shared` is ``weak``.
  @available(
    *, unavailable, renamed: "weak",
    message: "Knapsack calls this scope .weak: one instance shared while something else holds it, then released"
  )
  public static var shared: Scope { .weak }

  /// The scope's name, such as `singleton`.
  public var description: String {
    switch kind {
    case .unique: "unique"
    case .graph: "graph"
    case .weak: "weak"
    case .cached: "cached"
    case .singleton: "singleton"
    }
  }

  /// Decodes a scope encoded by ``encode(to:)``, by its name (`"singleton"`); also the
  /// `{"kind": 4}` form that earlier versions wrote.
  public init(from decoder: any Decoder) throws {
    if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self) {
      guard let scope = Self.named[name] else {
        throw DecodingError.dataCorruptedError(
          in: single,
          debugDescription:
            "\"\(name)\" is not a scope; expected one of \(Self.all.map { "\"\($0)\"" }.joined(separator: ", "))")
      }
      self = scope
      return
    }
    let legacy = try decoder.container(keyedBy: LegacyKeys.self)
    kind = try legacy.decode(Kind.self, forKey: .kind)
  }

  /// Encodes the scope as its name, such as `"singleton"`.
  public func encode(to encoder: any Encoder) throws {
    var single = encoder.singleValueContainer()
    try single.encode(description)
  }

  private enum LegacyKeys: String, CodingKey { case kind }

  /// Every scope, shortest-lived first.
  private static let all: [Scope] = [.unique, .graph, .weak, .cached, .singleton]
  /// Each scope by its name.
  private static let named = Dictionary(uniqueKeysWithValues: all.map { ($0.description, $0) })

  /// Whether the container keeps the instance beyond one resolution.
  var isContainerOwned: Bool { kind == .singleton || kind == .cached || kind == .weak }

  /// Whether the container disposes of the instances it keeps: singletons and cached ones. A
  /// weak one belongs to its holders, a graph one to its resolution, a unique one to its caller.
  var isDisposedByContainer: Bool { kind == .singleton || kind == .cached }
}
