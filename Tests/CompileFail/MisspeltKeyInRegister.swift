// expected-error: value of type 'Dependencies' has no member 'stroe'
import Knapsack

func misspeltKeyInRegister(_ container: Container) {
  container.register(\.stroe) { Store() }
}
