import Foundation
import Knapsack
import Testing

protocol DecStore: Sendable {
  var description: String { get }
}

final class DecBaseStore: DecStore {
  let description: String
  init(_ description: String = "base") { self.description = description }
}

/// A store that wraps another, as a logging or caching decorator would.
final class DecWrappingStore: DecStore {
  let tag: String
  let inner: any DecStore
  init(_ tag: String, wrapping inner: any DecStore) {
    self.tag = tag
    self.inner = inner
  }
  var description: String { "\(tag)(\(inner.description))" }
}

final class DecService: Sendable {
  let label: String
  init(_ label: String) { self.label = label }
}

extension Dependencies {
  var decText: Key<String> { Key { "base" } }
  var decStore: Key<any DecStore> { Key { DecBaseStore() } }
  var decSharedStore: Key<any DecStore> { Key { DecBaseStore("shared") }.scope(.singleton) }
  var decSuffix: Key<String> { Key { "suffix" } }
  var decMissing: Key<String> { .required() }
  var decMissingAsync: AsyncKey<String> { .required() }
  var decUser: Key<String> { Key { r in "user of \(try r[\.decText])" } }
  var decAsync: AsyncKey<String> { AsyncKey { _ in "async" } }
  var decAsyncSuffix: AsyncKey<String> { AsyncKey { _ in "awaited" } }
  var decMain: MainActorKey<String> { MainActorKey { _ in "main" } }
}

/// Main-actor state that a main-actor decorator reads.
@MainActor enum DecMainState {
  static var theme = "dark"
}

extension Dependencies {
  var decSharedAsync: AsyncKey<DecService> { AsyncKey { _ in DecService("async") }.scope(.singleton) }
  var decSharedMain: MainActorKey<DecService> { MainActorKey { _ in DecService("main") }.scope(.singleton) }
}

@Suite struct DecoratorTests {
  struct DecoratorBoom: Error, CustomStringConvertible {
    var description: String { "decorator boom" }
  }

  @Test func aThrowingDecoratorIsNamedWithItsSiteNotTheFactory() async throws {
    let container = Container()
    let line = #line + 1
    container.decorate(\.decText) { _, _ in throw DecoratorBoom() }
    let site = "KnapsackTests/DecoratorTests.swift:\(line)"
    let error = try #require(throws: ResolutionError.self) { try container[\.decText] }
    #expect(error.kind == .factoryFailed)
    #expect(error.underlying == "its decorator added at \(site) threw: decorator boom")
    #expect(error.description.contains("Knapsack: making \\.decText (String): its decorator added at \(site)"))
    #expect(!error.description.contains("the factory for"), "\(error)")
    // The same for an asynchronous decorator, and in the dry run's report.
    let asyncLine = #line + 1
    container.decorate(\.decAsync) { _, _ async throws -> String in throw DecoratorBoom() }
    let asyncError = await #expect(throws: ResolutionError.self) { try await container.resolve(\.decAsync) }
    #expect(
      asyncError?.underlying
        == "its decorator added at KnapsackTests/DecoratorTests.swift:\(asyncLine) threw: decorator boom")
    let report = await container.validate()
    #expect(
      report.problems(.factoryFailed).map(\.message).contains("making \\.decText: \(error.underlying ?? "")"),
      "\(report)")
  }

  @Test func decoratorsApplyToTheKeysDefault() async throws {
    let container = Container()
    container.decorate(\.decStore) { _, store in DecWrappingStore("log", wrapping: store) }
    let store = try container[\.decStore]
    let wrapper = try #require(store as? DecWrappingStore)
    #expect(wrapper.tag == "log")
    #expect(wrapper.inner is DecBaseStore)
  }

  @Test func decoratorsComposeFirstRegisteredInnermost() async throws {
    let container = Container()
    container.decorate(\.decStore) { _, store in DecWrappingStore("first", wrapping: store) }
    container.decorate(\.decStore) { _, store in DecWrappingStore("second", wrapping: store) }
    container.decorate(\.decStore) { _, store in DecWrappingStore("third", wrapping: store) }
    #expect(try container[\.decStore].description == "third(second(first(base)))")
  }

  @Test func decoratorsApplyToARegistrationMadeBeforeOrAfterThem() async throws {
    let before = Container()
    before.register(\.decText) { "registered" }
    before.decorate(\.decText) { _, text in text + "+a" }
    #expect(try before[\.decText] == "registered+a")

    let after = Container()
    after.decorate(\.decText) { _, text in text + "+a" }
    after.register(\.decText) { "registered" }
    #expect(try after[\.decText] == "registered+a")
  }

  @Test func decoratorsApplyToOverrides() async throws {
    let container = Container()
    container.decorate(\.decText) { _, text in text + "+a" }
    container.decorate(\.decText) { _, text in text + "+b" }
    let inside = try await withOverrides {
      $0.register(\.decText) { "override" }
    } operation: {
      try container[\.decText]
    }
    #expect(inside == "override+a+b")
    #expect(try container[\.decText] == "base+a+b")
  }

  @Test func anOverridesOwnDecoratorsComeLast() async throws {
    let container = Container()
    container.decorate(\.decText) { _, text in text + "+a" }
    let overridden = try await withOverrides {
      $0.register(\.decText) { "override" }
      $0.decorate(\.decText) { _, text in text + "+o" }
    } operation: {
      try container[\.decText]
    }
    #expect(overridden == "override+a+o")
    let decoratedOnly = try await withOverrides {
      $0.decorate(\.decText) { _, text in text + "+o" }
    } operation: {
      try container[\.decText]
    }
    #expect(decoratedOnly == "base+a+o")
    #expect(try container[\.decText] == "base+a")
  }

  @Test func nestedOverrideScopesStackTheirDecorators() async throws {
    let container = Container()
    container.decorate(\.decText) { _, text in text + "+a" }
    let inner = try await withOverrides {
      $0.decorate(\.decText) { _, text in text + "+outer" }
    } operation: {
      try await withOverrides {
        $0.decorate(\.decText) { _, text in text + "+inner" }
      } operation: {
        try container[\.decText]
      }
    }
    #expect(inner == "base+a+outer+inner")
  }

  @Test func decoratorsApplyWhenResolvedAsADependency() async throws {
    let container = Container()
    container.decorate(\.decText) { _, text in text.uppercased() }
    #expect(try container[\.decUser] == "user of BASE")
  }

  @Test func parentDecoratorsApplyBeforeTheChilds() async throws {
    let parent = Container()
    parent.decorate(\.decText) { _, text in text + "+parent" }
    let child = parent.makeChild()
    child.decorate(\.decText) { _, text in text + "+child" }
    #expect(try child[\.decText] == "base+parent+child")
    #expect(try parent[\.decText] == "base+parent")
  }

  @Test func decoratorsCanResolveDependencies() async throws {
    let container = Container()
    container.register(\.decSuffix) { "metrics" }
    container.decorate(\.decText) { r, text in "\(text)+\(try r[\.decSuffix])" }
    #expect(try container[\.decText] == "base+metrics")
  }

  @Test func aSharedInstanceIsDecoratedOnce() async throws {
    let decorations = Counter()
    let container = Container()
    container.decorate(\.decSharedStore) { _, store in
      decorations.increment()
      return DecWrappingStore("cache", wrapping: store)
    }
    let first = try container[\.decSharedStore]
    let second = try container[\.decSharedStore]
    #expect(first as AnyObject === second as AnyObject)
    #expect(decorations.count == 1)
    #expect(first.description == "cache(shared)")
  }

  @Test func aDecoratorAddedLaterMakesTheSharedInstanceAnew() async throws {
    let container = Container()
    let before = try container[\.decSharedStore]
    container.decorate(\.decSharedStore) { _, store in DecWrappingStore("late", wrapping: store) }
    let after = try container[\.decSharedStore]
    #expect(after.description == "late(shared)")
    #expect(before as AnyObject !== after as AnyObject)
    #expect(try container[\.decSharedStore] as AnyObject === after as AnyObject)
  }

  @Test func decoratorsApplyToTypeRegistrations() async throws {
    let container = Container()
    container.register(type: DecService.self) { DecService("service") }
    container.register(type: DecService.self, name: "other") { DecService("other") }
    container.decorate(type: DecService.self) { _, service in DecService("logged " + service.label) }
    #expect(try container.resolve(type: DecService.self).label == "logged service")
    #expect(
      try container.resolve(type: DecService.self, name: "other").label == "other", "names are separate dependencies")
  }

  @Test func decoratorsApplyToAsyncKeys() async throws {
    let container = Container()
    container.decorate(\.decAsync) { _, text in text + "+decorated" }
    #expect(try await container.resolve(\.decAsync) == "async+decorated")
  }

  @Test func aThrowingDecoratorFailsTheResolution() async throws {
    let container = Container()
    container.decorate(\.decText) { _, _ throws -> String in throw PlannedFailure("decorator broke") }
    let error = #expect(throws: ResolutionError.self) { try container[\.decText] }
    #expect(error?.kind == .factoryFailed)
    #expect(error?.dependency.name == "\\.decText")
    #expect(error?.underlying?.hasSuffix("threw: decorator broke") == true)
  }

  @Test func aDecoratorsMissingDependencyFailsTheResolution() async throws {
    let container = Container()
    let line = #line + 1
    container.decorate(\.decText) { r, text in text + (try r[\.decMissing]) }
    let error = #expect(throws: ResolutionError.self) { try container[\.decText] }
    #expect(error?.kind == .requiredKeyNotProvided)
    #expect(error?.path.map(\.name) == ["\\.decText", "\\.decMissing"])
    // The decorator asked, not the key's factory: the error says where the decorator was added.
    let site = CodeLocation(fileID: "KnapsackTests/DecoratorTests.swift", line: line)
    #expect(error?.requestedAt == site)
    #expect(error?.description.contains("asked for at \(site)") == true, "\(String(describing: error))")
  }

  @Test func anAsyncDecoratorsMissingDependencyNamesTheDecorator() async throws {
    let container = Container()
    let line = #line + 1
    container.decorate(\.decAsync) { r, text in text + (try await r.resolve(\.decMissingAsync)) }
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.decAsync) }
    #expect(error?.requestedAt == CodeLocation(fileID: "KnapsackTests/DecoratorTests.swift", line: line))
    // A dependency the decorator's dependency asks for is that dependency's, not the decorator's:
    // the line that asked is in the dependency's factory.
    let factoryLine = #line + 1
    container.register(\.decMissingAsync) { r in try r[\.decMissing] }
    let deeper = await #expect(throws: ResolutionError.self) { try await container.resolve(\.decAsync) }
    #expect(deeper?.path.map(\.name) == ["\\.decAsync", "\\.decMissingAsync", "\\.decMissing"])
    #expect(deeper?.requestedAt == CodeLocation(fileID: "KnapsackTests/DecoratorTests.swift", line: factoryLine))
  }

  @Test func validationRunsDecorators() async throws {
    let container = Container()
    container.register(\.decText) { "registered" }
    container.decorate(\.decText) { r, text in text + (try r[\.decMissing]) }
    let report = await container.validate()
    let missing = report.problems(.requiredKeyNotProvided)
    try #require(missing.count == 1, "\(report)")
    #expect(missing[0].path.map(\.name) == ["\\.decText", "\\.decMissing"])
    #expect(await container.graph().edges.contains(.init(from: "\\.decText", to: "\\.decMissing")))
  }

  @Test func anAsyncKeysDecoratorMayAwait() async throws {
    let container = Container()
    container.decorate(\.decAsync) { r, text in text + "+" + (try await r.resolve(\.decAsyncSuffix)) }
    container.decorate(\.decAsync) { _, text in text + "+sync" }
    #expect(try await container.resolve(\.decAsync) == "async+awaited+sync")
    let report = await container.validate(including: [\Dependencies.decAsync])
    #expect(report.isValid, "\(report)")
  }

  /// Written the way a factory is, with no `@MainActor` on the closure: a main-actor key's
  /// decorator is the main-actor one, so it may read main-actor state.
  @MainActor @Test func aMainActorKeysDecoratorNeedsNoAnnotationToUseMainActorState() throws {
    let container = Container()
    container.decorate(\.decMain) { _, text in text + "+" + DecMainState.theme }
    #expect(try container.resolve(\.decMain) == "main+" + DecMainState.theme)
  }

  @Test func aMainActorKeysUnannotatedDecoratorRunsOnTheMainActorFromElsewhere() async throws {
    let container = Container()
    container.decorate(\.decMain) { _, text in
      #expect(MainQueueProbe.isOnMainQueue, "an unannotated decorator of a main-actor key runs on the main actor")
      return text + "+" + DecMainState.theme
    }
    let value = try await Task.detached { try await container.resolve(\.decMain) }.value
    #expect(value == "main+" + (await DecMainState.theme))
  }

  @MainActor @Test func aMainActorKeysDecoratorRunsOnTheMainActor() async throws {
    let container = Container()
    container.decorate(\.decMain) { @MainActor _, text in text + "+" + DecMainState.theme }
    #expect(try container[\.decMain] == "main+dark")
    #expect(try await container.resolve(\.decMain) == "main+dark")
    let fromElsewhere = try await Task.detached { try await container.resolve(\.decMain) }.value
    #expect(fromElsewhere == "main+dark")
  }

  // A child that decorates a dependency an ancestor shares keeps an instance of its own, made by
  // the ancestor's registration and wrapped by both containers' decorators: its decorator cannot
  // wrap the ancestor's instance, which the ancestor and its other children use as it is.

  @Test(arguments: [Scope.singleton, .cached, .weak])
  func aChildDecoratesASharedDependencyOfItsParentInAnInstanceOfItsOwn(scope: Scope) throws {
    let parent = Container()
    parent.register(\.decStore, scope: scope) { DecBaseStore() }
    parent.decorate(\.decStore) { _, store in DecWrappingStore("parent", wrapping: store) }
    let child = parent.makeChild()
    child.decorate(\.decStore) { _, store in DecWrappingStore("child", wrapping: store) }
    let grandchild = child.makeChild()
    let sibling = parent.makeChild()

    let parentStore = try parent[\.decStore]
    let childStore = try child[\.decStore]
    #expect(parentStore.description == "parent(base)")
    #expect(childStore.description == "child(parent(base))")
    // Each keeps its instance for its scope, and shares it below.
    #expect(try child[\.decStore] as AnyObject === childStore as AnyObject)
    #expect(try grandchild[\.decStore] as AnyObject === childStore as AnyObject)
    #expect(try sibling[\.decStore] as AnyObject === parentStore as AnyObject)
    #expect(try parent[\.decStore] as AnyObject === parentStore as AnyObject)
  }

  @Test func aChildDecoratesAKeysSharedDefaultAndAsynchronousAndMainActorKeys() async throws {
    let parent = Container()
    let child = parent.makeChild()
    child.decorate(\.decSharedStore) { _, store in DecWrappingStore("child", wrapping: store) }
    child.decorate(\.decSharedAsync) { _, service in DecService(service.label + "+child") }
    child.decorate(\.decSharedMain) { _, service in DecService(service.label + "+child") }

    #expect(try parent[\.decSharedStore].description == "shared")
    #expect(try child[\.decSharedStore].description == "child(shared)")
    #expect(try child[\.decSharedStore] as AnyObject === (try child[\.decSharedStore]) as AnyObject)
    #expect(try await parent.resolve(\.decSharedAsync).label == "async")
    let asyncService = try await child.resolve(\.decSharedAsync)
    #expect(asyncService.label == "async+child")
    #expect(try await child.resolve(\.decSharedAsync) === asyncService)
    #expect(try await parent.resolve(\.decSharedMain).label == "main")
    #expect(try await child.resolve(\.decSharedMain).label == "main+child")
  }

  @Test func aChildDecoratorAddedAfterTheParentsInstanceWasSharedAppliesFromThen() throws {
    let parent = Container()
    let child = parent.makeChild()
    let before = try child[\.decSharedStore]
    #expect(before as AnyObject === (try parent[\.decSharedStore]) as AnyObject)
    child.decorate(\.decSharedStore) { _, store in DecWrappingStore("child", wrapping: store) }
    #expect(try child[\.decSharedStore].description == "child(shared)")
    #expect(try parent[\.decSharedStore] as AnyObject === before as AnyObject)
  }
}
