// expected-error: 'transient' has been renamed to 'unique': Knapsack calls this scope .unique
// Swinject's name for the scope. Without the unavailable member, the compiler said only that
// type 'Scope' has no member 'transient'.
import Knapsack

func swinjectTransientScope(_ container: Container) {
  container.register(\.store, scope: .transient) { Store() }
}
