import Knapsack
import Storage

// This file sees Storage's \.sessionID only: the registration is Storage's, and Payments' key of
// the same name and type is left without one.
func registerSession(_ container: Container) {
  container.register(\.sessionID) { "session" }
}
