// expected-error: overrides apply only to the operation that runs with them: pass it, `withOverrides { $0.register(\.key) { ... } } operation: { ... }`
// Without the operation, the compiler failed to produce a diagnostic for the call.
import Knapsack

func overridesWithoutOperation(_ container: Container) async throws {
  try await withOverrides { $0.register(\.store) { Store() } }
  let _: Store = try container[\.store]
}
