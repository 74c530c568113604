import Foundation
import Knapsack
import Testing

// Deep chains, as a user reads them: a 10,000-deep chain of any kind, resolved on a thread
// with a 512 KiB stack, throws a `ResolutionError` that names its path or succeeds; it never
// overflows the stack.

extension Dependencies {
  subscript(partMainStep step: Int) -> MainActorKey<Int> {
    MainActorKey { r in step >= deepChainDepth - 1 ? 0 : try r.resolve(\.[partMainStep: step + 1]) + 1 }
  }
  subscript(partAsyncStep step: Int) -> AsyncKey<Int> {
    AsyncKey { r in step >= deepChainDepth - 1 ? 0 : try await r.resolve(\.[partAsyncStep: step + 1]) + 1 }
  }
  /// An asynchronous chain whose every step resolves a synchronous key chain of 10 below it: the
  /// synchronous parts run on the thread that runs the task.
  subscript(partMixedStep step: Int) -> AsyncKey<Int> {
    AsyncKey { r in
      step >= deepChainDepth - 1 ? 0 : try await r.resolve(\.[partMixedStep: step + 1]) + (try r[\.[partSyncTail: 0]])
    }
  }
  subscript(partSyncTail step: Int) -> Key<Int> {
    Key { r in step >= 9 ? 1 : try r[\.[partSyncTail: step + 1]] }
  }
  subscript(partLinks step: Int) -> Multibinding<Int> { Multibinding() }
  subscript(partSyncStep step: Int) -> Key<Int> {
    Key { r in step >= deepChainDepth - 1 ? 0 : try r[\.[partSyncStep: step + 1]] + 1 }
  }
  /// Asynchronous and main-actor keys whose factories resolve the synchronous chain above.
  var partAsyncToSync: AsyncKey<Int> { AsyncKey { r in try r[\.[partSyncStep: 0]] } }
  var partMainToSync: MainActorKey<Int> { MainActorKey { r in try r[\.[partSyncStep: 0]] } }
  subscript(partDecoratedStep step: Int) -> Key<Int> { Key { 0 } }
  var partSingletonArgument: ArgumentKey<Int, Int> {
    ArgumentKey { r, n in n >= deepChainDepth - 1 ? 0 : try r.resolve(\.partSingletonArgument, argument: n + 1) + 1 }
      .scope(.singleton)
  }
}

let deepChainDepth = 10_000

/// An instance a factory makes, whose `@Injected` property resolves the step it names from the
/// task's container.
final class PartInjectedStep {
  let injected: Injected<Int>
  var next: Int { injected.wrappedValue }
  init(_ step: Int) { injected = Injected(type: Int.self, name: "part injected \(step)") }
}

/// A stack size smaller than any platform's default for secondary threads.
let smallStackSize = 512 * 1024

/// Runs `body` on a new thread with a 512 KiB stack, outside any task, and returns its result;
/// nil if it did not end within the bound (a hang fails the test, it does not stop the run).
func onSmallStackThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T? {
  let result = Locked<T?>(nil)
  let thread = Thread {
    let value = body()
    result.withLock { $0 = value }
  }
  thread.stackSize = smallStackSize
  thread.start()
  _ = await waitUntil(timeout: hangBound) { result.withLock { $0 != nil } }
  return result.withLock { $0 }
}

/// A task executor whose jobs run on one thread with a 512 KiB stack: asynchronous code (a task
/// preferring it, and its child tasks) runs there.
final class SmallStackExecutor: TaskExecutor, @unchecked Sendable {
  // Safe: `jobs` and `stopped` are only touched while `condition` is locked.
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []
  private var stopped = false

  /// A thread with `stackSize` bytes of stack runs the jobs.
  init(stackSize: Int = smallStackSize) {
    let thread = Thread { [self] in run() }
    thread.stackSize = stackSize
    thread.start()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  /// Ends the thread once the jobs enqueued so far have run.
  func stop() {
    condition.lock()
    stopped = true
    condition.signal()
    condition.unlock()
  }

  private func run() {
    while true {
      condition.lock()
      while jobs.isEmpty && !stopped { condition.wait() }
      if jobs.isEmpty {
        condition.unlock()
        return
      }
      let job = jobs.removeFirst()
      condition.unlock()
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }

  /// Runs `operation` in a task that prefers this executor and returns what it returned; nil if
  /// it did not end within the bound.
  static func run<T: Sendable>(
    stackSize: Int = smallStackSize, _ operation: @escaping @Sendable () async -> T
  ) async -> T? {
    let executor = SmallStackExecutor(stackSize: stackSize)
    defer { executor.stop() }
    let result = Locked<T?>(nil)
    Task(executorPreference: executor) {
      let value = await operation()
      result.withLock { $0 = value }
    }
    _ = await waitUntil(timeout: hangBound) { result.withLock { $0 != nil } }
    return result.withLock { $0 }
  }
}

/// Checks the outcome of a deep chain: its value, or a `resolutionTooDeep` error whose path starts
/// at `first` and whose message prints it.
func expectDeepChainTooDeepOrSucceeded(
  _ outcome: Result<Int, any Error>?, first: String, value expected: Int = deepChainDepth - 1,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  switch outcome {
  case nil:
    Issue.record("the resolution did not end", sourceLocation: sourceLocation)
  case .success(let value):
    #expect(value == expected, sourceLocation: sourceLocation)
  case .failure(let error):
    guard let resolution = error as? ResolutionError else {
      Issue.record("not a ResolutionError: \(error)", sourceLocation: sourceLocation)
      return
    }
    #expect(resolution.kind == .resolutionTooDeep, "\(resolution)", sourceLocation: sourceLocation)
    #expect(resolution.path.first?.name == first, "\(resolution.path.prefix(3))", sourceLocation: sourceLocation)
    #expect(resolution.path.count > 1, sourceLocation: sourceLocation)
    #expect(resolution.description.contains("path: \(first)"), "\(resolution)", sourceLocation: sourceLocation)
  }
}

// Not under the thread sanitizer: building and validating these chains there holds the shared
// pool's threads long enough to starve other tests' tasks (a side-by-side test then hung past its
// bound); the chains are single-threaded, and the sanitizer's frames are larger in any case.
@Suite(.enabled(if: !isThreadSanitized, "the chains hold the shared pool for minutes under the sanitizer"))
struct DeepChainTests {
  /// A chain of type registrations named `prefix 0` ... `prefix 9999`: step `n` runs `next(r, n)`,
  /// the last returns 0.
  static func typeChain(
    _ container: Container, _ prefix: String, scope: Scope = .unique,
    _ next: @escaping @Sendable (Resolver, String) throws -> Int
  ) {
    for step in 0..<deepChainDepth {
      let nextName = "\(prefix) \(step + 1)"
      container.register(type: Int.self, name: "\(prefix) \(step)", scope: scope) { r in
        step == deepChainDepth - 1 ? 0 : try next(r, nextName) + 1
      }
    }
  }

  @Test(arguments: [Scope.graph, .cached, .weak])
  func aChainOfTypesOfEveryScopeOnASmallStack(_ scope: Scope) async {
    let container = Container()
    let prefix = "part scoped \(scope)"
    Self.typeChain(container, prefix, scope: scope) { r, next in try r.resolve(type: Int.self, name: next) }
    let outcome = await onSmallStackThread { Result { try container.resolve(type: Int.self, name: "\(prefix) 0") } }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "Int (name: \"\(prefix) 0\")")
  }

  @Test func aChainOfSingletonArgumentsOnASmallStack() async {
    let container = Container()
    let outcome = await onSmallStackThread { Result { try container.resolve(\.partSingletonArgument, argument: 0) } }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "\\.partSingletonArgument")
  }

  @Test func aChainThroughDecoratorsOnASmallStack() async {
    // Every factory returns 0; every decorator resolves the next step.
    let container = Container()
    for step in 0..<deepChainDepth {
      let name = "part decorated \(step)"
      let next = "part decorated \(step + 1)"
      container.register(type: Int.self, name: name) { 0 }
      container.decorate(type: Int.self, name: name) { r, value in
        step == deepChainDepth - 1 ? value : try r.resolve(type: Int.self, name: next) + 1
      }
    }
    let outcome = await onSmallStackThread {
      Result { try container.resolve(type: Int.self, name: "part decorated 0") }
    }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "Int (name: \"part decorated 0\")")
  }

  @Test func aChainThroughKeyDecoratorsOnASmallStack() async {
    // Every key's default returns 0; every decorator resolves the next key.
    let container = Container()
    for step in 0..<deepChainDepth {
      container.decorate(\.[partDecoratedStep: step]) { r, value in
        step == deepChainDepth - 1 ? value : try r[\.[partDecoratedStep: step + 1]] + 1
      }
    }
    let outcome = await onSmallStackThread { Result { try container[\.[partDecoratedStep: 0]] } }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "\\.subscript(partDecoratedStep:)")
  }

  @Test func aChainOfInjectedPropertiesOfFactoryMadeInstancesOnASmallStack() async {
    // Each step's factory makes an instance whose `@Injected` property resolves the next step. A
    // property wrapper cannot throw: the chain succeeds, or the wrapper stops the program with the
    // `resolutionTooDeep` error and its path (documented in "Property Wrappers, Lazy Values and
    // Cycles"); it never overflows the stack. Run in a child process, which says which it was.
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let container = Container()
      for step in 0..<deepChainDepth {
        container.register(type: Int.self, name: "part injected \(step)") {
          step == deepChainDepth - 1 ? 0 : PartInjectedStep(step + 1).next + 1
        }
      }
      let outcome = await onSmallStackThread {
        withContainer(container) { Result { try container.resolve(type: Int.self, name: "part injected 0") } }
      }
      if case .success(deepChainDepth - 1) = outcome {
        FileHandle.standardError.write(Data("part: the chain succeeded\n".utf8))
        exit(1)
      }
      fatalError("part: the chain ended with \(String(describing: outcome))")
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    let succeeded = output.contains("part: the chain succeeded")
    let stoppedWithThePath =
      output.contains("@Injected at KnapsackTests/DeepChainTests.swift")
      && output.contains("too deep for this thread's stack")
      && output.contains("path: Int (name: \"part injected 0\")")
    #expect(succeeded || stoppedWithThePath, "\(output.prefix(2_000))")
  }

  @Test func aChainOfMultibindingsWhoseContributionsAreTypesOnASmallStack() async {
    // Multibinding `n` has one contribution, which resolves the type registration `n`, which
    // resolves multibinding `n + 1`.
    let container = Container()
    for step in 0..<deepChainDepth {
      let name = "part link \(step)"
      container.contribute(to: \.[partLinks: step]) { r in try r.resolve(type: Int.self, name: name) }
      container.register(type: Int.self, name: name) { r in
        step == deepChainDepth - 1 ? 0 : try r[\.[partLinks: step + 1]][0] + 1
      }
    }
    let outcome = await onSmallStackThread { () -> Result<Int, any Error> in
      Result { try container[\.[partLinks: 0]][0] }
    }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "\\.subscript(partLinks:)")
  }

  @Test func aChainOfProviderGetsInsideFactoriesOnASmallStack() async {
    let container = Container()
    Self.typeChain(container, "part provider") { r, next in try r.provider(type: Int.self, name: next).get() }
    let outcome = await onSmallStackThread {
      Result { try container.resolve(type: Int.self, name: "part provider 0") }
    }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "Int (name: \"part provider 0\")")
  }

  @Test func aChainOfLazyReadsInsideFactoriesOnASmallStack() async {
    let container = Container()
    Self.typeChain(container, "part lazy") { r, next in try r.lazy(type: Int.self, name: next).value }
    let outcome = await onSmallStackThread { Result { try container.resolve(type: Int.self, name: "part lazy 0") } }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "Int (name: \"part lazy 0\")")
  }

  @Test func aChainOfSingletonLazyReadsInsideFactoriesOnASmallStack() async {
    let container = Container()
    Self.typeChain(container, "part singleton lazy", scope: .singleton) { r, next in
      try r.lazy(type: Int.self, name: next).value
    }
    let outcome = await onSmallStackThread {
      Result { try container.resolve(type: Int.self, name: "part singleton lazy 0") }
    }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "Int (name: \"part singleton lazy 0\")")
  }

  @Test func aChainThroughACapturedContainerOnASmallStack() async {
    // A factory that resolves the next step through the container it captured, not its resolver.
    let container = Container()
    Self.typeChain(container, "part captured") { [unowned container] _, next in
      try container.resolve(type: Int.self, name: next)
    }
    let outcome = await onSmallStackThread {
      Result { try container.resolve(type: Int.self, name: "part captured 0") }
    }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "Int (name: \"part captured 0\")")
  }

  @Test func aChainResolvedThroughAGrandchildOnASmallStack() async {
    let parent = Container()
    Self.typeChain(parent, "part family") { r, next in try r.resolve(type: Int.self, name: next) }
    let grandchild = parent.makeChild().makeChild()
    let outcome = await onSmallStackThread {
      Result { try grandchild.resolve(type: Int.self, name: "part family 0") }
    }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "Int (name: \"part family 0\")")
  }

  @Test func aChainSpreadOverAParentAndItsChildOnASmallStack() async {
    // Even steps are the parent's singletons, odd ones the child's unique registrations: the
    // parent's steps resolve through the parent, which cannot see the child's, so the child
    // registers every step and the parent only the even ones.
    let parent = Container()
    let child = parent.makeChild()
    for step in 0..<deepChainDepth {
      let name = "part spread \(step)"
      let next = "part spread \(step + 1)"
      let factory: @Sendable (Resolver) throws -> Int = { r in
        step == deepChainDepth - 1 ? 0 : try r.resolve(type: Int.self, name: next) + 1
      }
      child.register(type: Int.self, name: name, factory)
      if step.isMultiple(of: 2) { parent.register(type: Int.self, name: name, scope: .singleton, factory) }
    }
    let outcome = await onSmallStackThread { Result { try child.resolve(type: Int.self, name: "part spread 0") } }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "Int (name: \"part spread 0\")")
  }

  @Test func aChainOfChildContainersEachRegisteringOneStepOnASmallStack() async {
    // 10,000 generations of children, made first; then generation n registers step n, which
    // resolves step n + 1 from the next generation. (Registering into the first generations
    // visited every generation below: this once took minutes, when each registration walked
    // every generation below it.)
    var containers = [Container()]
    for _ in 1..<deepChainDepth { containers.append(containers[containers.count - 1].makeChild()) }
    for step in 0..<deepChainDepth {
      let next = step + 1 < deepChainDepth ? containers[step + 1] : nil
      containers[step].register(type: Int.self, name: "part generation \(step)") { [weak next] in
        guard let next else { return 0 }
        return try next.resolve(type: Int.self, name: "part generation \(step + 1)") + 1
      }
    }
    let first = containers[0]
    let outcome = await onSmallStackThread { Result { try first.resolve(type: Int.self, name: "part generation 0") } }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "Int (name: \"part generation 0\")")
    withExtendedLifetime(containers) {}
  }

  @Test func aDeepestChildResolvesAKeyOfTheRootOnASmallStack() async {
    // A key the root registers, resolved from its 10,000th generation.
    let root = Container()
    root.register(type: Int.self, name: "part root value") { 42 }
    var deepest = root
    var kept: [Container] = []
    for _ in 0..<deepChainDepth {
      deepest = deepest.makeChild()
      kept.append(deepest)
    }
    let last = deepest
    let outcome = await onSmallStackThread { Result { try last.resolve(type: Int.self, name: "part root value") } }
    switch outcome {
    case .success(let value): #expect(value == 42)
    case .failure(let error as ResolutionError): #expect(error.kind == .resolutionTooDeep, "\(error)")
    case .failure(let error): Issue.record("\(error)")
    case nil: Issue.record("did not end")
    }
    withExtendedLifetime(kept) {}
  }

  @Test func anAsynchronousChainOnASmallStackExecutor() async {
    let container = Container()
    let outcome = await SmallStackExecutor.run { () -> Result<Int, any Error> in
      do { return .success(try await container.resolve(\.[partAsyncStep: 0])) } catch { return .failure(error) }
    }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "\\.subscript(partAsyncStep:)")
  }

  @Test func aMixedAsynchronousAndSynchronousChainOnASmallStackExecutor() async {
    let container = Container()
    let outcome = await SmallStackExecutor.run { () -> Result<Int, any Error> in
      do { return .success(try await container.resolve(\.[partMixedStep: 0])) } catch { return .failure(error) }
    }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "\\.subscript(partMixedStep:)")
  }

  @Test func aMainActorChainResolvedFromATask() async {
    let container = Container()
    let outcome: Result<Int, any Error>
    do { outcome = .success(try await container.resolve(\.[partMainStep: 0])) } catch { outcome = .failure(error) }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "\\.subscript(partMainStep:)")
  }

  @MainActor @Test func aMainActorChainResolvedOnTheMainActor() {
    let container = Container()
    let outcome = Result { try container.resolve(\.[partMainStep: 0]) }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "\\.subscript(partMainStep:)")
  }

  @Test func validatingADeepChainOfTypesOnASmallStackExecutor() async {
    let container = Container()
    Self.typeChain(container, "part validated") { r, next in try r.resolve(type: Int.self, name: next) }
    let report = await SmallStackExecutor.run { await container.validate() }
    let problems = report?.problems ?? []
    #expect(report != nil, "validate() did not end")
    #expect(problems.allSatisfy { $0.kind == .resolutionTooDeep }, "\(problems.prefix(3))")
    #expect(report?.checkedCount ?? 0 >= deepChainDepth)
  }

  @Test func validatingADeepChainOfAsynchronousKeysOnASmallStackExecutor() async {
    let container = Container()
    let report = await SmallStackExecutor.run { await container.validate(including: [\.[partAsyncStep: 0]]) }
    #expect(report != nil, "validate() did not end")
    #expect(
      report?.problems.allSatisfy { $0.kind == .resolutionTooDeep } == true, "\(report?.problems.prefix(3) ?? [])")
  }

  @Test func validatingADeepChainOfDecoratorsAndLaziesOnASmallStackExecutor() async {
    let container = Container()
    for step in 0..<deepChainDepth {
      let name = "part validated decorated \(step)"
      let next = "part validated decorated \(step + 1)"
      container.register(type: Int.self, name: name) { 0 }
      container.decorate(type: Int.self, name: name) { r, value in
        guard step < deepChainDepth - 1 else { return value }
        return step.isMultiple(of: 2)
          ? try r.lazy(type: Int.self, name: next).value + 1 : try r.resolve(type: Int.self, name: next) + 1
      }
    }
    let report = await SmallStackExecutor.run { await container.validate() }
    #expect(report != nil, "validate() did not end")
    #expect(
      report?.problems.allSatisfy { $0.kind == .resolutionTooDeep } == true, "\(report?.problems.prefix(3) ?? [])")
  }

  @Test func validatingDeepChainsOfMainActorKeysMultibindingsAndProvidersOnASmallStackExecutor() async {
    let container = Container()
    for step in 0..<deepChainDepth {
      let name = "part validated link \(step)"
      container.contribute(to: \.[partLinks: step]) { r in try r.resolve(type: Int.self, name: name) }
      container.register(type: Int.self, name: name) { r in
        step == deepChainDepth - 1 ? 0 : try r.provider(\.[partLinks: step + 1]).get()[0] + 1
      }
    }
    let report = await SmallStackExecutor.run {
      await container.validate(including: [\.[partMainStep: 0], \.[partLinks: 0]])
    }
    #expect(report != nil, "validate() did not end")
    #expect(
      report?.problems.allSatisfy { $0.kind == .resolutionTooDeep } == true, "\(report?.problems.prefix(3) ?? [])")
    #expect(report?.checkedCount ?? 0 >= 2 * deepChainDepth)
  }

  @Test func aGraphOfADeepChainOnASmallStackExecutor() async {
    let container = Container()
    Self.typeChain(container, "part graphed") { r, next in try r.resolve(type: Int.self, name: next) }
    let graph = await SmallStackExecutor.run { await container.graph() }
    #expect(graph != nil, "graph() did not end")
    #expect(graph?.report.problems.allSatisfy { $0.kind == .resolutionTooDeep } == true)
    #expect(graph?.nodes.count ?? 0 >= deepChainDepth)
  }

  @Test func aSynchronousChainBelowAnAsynchronousKeyOnASmallStackExecutor() async {
    let container = Container()
    let outcome = await SmallStackExecutor.run { () -> Result<Int, any Error> in
      do { return .success(try await container.resolve(\.partAsyncToSync)) } catch { return .failure(error) }
    }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "\\.partAsyncToSync")
  }

  @Test func aSynchronousChainBelowAMainActorKey() async {
    let container = Container()
    let outcome: Result<Int, any Error>
    do { outcome = .success(try await container.resolve(\.partMainToSync)) } catch { outcome = .failure(error) }
    expectDeepChainTooDeepOrSucceeded(outcome, first: "\\.partMainToSync")
  }

  @Test func validatingADeepChainWhoseTailComesFirstInNameOrderOnASmallStackExecutor() async {
    // Step n is named by 9,999 - n, zero-padded: the roots run from the chain's tail to its head.
    let container = Container()
    func name(_ step: Int) -> String {
      let number = String(deepChainDepth - 1 - step)
      return "part tail first " + String(repeating: "0", count: 5 - number.count) + number
    }
    for step in 0..<deepChainDepth {
      let next = name(step + 1)
      container.register(type: Int.self, name: name(step), scope: step.isMultiple(of: 3) ? .weak : .unique) { r in
        step == deepChainDepth - 1 ? 0 : try r.resolve(type: Int.self, name: next) + 1
      }
    }
    let report = await SmallStackExecutor.run { await container.validate() }
    #expect(report != nil, "validate() did not end")
    #expect(
      report?.problems.allSatisfy { $0.kind == .resolutionTooDeep } == true, "\(report?.problems.prefix(3) ?? [])")
    #expect(report?.checkedCount ?? 0 >= deepChainDepth)
  }

  @Test func validatingADeepArgumentChainWithASampleOnASmallStackExecutor() async {
    let container = Container()
    let report = await SmallStackExecutor.run {
      await container.validate(including: [\.partSingletonArgument], arguments: [\.partSingletonArgument: 0])
    }
    #expect(report != nil, "validate() did not end")
    #expect(report?.needsSampleArgument == [])
    #expect(
      report?.problems.allSatisfy { $0.kind == .resolutionTooDeep } == true, "\(report?.problems.prefix(3) ?? [])")
  }
}
