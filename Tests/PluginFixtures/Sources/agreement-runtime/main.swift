import CaptiveApp
import CycleApp
import DynamicApp
import InjectedApp
import Knapsack
import MissingApp
import ValidApp

// Prints what `validate()` reports for every case of the agreement test, one problem a line:
// `<case> <kind> <dependency>` (a cycle lists its members, sorted). scripts/test-plugin.sh
// prints the static check's findings in the same form and compares the two.

/// One line per problem, in the form the static side prints.
func lines(_ name: String, _ report: ValidationReport) -> [String] {
  report.problems.map { problem in
    let members =
      problem.kind == .cycle
      ? Set(problem.path.map(\.name)).sorted()
      : [problem.dependency.name]
    return "\(name) \(problem.kind.rawValue) \(members.joined(separator: ","))"
  }
}

let cases: [(String, Container, [PartialKeyPath<Dependencies>])] = [
  ("Missing", MissingApp.container(), MissingApp.keys),
  ("Cycle", CycleApp.container(), CycleApp.keys),
  ("Captive", CaptiveApp.container(), CaptiveApp.keys),
  ("Valid", ValidApp.container(), ValidApp.keys),
  ("Dynamic", DynamicApp.container(), DynamicApp.keys),
  ("Injected", InjectedApp.container(), InjectedApp.keys),
]
var output: Set<String> = []
for (name, container, keys) in cases {
  let report = await container.validate(including: keys)
  output.formUnion(lines(name, report))
  output.insert("\(name) checked")
}
print(output.sorted().joined(separator: "\n"))
