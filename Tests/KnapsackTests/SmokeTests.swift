import Knapsack
import Testing

@Suite struct SmokeTests {
  @Test func defaultsAndOverrides() async throws {
    let container = Container()
    #expect(try container[\.greeting] == "hello")
    let first = try container.resolve(\.storage)
    let second = try container.resolve(\.storage)
    #expect(first === second)
    container.register(\.greeting) { "bonjour" }
    #expect(try container[\.greeting] == "bonjour")
    #expect(try container[\.repository].storage === first)
  }

  @Test func requiredKeyThrows() async throws {
    let container = Container()
    let error = #expect(throws: ResolutionError.self) { try container.resolve(\.clock) }
    #expect(error?.kind == .requiredKeyNotProvided)
    #expect(error?.description.contains("\\.clock") == true)
    print(error?.description ?? "")
  }
}
