import CKnapsack

/// What a validation run remembers of the roots it ran, so that a long chain costs its length
/// whichever end comes first in name order.
///
/// A root that takes no argument and keeps no instance of its own (unique or graph scope) leaves
/// its instance here, its *exemplar*. The next step that asks for that dependency in the same
/// copy takes it instead of running the factories below again: resolved there, it would run the
/// same factories down the same dependencies (the copy's registrations do not change), which the
/// root's run already recorded. Taken, not shared: once handed out, only the step that took it
/// holds it, so whether that step's requester kept it is told as for an instance made there.
///
/// The depth is not lost: an exemplar keeps how many levels and how much stack its resolution
/// took, and a step that takes it checks that the levels below it would fit, as the stack guard
/// would if the factories ran. A root found too deep for the stack from the top is remembered too:
/// a step that reaches it, deeper still, fails at once, and the chain is reported once.
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
  }

  /// The most exemplars kept at once; the oldest go first. A chain hands each one to the next
  /// root in name order, so a few suffice; the bound keeps what factories made from piling up.
  static var exemplarLimit: Int { 4096 }

  private struct State {
    var exemplars: [Key: Exemplar] = [:]
    /// The keys of ``exemplars``, oldest first, from ``oldest``.
    var order: [Key] = []
    var oldest = 0
    var tooDeep: Set<Key> = []
    /// The levels below each dependency as its last step found them, and the dependency
    /// through which it went deepest.
    var heights: [Int: (height: Int, deepest: Int?)] = [:]
    /// The same, for the steps still running.
    var open: [Int: (height: Int, deepest: Int?)] = [:]
    /// The most stack a step of the root running now used below its first frame.
    var rootStackBytes: UInt = 0
  }

  private let state = Locked(State())

  // MARK: Roots

  /// Starts the run of a root: what it uses of the stack is measured from here.
  func beginRoot() {
    state.withLock { $0.rootStackBytes = 0 }
  }

  /// Keeps `value`, what the root `index` of `copy` made, for the next step that asks for it.
  func keep(_ value: any Sendable, of index: Int, in copy: ObjectIdentifier) {
    state.withLock { state in
      let key = Key(copy: copy, index: index)
      let height = state.heights[index]?.height ?? 0
      if state.exemplars.updateValue(
        Exemplar(value: value, height: height, stackBytes: state.rootStackBytes), forKey: key) == nil
      {
        state.order.append(key)
      }
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

  /// Remembers that the root `index` of `copy` is too deep for the stack from the top.
  func noteTooDeep(_ index: Int, in copy: ObjectIdentifier) {
    _ = state.withLock { $0.tooDeep.insert(Key(copy: copy, index: index)) }
  }

  /// Whether `error` is one that a step taking a root found too deep (see ``noteTooDeep(_:in:)``)
  /// threw: covered by the report of the run that found that root too deep.
  func isCovered(_ error: ResolutionError, in copy: ObjectIdentifier) -> Bool {
    guard error.kind == .resolutionTooDeep, let index = error.pathIndices?.last else { return false }
    return state.withLock { $0.tooDeep.contains(Key(copy: copy, index: index)) }
  }

  // MARK: Steps

  /// Notes the stack a step at `frame` uses.
  func noteStep(_ frame: UnsafeMutablePointer<Frame>) {
    let base = frame.pointee.stackBase
    guard base != 0 else { return }
    let used = base &- ThreadFrame.stackPointer()
    state.withLock { $0.rootStackBytes = max($0.rootStackBytes, used) }
  }

  /// Notes that a step made `index` for `requester`: its height, and its requester's so far.
  func stepEnded(_ index: Int, requester: Int?) {
    state.withLock { state in
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
    let found = state.withLock { state -> (tooDeep: Bool, exemplar: Exemplar?) in
      (state.tooDeep.contains(key), state.exemplars[key])
    }
    if found.tooDeep {
      throw container.failure(
        .resolutionTooDeep, index, parent, underlying: StackGuard.Limit.stack)
    }
    guard let exemplar = found.exemplar else { return nil }
    let depth = (parent?.pointee.depth ?? -1) + 1
    let base = parent?.pointee.stackBase ?? 0
    let here = ThreadFrame.stackPointer()
    let limit = knapsack_stack_limit()
    let exceeded: StackGuard.Limit? =
      if parent != nil, base == 0 {
        depth + exemplar.height >= StackGuard.heapDepthLimit ? .asynchronousSteps : nil
      } else if limit != 0, here > limit, here - limit < exemplar.stackBytes + StackGuard.reserve {
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
      state.rootStackBytes = max(state.rootStackBytes, above + taken.stackBytes)
      state.open[index] = state.heights[index] ?? (0, nil)
      return taken.value
    }
  }
}
