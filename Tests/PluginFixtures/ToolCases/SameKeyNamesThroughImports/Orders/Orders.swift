// Names nothing of Knapsack: its import still makes Billing's keys visible to its importers.
import Billing

public func placeOrder() {}
