import Knapsack
import Testing

// An error names the line of the user's code that asked for what failed (`requestedAt`, "asked
// for at"), whichever way it asked: each kind of key, by `resolve` or subscript, through a
// handle or a property wrapper, at the top level or in a factory.

/// A value for the keys below.
final class SiteToken: Sendable {}

extension Dependencies {
  var siteSync: Key<SiteToken> { .required() }
  var siteArgument: ArgumentKey<Int, SiteToken> { .required() }
  var siteAsync: AsyncKey<SiteToken> { .required() }
  var siteAsyncArgument: DependencyKey<AsyncKind, Int, SiteToken> { .required() }
  var siteMain: MainActorKey<SiteToken> { .required() }
  var siteMainArgument: DependencyKey<MainActorKind, Int, SiteToken> { .required() }
  /// Asks for `siteSync` in its factory.
  var siteHolder: Key<SiteToken> { Key { r in try r.resolve(\.siteSync) } }
  var sitePlugins: Multibinding<SiteToken> { Multibinding() }
  var siteAsyncPlugins: AsyncMultibinding<SiteToken> { AsyncMultibinding() }
  /// Asks for `sitePlugins` in its factory.
  var sitePluginHost: Key<[SiteToken]> { Key { r in try r[\.sitePlugins] } }
}

/// What a failing contribution throws.
private struct SiteFailure: Error {}

@Suite struct RequestSiteTests {
  /// The site `line` of this file.
  private func here(_ line: Int) -> CodeLocation {
    CodeLocation(fileID: "KnapsackTests/RequestSiteTests.swift", line: line)
  }

  @Test func everySynchronousWayToAskForAKeyNamesItsLine() throws {
    let container = Container()
    var line = #line + 1
    var error = try #require(throws: ResolutionError.self) { try container.resolve(\.siteSync) }
    #expect(error.requestedAt == here(line))
    #expect(error.description.contains("asked for at \(here(line))"), "\(error)")

    line = #line + 1
    error = try #require(throws: ResolutionError.self) { try container[\.siteSync] }
    #expect(error.requestedAt == here(line))

    line = #line + 1
    error = try #require(throws: ResolutionError.self) { try container.resolve(\.siteArgument, argument: 1) }
    #expect(error.requestedAt == here(line))

    line = #line + 1
    let provider = container.provider(\.siteArgument)
    error = try #require(throws: ResolutionError.self) { try provider.get(2) }
    #expect(error.requestedAt == here(line))

    line = #line + 1
    let lazy = container.lazy(\.siteSync)
    error = try #require(throws: ResolutionError.self) { try lazy.value }
    #expect(error.requestedAt == here(line))
  }

  @Test func aFactoryThatAsksNamesItsOwnLineNotTheOuterCall() throws {
    let container = Container()
    let factoryLine = #line + 1
    container.register(\.siteHolder) { r in try r[\.siteSync] }
    let error = try #require(throws: ResolutionError.self) { try container.resolve(\.siteHolder) }
    #expect(error.dependency.name == "\\.siteSync")
    #expect(error.requestedAt == here(factoryLine))
    // The key's default factory asks at its declaration, in this file too.
    let byDefault = try #require(throws: ResolutionError.self) { try Container().resolve(\.siteHolder) }
    #expect(byDefault.requestedAt?.fileID == "KnapsackTests/RequestSiteTests.swift")
    #expect(byDefault.requestedAt?.line == byDefault.path.first?.location?.line)
  }

  @Test func asynchronousKeysNameTheirLine() async throws {
    let container = Container()
    var line = #line + 1
    var error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.siteAsync) }
    #expect(error?.requestedAt == here(line))

    line = #line + 1
    error = await #expect(throws: ResolutionError.self) { try await container[\.siteAsync] }
    #expect(error?.requestedAt == here(line))

    // (Inside a macro's closure, a default `#line` is the macro's line.)
    line = #line + 1
    error = await #expect(throws: ResolutionError.self) {
      try await container.resolve(\.siteAsyncArgument, argument: 3)
    }
    #expect(error?.requestedAt == here(line))

    line = #line + 1
    let lazy = container.lazy(\.siteAsync)
    error = await #expect(throws: ResolutionError.self) { try await lazy.value }
    #expect(error?.requestedAt == here(line))

    // A main-actor key awaited from elsewhere.
    line = #line + 1
    error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.siteMain) }
    #expect(error?.requestedAt == here(line))
  }

  @MainActor @Test func mainActorKeysNameTheirLine() throws {
    let container = Container()
    var line = #line + 1
    var error = try #require(throws: ResolutionError.self) { try container.resolve(\.siteMain) }
    #expect(error.requestedAt == here(line))

    line = #line + 1
    error = try #require(throws: ResolutionError.self) { try container[\.siteMain] }
    #expect(error.requestedAt == here(line))

    line = #line + 1
    error = try #require(throws: ResolutionError.self) { try container.resolve(\.siteMainArgument, argument: 4) }
    #expect(error.requestedAt == here(line))

    line = #line + 1
    let provider = container.provider(\.siteMain)
    error = try #require(throws: ResolutionError.self) { try provider.get() }
    #expect(error.requestedAt == here(line))
  }

  @Test func aMultibindingOfADisposedContainerNamesTheLineThatAsked() async throws {
    // With no contribution, the error is about the multibinding itself (with one, about the
    // contribution, which the multibinding asked for).
    let container = Container()
    try await container.dispose()
    var line = #line + 1
    var error = try #require(throws: ResolutionError.self) { try container.resolve(\.sitePlugins) }
    #expect(error.kind == .containerDisposed)
    #expect(error.requestedAt == here(line))

    line = #line + 1
    error = try #require(throws: ResolutionError.self) { try container[\.sitePlugins] }
    #expect(error.requestedAt == here(line))

    line = #line + 1
    let provider = container.provider(\.sitePlugins)
    error = try #require(throws: ResolutionError.self) { try provider.get() }
    #expect(error.requestedAt == here(line))
  }

  @Test func aContributionThatThrowsNamesTheLineThatAskedForItsMultibinding() async throws {
    // No line of the user's asks for a contribution: its multibinding's resolution does, so the
    // error names the call that asked for the multibinding, as it names a key's when its
    // factory throws.
    let container = Container()
    container.contribute(to: \.sitePlugins) { _ in throw SiteFailure() }
    var line = #line + 1
    var error = try #require(throws: ResolutionError.self) { try container.resolve(\.sitePlugins) }
    #expect(error.kind == .factoryFailed)
    #expect(error.requestedAt == here(line))
    #expect(error.description.contains("asked for at \(here(line))"), "\(error)")

    line = #line + 1
    error = try #require(throws: ResolutionError.self) { try container[\.sitePlugins] }
    #expect(error.requestedAt == here(line))

    line = #line + 1
    let lazy = container.lazy(\.sitePlugins)
    error = try #require(throws: ResolutionError.self) { try lazy.value }
    #expect(error.requestedAt == here(line))

    line = #line + 1
    let provider = container.provider(\.sitePlugins)
    error = try #require(throws: ResolutionError.self) { try provider.get() }
    #expect(error.requestedAt == here(line))

    // In a factory, the factory's own line.
    line = #line + 1
    container.register(\.sitePluginHost) { r in try r[\.sitePlugins] }
    error = try #require(throws: ResolutionError.self) { try container[\.sitePluginHost] }
    #expect(error.requestedAt == here(line))

    container.contribute(to: \.siteAsyncPlugins) { _ in throw SiteFailure() }
    line = #line + 1
    error = try await #require(throws: ResolutionError.self) { try await container.resolve(\.siteAsyncPlugins) }
    #expect(error.requestedAt == here(line))
  }

  @Test func aContributionOfADisposedContainerNamesTheLineThatAskedForItsMultibinding() async throws {
    let container = Container()
    container.contribute(to: \.sitePlugins) { _ in SiteToken() }
    try await container.dispose()
    let line = #line + 1
    let error = try #require(throws: ResolutionError.self) { try container.resolve(\.sitePlugins) }
    #expect(error.kind == .containerDisposed)
    #expect(error.requestedAt == here(line))
  }

  @Test func aContributionThatAsksNamesItsOwnLine() throws {
    let container = Container()
    let contributionLine = #line + 1
    container.contribute(to: \.sitePlugins) { r in try r[\.siteSync] }
    let error = try #require(throws: ResolutionError.self) { try container.resolve(\.sitePlugins) }
    #expect(error.dependency.name == "\\.siteSync")
    #expect(error.requestedAt == here(contributionLine))
  }
}
