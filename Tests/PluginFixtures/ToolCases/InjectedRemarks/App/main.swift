import Billing
import Knapsack
import Profile

let container = Container()
/// Swift would not compile this `Screen()`; the check cannot tell which module's it is, says so,
/// and reports neither property's type as missing.
container.register(type: Billing.Screen.self) { Screen() }
/// Qualified: Profile's, whose avatar nobody registers.
container.register(type: Profile.Screen.self) { Profile.Screen() }

/// Makes a `Screen` of either module in its initializer: the remark names the frame's call too.
struct Frame: Sendable {
  let screen: Billing.Screen
  init() { screen = Screen() }
}

container.register(type: Frame.self) { Frame() }
