import Testing

@testable import Knapsack

// Reports and graphs tell dependencies apart by name, so two dependencies that would be shown
// alike are named apart when the second is first seen. Keys of one name need two modules, which
// this target cannot declare: that case goes through the key table itself (hence the testable
// import); types of one name are nested in two enums here, through the public API.

/// Two types both named `ClashConfig`, as if from two modules.
enum ClashList { final class ClashConfig: Sendable {} }
enum ClashSettings { final class ClashConfig: Sendable {} }

/// A singleton that keeps the settings' `ClashConfig`, a singleton too.
final class ClashHolder: Sendable {
  let config: ClashSettings.ClashConfig
  init(_ config: ClashSettings.ClashConfig) { self.config = config }
}

/// Stands in for the key paths of two keys (their objects are what the table is keyed by).
private struct ClashKeyPaths {
  var list: Int
  var settings: Int
  var listPlugins: Int
  var settingsPlugins: Int
  var contributionHere: Int
  var contributionThere: Int
}

@Suite struct NamingTests {
  @Test func aKeyNamedLikeAnotherModulesKeyIsNamedByItsModule() {
    let table = KeyTable.shared
    func describe(_ module: String, _ type: String) -> (Int) -> Descriptor {
      { index in
        Descriptor(
          index: index, kind: .key, displayName: "\\.clashConfig", typeName: type,
          declaration: CodeLocation(fileID: "\(module)/Config.swift", line: 7), defaultRegistration: nil)
      }
    }
    let list = table.index(of: \ClashKeyPaths.list as AnyKeyPath, describe: describe("FeatureList", "ListConfig"))
    let settings = table.index(
      of: \ClashKeyPaths.settings as AnyKeyPath, describe: describe("FeatureSettings", "SettingsConfig"))
    #expect(table.descriptor(list).displayName == #"\.clashConfig"#)
    #expect(table.descriptor(settings).displayName == #"\.clashConfig (FeatureSettings)"#)
    // The same key seen again keeps its index and name.
    #expect(table.index(of: \ClashKeyPaths.settings as AnyKeyPath, describe: describe("Other", "X")) == settings)
  }

  @Test func aMultibindingNamedLikeAnotherModulesIsNamedByItsModuleButContributionsOfOneLineShareTheirs() {
    let table = KeyTable.shared
    func describe(_ kind: Descriptor.Kind, _ name: String, _ module: String) -> (Int) -> Descriptor {
      { index in
        Descriptor(
          index: index, kind: kind, displayName: name, typeName: "[Int]",
          declaration: CodeLocation(fileID: "\(module)/Plugins.swift", line: 3), defaultRegistration: nil)
      }
    }
    let list = table.index(
      of: \ClashKeyPaths.listPlugins as AnyKeyPath, describe: describe(.multibinding, "\\.clashPlugins", "FeatureList"))
    let settings = table.index(
      of: \ClashKeyPaths.settingsPlugins as AnyKeyPath,
      describe: describe(.multibinding, "\\.clashPlugins", "FeatureSettings"))
    #expect(table.descriptor(list).displayName == #"\.clashPlugins"#)
    #expect(table.descriptor(settings).displayName == #"\.clashPlugins (FeatureSettings)"#)
    // Two containers' contributions from one line are one contribution, shown alike.
    let name = "\\.clashPlugins contribution (App/Wiring.swift:9)"
    let here = table.index(
      of: \ClashKeyPaths.contributionHere as AnyKeyPath, describe: describe(.contribution, name, "App"))
    let there = table.index(
      of: \ClashKeyPaths.contributionThere as AnyKeyPath, describe: describe(.contribution, name, "App"))
    #expect(here != there)
    #expect(table.descriptor(here).displayName == name)
    #expect(table.descriptor(there).displayName == name)
  }

  @Test func typesOfOneNameAreToldApartInValidationAndTheGraph() async throws {
    let container = Container()
    container.register(type: ClashList.ClashConfig.self) { ClashList.ClashConfig() }
    container.register(type: ClashSettings.ClashConfig.self, scope: .singleton) { ClashSettings.ClashConfig() }
    container.register(type: ClashHolder.self, scope: .singleton) { r in
      ClashHolder(try r.resolve(type: ClashSettings.ClashConfig.self))
    }
    // The singleton holds a singleton: nothing captive (the list's unique ClashConfig is another type).
    let report = await container.validate()
    #expect(report.isValid, "\(report)")
    let graph = await container.graph()
    let names = graph.nodes.map(\.dependency.name)
    #expect(names.count == 3 && Set(names).count == 3, "\(names)")
    #expect(
      names.contains { $0.hasSuffix("ClashSettings.ClashConfig") }
        || names.contains { $0.hasSuffix("ClashList.ClashConfig") })
  }

  @Test func aNoteAfterAKeyNamedByItsModuleJoinsTheModulesParentheses() {
    #expect(#"\.config (Billing)"#.noted("singleton") == #"\.config (Billing, singleton)"#)
    #expect(#"\.config"#.noted("singleton") == #"\.config (singleton)"#)
    // A subscript's own parentheses, a numbered key and a type are not a module's group.
    #expect(#"\.subscript(step:)"#.noted("unique") == #"\.subscript(step:) (unique)"#)
    #expect(#"\.config (Billing) #2"#.noted("unique") == #"\.config (Billing) #2 (unique)"#)
    #expect("Pair<(Int, Int)>".noted("unique") == "Pair<(Int, Int)> (unique)")
    let contribution = #"\.plugins contribution (App/Wiring.swift:9)"#
    #expect(contribution.noted("Plugin") == contribution + " (Plugin)")

    let config = DependencyReference(name: #"\.config (Billing)"#, typeName: "BillingConfig", location: nil)
    let error = ResolutionError(kind: .requiredKeyNotProvided, dependency: config, path: [config])
    #expect(error.description.contains(#"required key \.config (Billing, BillingConfig) "#), "\(error)")
    #expect(!error.description.contains(") ("), "\(error)")
    // The fix is code: it spells the key as code does, without its module.
    #expect(error.description.contains(#"`container.register(\.config) { ... }`"#), "\(error)")
    #expect(error.description.contains(#"`withOverrides { $0.register(\.config) { ... } } operation: { ... }`"#))
    for (name, spelling) in [
      (#"\.config (Billing) #2"#, #"\.config"#), (#"\.config #3"#, #"\.config"#),
      // A subscript key as code subscripts it (its parentheses are not a module's).
      (#"\.subscript(step:)"#, #"\.[step: ...]"#), (#"\.subscript(step:) (Billing) #2"#, #"\.[step: ...]"#),
      ("Store (name: \"archive\")", "Store (name: \"archive\")"),
    ] {
      #expect(DependencyReference(name: name, typeName: "T", location: nil).spelling == spelling)
    }
    let near = ResolutionError.NearMatch(dependency: config, site: CodeLocation(fileID: "Billing/Keys.swift", line: 4))
    #expect(near.description == #"\.config (Billing, BillingConfig) at Billing/Keys.swift:4"#)

    let lines = Locked<[String]>([])
    let tracer = ResolutionTracer { line in lines.withLock { $0.append(line) } }
    tracer.willResolve(config, depth: 0)
    tracer.didResolve(
      ResolutionEvent(
        dependency: config, requestedBy: nil, scope: .singleton, registeredAt: nil, depth: 0, duration: .zero,
        outcome: .created))
    #expect(
      lines.withLock { $0 }.joined().hasPrefix(#"\.config (Billing, singleton) created in"#), "\(lines.withLock { $0 })"
    )
  }
}
