import Knapsack

// The contribution is in a subfolder of the module: a message names it by the module, as the
// runtime's `#fileID` does (`App/Sinks.swift:...`), not by the folder.
let container = Container()
container.install([SinkAssembly()])
_ = try container.resolve(\.hub)
