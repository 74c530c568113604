import Knapsack
import Testing

// A long line of child containers, as a test that models nested sessions may build, costs linear
// time when an override scope over it ends and when its root is disposed: both took quadratic
// time (an ended scope sorted its copies by a depth it counted up the line for each comparison,
// and each child's disposal invalidated the plans of the whole line below it), minutes for ten
// thousand children. These tests check what the long line does, not how long it takes (speed is
// the benchmarks' to measure): a return of the quadratic cost shows as a run minutes longer.

extension Dependencies {
  /// Level `n` of a deep diamond: its factory resolves level `n - 1` twice at once, in two child
  /// tasks, so that at every level one waits for the instance the other makes.
  var perArgDiamond: DependencyKey<AsyncKind, Int, Int> {
    DependencyKey { (r: Resolver, n: Int) async throws -> Int in
      if n == 0 { return 0 }
      async let first = r.resolve(\.perArgDiamond, argument: n - 1)
      async let second = r.resolve(\.perArgDiamond, argument: n - 1)
      let (one, other) = try await (first, second)
      return one == other ? one + 1 : -1
    }.scope(.singleton)
  }
  var perArgShared: Key<PartBox> { Key { PartBox("default") }.scope(.singleton) }
  var perArgOther: Key<PartBox> { Key { PartBox("other") } }
}

@Suite struct LongLineOfChildrenTests {
  /// A line of `count` children below a root that registers `\.perArgShared`.
  static func line(_ count: Int) -> (root: Container, line: [Container]) {
    let root = Container()
    root.register(\.perArgShared, scope: .singleton) { PartBox("root") }
    var line = [root]
    for _ in 0..<count { line.append(line[line.count - 1].makeChild()) }
    return (root, line)
  }

  @Test func aScopeOverALongLineOfChildrenGivesEachItsCopyAndEnds() async throws {
    let (root, line) = Self.line(6_000)
    let last = line[line.count - 1]
    try await withOverrides {
      $0.register(\.perArgOther) { PartBox("fake") }
    } operation: { () async throws in
      // Every container of the line gets its copy in the scope (quadratic, ending the scope took
      // some 40 seconds in a debug build; linear, a few milliseconds).
      #expect(try last[\.perArgShared].tag == "root")
      #expect(try last[\.perArgOther].tag == "fake")
    }
    #expect(try last[\.perArgOther].tag == "other")
    _ = root
  }

  // Not under the thread sanitizer: the disposal of each child is a task of its own, awaited in
  // turn, and four thousand of them take long there.
  @Test(.enabled(if: !isThreadSanitized, "four thousand disposal tasks take long under the sanitizer"))
  func disposingTheRootOfALongLineThatPlannedDisposesEveryChild() async throws {
    // A line planned all the way down, so that each invalidation would visit it (quadratic, its
    // disposal took some 20 seconds more in a debug build than that of a line that planned
    // nothing).
    let (planned, line) = Self.line(4_000)
    let last = line[line.count - 1]
    let middle = line[2_000]
    #expect(try last[\.perArgShared].tag == "root")
    #expect(try middle[\.perArgOther].tag == "other")
    try await planned.dispose()
    // Every container of the line is disposed, and its plans made before say so.
    let allDisposed = line.allSatisfy { $0.isDisposed }
    #expect(allDisposed)
    for container in [last, middle, line[1]] {
      #expect(throws: ResolutionError.self) { try container[\.perArgShared] }
      do {
        _ = try container[\.perArgOther]
        Issue.record("a container of a disposed line resolved")
      } catch let error as ResolutionError {
        #expect(error.kind == .containerDisposed, "\(error)")
      }
    }
  }

  /// `dispose()` inside a scope disposes what the scope's copies of the container and of those
  /// below it made, deeper copies first. Finding those copies walked up from every copy to the
  /// container's: the square of a long line's length.
  @Test func disposingTheRootOfALongLineInsideAScopeDisposesWhatEachCopyMadeDeepestFirst() async throws {
    let (root, line) = Self.line(3_000)
    let disposed = Collected<String>()
    let made = [line[1], line[1_500], line[3_000]]
    for (position, container) in zip(["top", "middle", "bottom"], made) {
      container.register(\.perArgOther, scope: .singleton, dispose: { disposed.append($0.tag) }) { PartBox(position) }
    }
    try await withOverrides {
      $0.register(\.perArgShared, scope: .singleton) { PartBox("fake") }
    } operation: { () async throws in
      for container in made { #expect(try container[\.perArgOther].tag != "") }
      #expect(try line[3_000][\.perArgShared].tag == "fake")
      try await root.dispose()
      // What the copies made is disposed by now, the deepest copy's first.
      #expect(disposed.all == ["bottom", "middle", "top"])
    }
    #expect(disposed.all == ["bottom", "middle", "top"])
    #expect(line.allSatisfy { $0.isDisposed })
  }

  @Test func aChildDisposedAfterItsParentStillRefusesItsCachedPlans() async throws {
    let parent = Container()
    let child = parent.makeChild()
    let grandchild = child.makeChild()
    child.register(\.perArgOther) { PartBox("child") }
    #expect(try grandchild[\.perArgOther].tag == "child")
    try await parent.dispose()
    try await child.dispose()
    do {
      _ = try grandchild[\.perArgOther]
      Issue.record("a container below a disposed one resolved")
    } catch let error as ResolutionError {
      #expect(error.kind == .containerDisposed, "\(error)")
    }
  }

  /// A wait for an instance another task makes checks that it closes no cycle. The check asked
  /// every listed wait whether it runs under the maker, walking the wait's steps each time, and
  /// walked every awaiting factory's steps up to the root for the path: in a graph whose every
  /// level waits so, the time grew with the fourth power of the depth (eight hundred levels took
  /// about a minute in a debug build; two thousand, half an hour).
  @Test func aDeepGraphWhoseEveryLevelWaitsForASiblingSharesEachLevel() async throws {
    // On a thread of its own (the tasks of the graph prefer it): on the shared pool, each of the
    // graph's thousands of task hops waits behind the other tests' jobs.
    let container = Container()
    let outcome = await SmallStackExecutor.run { () -> Int? in
      try? await container.resolve(\.perArgDiamond, argument: 800)
    }
    // Each level's two child tasks got one instance of the level below.
    #expect(outcome == 800)
  }
}
