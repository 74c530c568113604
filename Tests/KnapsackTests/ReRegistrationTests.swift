import Foundation
import Knapsack
import Synchronization
import Testing

/// A value whose label says which registration made it: "0", "1", ... in registration order.
final class RegValue: Sendable {
  let label: String
  init(_ label: String) { self.label = label }
  var round: Int? { Int(label) }
}

/// A flag many threads and tasks set and read.
final class RegFlag: Sendable {
  private let value = Atomic<Bool>(false)
  func set() { value.store(true, ordering: .releasing) }
  var isSet: Bool { value.load(ordering: .acquiring) }
}

/// Something a factory captures that calls back into the container when it is freed, as an
/// object that reports its end through the container might.
final class RegCallsBackWhenFreed: Sendable {
  let container: Container
  let calledBack: RegFlag
  init(_ container: Container, _ calledBack: RegFlag) {
    self.container = container
    self.calledBack = calledBack
  }
  deinit {
    _ = container.isRegistered(type: RegValue.self, name: "called back")
    calledBack.set()
  }
}

/// Something a factory captures, to see when the container lets it go.
final class RegCaptured: Sendable {}

/// A type nothing registers.
struct RegMissing: Sendable {}

extension Dependencies {
  var regSync: Key<RegValue> { .required() }
  var regAsync: AsyncKey<RegValue> { .required() }
  var regMain: MainActorKey<RegValue> { .required() }
  var regArgument: ArgumentKey<Int, RegValue> { .required() }
  var regOther: Key<RegValue> { .required() }
  var regPlugins: Multibinding<RegValue> { Multibinding() }
}

/// Registration as a user drives it: re-registering keys of every kind while other threads
/// resolve them, in parents while children and override scopes resolve, thousands of keys, and
/// registrations first resolved long after they were made (the container keeps those unboxed
/// until then).
@Suite struct ReRegistrationTests {

  // MARK: Freeing what a replaced registration captured

  /// Replacing a registration, resolved before or not, frees what its factory captured after
  /// the container's lock: a capture whose deinit asks the container something must not deadlock.
  @Test(arguments: [false, true])
  func replacingARegistrationFreesWhatItCapturedOutsideTheContainersLock(resolvedFirst: Bool) async {
    let calledBack = RegFlag()
    // On a thread of its own: a deadlock fails the test instead of hanging the run.
    let finished = await onThreadOutsideAnyTask { () -> Bool in
      let container = Container()
      do {
        let capture = RegCallsBackWhenFreed(container, calledBack)
        container.register(\.regSync) {
          _ = capture
          return RegValue("old")
        }
      }
      if resolvedFirst, (try? container[\.regSync].label) != "old" { return false }
      // The replaced factory is freed now, and with it the capture, whose deinit asks the
      // container something.
      container.register(\.regSync) { RegValue("new") }
      return (try? container[\.regSync].label) == "new"
    }
    #expect(finished == true, "replacing the registration deadlocked")
    // Freed once no reader can still use the replaced plan: at once, unless a resolution on
    // another thread that reads more than eight containers at once (a test beside this one, down
    // a line of children) is reading then, which holds every plan back until that read ends.
    #expect(await freedSoon { calledBack.isSet })
  }

  @Test func aParentRegistrationAChildBoundIsFreedWhenTheParentReplacesIt() async throws {
    let parent = Container()
    let child = parent.makeChild()
    weak var captured: RegCaptured?
    do {
      let capture = RegCaptured()
      captured = capture
      parent.register(\.regSync) {
        _ = capture
        return RegValue("old")
      }
    }
    #expect(try child[\.regSync].label == "old")
    parent.register(\.regSync) { RegValue("new") }
    #expect(
      await freedSoon { captured == nil },
      "the child's binding of the replaced registration let it go without a new resolution")
    #expect(try child[\.regSync].label == "new")
  }

  @Test func aContainerWithRegistrationsInManyChunksFreesEveryCaptureWhenItGoes() throws {
    let captures = (0..<700).map { _ in RegCaptured() }
    let watched = captures.map { WeakCaptured($0) }
    do {
      let container = Container()
      for (number, capture) in captures.enumerated() {
        container.register(type: RegValue.self, name: "chunked \(number)") {
          _ = capture
          return RegValue("\(number)")
        }
      }
      // Some made into registration objects, some replaced in place, the rest never touched.
      for number in stride(from: 0, to: 700, by: 7) {
        #expect(try container.resolve(type: RegValue.self, name: "chunked \(number)").label == "\(number)")
      }
      for number in stride(from: 3, to: 700, by: 11) {
        container.register(type: RegValue.self, name: "chunked \(number)") { RegValue("replaced") }
      }
      #expect(try container.resolve(type: RegValue.self, name: "chunked 3").label == "replaced")
      #expect(try container.resolve(type: RegValue.self, name: "chunked 699").label == "699")
    }
    _ = consume captures
    #expect(watched.allSatisfy { $0.object == nil })
  }

  final class WeakCaptured: Sendable {
    weak let object: RegCaptured?
    init(_ object: RegCaptured) { self.object = object }
  }

  // MARK: Re-registering while resolving

  /// Registers round 0, then rounds 1...`rounds` in one task while two others resolve; returns
  /// what went wrong (a failure, a label that is no round, a round older than one the same
  /// resolver saw before), and checks the last round is what resolves afterwards.
  private func reRegisterWhileResolving(
    rounds: Int = 150, register: @escaping @Sendable (Int) -> Void,
    resolve: @escaping @Sendable () async throws -> RegValue
  ) async throws -> [String] {
    register(0)
    let done = RegFlag()
    let problems = Collected<String>()
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for round in 1...rounds {
          register(round)
          if round % 8 == 0 { await Task.yield() }
        }
        done.set()
      }
      for _ in 0..<2 {
        group.addTask {
          var seen = -1
          while !done.isSet {
            do {
              let value = try await resolve()
              guard let round = value.round else {
                problems.append("label \(value.label)")
                continue
              }
              if round < seen { problems.append("round \(round) after \(seen)") }
              seen = max(seen, round)
            } catch {
              problems.append("\(error)")
            }
            await Task.yield()
          }
        }
      }
    }
    let last = try await resolve()
    if last.label != "\(rounds)" { problems.append("resolved \(last.label) after the last round \(rounds)") }
    return problems.all
  }

  @Test(arguments: [Scope.unique, .singleton, .cached, .weak])
  func reRegisteringAKeyWhileTasksResolveIt(scope: Scope) async throws {
    let container = Container()
    let problems = try await reRegisterWhileResolving(
      register: { round in container.register(\.regSync, scope: scope) { RegValue("\(round)") } },
      resolve: { try container[\.regSync] })
    #expect(problems.isEmpty, "\(problems.prefix(5))")
  }

  @Test(arguments: [Scope.unique, .singleton])
  func reRegisteringAnAsyncKeyWhileTasksResolveIt(scope: Scope) async throws {
    let container = Container()
    let problems = try await reRegisterWhileResolving(
      register: { round in
        container.register(\.regAsync, scope: scope) { () async throws -> RegValue in
          await Task.yield()
          return RegValue("\(round)")
        }
      },
      resolve: { try await container.resolve(\.regAsync) })
    #expect(problems.isEmpty, "\(problems.prefix(5))")
  }

  @Test(arguments: [Scope.unique, .singleton])
  func reRegisteringAMainActorKeyWhileTasksResolveIt(scope: Scope) async throws {
    let container = Container()
    let problems = try await reRegisterWhileResolving(
      rounds: 60,
      register: { round in container.register(\.regMain, scope: scope) { RegValue("\(round)") } },
      resolve: { try await container.resolve(\.regMain) })
    #expect(problems.isEmpty, "\(problems.prefix(5))")
  }

  @Test(arguments: [Scope.unique, .singleton])
  func reRegisteringAnArgumentKeyWhileTasksResolveIt(scope: Scope) async throws {
    let container = Container()
    let problems = try await reRegisterWhileResolving(
      register: { round in
        container.register(\.regArgument, scope: scope) { _, argument in RegValue("\(round + argument * 0)") }
      },
      resolve: { try container.resolve(\.regArgument, argument: 7) })
    #expect(problems.isEmpty, "\(problems.prefix(5))")
  }

  @Test(arguments: [Scope.unique, .singleton])
  func reRegisteringATypeWhileTasksResolveIt(scope: Scope) async throws {
    let container = Container()
    let problems = try await reRegisterWhileResolving(
      register: { round in
        container.register(type: RegValue.self, name: "raced", scope: scope) { RegValue("\(round)") }
      },
      resolve: { try container.resolve(type: RegValue.self, name: "raced") })
    #expect(problems.isEmpty, "\(problems.prefix(5))")
  }

  @Test func reRegisteringOnManyThreadsWhileOthersResolveEndsWithAValueOfSomeRegistration() async throws {
    let container = Container()
    container.register(\.regSync, scope: .singleton) { RegValue("0") }
    let problems = Collected<String>()
    let group = ThreadGroup(count: 4) { thread in
      for round in 1...200 {
        if thread < 2 {
          container.register(\.regSync, scope: thread == 0 ? .singleton : .unique) { RegValue("\(round)") }
        } else {
          do {
            if try container[\.regSync].round == nil { problems.append("no round") }
          } catch {
            problems.append("\(error)")
          }
        }
      }
    }
    #expect(await group.join())
    #expect(problems.all.isEmpty)
    #expect(try container[\.regSync].label == "200")
  }

  @Test func contributingWhileTasksResolveTheMultibindingSeesAGrowingPrefix() async throws {
    let container = Container()
    let total = 120
    let done = RegFlag()
    let problems = Collected<String>()
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for number in 0..<total {
          container.contribute(to: \.regPlugins, scope: number.isMultiple(of: 2) ? .singleton : .unique) { _ in
            RegValue("\(number)")
          }
          if number % 8 == 0 { await Task.yield() }
        }
        done.set()
      }
      for _ in 0..<2 {
        group.addTask {
          var seen = 0
          while !done.isSet {
            do {
              let labels = try container[\.regPlugins].map(\.label)
              if labels != (0..<labels.count).map(String.init) { problems.append("\(labels)") }
              if labels.count < seen { problems.append("\(labels.count) after \(seen)") }
              seen = max(seen, labels.count)
            } catch {
              problems.append("\(error)")
            }
            await Task.yield()
          }
        }
      }
    }
    #expect(problems.all.isEmpty, "\(problems.all.prefix(3))")
    let first = try container[\.regPlugins]
    let second = try container[\.regPlugins]
    #expect(first.map(\.label) == (0..<total).map(String.init))
    // The singleton contributions (even numbers) are shared; the unique ones are not.
    #expect(
      zip(first, second).enumerated().allSatisfy { number, pair in (pair.0 === pair.1) == number.isMultiple(of: 2) })
  }

  // MARK: Parents, children and override scopes

  @Test func replacingInAParentWhileChildrenResolveEndsWithTheParentsLastRegistration() async throws {
    let parent = Container()
    let children = (0..<3).map { _ in parent.makeChild() }
    // One child decorates the key: it keeps a singleton of its own, from the parent's registration.
    children[2].decorate(\.regSync) { _, value in value }
    let problems = try await reRegisterWhileResolving(
      register: { round in parent.register(\.regSync, scope: .singleton) { RegValue("\(round)") } },
      resolve: { try children[Int.random(in: 0..<3)][\.regSync] })
    #expect(problems.isEmpty, "\(problems.prefix(5))")
    for child in children { #expect(try child[\.regSync].label == "150") }
    #expect(try children[0][\.regSync] === parent[\.regSync])
  }

  @Test func replacingInAParentWhileAnOverrideScopeResolvesThroughItsCopy() async throws {
    let parent = Container()
    let child = parent.makeChild()
    parent.register(\.regOther, scope: .singleton) { r in RegValue("other of \(try r[\.regSync].label)") }
    let problems = try await withOverrides {
      $0.register(\.regAsync) { RegValue("overridden") }
    } operation: { () async throws -> [String] in
      try await reRegisterWhileResolving(
        register: { round in parent.register(\.regSync, scope: .singleton) { RegValue("\(round)") } },
        resolve: {
          #expect(try await child.resolve(\.regAsync).label == "overridden")
          return try child[\.regSync]
        })
    }
    #expect(problems.isEmpty, "\(problems.prefix(5))")
    #expect(try child[\.regSync].label == "150")
    #expect(try child[\.regOther].label == "other of 150")
  }

  @Test func anOverrideFirstResolvedLateReplacedInTheScopeIsTheOneUsed() async throws {
    let container = Container()
    container.register(\.regSync) { RegValue("base") }
    try await withOverrides {
      for number in 0..<300 { $0.register(type: RegValue.self, name: "override filler \(number)") { RegValue("f") } }
      $0.register(\.regSync, scope: .singleton) { RegValue("first override") }
      $0.register(\.regSync, scope: .singleton) { RegValue("second override") }
    } operation: { () async throws in
      #expect(try container[\.regSync].label == "second override")
      #expect(try container[\.regSync] === container[\.regSync])
      #expect(try container.resolve(type: RegValue.self, name: "override filler 299").label == "f")
    }
    #expect(try container[\.regSync].label == "base")
  }

  // MARK: Many registrations, validation

  @Test func thousandsOfRegistrationsSomeResolvedSomeReplacedAllValidate() async throws {
    let container = Container()
    let count = 3000
    for number in 0..<count {
      container.register(type: RegValue.self, name: "many \(number)") { RegValue("\(number)") }
    }
    for number in stride(from: 0, to: count, by: 13) {
      #expect(try container.resolve(type: RegValue.self, name: "many \(number)").label == "\(number)")
    }
    for number in stride(from: 5, to: count, by: 17) {
      container.register(type: RegValue.self, name: "many \(number)") { r in
        _ = try r.resolve(type: RegMissing.self)
        return RegValue("broken")
      }
    }
    #expect((0..<count).allSatisfy { container.isRegistered(type: RegValue.self, name: "many \($0)") })
    let report = await container.validate()
    // The registrations and the one missing type the replaced ones ask for.
    #expect(report.checkedCount == count + 1)
    #expect(Set(report.problems.map(\.dependency.typeName)) == ["RegMissing"])
    #expect(try container.resolve(type: RegValue.self, name: "many \(count - 1)").label == "\(count - 1)")
  }

  @Test func validatingWhileRegisteringOnAnotherThreadDoesNotCrash() async throws {
    let container = Container()
    for number in 0..<600 { container.register(type: RegValue.self, name: "pre \(number)") { RegValue("\(number)") } }
    let group = ThreadGroup(count: 1) { _ in
      for number in 0..<600 {
        container.register(type: RegValue.self, name: "during \(number)") { RegValue("\(number)") }
        container.register(type: RegValue.self, name: "pre \(number)") { RegValue("again \(number)") }
      }
    }
    for _ in 0..<3 {
      let report = await container.validate()
      #expect(report.problems.isEmpty)
      #expect(report.checkedCount >= 600)
    }
    #expect(await group.join())
    #expect(await container.validate().checkedCount == 1200)
  }

  // MARK: Disposal

  @Test func registeringWhileTheContainerIsBeingDisposedNeitherCrashesNorHandsOutInstances() async throws {
    let container = Container()
    let disposing = RegFlag()
    let release = RegFlag()
    container.register(
      \.regOther, scope: .singleton,
      dispose: { _ in
        disposing.set()
        _ = await waitUntil(timeout: hangBound) { release.isSet }
      }
    ) { RegValue("held") }
    _ = try container[\.regOther]
    weak var captured: RegCaptured?
    let disposal = Task { try await container.dispose() }
    #expect(await waitUntil(timeout: hangBound) { disposing.isSet })
    do {
      let capture = RegCaptured()
      captured = capture
      container.register(\.regSync, scope: .singleton) {
        _ = capture
        return RegValue("late")
      }
    }
    for number in 0..<300 { container.register(type: RegValue.self, name: "late \(number)") { RegValue("\(number)") } }
    let during = #expect(throws: ResolutionError.self) { try container[\.regSync] }
    #expect(during?.kind == .containerDisposed)
    release.set()
    try await disposal.value
    let after = #expect(throws: ResolutionError.self) { try container.resolve(type: RegValue.self, name: "late 299") }
    #expect(after?.kind == .containerDisposed)
    // A registration after disposal replaces the one made during it, and frees its capture.
    container.register(\.regSync) { RegValue("after") }
    #expect(captured == nil)
  }

  @Test func aRegistrationFirstResolvedLateAfterReplacementInPlaceKeepsTheNewDisposeAndSite() async throws {
    let container = Container()
    let disposed = Collected<String>()
    container.register(\.regSync, scope: .singleton, dispose: { disposed.append("first \($0.label)") }) {
      RegValue("first")
    }
    // The key's record is the first of the first chunk; these fill it and the next ones.
    for number in 0..<600 { container.register(type: RegValue.self, name: "filler \(number)") { RegValue("f") } }
    let line = #line + 1
    container.register(\.regSync, scope: .singleton, dispose: { disposed.append("second \($0.label)") }) { r in
      if try r.resolve(type: RegValue.self, name: "filler 599").label == "f" {
        _ = try r.resolve(type: RegMissing.self)
      }
      return RegValue("second")
    }
    let error = #expect(throws: ResolutionError.self) { try container[\.regSync] }
    #expect(error?.description.contains("ReRegistrationTests.swift:\(line)") == true, "\(String(describing: error))")
    container.register(\.regOther, scope: .singleton, dispose: { disposed.append("other \($0.label)") }) {
      RegValue("other")
    }
    #expect(try container[\.regOther].label == "other")
    try await container.dispose()
    #expect(disposed.all == ["other other"])
  }

  @Test func aSingletonFirstResolvedLateIsDisposedWithTheDisposeOfItsLastRegistration() async throws {
    let container = Container()
    let disposed = Collected<String>()
    for round in 0..<3 {
      container.register(\.regAsync, scope: .singleton, dispose: { disposed.append("\(round) \($0.label)") }) {
        RegValue("made by \(round)")
      }
    }
    for number in 0..<257 { container.register(type: RegValue.self, name: "pad \(number)") { RegValue("p") } }
    #expect(try await container.resolve(\.regAsync).label == "made by 2")
    try await container.dispose()
    #expect(disposed.all == ["2 made by 2"])
  }
}
