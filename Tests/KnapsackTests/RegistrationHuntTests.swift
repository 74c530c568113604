import Foundation
import Knapsack
import Synchronization
import Testing

/// A value whose label says which registration made it: "0", "1", ... in registration order.
final class RhValue: Sendable {
  let label: String
  init(_ label: String) { self.label = label }
  var round: Int? { Int(label) }
}

/// A flag many threads and tasks set and read.
final class RhFlag: Sendable {
  private let value = Atomic<Bool>(false)
  func set() { value.store(true, ordering: .releasing) }
  var isSet: Bool { value.load(ordering: .acquiring) }
}

/// Something a factory captures that calls back into the container when it is freed, as an
/// object that reports its end through the container might.
final class RhCallsBackWhenFreed: Sendable {
  let container: Container
  let calledBack: RhFlag
  init(_ container: Container, _ calledBack: RhFlag) {
    self.container = container
    self.calledBack = calledBack
  }
  deinit {
    _ = container.isRegistered(type: RhValue.self, name: "called back")
    calledBack.set()
  }
}

/// Something a factory captures, to see when the container lets it go.
final class RhCaptured: Sendable {}

/// A type nothing registers.
struct RhMissing: Sendable {}

extension Dependencies {
  var rhSync: Key<RhValue> { .required() }
  var rhAsync: AsyncKey<RhValue> { .required() }
  var rhMain: MainActorKey<RhValue> { .required() }
  var rhArgument: ArgumentKey<Int, RhValue> { .required() }
  var rhOther: Key<RhValue> { .required() }
  var rhPlugins: Multibinding<RhValue> { Multibinding() }
}

/// Registration as a user drives it: re-registering keys of every kind while other threads
/// resolve them, in parents while children and override scopes resolve, thousands of keys, and
/// registrations first resolved long after they were made (the container keeps those unboxed
/// until then).
@Suite struct RegistrationHuntTests {

  // MARK: Freeing what a replaced registration captured

  /// Replacing a registration, resolved before or not, frees what its factory captured after
  /// the container's lock: a capture whose deinit asks the container something must not deadlock.
  @Test(arguments: [false, true])
  func replacingARegistrationFreesWhatItCapturedOutsideTheContainersLock(resolvedFirst: Bool) async {
    let calledBack = RhFlag()
    // On a thread of its own: a deadlock fails the test instead of hanging the run.
    let finished = await onThreadOutsideAnyTask { () -> Bool in
      let container = Container()
      do {
        let capture = RhCallsBackWhenFreed(container, calledBack)
        container.register(\.rhSync) {
          _ = capture
          return RhValue("old")
        }
      }
      if resolvedFirst, (try? container[\.rhSync].label) != "old" { return false }
      // The replaced factory is freed now, and with it the capture, whose deinit asks the
      // container something.
      container.register(\.rhSync) { RhValue("new") }
      return (try? container[\.rhSync].label) == "new"
    }
    #expect(finished == true, "replacing the registration deadlocked")
    #expect(calledBack.isSet)
  }

  @Test func aParentRegistrationAChildBoundIsFreedWhenTheParentReplacesIt() async throws {
    let parent = Container()
    let child = parent.makeChild()
    weak var captured: RhCaptured?
    do {
      let capture = RhCaptured()
      captured = capture
      parent.register(\.rhSync) {
        _ = capture
        return RhValue("old")
      }
    }
    #expect(try child[\.rhSync].label == "old")
    parent.register(\.rhSync) { RhValue("new") }
    #expect(
      await freedSoon { captured == nil },
      "the child's binding of the replaced registration let it go without a new resolution")
    #expect(try child[\.rhSync].label == "new")
  }

  @Test func aContainerWithRegistrationsInManyChunksFreesEveryCaptureWhenItGoes() throws {
    let captures = (0..<700).map { _ in RhCaptured() }
    let watched = captures.map { WeakCaptured($0) }
    do {
      let container = Container()
      for (number, capture) in captures.enumerated() {
        container.register(type: RhValue.self, name: "chunked \(number)") {
          _ = capture
          return RhValue("\(number)")
        }
      }
      // Some made into registration objects, some replaced in place, the rest never touched.
      for number in stride(from: 0, to: 700, by: 7) {
        #expect(try container.resolve(type: RhValue.self, name: "chunked \(number)").label == "\(number)")
      }
      for number in stride(from: 3, to: 700, by: 11) {
        container.register(type: RhValue.self, name: "chunked \(number)") { RhValue("replaced") }
      }
      #expect(try container.resolve(type: RhValue.self, name: "chunked 3").label == "replaced")
      #expect(try container.resolve(type: RhValue.self, name: "chunked 699").label == "699")
    }
    _ = consume captures
    #expect(watched.allSatisfy { $0.object == nil })
  }

  final class WeakCaptured: Sendable {
    weak let object: RhCaptured?
    init(_ object: RhCaptured) { self.object = object }
  }

  // MARK: Re-registering while resolving

  /// Registers round 0, then rounds 1...`rounds` in one task while two others resolve; returns
  /// what went wrong (a failure, a label that is no round, a round older than one the same
  /// resolver saw before), and checks the last round is what resolves afterwards.
  private func reRegisterWhileResolving(
    rounds: Int = 150, register: @escaping @Sendable (Int) -> Void,
    resolve: @escaping @Sendable () async throws -> RhValue
  ) async throws -> [String] {
    register(0)
    let done = RhFlag()
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
      register: { round in container.register(\.rhSync, scope: scope) { RhValue("\(round)") } },
      resolve: { try container[\.rhSync] })
    #expect(problems.isEmpty, "\(problems.prefix(5))")
  }

  @Test(arguments: [Scope.unique, .singleton])
  func reRegisteringAnAsyncKeyWhileTasksResolveIt(scope: Scope) async throws {
    let container = Container()
    let problems = try await reRegisterWhileResolving(
      register: { round in
        container.register(\.rhAsync, scope: scope) { () async throws -> RhValue in
          await Task.yield()
          return RhValue("\(round)")
        }
      },
      resolve: { try await container.resolve(\.rhAsync) })
    #expect(problems.isEmpty, "\(problems.prefix(5))")
  }

  @Test(arguments: [Scope.unique, .singleton])
  func reRegisteringAMainActorKeyWhileTasksResolveIt(scope: Scope) async throws {
    let container = Container()
    let problems = try await reRegisterWhileResolving(
      rounds: 60,
      register: { round in container.register(\.rhMain, scope: scope) { RhValue("\(round)") } },
      resolve: { try await container.resolve(\.rhMain) })
    #expect(problems.isEmpty, "\(problems.prefix(5))")
  }

  @Test(arguments: [Scope.unique, .singleton])
  func reRegisteringAnArgumentKeyWhileTasksResolveIt(scope: Scope) async throws {
    let container = Container()
    let problems = try await reRegisterWhileResolving(
      register: { round in
        container.register(\.rhArgument, scope: scope) { _, argument in RhValue("\(round + argument * 0)") }
      },
      resolve: { try container.resolve(\.rhArgument, argument: 7) })
    #expect(problems.isEmpty, "\(problems.prefix(5))")
  }

  @Test(arguments: [Scope.unique, .singleton])
  func reRegisteringATypeWhileTasksResolveIt(scope: Scope) async throws {
    let container = Container()
    let problems = try await reRegisterWhileResolving(
      register: { round in
        container.register(type: RhValue.self, name: "raced", scope: scope) { RhValue("\(round)") }
      },
      resolve: { try container.resolve(type: RhValue.self, name: "raced") })
    #expect(problems.isEmpty, "\(problems.prefix(5))")
  }

  @Test func reRegisteringOnManyThreadsWhileOthersResolveEndsWithAValueOfSomeRegistration() async throws {
    let container = Container()
    container.register(\.rhSync, scope: .singleton) { RhValue("0") }
    let problems = Collected<String>()
    let group = ThreadGroup(count: 4) { thread in
      for round in 1...200 {
        if thread < 2 {
          container.register(\.rhSync, scope: thread == 0 ? .singleton : .unique) { RhValue("\(round)") }
        } else {
          do {
            if try container[\.rhSync].round == nil { problems.append("no round") }
          } catch {
            problems.append("\(error)")
          }
        }
      }
    }
    #expect(await group.join())
    #expect(problems.all.isEmpty)
    #expect(try container[\.rhSync].label == "200")
  }

  @Test func contributingWhileTasksResolveTheMultibindingSeesAGrowingPrefix() async throws {
    let container = Container()
    let total = 120
    let done = RhFlag()
    let problems = Collected<String>()
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for number in 0..<total {
          container.contribute(to: \.rhPlugins, scope: number.isMultiple(of: 2) ? .singleton : .unique) { _ in
            RhValue("\(number)")
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
              let labels = try container[\.rhPlugins].map(\.label)
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
    let first = try container[\.rhPlugins]
    let second = try container[\.rhPlugins]
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
    children[2].decorate(\.rhSync) { _, value in value }
    let problems = try await reRegisterWhileResolving(
      register: { round in parent.register(\.rhSync, scope: .singleton) { RhValue("\(round)") } },
      resolve: { try children[Int.random(in: 0..<3)][\.rhSync] })
    #expect(problems.isEmpty, "\(problems.prefix(5))")
    for child in children { #expect(try child[\.rhSync].label == "150") }
    #expect(try children[0][\.rhSync] === parent[\.rhSync])
  }

  @Test func replacingInAParentWhileAnOverrideScopeResolvesThroughItsCopy() async throws {
    let parent = Container()
    let child = parent.makeChild()
    parent.register(\.rhOther, scope: .singleton) { r in RhValue("other of \(try r[\.rhSync].label)") }
    let problems = try await withOverrides {
      $0.register(\.rhAsync) { RhValue("overridden") }
    } operation: { () async throws -> [String] in
      try await reRegisterWhileResolving(
        register: { round in parent.register(\.rhSync, scope: .singleton) { RhValue("\(round)") } },
        resolve: {
          #expect(try await child.resolve(\.rhAsync).label == "overridden")
          return try child[\.rhSync]
        })
    }
    #expect(problems.isEmpty, "\(problems.prefix(5))")
    #expect(try child[\.rhSync].label == "150")
    #expect(try child[\.rhOther].label == "other of 150")
  }

  @Test func anOverrideFirstResolvedLateReplacedInTheScopeIsTheOneUsed() async throws {
    let container = Container()
    container.register(\.rhSync) { RhValue("base") }
    try await withOverrides {
      for number in 0..<300 { $0.register(type: RhValue.self, name: "override filler \(number)") { RhValue("f") } }
      $0.register(\.rhSync, scope: .singleton) { RhValue("first override") }
      $0.register(\.rhSync, scope: .singleton) { RhValue("second override") }
    } operation: { () async throws in
      #expect(try container[\.rhSync].label == "second override")
      #expect(try container[\.rhSync] === container[\.rhSync])
      #expect(try container.resolve(type: RhValue.self, name: "override filler 299").label == "f")
    }
    #expect(try container[\.rhSync].label == "base")
  }

  // MARK: Many registrations, validation

  @Test func thousandsOfRegistrationsSomeResolvedSomeReplacedAllValidate() async throws {
    let container = Container()
    let count = 3000
    for number in 0..<count {
      container.register(type: RhValue.self, name: "many \(number)") { RhValue("\(number)") }
    }
    for number in stride(from: 0, to: count, by: 13) {
      #expect(try container.resolve(type: RhValue.self, name: "many \(number)").label == "\(number)")
    }
    for number in stride(from: 5, to: count, by: 17) {
      container.register(type: RhValue.self, name: "many \(number)") { r in
        _ = try r.resolve(type: RhMissing.self)
        return RhValue("broken")
      }
    }
    #expect((0..<count).allSatisfy { container.isRegistered(type: RhValue.self, name: "many \($0)") })
    let report = await container.validate()
    // The registrations and the one missing type the replaced ones ask for.
    #expect(report.checkedCount == count + 1)
    #expect(Set(report.problems.map(\.dependency.typeName)) == ["RhMissing"])
    #expect(try container.resolve(type: RhValue.self, name: "many \(count - 1)").label == "\(count - 1)")
  }

  @Test func validatingWhileRegisteringOnAnotherThreadDoesNotCrash() async throws {
    let container = Container()
    for number in 0..<600 { container.register(type: RhValue.self, name: "pre \(number)") { RhValue("\(number)") } }
    let group = ThreadGroup(count: 1) { _ in
      for number in 0..<600 {
        container.register(type: RhValue.self, name: "during \(number)") { RhValue("\(number)") }
        container.register(type: RhValue.self, name: "pre \(number)") { RhValue("again \(number)") }
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
    let disposing = RhFlag()
    let release = RhFlag()
    container.register(
      \.rhOther, scope: .singleton,
      dispose: { _ in
        disposing.set()
        _ = await waitUntil(timeout: hangBound) { release.isSet }
      }
    ) { RhValue("held") }
    _ = try container[\.rhOther]
    weak var captured: RhCaptured?
    let disposal = Task { try await container.dispose() }
    #expect(await waitUntil(timeout: hangBound) { disposing.isSet })
    do {
      let capture = RhCaptured()
      captured = capture
      container.register(\.rhSync, scope: .singleton) {
        _ = capture
        return RhValue("late")
      }
    }
    for number in 0..<300 { container.register(type: RhValue.self, name: "late \(number)") { RhValue("\(number)") } }
    let during = #expect(throws: ResolutionError.self) { try container[\.rhSync] }
    #expect(during?.kind == .containerDisposed)
    release.set()
    try await disposal.value
    let after = #expect(throws: ResolutionError.self) { try container.resolve(type: RhValue.self, name: "late 299") }
    #expect(after?.kind == .containerDisposed)
    // A registration after disposal replaces the one made during it, and frees its capture.
    container.register(\.rhSync) { RhValue("after") }
    #expect(captured == nil)
  }

  @Test func aRegistrationFirstResolvedLateAfterReplacementInPlaceKeepsTheNewDisposeAndSite() async throws {
    let container = Container()
    let disposed = Collected<String>()
    container.register(\.rhSync, scope: .singleton, dispose: { disposed.append("first \($0.label)") }) {
      RhValue("first")
    }
    // The key's record is the first of the first chunk; these fill it and the next ones.
    for number in 0..<600 { container.register(type: RhValue.self, name: "filler \(number)") { RhValue("f") } }
    let line = #line + 1
    container.register(\.rhSync, scope: .singleton, dispose: { disposed.append("second \($0.label)") }) { r in
      if try r.resolve(type: RhValue.self, name: "filler 599").label == "f" { _ = try r.resolve(type: RhMissing.self) }
      return RhValue("second")
    }
    let error = #expect(throws: ResolutionError.self) { try container[\.rhSync] }
    #expect(error?.description.contains("RegistrationHuntTests.swift:\(line)") == true, "\(String(describing: error))")
    container.register(\.rhOther, scope: .singleton, dispose: { disposed.append("other \($0.label)") }) {
      RhValue("other")
    }
    #expect(try container[\.rhOther].label == "other")
    try await container.dispose()
    #expect(disposed.all == ["other other"])
  }

  @Test func aSingletonFirstResolvedLateIsDisposedWithTheDisposeOfItsLastRegistration() async throws {
    let container = Container()
    let disposed = Collected<String>()
    for round in 0..<3 {
      container.register(\.rhAsync, scope: .singleton, dispose: { disposed.append("\(round) \($0.label)") }) {
        RhValue("made by \(round)")
      }
    }
    for number in 0..<257 { container.register(type: RhValue.self, name: "pad \(number)") { RhValue("p") } }
    #expect(try await container.resolve(\.rhAsync).label == "made by 2")
    try await container.dispose()
    #expect(disposed.all == ["2 made by 2"])
  }
}
