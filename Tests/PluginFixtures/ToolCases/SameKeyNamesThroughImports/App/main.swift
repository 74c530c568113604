import Feature
import Knapsack
import Orders

// Sees Billing's `\.config` through Orders and Profile's through Feature: Swift picks one by the
// value's type, and so does the check, by the type the factory makes: Billing's.
let container = Container()
registerFeature(in: container)
container.register(\.config) { BillingConfig() }
