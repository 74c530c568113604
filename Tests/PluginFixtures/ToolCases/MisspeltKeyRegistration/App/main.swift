import Knapsack
import Payments

struct CardGateway: PaymentGateway {}

let container = Container()
// A typo: the compiler would say so, but only once the check passes; the check says it here.
container.register(\.paymentGatway) { CardGateway() }
