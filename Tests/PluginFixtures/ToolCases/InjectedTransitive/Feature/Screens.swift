import Keys
import Knapsack

public struct Header: Sendable {
  @Injected(\.session) var session: Session
  public init() {}
}

/// Makes a `Header` in a stored property's initializer.
public struct Page: Sendable {
  let header = Header()
  /// Made once for the type, not with each page: not followed.
  static let preview = Header()
  public init() {}
}

/// Makes a `Page` in its initializer.
public struct Shell: Sendable {
  let page: Page
  public init() { page = Page() }
}

/// Makes itself: the walk visits it once.
public final class Node: @unchecked Sendable {
  @Injected(\.clock) var clock: Clock
  let child: Node?
  public init(depth: Int) { child = depth > 0 ? Node(depth: depth - 1) : nil }
}

extension Dependencies {
  /// A singleton shell keeps, through its page and its header, a unique session.
  public var shell: Key<Shell> { Key { Shell() }.scope(.singleton) }
  /// `\.clock`'s factory resolves `\.shell`, and the node's property resolves `\.clock`:
  /// no cycle, since the shell does not resolve `\.node`.
  public var node: Key<Node> { Key { Node(depth: 3) } }
}
