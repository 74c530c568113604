import Foundation
import Knapsack
import Testing

extension Dependencies {
  fileprivate var sharedA: AsyncKey<Token> { AsyncKey { _ in Token("a") }.scope(.singleton) }
  fileprivate var sharedArgument: DependencyKey<AsyncKind, Int, Token> {
    DependencyKey { _, id in Token("\(id)") }.scope(.cached)
  }
  fileprivate var mainModel: MainActorKey<Token> { MainActorKey { _ in Token("main") }.scope(.singleton) }
  fileprivate var needsBThenC: Key<Token> { Key { Token("a") }.scope(.singleton) }
  fileprivate var sharedB: Key<Token> { Key { Token("b") }.scope(.singleton) }
  fileprivate var needsB: Key<Token> { Key { Token("c") }.scope(.singleton) }
  fileprivate var overridden: Key<String> { Key { "default" } }
}

/// What held when many tasks use one container at once (regression guards).
@Suite struct ConcurrentUseTests {
  @Test(.hangGuard) func asyncSingletonsAndArgumentsAreMadeOncePerInstance() async throws {
    let container = Container()
    let made = Counter()
    container.register(\.sharedA, scope: .singleton) { _ async throws in
      made.increment()
      try await Task.sleep(for: .milliseconds(5))
      return Token("a")
    }
    container.register(\.sharedArgument, scope: .cached) { _, id async throws in
      made.increment()
      try await Task.sleep(for: .milliseconds(5))
      return Token("\(id)")
    }
    let instances = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
      for task in 0..<200 {
        group.addTask {
          if task.isMultiple(of: 2) { return ObjectIdentifier(try await container.resolve(\.sharedA)) }
          return ObjectIdentifier(try await container.resolve(\.sharedArgument, argument: task % 3))
        }
      }
      return try await group.reduce(into: Set()) { $0.insert($1) }
    }
    #expect(instances.count == 4)
    #expect(made.count == 4)
  }

  @Test(.hangGuard) func aMainActorSingletonIsMadeOnceFromTasksAndTheMainActor() async throws {
    let container = Container()
    let made = Counter()
    container.register(\.mainModel, scope: .singleton) { @MainActor _ in
      made.increment()
      return Token("main")
    }
    let instances = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<100 {
        group.addTask { ObjectIdentifier(try await container.resolve(\.mainModel)) }
      }
      group.addTask { @MainActor in ObjectIdentifier(try container[\.mainModel]) }
      return try await group.reduce(into: Set()) { $0.insert($1) }
    }
    #expect(instances.count == 1)
    #expect(made.count == 1)
  }

  /// A needs B, then C; another thread, making C, needs B at the same time: no cycle.
  @Test(.hangGuard) func twoCreationsSharingADependencyAreNotACycle() async throws {
    let container = Container()
    let arrivals = Counter()
    container.register(\.sharedB, scope: .singleton) { () -> Token in
      arrivals.increment()
      holdUntil(arrivals, reaches: 2)
      return Token("b")
    }
    container.register(\.needsB, scope: .singleton) { r in
      arrivals.increment()
      return Token("c with \(try r[\.sharedB].label)")
    }
    container.register(\.needsBThenC, scope: .singleton) { r in
      Token("a with \(try r[\.sharedB].label) and \(try r[\.needsB].label)")
    }
    let errors = Collected<String>()
    let threads = ThreadGroup(count: 2) { index in
      do {
        if index == 0 { _ = try container[\.needsBThenC] } else { _ = try container[\.needsB] }
      } catch {
        errors.append("\(error)")
      }
    }
    #expect(await threads.join())
    #expect(errors.all.isEmpty)
    #expect(try container[\.needsBThenC].label == "a with b and c with b")
  }

  @Test func overridesReachChildTasksAndTasksButNotDetachedOnes() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.overridden) { "overridden" }
    } operation: { () async throws in
      #expect(try container[\.overridden] == "overridden")
      #expect(try await Task { try container[\.overridden] }.value == "overridden")
      #expect(try await Task.detached { try container[\.overridden] }.value == "default")
      let fromGroup = try await withThrowingTaskGroup(of: String.self) { group in
        group.addTask { try container[\.overridden] }
        return try await group.next() ?? ""
      }
      #expect(fromGroup == "overridden")
    }
  }
}
