@_exported import Knapsack
