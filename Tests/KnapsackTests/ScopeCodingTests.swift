import Foundation
import Knapsack
import Testing

/// A scope in JSON (a saved graph or validation report) reads as its name.
@Suite struct ScopeCodingTests {
  static let scopes: [Scope] = [.unique, .graph, .weak, .cached, .singleton]

  @Test(arguments: scopes)
  func aScopeIsEncodedAsItsNameAndDecodedBack(scope: Scope) throws {
    let data = try JSONEncoder().encode(scope)
    #expect(String(decoding: data, as: UTF8.self) == "\"\(scope)\"")
    #expect(try JSONDecoder().decode(Scope.self, from: data) == scope)
  }

  /// Earlier versions wrote `{"kind": N}`: what they saved still reads.
  @Test func theFormEarlierVersionsWroteStillDecodes() throws {
    let decoded = try JSONDecoder().decode([Scope].self, from: Data(#"[{"kind":0},{"kind":4},{"kind":2}]"#.utf8))
    #expect(decoded == [.unique, .singleton, .weak])
  }

  @Test func anUnknownNameIsAnErrorThatListsTheScopes() throws {
    do {
      _ = try JSONDecoder().decode(Scope.self, from: Data(#""forever""#.utf8))
      Issue.record("an unknown scope decoded")
    } catch let DecodingError.dataCorrupted(context) {
      #expect(context.debugDescription.contains(#""forever" is not a scope"#))
      #expect(context.debugDescription.contains(#""singleton""#))
    }
  }

  /// A graph's nodes say their scope by name.
  @Test func aGraphsJSONNamesEachScope() async throws {
    let container = Container()
    container.register(\.scopeCodingClock, scope: .singleton) { 1 }
    let graph = await container.graph(including: [\.scopeCodingClock])
    let json = String(decoding: try JSONEncoder().encode(graph), as: UTF8.self)
    #expect(json.contains(#""scope":"singleton""#))
    let decoded = try JSONDecoder().decode(DependencyGraph.self, from: Data(json.utf8))
    #expect(decoded.nodes.map(\.scope) == graph.nodes.map(\.scope))
  }
}

extension Dependencies {
  var scopeCodingClock: Key<Int> { Key { 0 } }
}
