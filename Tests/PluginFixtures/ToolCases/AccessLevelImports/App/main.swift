// Sees Keys through Mid's `public import Keys`, and never imports Other: its registration names
// Keys' \.config alone.
import Knapsack
import Mid

let c = Container()
c.register(\.config) { 1 }
