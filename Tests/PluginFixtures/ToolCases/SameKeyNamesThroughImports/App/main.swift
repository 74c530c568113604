import Feature
import Knapsack
import Orders

// Sees Billing's `\.config` through Orders and Profile's through Feature: Swift picks one by the
// value's type, which the check does not know, so it counts this for both.
let container = Container()
registerFeature(in: container)
container.register(\.config) { BillingConfig() }
