import Knapsack

/// A value type: a singleton that keeps one keeps a copy.
public struct Session: Sendable { public init() {} }
