public import Knapsack
public import Testing

/// Records one test issue per problem in `container`'s dependency graph; passes when
/// `Container.validate(including:arguments:)` finds none. One line makes "my app's graph is
/// valid" a test:
///
/// ```swift
/// @Test func appGraphIsValid() async {
///   await expectValidGraph(AppComposition.makeContainer())
/// }
/// ```
///
/// Each issue carries the problem's full description: kind, dependency, declaration and
/// registration sites, and the resolution path.
///
/// What the dry run could not call is not silently passed: registrations made with
/// `hasSideEffects: true` and argument keys that no sample in `arguments` was given for are named
/// in one issue of `warning` severity, which shows in the test output without failing the test.
@discardableResult
public func expectValidGraph(
  _ container: Container, including keys: [PartialKeyPath<Dependencies>] = [],
  arguments: [PartialKeyPath<Dependencies>: any Sendable] = [:],
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) async -> ValidationReport {
  let report = await container.validate(including: keys, arguments: arguments)
  for problem in report.problems {
    Issue.record(Comment(rawValue: problem.description), sourceLocation: sourceLocation)
  }
  if let notRun = notRunComment(report) {
    Issue.record(notRun, severity: .warning, sourceLocation: sourceLocation)
  }
  return report
}

/// What the dry run of `report` could not call, by name; nil when it called everything.
func notRunComment(_ report: ValidationReport) -> Comment? {
  var lines: [String] = []
  if !report.needsSampleArgument.isEmpty {
    lines.append(
      "not run, no sample argument (pass one in `arguments:`): "
        + report.needsSampleArgument.map(\.name).joined(separator: ", "))
  }
  if !report.skipped.isEmpty {
    lines.append(
      "not run, or stopped at a registration with side effects: " + report.skipped.map(\.name).joined(separator: ", "))
  }
  guard !lines.isEmpty else { return nil }
  return Comment(
    rawValue: "Knapsack validation did not call every factory; their dependencies are unchecked.\n"
      + lines.joined(separator: "\n"))
}
