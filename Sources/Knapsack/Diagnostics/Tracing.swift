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
/// Dependencies a factory resolves side by side (with `async let` or a task group) are drawn
/// under the dependency that asked for them. A dependency asked for by a step this tracer did not
/// see (a child container with an observer of its own made it, and this container keeps the
/// dependency) starts a tree of its own, whose first line ends with `asked for by` and that step.
/// It expects one top-level resolution at a time
/// (start-up, a test); concurrent top-level resolutions through the same tracer interleave.
public final class ResolutionTracer: ResolutionObserver {
  private struct Line {
    let depth: Int
    let name: String
    var text: String
    /// The line of the dependency that asked for this one, once known.
    var parent: Int?
    var isFinished = false
  }

  private struct State {
    var lines: [Line] = []
    /// The open lines of each dependency at each depth, by index, oldest first: a step finds its
    /// own line and its asker's here, not by scanning every line (a factory that resolves 10,000
    /// dependencies would scan 10,000 lines for each).
    var open: [OpenKey: [Int]] = [:]
    /// How many lines are open: the tree is written when none is.
    var openCount = 0

    /// Opens a line, finished or not.
    mutating func append(_ line: Line) -> Int {
      lines.append(line)
      let index = lines.count - 1
      if !line.isFinished {
        open[OpenKey(name: line.name, depth: line.depth), default: []].append(index)
        openCount += 1
      }
      return index
    }

    /// The latest open line of `name` at `depth` before `limit`, if any.
    func latestOpen(_ name: String, depth: Int, before limit: Int) -> Int? {
      open[OpenKey(name: name, depth: depth)]?.last { $0 < limit }
    }

    /// Marks the open line `index` finished.
    mutating func finish(_ index: Int) {
      let key = OpenKey(name: lines[index].name, depth: lines[index].depth)
      if let position = open[key]?.lastIndex(of: index) {
        open[key]?.remove(at: position)
        if open[key]?.isEmpty == true { open[key] = nil }
        openCount -= 1
      }
      lines[index].isFinished = true
    }
  }

  private struct OpenKey: Hashable {
    let name: String
    let depth: Int
  }

  private let state = Locked(State())
  private let write: @Sendable (String) -> Void

  /// Creates a tracer that hands each finished tree to `write` (by default, `print`).
  public init(write: @escaping @Sendable (String) -> Void = { print($0) }) {
    self.write = write
  }

  /// Opens a line for the dependency.
  public func willResolve(_ dependency: DependencyReference, depth: Int) {
    state.withLock { _ = $0.append(Line(depth: depth, name: dependency.name, text: dependency.name)) }
  }

  /// Completes the dependency's line; writes the tree when a top-level resolution ends.
  public func didResolve(_ event: ResolutionEvent) {
    let finished: String? = state.withLock { state in
      let text =
        "\(event.dependency.name.noted("\(event.scope)")) \(event.outcome.rawValue) in \(Self.milliseconds(event.duration))"
      // The step's own line (the latest open one of its dependency at its depth: steps that run
      // side by side finish in any order), under the open line of the dependency that asked.
      let name = event.dependency.name
      let index =
        state.latestOpen(name, depth: event.depth, before: state.lines.count)
        ?? state.append(Line(depth: event.depth, name: name, text: text, isFinished: true))
      state.lines[index].text = text
      state.finish(index)
      if let asker = event.requestedBy?.name {
        state.lines[index].parent = state.latestOpen(asker, depth: event.depth - 1, before: index)
        // Asked for by a step this tracer never saw (one a child container made, whose observer
        // is another): the line starts a tree of its own and says who asked.
        if state.lines[index].parent == nil { state.lines[index].text += ", asked for by \(asker)" }
      }
      guard state.openCount == 0 else { return nil }
      defer { state = State() }
      return Self.tree(state.lines)
    }
    if let finished { write(finished) }
  }

  /// The lines as a tree: each under the one that asked for it, in the order they began, indented
  /// one step deeper than it. A root starts at the margin, whatever its depth.
  private static func tree(_ lines: [Line]) -> String {
    var children: [Int: [Int]] = [:]
    var roots: [Int] = []
    for (index, line) in lines.enumerated() {
      if let parent = line.parent { children[parent, default: []].append(index) } else { roots.append(index) }
    }
    var output: [String] = []
    // Depth first, with an explicit stack: a deep chain's tree is as deep as the chain.
    var pending = roots.reversed().map { (index: $0, indent: 0) }
    while let (index, indent) = pending.popLast() {
      output.append(String(repeating: "  ", count: indent) + lines[index].text)
      pending += (children[index] ?? []).reversed().map { (index: $0, indent: indent + 1) }
    }
    return output.joined(separator: "\n")
  }

  /// `1.234 ms`: a duration in milliseconds, to the microsecond.
  static func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    let sign = micros < 0 ? "-" : ""
    let magnitude = micros.magnitude
    let fraction = String(magnitude % 1000)
    return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: max(0, 3 - fraction.count)))\(fraction) ms"
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
    /// For each resolution in progress, when the dependencies it asked for were being resolved.
    var childSpans: [DependencyReference: [Span]] = [:]
    /// Whether each dependency seen is a multibinding key, looked up once.
    var multibindings: [DependencyReference: Bool] = [:]
  }

  /// When one resolution ran.
  private struct Span {
    let start: ContinuousClock.Instant
    let end: ContinuousClock.Instant
  }

  private let state = Locked(State())

  /// Creates an empty profiler.
  public init() {}

  /// Nothing to do: a resolution is accounted for when it ends.
  public func willResolve(_ dependency: DependencyReference, depth: Int) {}

  /// Records a finished resolution; only factory calls (``ResolutionEvent/Outcome/created``) count,
  /// so a multibinding, whose contributions are its factories, does not.
  /// Its own time is its time less the time during which its dependencies were being resolved:
  /// dependencies resolved side by side (`async let`) count once for the time they overlap.
  public func didResolve(_ event: ResolutionEvent) {
    let end = ContinuousClock.now
    let span = Span(start: end - event.duration, end: end)
    state.withLock { state in
      let children = state.childSpans.removeValue(forKey: event.dependency) ?? []
      if let asker = event.requestedBy { state.childSpans[asker, default: []].append(span) }
      guard event.outcome == .created else { return }
      // A multibinding has no factory: its contributions are the factory calls. Its time counts
      // as a dependency's time for what asked for it, and is nobody's own.
      let isMultibinding =
        state.multibindings[event.dependency]
        ?? {
          let isMultibinding = Self.isMultibinding(event.dependency)
          state.multibindings[event.dependency] = isMultibinding
          return isMultibinding
        }()
      guard !isMultibinding else { return }
      // Only the part of each child span inside this resolution's own span counts: a span left
      // under this dependency's name by a resolution this profiler did not see end (a child
      // container's step, say) lies before it and must not be subtracted from it.
      let busy = Self.union(
        of: children.compactMap { child in
          let start = max(child.start, span.start)
          let end = min(child.end, span.end)
          return end > start ? Span(start: start, end: end) : nil
        })
      state.entries.append(
        Entry(
          dependency: event.dependency, scope: event.scope, selfDuration: max(.zero, event.duration - busy),
          totalDuration: event.duration))
    }
  }

  /// Whether `dependency` is a multibinding key.
  private static func isMultibinding(_ dependency: DependencyReference) -> Bool {
    let table = KeyTable.shared
    return table.indices(named: dependency).contains { table.descriptor($0).kind == .multibinding }
  }

  /// How long at least one of `spans` ran: the length of their union.
  private static func union(of spans: [Span]) -> Duration {
    var total = Duration.zero
    var reached: ContinuousClock.Instant?
    for span in spans.sorted(by: { $0.start < $1.start }) {
      let start = reached.map { max(span.start, $0) } ?? span.start
      guard span.end > start else { continue }
      total += start.duration(to: span.end)
      reached = span.end
    }
    return total
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
        "  \(ResolutionTracer.milliseconds(entry.selfDuration)) self, \(ResolutionTracer.milliseconds(entry.totalDuration)) total  \(entry.dependency.name.noted("\(entry.scope)"))"
      )
    }
    return lines.joined(separator: "\n")
  }
}
