import Knapsack

public final class Ledger: Sendable { public init() {} }

public struct Screen: Sendable {
  @Injected(type: Ledger.self) var ledger: Ledger
  public init() {}
}
