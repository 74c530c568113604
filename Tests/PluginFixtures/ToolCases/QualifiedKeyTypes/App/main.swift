import Billing
import Knapsack
import Settings

// Both registrations name Settings' keys, which shadow Billing's: Billing's required keys have
// no registration.
let container = Container()
container.register(\.config) { Billing.Config() }
container.register(\.formatter) { { "\($0)" } }
