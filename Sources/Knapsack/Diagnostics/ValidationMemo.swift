import CKnapsack

/// What a validation run remembers of the roots it ran, so that a long chain costs its length
/// whichever end comes first in name order.
///
/// A root that takes no argument and keeps no instance of its own (unique scope) leaves its
/// instance here, its *exemplar*. The next step that asks for that dependency in the same copy
/// takes it instead of running the factories below again: resolved there, it would run the same
/// factories down the same dependencies (the copy's registrations do not change), which the
/// root's run already recorded. Taken, not shared: once handed out, only the step that took it
/// holds it, so whether that step's requester kept it is told as for an instance made there. A
/// root whose run made or found a weak-scoped instance leaves nothing: its exemplar would keep
/// that instance alive, for later steps to find instead of making. Nor does one whose run made or
/// found a graph-scoped instance: that instance is the root's resolution's own, where a step
/// below another root shares the instance of that root's resolution (two writers of one unit of
/// work), so its exemplar would stand for a different run.
///
/// The depth is not lost: an exemplar keeps how many levels and how much stack its resolution
/// took, and a step that takes it checks that they would fit below it, as the stack guard would
/// if the factories ran. A root found too deep is remembered, with the stack it had: a step
/// that reaches it with no more stack left fails at once, covered by the root's report. So is a
/// root that failed down a path of two or more in the run of roots under way (not for a
/// mismatch, which can depend on the thread: a main-actor factory resolved off the main actor;
/// nor for a root whose run made or found a graph-scoped instance, whose failure can depend on
/// the resolution it is part of).
final class ValidationMemo: Sendable {
  /// A dependency in one validation copy (by the container it copies).
  struct Key: Hashable {
    let copy: ObjectIdentifier
    let index: Int
  }

  /// A root's instance, with what its resolution took.
  struct Exemplar {
    let value: any Sendable
    /// Levels below it.
    let height: Int
    /// Stack its resolution used below its first frame.
    let stackBytes: UInt
    /// The depth of its deepest asynchronous step (itself at 0), or -1 if it had none.
    let asyncDepth: Int
  }

  /// The most exemplars kept at once; the oldest go first. A chain hands each one to the next
  /// root in name order, so a few suffice; the bound keeps what factories made from piling up.
  static var exemplarLimit: Int { 4096 }

  private struct State {
    var exemplars: [Key: Exemplar] = [:]
    /// The keys of ``exemplars``, oldest first, from ``oldest``.
    var order: [Key] = []
    var oldest = 0
    /// The roots found too deep, with the stack left at the top of their run (nil when that
    /// does not matter: the limit of asynchronous steps).
    var tooDeep: [Key: UInt?] = [:]
    /// The roots that failed in the run of roots under way, with how: down a path of two or more,
    /// so reported, or covered by an earlier root's report.
    var failed: [Key: (kind: ResolutionError.Kind, dependency: Int, underlying: String?)] = [:]
    /// The levels below each dependency as its last step found them, and the dependency
    /// through which it went deepest.
    var heights: [Int: (height: Int, deepest: Int?)] = [:]
    /// The same, for the steps still running.
    var open: [Int: (height: Int, deepest: Int?)] = [:]
    /// What the root running now used: the most stack a step used below its first frame, the
    /// stack left at the top of its run, the depth of its deepest asynchronous step, and
    /// whether it made or found a weak- or graph-scoped instance.
    var root = RootRun()
  }

  private struct RootRun {
    var stackBytes: UInt = 0
    var stackLeft: UInt?
    var asyncDepth = -1
    /// Whether the run made or found a weak- or graph-scoped instance: what it made then depends on
    /// the run (see ``ValidationMemo``), so it leaves no exemplar and is not remembered as failed.
    var dependsOnItsRun = false
  }

  private let state = Locked(State())

  // MARK: Roots

  /// Starts the run of a root: what it uses of the stack is measured from here.
  func beginRoot() {
    state.withLock { $0.root = RootRun() }
  }

  /// Keeps `value`, what the root `index` of `copy` made, for the next step that asks for it
  /// (unless the root made or found a weak- or graph-scoped instance, see ``ValidationMemo``).
  func keep(_ value: any Sendable, of index: Int, in copy: ObjectIdentifier) {
    state.withLock { state in
      guard !state.root.dependsOnItsRun else { return }
      let key = Key(copy: copy, index: index)
      let exemplar = Exemplar(
        value: value, height: state.heights[index]?.height ?? 0, stackBytes: state.root.stackBytes,
        asyncDepth: state.root.asyncDepth)
      if state.exemplars.updateValue(exemplar, forKey: key) == nil { state.order.append(key) }
      while state.exemplars.count > Self.exemplarLimit, state.oldest < state.order.count {
        state.exemplars.removeValue(forKey: state.order[state.oldest])
        state.oldest += 1
      }
      if state.oldest > 1024, state.oldest * 2 > state.order.count {
        state.order.removeFirst(state.oldest)
        state.oldest = 0
      }
    }
  }

  /// Starts a run of roots (a validation resolves the registrations, then what handles made
  /// during that run will resolve): a failure is reported once per run of roots, with the path
  /// from its root.
  func beginRun() {
    state.withLock { $0.failed = [:] }
  }

  /// Ends a run of roots: the exemplars no step took are let go, and what they made with them.
  func endRun() {
    state.withLock { state in
      state.exemplars = [:]
      state.order = []
      state.oldest = 0
    }
  }

  /// Remembers that the root `index` of `copy` was found too deep by `error`, with the stack
  /// its run had at the top.
  func noteTooDeep(_ index: Int, in copy: ObjectIdentifier, by error: ResolutionError) {
    state.withLock { state in
      let levels = error.underlying == StackGuard.Limit.asynchronousSteps.description
      state.tooDeep[Key(copy: copy, index: index)] = levels ? .some(nil) : .some(state.root.stackLeft)
    }
  }

  /// Remembers that the root `index` of `copy` failed with `error`, reported (or covered) with a
  /// path of two or more: a step that reaches it fails the same way at once, and the root of
  /// that step is not reported again (its path would end as this one's did).
  func noteFailed(_ index: Int, in copy: ObjectIdentifier, with error: ResolutionError) {
    guard error.kind != .resolutionTooDeep, error.kind != .factoryMismatch, let dependency = error.pathIndices?.last
    else { return }
    state.withLock { state in
      guard !state.root.dependsOnItsRun else { return }
      state.failed[Key(copy: copy, index: index)] = (error.kind, dependency, error.underlying)
    }
  }

  // MARK: Steps

  /// Notes the stack a step at `frame` uses, or its depth if it is an asynchronous step.
  func noteStep(_ frame: UnsafeMutablePointer<Frame>) {
    let base = frame.pointee.stackBase
    let depth = frame.pointee.depth
    let here = ThreadFrame.stackPointer()
    let limit = knapsack_stack_limit()
    state.withLock { state in
      guard base != 0 else {
        state.root.asyncDepth = max(state.root.asyncDepth, depth)
        return
      }
      state.root.stackBytes = max(state.root.stackBytes, base &- here)
      if state.root.stackLeft == nil, limit != 0, here > limit { state.root.stackLeft = here - limit }
    }
  }

  /// Notes that a step made `index` for `requester`, in `scope`: its height, and its
  /// requester's so far.
  func stepEnded(_ index: Int, requester: Int?, scope: Scope) {
    state.withLock { state in
      if scope.kind == .weak || scope.kind == .graph { state.root.dependsOnItsRun = true }
      let mine = state.open.removeValue(forKey: index) ?? (0, nil)
      state.heights[index] = mine
      guard let requester else { return }
      if mine.height + 1 > state.open[requester]?.height ?? 0 { state.open[requester] = (mine.height + 1, index) }
    }
  }

  /// The dependencies below `index` on its deepest path, as its last step found them.
  func deepestPath(below index: Int) -> [Int] {
    state.withLock { state in
      var path: [Int] = []
      var seen: Set<Int> = [index]
      var current = index
      while let next = state.heights[current]?.deepest, seen.insert(next).inserted {
        path.append(next)
        current = next
      }
      return path
    }
  }

  /// What a step of `copy` asking for `index` below `parent` gets instead of running its
  /// factory: the exemplar, taken, if there is one; nil if the step must run. Throws if `index` is
  /// known too deep, or if its exemplar's levels would not fit below `parent`.
  func take(
    _ index: Int, in container: Container, copy: ObjectIdentifier, parent: UnsafeMutablePointer<Frame>?
  ) throws -> (any Sendable)? {
    let key = Key(copy: copy, index: index)
    let here = ThreadFrame.stackPointer()
    let limit = knapsack_stack_limit()
    let stackLeft: UInt? = limit != 0 && here > limit ? here - limit : nil
    let found = state.withLock { state in
      (tooDeep: state.tooDeep[key], failed: state.failed[key], exemplar: state.exemplars[key])
    }
    if let tooDeep = found.tooDeep {
      // Found too deep with as much stack as this step has, or more: too deep here too. With
      // less (on a worker thread, where this step runs on the main thread), it may fit: run it.
      guard let had = tooDeep, let stackLeft, stackLeft > had else {
        var error = container.failure(
          .resolutionTooDeep, index, parent,
          underlying: tooDeep == nil ? StackGuard.Limit.asynchronousSteps : StackGuard.Limit.stack)
        error.isCoveredByReport = true
        throw error
      }
      return nil
    }
    if let failed = found.failed {
      let path = (parent?.path ?? []) + (failed.dependency == index ? [index] : [index, failed.dependency])
      var error = container.failure(
        failed.kind, failed.dependency, nil, path: path, underlying: failed.underlying.map(ReportedFailure.init))
      error.isCoveredByReport = true
      throw error
    }
    guard let exemplar = found.exemplar else { return nil }
    let depth = (parent?.pointee.depth ?? -1) + 1
    let base = parent?.pointee.stackBase ?? 0
    // Its asynchronous steps count towards their limit; its synchronous ones need this thread's
    // stack (below an asynchronous step, they start a run of their own here), with the margin
    // the stack guard keeps.
    let perLevel = exemplar.height > 0 ? exemplar.stackBytes / UInt(exemplar.height) : 0
    let needed = exemplar.stackBytes + StackGuard.reserve + perLevel * UInt(StackGuard.interval * 2)
    let exceeded: StackGuard.Limit? =
      if exemplar.asyncDepth >= 0, depth + exemplar.asyncDepth >= StackGuard.heapDepthLimit {
        .asynchronousSteps
      } else if exemplar.stackBytes > 0, let stackLeft, stackLeft < needed {
        .stack
      } else {
        nil
      }
    if let exceeded {
      let path = (parent?.path ?? []) + [index] + deepestPath(below: index)
      throw container.failure(.resolutionTooDeep, path.last ?? index, nil, path: path, underlying: exceeded)
    }
    return state.withLock { state in
      guard let taken = state.exemplars.removeValue(forKey: key) else { return nil }
      let above = base != 0 && base > here ? base - here : 0
      state.root.stackBytes = max(state.root.stackBytes, above + taken.stackBytes)
      if taken.asyncDepth >= 0 { state.root.asyncDepth = max(state.root.asyncDepth, depth + taken.asyncDepth) }
      if state.root.stackLeft == nil, let stackLeft { state.root.stackLeft = stackLeft + above }
      state.open[index] = state.heights[index] ?? (0, nil)
      return taken.value
    }
  }
}

/// What a root known to fail failed with, as the error a step reaching it throws repeats it.
private struct ReportedFailure: Error, CustomStringConvertible {
  let description: String
}
