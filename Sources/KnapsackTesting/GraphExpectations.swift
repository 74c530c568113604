public import Knapsack
public import Testing

/// Records one test issue per problem in `container`'s dependency graph; passes when
/// `Container.validate(including:)` finds none. One line makes "my app's graph is
/// valid" a test:
///
/// ```swift
/// @Test func appGraphIsValid() {
///   expectValidGraph(AppComposition.makeContainer())
/// }
/// ```
///
/// Each issue carries the problem's full description: kind, dependency, declaration and
/// registration sites, and the resolution path.
@discardableResult
public func expectValidGraph(
  _ container: Container, including keys: [PartialKeyPath<Dependencies>] = [],
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> ValidationReport {
  let report = container.validate(including: keys)
  for problem in report.problems {
    Issue.record(Comment(rawValue: problem.description), sourceLocation: sourceLocation)
  }
  return report
}
