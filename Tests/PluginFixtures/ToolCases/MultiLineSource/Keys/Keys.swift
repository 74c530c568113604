import Knapsack

public protocol API: Sendable {}

extension Dependencies {
  // A type written over several lines: the error quotes it on one line.
  public var table:
    Key<
      [String: Int]
    >
  { .required() }
  public var api: Key<any API> { .required() }
  public var count: Key<Int> {
    Key { r in
      Helper
        .make(r)
    }
  }
}

enum Helper { static func make(_ r: Resolver) -> Int { 0 } }
