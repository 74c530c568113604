@_exported import Keys
@_exported import Knapsack
