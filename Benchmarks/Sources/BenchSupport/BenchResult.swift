/// One measured row: a scenario run by one contender.
public struct BenchResult: Sendable, Equatable {
  /// Scenario identifier such as `S1` or `S4/10000`.
  public var scenario: String
  /// `manual`, `knapsack`, `swinject` or `swift-dependencies`.
  public var contender: String
  /// Nanoseconds per operation.
  public var nanoseconds: Summary
  /// Operations per second (S5 only), from the median sample.
  public var operationsPerSecond: Double?
  /// Heap bytes per registration (the 10,000-registration start-up row only).
  public var bytesPerRegistration: Double?

  public init(
    scenario: String,
    contender: String,
    nanoseconds: Summary,
    operationsPerSecond: Double? = nil,
    bytesPerRegistration: Double? = nil
  ) {
    self.scenario = scenario
    self.contender = contender
    self.nanoseconds = nanoseconds
    self.operationsPerSecond = operationsPerSecond
    self.bytesPerRegistration = bytesPerRegistration
  }
}
