/// Median, minimum and maximum of a set of samples.
public struct Summary: Sendable, Equatable {
  public var median: Double
  public var min: Double
  public var max: Double

  public init(median: Double, min: Double, max: Double) {
    self.median = median
    self.min = min
    self.max = max
  }

  /// Summarises `samples`; the median of an even count is the mean of the middle two.
  public init(samples: [Double]) {
    precondition(!samples.isEmpty, "a summary needs at least one sample")
    let sorted = samples.sorted()
    let middle = sorted.count / 2
    median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    min = sorted[0]
    max = sorted[sorted.count - 1]
  }
}
