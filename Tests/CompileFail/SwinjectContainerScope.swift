// expected-error: 'container' has been renamed to 'singleton': Knapsack calls this scope .singleton
// Swinject's name for the scope. Without the unavailable member, the compiler said only that
// type 'Scope' has no member 'container'.
import Knapsack

func swinjectContainerScope(_ container: Container) {
  container.register(type: Store.self, name: "main", scope: .container) { Store() }
}
