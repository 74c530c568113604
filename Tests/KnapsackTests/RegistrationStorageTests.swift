import Knapsack
import Synchronization
import Testing

/// What a container keeps of a registration nothing has resolved yet (its fields and factory,
/// unboxed, until a plan needs the registration object): the same behaviour as a planned one.
@Suite struct RegistrationStorageTests {
  final class Captured: Sendable {}

  struct Missing: Sendable {}

  @Test func aRegistrationReplacedBeforeAnyResolutionFreesWhatItsFactoryCapturedAtOnce() {
    let container = Container()
    weak var captured: Captured?
    do {
      let capture = Captured()
      captured = capture
      container.register(type: Captured.self) { capture }
    }
    #expect(captured != nil, "the container keeps the factory and its captures")
    container.register(type: Captured.self) { Captured() }
    #expect(captured == nil, "no resolution, no plan: the replaced factory is freed when it is replaced")
  }

  @Test func aRegistrationFirstResolvedLateKeepsItsScopeDisposeAndSite() async throws {
    let container = Container()
    let disposed = Atomic<Int>(0)
    // More than one chunk of records before it, so it is found past the first chunk.
    for id in 0..<300 { container.register(type: Captured.self, name: "filler \(id)") { Captured() } }
    container.register(type: Captured.self, scope: .singleton, dispose: { _ in disposed.add(1, ordering: .relaxed) }) {
      Captured()
    }
    let line = #line + 1
    container.register(type: Int.self) { r in
      _ = try r.resolve(type: Missing.self)
      return 1
    }

    #expect(try container.resolve(type: Captured.self) === container.resolve(type: Captured.self))
    let error = #expect(throws: ResolutionError.self) { try container.resolve(type: Int.self) }
    #expect(error?.description.contains("RegistrationStorageTests.swift:\(line)") == true)
    try await container.dispose()
    #expect(disposed.load(ordering: .relaxed) == 1)
  }

  @Test func validationSeesRegistrationsThatNothingResolvedAtHighAndLowIndices() async throws {
    let container = Container()
    for id in 0..<520 { container.register(type: Captured.self, name: "late \(id)") { Captured() } }
    container.register(type: Int.self) { r in
      _ = try r.resolve(type: Missing.self)
      return 1
    }
    let report = await container.validate()
    // The 521 registrations, and the missing type the last one asks for.
    #expect(report.checkedCount == 522)
    #expect(report.problems.map(\.dependency.typeName) == ["Missing"])
  }
}
