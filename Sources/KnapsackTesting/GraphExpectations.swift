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
  return report
}
