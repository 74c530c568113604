// expected-error: property wrapper cannot be applied to a computed property
// @Observable makes each stored property it tracks computed; InjectionAndCycles.md says to mark a
// wrapped one @ObservationIgnored, as Valid.swift does.
import Knapsack
import Observation

@MainActor @Observable final class ObservableScreen {
  @Injected(\.store) var store: Store
  var count = 0
}
