import Knapsack
import Testing

// validate() and `@Injected` properties of what factories make: a property wrapper cannot throw,
// so a dependency such a property cannot resolve used to stop the program in the middle of the
// dry run. The run now reports it, as the failure of the factory that made the instance.

protocol InjectedValidationStore: Sendable {}
struct InjectedValidationMemoryStore: InjectedValidationStore {}

/// What a factory makes: a type that takes its store through `@Injected`, not its initializer.
struct InjectedValidationScreen: Sendable {
  @Injected(\.injectedValidationStore) var store: any InjectedValidationStore
}

/// The same for the main actor, as a view model would be.
@MainActor
final class InjectedValidationModel {
  @Injected(\.injectedValidationStore) var store: any InjectedValidationStore
  @Injected(type: Int.self, name: "injected validation limit") var limit: Int
}

/// A screen that reads its property in its initializer.
struct InjectedValidationEagerScreen: Sendable {
  @Injected(\.injectedValidationStore) var store: any InjectedValidationStore
  init() { _ = store }
}

extension Dependencies {
  var injectedValidationStore: Key<any InjectedValidationStore> { .required() }
  var injectedValidationScreen: Key<InjectedValidationScreen> { Key { InjectedValidationScreen() } }
  var injectedValidationModel: MainActorKey<InjectedValidationModel> { MainActorKey { InjectedValidationModel() } }
  /// Reaches the screen through another key, as a singleton.
  var injectedValidationFlow: Key<[InjectedValidationScreen]> {
    Key { r in [try r[\.injectedValidationScreen]] }.scope(.singleton)
  }
  var injectedValidationEagerScreen: Key<InjectedValidationEagerScreen> { Key { InjectedValidationEagerScreen() } }
}

@Suite struct InjectedValidationTests {
  @Test func aMissingKeyOfAnInjectedPropertyIsReportedWithItsPath() async throws {
    let container = Container()
    let report = await container.validate(including: [\.injectedValidationScreen])
    let missing = report.problems(.requiredKeyNotProvided)
    #expect(missing.count == 1, "\(report)")
    let problem = try #require(missing.first)
    #expect(problem.dependency.name == "\\.injectedValidationStore")
    #expect(problem.dependency.location?.fileID == "KnapsackTests/InjectedValidationTests.swift")
    #expect(
      problem.path.map(\.name) == ["\\.injectedValidationScreen", "\\.injectedValidationStore"], "\(problem)")
    #expect(!report.isValid)
  }

  @Test func aRegisteredKeyOfAnInjectedPropertyPasses() async throws {
    let container = Container()
    container.register(\.injectedValidationStore) { InjectedValidationMemoryStore() }
    container.register(type: Int.self, name: "injected validation limit") { 10 }
    let report = await container.validate(
      including: [\.injectedValidationScreen, \.injectedValidationFlow, \.injectedValidationModel])
    #expect(report.isValid, "\(report)")
  }

  @Test func aMissingDependencyOfAMainActorInstanceIsReportedForEachProperty() async throws {
    let container = Container()
    let report = await container.validate(including: [\.injectedValidationModel])
    // The first property's failure is the factory's: the run goes on, and the second is found
    // once the first is fixed, as with a factory that resolves with `try`.
    #expect(
      report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) } == [
        ["\\.injectedValidationModel", "\\.injectedValidationStore"]
      ], "\(report)")
    container.register(\.injectedValidationStore) { InjectedValidationMemoryStore() }
    let next = await container.validate(including: [\.injectedValidationModel])
    #expect(
      next.problems(.notRegistered).map(\.dependency.typeName) == ["Int"], "\(next)")
    #expect(next.problems.count == 1, "\(next)")
  }

  /// Reached through a singleton's factory: reported once, with the whole path, and the
  /// singleton made in the run does not hide it from another root.
  @Test func aMissingKeyReachedThroughASingletonIsReportedOnce() async throws {
    let container = Container()
    container.register(\.injectedValidationFlow, scope: .singleton) { r in [try r[\.injectedValidationScreen]] }
    let report = await container.validate(including: [\.injectedValidationScreen])
    let paths = report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) }
    #expect(paths.count == 1, "\(report)")
    #expect(paths.first?.last == "\\.injectedValidationStore", "\(report)")
    #expect(paths.first?.contains("\\.injectedValidationScreen") == true, "\(report)")
  }

  /// A property read while the run makes the instance has no value to give: the program still
  /// stops, and says that the run found the problem.
  @Test func readingAnUnresolvedPropertyDuringTheRunStops() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = await Container().validate(including: [\.injectedValidationEagerScreen])
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(output.contains("was read during validate(), which could not resolve it"), "\(output)")
    #expect(output.contains("required key \\.injectedValidationStore"), "\(output)")
  }

  /// Outside a validation run nothing changed: the property stops the program where it is
  /// initialized, naming its line.
  @Test func outsideARunAnUnresolvedPropertyStillStopsAtOnce() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = try? Container().resolve(\.injectedValidationScreen)
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      output.contains("@Injected at KnapsackTests/InjectedValidationTests.swift:13 could not resolve"), "\(output)")
  }
}
