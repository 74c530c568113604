import Knapsack

extension Dependencies {
  #if DEBUG
  public var token: Key<String> { .required() }
  #if os(Linux)
  public var socket: Key<Int> { .required() }
  #endif
  #else
  public var secret: Key<String> { .required() }
  #endif
}
