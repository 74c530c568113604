import Foundation
import Knapsack
import Testing

// A registration into a container reaches the plans of every container below it that planned
// something, however far down, and however many containers between them never planned anything:
// an invalidation skips only the lines of containers where nothing planned.

@Suite struct LineOfChildrenInvalidationTests {
  @Test func aRegistrationReachesAGrandchildBelowAChildThatNeverPlanned() throws {
    let parent = Container()
    let child = parent.makeChild()
    let grandchild = child.makeChild()
    parent.register(\.partUnique) { PartBox("first") }
    #expect(try grandchild[\.partUnique].tag == "first")
    parent.register(\.partUnique) { PartBox("second") }
    #expect(try grandchild[\.partUnique].tag == "second")
    #expect(try child[\.partUnique].tag == "second")
  }

  @Test func aRegistrationReachesTheEndOfALongLineThatPlannedOnlyThere() throws {
    let root = Container()
    var line = [root]
    for _ in 0..<2_000 { line.append(line[line.count - 1].makeChild()) }
    let last = line[line.count - 1]
    let middle = line[1_000]
    root.register(\.partShared, scope: .singleton) { PartBox("first") }
    let first = try last[\.partShared]
    #expect(first.tag == "first")
    root.register(\.partShared, scope: .singleton) { PartBox("second") }
    #expect(try last[\.partShared].tag == "second")
    // A registration halfway down reaches the end too, and not the root.
    middle.register(\.partShared, scope: .singleton) { PartBox("middle") }
    #expect(try last[\.partShared].tag == "middle")
    #expect(try root[\.partShared].tag == "second")
    // A decorator and a contribution high up reach it as well.
    line[10].decorate(\.partShared) { _, box in PartBox("decorated " + box.tag) }
    #expect(try last[\.partShared].tag == "decorated middle")
    line[5].contribute(to: \.partPlugins) { _ in PartBox("plugin") }
    #expect(try last[\.partPlugins].map(\.tag) == ["plugin"])
  }

  @Test func aReplacedRegistrationIsFreedFromTheEndOfALine() async throws {
    let root = Container()
    var line = [root]
    for _ in 0..<500 { line.append(line[line.count - 1].makeChild()) }
    let watch = PartWatch()
    do {
      let captured = watch.watch("captured", PartBox("captured"))
      root.register(\.partUnique, scope: .unique) { PartBox("old", captured: captured) }
      _ = try line[line.count - 1][\.partUnique]
    }
    root.register(\.partUnique) { PartBox("new") }
    #expect(try line[line.count - 1][\.partUnique].tag == "new")
    #expect(await freedSoon { watch.alive == [] })
  }

  @Test func aRegistrationReachesAScopesCopyOfAGrandchild() async throws {
    let parent = Container()
    let child = parent.makeChild()
    let grandchild = child.makeChild()
    parent.register(\.partUnique) { PartBox("first") }
    let tags = try await withOverrides {
      $0.register(\.partShared) { PartBox("scoped") }
    } operation: {
      let before = try grandchild[\.partUnique].tag
      parent.register(\.partUnique) { PartBox("second") }
      return [before, try grandchild[\.partUnique].tag, try grandchild[\.partShared].tag]
    }
    #expect(tags == ["first", "second", "scoped"])
  }

  @Test func registeringWhileLinesBelowPlanConcurrentlyIsSeenByEveryLine() async throws {
    // Lines of children are made and resolve for the first time while the root registers again
    // and again: every resolution after the last registration sees it.
    let root = Container()
    root.register(type: Int.self, name: "part line value") { 0 }
    let lines = (0..<8).map { _ -> [Container] in
      var line = [root.makeChild()]
      for _ in 0..<50 { line.append(line[line.count - 1].makeChild()) }
      return line
    }
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for value in 1...200 { root.register(type: Int.self, name: "part line value") { value } }
      }
      for line in lines {
        group.addTask {
          for container in line.reversed() { _ = try? container.resolve(type: Int.self, name: "part line value") }
        }
      }
    }
    for line in lines {
      for container in [line[0], line[25], line[50]] {
        #expect(try container.resolve(type: Int.self, name: "part line value") == 200)
      }
    }
  }
}
