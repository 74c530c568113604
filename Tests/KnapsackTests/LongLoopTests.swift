import Foundation
import Knapsack
import Testing

// Below 64 levels every step looks for a loop; deeper, only every 64th does (a long chain costs
// linear time). A loop longer than that was found past its first repeat, and reported from the
// step where it was found: a loop of 100 keys read as one starting at its 29th key, "reached
// from" its first 28, themselves members, with a path of 129 steps. Found by a user-side review.

extension Dependencies {
  /// A loop of 100 keys: each asks for the next, the last for the first.
  subscript(longLoop step: Int) -> Key<Int> { Key { r in try r[\.[longLoop: (step + 1) % 100]] } }
  /// Three steps that lead into the loop above.
  subscript(longLoopEntry step: Int) -> Key<Int> {
    Key { r in step < 2 ? try r[\.[longLoopEntry: step + 1]] : try r[\.[longLoop: 0]] }
  }
}

@Suite struct LongLoopTests {
  @Test func aLoopLongerThanTheCheckIntervalIsReportedFromItsFirstMember() throws {
    let container = Container()
    let error = try #require(#expect(throws: ResolutionError.self) { try container[\.[longLoop: 0]] })
    #expect(error.kind == .cycle)
    // The loop and nothing more: its first key, the 99 others, and the first again.
    #expect(error.path.count == 101)
    #expect(error.path.first == error.path.last)
    #expect(Set(error.path.map(\.name)).count == 100)
    #expect(error.dependency == error.path.first)
    #expect(!error.description.contains("reached from"), "\(error)")
  }

  @Test func aLongLoopReachedFromOutsideListsOnlyTheStepsBeforeIt() throws {
    let container = Container()
    let error = try #require(#expect(throws: ResolutionError.self) { try container[\.[longLoopEntry: 0]] })
    #expect(error.kind == .cycle)
    #expect(error.path.count == 3 + 101)
    #expect(error.path[3] == error.path.last)
    #expect(Set(error.path.dropFirst(3).map(\.name)).count == 100)
    // The first line: the loop, then the three steps that led into it, and no member.
    let firstLine = error.description.prefix { $0 != "\n" }
    let reachedFrom = try #require(firstLine.range(of: "(reached from ")).upperBound
    let lead = firstLine[reachedFrom...]
    #expect(lead.components(separatedBy: " → ").count == 3, "\(firstLine)")
    #expect(!lead.contains("longLoop:)"), "\(firstLine)")
  }
}
