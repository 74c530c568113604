import Billing
import Knapsack
import Profile

// Billing and Profile both declare `\.config`; Swift picks Billing's by the value's type, and so
// does the check: Profile's stays unregistered, an error.
let container = Container()
container.register(\.config) { BillingConfig() }
