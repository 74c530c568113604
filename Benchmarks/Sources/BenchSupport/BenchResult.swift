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
  /// Heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign, valloc
  /// calls) per operation, counted in a separate untimed run; `nil` where they cannot be counted.
  public var allocationsPerOperation: Double?
  /// The process's resident-set high-water mark (VmHWM) after one start-up, in bytes, measured in
  /// a fresh process (the 10,000-registration start-up rows only).
  public var peakResidentBytes: Double?
  /// Stack bytes one level of a 100-deep resolution chain takes in a release build (S8, Knapsack).
  public var stackBytesPerLevelRelease: Double?
  /// The same in a debug build (S8, Knapsack; measured by the `stack-per-level` executable).
  public var stackBytesPerLevelDebug: Double?

  public init(
    scenario: String,
    contender: String,
    nanoseconds: Summary,
    operationsPerSecond: Double? = nil,
    bytesPerRegistration: Double? = nil,
    allocationsPerOperation: Double? = nil,
    peakResidentBytes: Double? = nil,
    stackBytesPerLevelRelease: Double? = nil,
    stackBytesPerLevelDebug: Double? = nil
  ) {
    self.scenario = scenario
    self.contender = contender
    self.nanoseconds = nanoseconds
    self.operationsPerSecond = operationsPerSecond
    self.bytesPerRegistration = bytesPerRegistration
    self.allocationsPerOperation = allocationsPerOperation
    self.peakResidentBytes = peakResidentBytes
    self.stackBytesPerLevelRelease = stackBytesPerLevelRelease
    self.stackBytesPerLevelDebug = stackBytesPerLevelDebug
  }
}
