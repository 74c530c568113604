import Synchronization

/// A ready ``ResolutionObserver`` that writes each top-level resolution as an indented tree
/// with timings.
///
/// ```swift
/// container.observe(ResolutionTracer())
/// _ = try container.resolve(\.todoList)
/// // \.todoList (unique) created in 0.412 ms
/// //   \.repository (singleton) created in 0.301 ms
/// //     \.storage (singleton) reused in 0.002 ms
/// ```
///
/// It expects one top-level resolution at a time (start-up, a test); concurrent resolutions
/// through the same tracer interleave.
public final class ResolutionTracer: ResolutionObserver {
  private struct Line {
    let depth: Int
    var text: String
  }

  private struct State {
    var lines: [Line] = []
    var open: [Int] = []
  }

  private let state = Locked(State())
  private let write: @Sendable (String) -> Void

  /// Creates a tracer that hands each finished tree to `write` (by default, `print`).
  public init(write: @escaping @Sendable (String) -> Void = { print($0) }) {
    self.write = write
  }

  /// Opens a line for the dependency.
  public func willResolve(_ dependency: DependencyReference, depth: Int) {
    state.withLock { state in
      state.open.append(state.lines.count)
      state.lines.append(Line(depth: depth, text: dependency.name))
    }
  }

  /// Completes the dependency's line; writes the tree when a top-level resolution ends.
  public func didResolve(_ event: ResolutionEvent) {
    let finished: String? = state.withLock { state in
      let text =
        "\(event.dependency.name) (\(event.scope)) \(event.outcome.rawValue) in \(Self.milliseconds(event.duration))"
      if let index = state.open.popLast() {
        state.lines[index].text = text
      } else {
        state.lines.append(Line(depth: event.depth, text: text))
      }
      guard state.open.isEmpty else { return nil }
      defer { state.lines = [] }
      return state.lines.map { String(repeating: "  ", count: $0.depth) + $0.text }.joined(separator: "\n")
    }
    if let finished { write(finished) }
  }

  static func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    let whole = micros / 1000
    let fraction = String(micros % 1000)
    return "\(whole).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) ms"
  }
}

/// A ready ``ResolutionObserver`` that measures start-up: which factories took longest.
///
/// ```swift
/// let profiler = StartupProfiler()
/// container.observe(profiler)
/// try bootApp(container)
/// container.observe(nil)
/// print(profiler.report(limit: 5))
/// ```
public final class StartupProfiler: ResolutionObserver {
  /// One factory call.
  public struct Entry: Sendable, Hashable {
    /// The dependency made.
    public let dependency: DependencyReference
    /// The scope it was made in.
    public let scope: Scope
    /// The time spent in its factory, its dependencies' resolutions excluded.
    public let selfDuration: Duration
    /// The time spent in its factory, its dependencies included.
    public let totalDuration: Duration
  }

  private struct State {
    var entries: [Entry] = []
    /// Time spent in children, per depth, for the resolutions in progress.
    var childTime: [Duration] = []
  }

  private let state = Locked(State())

  /// Creates an empty profiler.
  public init() {}

  /// Starts accounting for a resolution.
  public func willResolve(_ dependency: DependencyReference, depth: Int) {
    state.withLock { state in
      while state.childTime.count <= depth + 1 { state.childTime.append(.zero) }
      state.childTime[depth + 1] = .zero
    }
  }

  /// Records a finished resolution; only factory calls (``ResolutionEvent/Outcome/created``) count.
  public func didResolve(_ event: ResolutionEvent) {
    state.withLock { state in
      while state.childTime.count <= event.depth + 1 { state.childTime.append(.zero) }
      let children = state.childTime[event.depth + 1]
      state.childTime[event.depth] += event.duration
      guard event.outcome == .created else { return }
      state.entries.append(
        Entry(
          dependency: event.dependency, scope: event.scope, selfDuration: event.duration - children,
          totalDuration: event.duration))
    }
  }

  /// Every factory call so far, slowest (by its own time) first.
  public var slowestFactories: [Entry] {
    state.withLock { $0.entries }.sorted {
      ($0.selfDuration, $1.dependency.name) > ($1.selfDuration, $0.dependency.name)
    }
  }

  /// The slowest `limit` factories as a table.
  public func report(limit: Int = 10) -> String {
    let entries = slowestFactories
    var lines = ["Knapsack start-up: \(entries.count) factory call(s), slowest first"]
    for entry in entries.prefix(limit) {
      lines.append(
        "  \(ResolutionTracer.milliseconds(entry.selfDuration)) self, \(ResolutionTracer.milliseconds(entry.totalDuration)) total  \(entry.dependency.name) (\(entry.scope))"
      )
    }
    return lines.joined(separator: "\n")
  }
}
