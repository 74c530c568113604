import Billing
import Knapsack
import Profile

// Billing and Profile both declare `\.config` and `\.setting`. Swift picks by the value's type,
// also when it is generic (`Box<Int>`) or optional (a made `BillingConfig` is promoted to
// `BillingConfig?`), and so does the check: Profile's `\.config` stays unregistered, an error.
let container = Container()
container.register(\.config) { Box<Int>() }
container.register(\.setting) { BillingConfig() }
container.register(\.setting) { Int() }
