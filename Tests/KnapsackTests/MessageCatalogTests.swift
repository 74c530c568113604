// Every ResolutionError kind and every validation problem kind, printed for a known graph
// (MessageCatalogFixtures.swift) and compared, whole, with the message catalogue in the DocC
// "Diagnostics" article, so that a change in wording or in a site is caught, and the article
// cannot drift. `KNAPSACK_UPDATE_MESSAGES=1 swift test --filter MessageCatalog` rewrites the
// article's blocks from what the library prints now.
import Foundation
import Knapsack
import Testing

@Suite struct MessageCatalogTests {
  static let article = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Sources/Knapsack/Knapsack.docc/Diagnostics.md")

  /// The error a resolution throws.
  static func error(_ body: () throws -> Any) -> String {
    do {
      _ = try body()
      return "(no error)"
    } catch {
      return String(describing: error)
    }
  }

  /// The one problem of `kind` in the report.
  static func problem(_ report: ValidationReport, _ kind: ValidationReport.Problem.Kind) -> String {
    report.problems(kind).map(\.description).joined(separator: "\n")
  }

  /// The messages, in catalogue order, by identifier.
  static func messages() async -> [(id: String, text: String)] {
    var messages: [(id: String, text: String)] = []
    func add(_ id: String, _ text: String) { messages.append((id, text)) }

    add("resolution.requiredKeyNotProvided", error { try Catalog.missingKey()[\.catalogRepository] })
    add("resolution.requiredKeyNotProvided.child", error { try Catalog.childCaptive()[\.catalogCache] })
    add("resolution.notRegistered", error { try Catalog.missingType().resolve(type: CatalogRepository.self) })
    add("resolution.cycle", error { try Catalog.cycle()[\.catalogLeft] })
    add("resolution.factoryFailed", error { try Catalog.failing()[\.catalogFilePath] })
    let disposed = Catalog.captive()
    try? await disposed.dispose()
    add("resolution.containerDisposed", error { try disposed[\.catalogSession] })
    // The typed API leaves no way to reach a factory of the wrong type; this is the text the
    // engine prints when one is reached anyway (an erased resolution, a bad sample argument).
    add(
      "resolution.factoryMismatch",
      String(
        describing: ResolutionError(
          kind: .factoryMismatch,
          dependency: DependencyReference(name: "\\.catalogProfile", typeName: "CatalogSession", location: nil),
          path: [], underlying: "expected a factory of CatalogSession taking Int, found a synchronous factory")))
    add(
      "resolution.factoryMismatch.unhashableArgument",
      error { try Container().resolve(\.catalogSearch, argument: (query: "milk", page: 1)) })
    let deep = Catalog.chain(10_000)
    add(
      "resolution.resolutionTooDeep",
      await onThread(stackSize: 512 * 1024) { error { try deep.resolve(type: Int.self, name: "step 0") } })

    let missingKey = await Catalog.missingKey().validate(including: [\.catalogRepository])
    add("validation.requiredKeyNotProvided", problem(missingKey, .requiredKeyNotProvided))
    add("validation.notRegistered", problem(await Catalog.missingType().validate(), .notRegistered))
    add("validation.cycle", problem(await Catalog.cycle().validate(), .cycle))
    add("validation.captiveDependency", problem(await Catalog.captive().validate(), .captiveDependency))
    add("validation.captiveDependency.child", problem(await Catalog.childCaptive().validate(), .captiveDependency))
    add("validation.factoryFailed", problem(await Catalog.failing().validate(), .factoryFailed))
    let wrongSample = await Container().validate(arguments: [\.catalogProfile: "seven"])
    add("validation.factoryMismatch", problem(wrongSample, .factoryMismatch))
    add("validation.containerDisposed", problem(await disposed.validate(), .containerDisposed))
    add(
      "validation.example",
      String(
        describing: await ValidationSamples.everyProblemContainer().validate(including: [\.todoRepository])))
    return messages
  }

  /// Numbers that depend on the thread's stack and the build, masked in the comparison.
  static func masked(_ id: String, _ text: String) -> String {
    guard id == "resolution.resolutionTooDeep" else { return text }
    return text.replacing(/\d+/, with: "N")
  }

  @Test func everyMessageIsTheOneTheArticleShows() async throws {
    let messages = await Self.messages()
    var article = try String(contentsOf: Self.article, encoding: .utf8)
    if ProcessInfo.processInfo.environment["KNAPSACK_UPDATE_MESSAGES"] == "1" {
      for message in messages { article = try Self.replacingBlock(message.id, with: message.text, in: article) }
      try article.write(to: Self.article, atomically: true, encoding: .utf8)
      return
    }
    for message in messages {
      let shown = try #require(Self.block(message.id, in: article), "the article has no block \(message.id)")
      #expect(
        Self.masked(message.id, shown) == Self.masked(message.id, message.text),
        "\(message.id) prints:\n\(message.text)\n\nrun `KNAPSACK_UPDATE_MESSAGES=1 swift test --filter MessageCatalog`")
    }
  }

  @Test func theMessagesNameTheUsersOwnSites() async throws {
    let texts = Dictionary(uniqueKeysWithValues: await Self.messages().map { ($0.id, $0.text) })
    let fixtures = "KnapsackTests/MessageCatalogFixtures.swift:"
    // A missing key names its declaration, what asked for it, and the near match by type.
    let missing = try #require(texts["resolution.requiredKeyNotProvided"])
    #expect(missing.contains("declared at \(fixtures)"))
    #expect(missing.contains("registered nearby: any CatalogClock at \(fixtures)"))
    // A type is named once, with the names it is registered under.
    let type = try #require(texts["resolution.notRegistered"])
    #expect(type.hasPrefix("Knapsack: nothing is registered for any CatalogStore (name: \"archive\").\n"))
    #expect(type.contains("any CatalogStore (name: \"main\") at \(fixtures)"))
    #expect(type.contains("\\.catalogStore (any CatalogStore) at \(fixtures)"))
    // A cycle names each key with its own sites.
    let cycle = try #require(texts["resolution.cycle"])
    #expect(cycle.contains("\\.catalogLeft: declared at \(fixtures)"))
    #expect(cycle.contains("\\.catalogRight: declared at \(fixtures)"))
    // A captive dependency names the holder's registration and the held one's sites.
    let captive = try #require(texts["validation.captiveDependency"])
    #expect(captive.contains("registered at \(fixtures)"))
    #expect(captive.contains("holds \\.catalogSession: declared at \(fixtures)"))
    // What only a child provides, asked for by its parent's singleton, is said to be there.
    let held = try #require(texts["resolution.requiredKeyNotProvided.child"])
    #expect(
      held.hasPrefix(
        "Knapsack: required key \\.catalogSession (CatalogSession) is not provided where it is needed: \\.catalogCache is"
          + " kept by a parent container (singleton)"))
    #expect(held.contains("\\.catalogSession is registered only in a child container below it (at \(fixtures)"))
    let child = try #require(texts["validation.captiveDependency.child"])
    #expect(child.contains("holds \\.catalogSession: declared at \(fixtures)"))
    #expect(child.components(separatedBy: "registered at \(fixtures)").count == 3, "both registrations: \(child)")
  }

  /// The range of the fenced block's text that follows `<!-- message: ID -->`.
  static func blockRange(_ id: String, in article: String) -> Range<String.Index>? {
    guard let marker = article.range(of: "<!-- message: \(id) -->\n```text\n"),
      let end = article.range(of: "\n```", range: marker.upperBound..<article.endIndex)
    else { return nil }
    return marker.upperBound..<end.lowerBound
  }

  /// The fenced block that follows `<!-- message: ID -->`.
  static func block(_ id: String, in article: String) -> String? {
    blockRange(id, in: article).map { String(article[$0]) }
  }

  static func replacingBlock(_ id: String, with text: String, in article: String) throws -> String {
    struct MissingMarker: Error { let id: String }
    guard let range = blockRange(id, in: article) else { throw MissingMarker(id: id) }
    return article.replacingCharacters(in: range, with: text)
  }
}

@Suite struct DeclarationSiteTests {
  @Test func everyKeyKindTellsWhereItWasDeclared() {
    let file = "KnapsackTests/MessageCatalogFixtures.swift"
    #expect(Dependencies.declarationSite(of: \.catalogClock) == CodeLocation(fileID: file, line: 26))
    #expect(Dependencies.declarationSite(of: \.catalogStore) == CodeLocation(fileID: file, line: 27))
    #expect(Dependencies.declarationSite(of: \.catalogProfile) == CodeLocation(fileID: file, line: 38))
    #expect(Dependencies.declarationSite(of: \.catalogProfile).description == "\(file):38")
  }
}

extension Dependencies {
  fileprivate var nearDiskStore: Key<NearMatchTests.DiskStore> { .required() }
  fileprivate var nearStoring: Key<any NearMatchTests.Storing> { .required() }
}

@Suite struct NearMatchTests {
  final class NearThing: Sendable {}

  @Test func optionalAndExistentialVariantsAreNearMatches() throws {
    let container = Container()
    container.register(type: NearThing?.self) { NearThing() }
    container.register(type: NearThing.self, name: "primary") { NearThing() }
    let error = try #require(throws: ResolutionError.self) { try container.resolve(type: NearThing.self) }
    #expect(error.nearMatches.map(\.dependency.name) == ["NearThing (name: \"primary\")", "Optional<NearThing>"])
    #expect(error.description.contains("registered nearby: NearThing (name: \"primary\") at KnapsackTests/"))
  }

  @Test func whatAskedIsNotSuggestedAsANearMatch() throws {
    let container = Container()
    // The requester is a registration of the missing type, under another name: the nearest
    // match by rank, but it is what asked.
    container.register(type: NearThing.self, name: "asking") { r in
      _ = try r.resolve(type: NearThing.self)
      return NearThing()
    }
    container.register(type: NearThing.self, name: "other") { NearThing() }
    let error = try #require(throws: ResolutionError.self) {
      try container.resolve(type: NearThing.self, name: "asking")
    }
    #expect(error.nearMatches.map(\.dependency.name) == ["NearThing (name: \"other\")"], "\(error)")
  }

  final class RankedThing: Sendable {}

  @Test func theNearestFiveAreListedInRankThenNameOrder() throws {
    // Registered in reverse order, with names elsewhere that this container cannot see: what is
    // listed is the five nearest that it provides, same type first, by name.
    let elsewhere = Container()
    elsewhere.register(type: RankedThing.self, name: "0 elsewhere") { RankedThing() }
    let container = Container()
    container.register(type: RankedThing?.self) { RankedThing() }
    for name in ["g", "f", "e", "d", "c", "b", "a"] {
      container.register(type: RankedThing.self, name: name) { RankedThing() }
    }
    let error = try #require(throws: ResolutionError.self) { try container.resolve(type: RankedThing.self) }
    #expect(
      error.nearMatches.map(\.dependency.name) == ["a", "b", "c", "d", "e"].map { "RankedThing (name: \"\($0)\")" })

    let few = Container()
    few.register(type: RankedThing?.self) { RankedThing() }
    few.register(type: RankedThing.self, name: "b") { RankedThing() }
    few.register(type: RankedThing.self, name: "a") { RankedThing() }
    let fewError = try #require(throws: ResolutionError.self) { try few.resolve(type: RankedThing.self) }
    #expect(
      fewError.nearMatches.map(\.dependency.name) == [
        "RankedThing (name: \"a\")", "RankedThing (name: \"b\")", "Optional<RankedThing>",
      ])
  }

  protocol Storing: Sendable {}
  protocol Named: Sendable {}
  final class DiskStore: Storing, Named {}
  struct MemoryStore: Storing {}
  struct Unrelated: Sendable {}

  /// A Swinject habit: the concrete type is registered, the protocol is asked for. Knapsack
  /// resolves exactly the type registered, so the error names what conforms.
  @Test func typesAndKeysThatConformAreNearMatchesOfTheExistential() throws {
    let container = Container()
    container.register(type: MemoryStore.self) { MemoryStore() }
    container.register(type: DiskStore.self, name: "disk") { DiskStore() }
    container.register(\.nearDiskStore) { DiskStore() }
    container.register(type: Unrelated.self) { Unrelated() }
    let error = try #require(throws: ResolutionError.self) { try container.resolve(type: (any Storing).self) }
    #expect(
      error.nearMatches.map(\.dependency.name) == ["DiskStore (name: \"disk\")", "MemoryStore", "\\.nearDiskStore"],
      "\(error)")
    #expect(error.description.contains("registered nearby: DiskStore (name: \"disk\") at KnapsackTests/"), "\(error)")

    // A composition: only what conforms to each of its protocols.
    let both = try #require(throws: ResolutionError.self) { try container.resolve(type: (any Storing & Named).self) }
    #expect(both.nearMatches.map(\.dependency.name) == ["DiskStore (name: \"disk\")", "\\.nearDiskStore"], "\(both)")
  }

  /// The other way round: the protocol is registered, and a concrete type that conforms to it is
  /// asked for (by a factory written against the implementation). The error names the
  /// existentials it conforms to, and no other.
  @Test func existentialsTheTypeConformsToAreNearMatchesOfTheConcreteType() throws {
    let container = Container()
    container.register(type: (any Storing).self) { DiskStore() }
    container.register(type: (any Named).self, name: "label") { DiskStore() }
    container.register(type: (any Storing & Named).self) { DiskStore() }
    container.register(\.nearStoring) { MemoryStore() }
    container.register(type: Unrelated.self) { Unrelated() }
    let disk = try #require(throws: ResolutionError.self) { try container.resolve(type: DiskStore.self) }
    #expect(
      disk.nearMatches.map(\.dependency.name) == [
        "\\.nearStoring", "any Named & Storing",
        "any Named (name: \"label\")", "any Storing",
      ], "\(disk)")
    #expect(disk.description.contains("registered nearby: "), "\(disk)")
    // MemoryStore is Storing only.
    let memory = try #require(throws: ResolutionError.self) { try container.resolve(type: MemoryStore.self) }
    #expect(memory.nearMatches.map(\.dependency.name) == ["\\.nearStoring", "any Storing"], "\(memory)")
    // A type that conforms to none of them gets none.
    let unrelated = try #require(throws: ResolutionError.self) { try container.resolve(type: NearThing.self) }
    #expect(unrelated.nearMatches.isEmpty, "\(unrelated)")
  }

  @Test func aConformingTypeIsANearMatchInTheValidationReportToo() async throws {
    let container = Container()
    container.register(type: MemoryStore.self) { MemoryStore() }
    container.register(type: Unrelated.self) { r in
      _ = try r.resolve(type: (any Storing).self)
      return Unrelated()
    }
    let report = await container.validate()
    let problem = try #require(report.problems(.notRegistered).first, "\(report)")
    #expect(problem.nearMatches.map(\.dependency.name) == ["MemoryStore"], "\(report)")
  }

  @Test func conformingTypesFollowTheContainerAndWhatWasRegisteredSince() throws {
    // Registered only in another container: not visible here.
    let elsewhere = Container()
    elsewhere.register(type: DiskStore.self) { DiskStore() }
    let container = Container()
    let first = try #require(throws: ResolutionError.self) { try container.resolve(type: (any Storing).self) }
    #expect(first.nearMatches.isEmpty, "\(first)")
    // Registered after the first error: the second one names it.
    container.register(type: MemoryStore.self) { MemoryStore() }
    let second = try #require(throws: ResolutionError.self) { try container.resolve(type: (any Storing).self) }
    #expect(second.nearMatches.map(\.dependency.name) == ["MemoryStore"], "\(second)")
  }

  @Test func anExistentialThatAnyTypeMatchesHasNoConformingNearMatches() throws {
    let container = Container()
    container.register(type: Unrelated.self) { Unrelated() }
    container.register(type: DiskStore.self) { DiskStore() }
    let any = try #require(throws: ResolutionError.self) { try container.resolve(type: (any Sendable).self) }
    #expect(any.nearMatches.isEmpty, "\(any)")
    let object = try #require(throws: ResolutionError.self) {
      try container.resolve(type: (any AnyObject & Sendable).self)
    }
    #expect(object.nearMatches.isEmpty, "\(object)")
  }

  @Test func unrelatedTypesAreNotNearMatches() throws {
    let container = Container()
    container.register(type: String.self) { "text" }
    let error = try #require(throws: ResolutionError.self) { try container.resolve(type: NearThing.self) }
    #expect(error.nearMatches.isEmpty)
    #expect(!error.description.contains("registered nearby"))
  }

  @Test func nearMatchesAreSafeWhileOtherThreadsAddDependencies() async {
    // Each miss below adds a new (type, name) to the process's key table while other tasks read
    // near matches: the look-up must see a consistent table.
    let container = Container()
    container.register(type: NearThing.self, name: "registered") { NearThing() }
    let described = await withTaskGroup(of: Int.self) { group in
      for task in 0..<8 {
        group.addTask {
          var count = 0
          for step in 0..<50 {
            do {
              _ = try container.resolve(type: NearThing.self, name: "missing \(task) \(step)")
            } catch {
              if "\(error)".contains("registered nearby: NearThing (name: \"registered\")") { count += 1 }
            }
          }
          return count
        }
      }
      return await group.reduce(0, +)
    }
    #expect(described == 400)
  }

  @Test func errorsRoundTripThroughCodableWithTheirSites() throws {
    let container = Container()
    container.register(type: NearThing.self, name: "primary") { NearThing() }
    let error = try #require(throws: ResolutionError.self) { try container.resolve(type: NearThing.self) }
    let decoded = try JSONDecoder().decode(ResolutionError.self, from: JSONEncoder().encode(error))
    #expect(decoded == error)
    #expect(decoded.description == error.description)
  }
}
