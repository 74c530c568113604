import Foundation
import Knapsack
import Testing

// A registration into a container reaches the plans of every container below it that planned
// something, however far down, and however many containers between them never planned anything:
// an invalidation skips only the lines of containers where nothing planned.

@Suite struct HuntBLineOfChildrenTests {
  @Test func aRegistrationReachesAGrandchildBelowAChildThatNeverPlanned() throws {
    let parent = Container()
    let child = parent.makeChild()
    let grandchild = child.makeChild()
    parent.register(\.huntBUnique) { HuntBBox("first") }
    #expect(try grandchild[\.huntBUnique].tag == "first")
    parent.register(\.huntBUnique) { HuntBBox("second") }
    #expect(try grandchild[\.huntBUnique].tag == "second")
    #expect(try child[\.huntBUnique].tag == "second")
  }

  @Test func aRegistrationReachesTheEndOfALongLineThatPlannedOnlyThere() throws {
    let root = Container()
    var line = [root]
    for _ in 0..<2_000 { line.append(line[line.count - 1].makeChild()) }
    let last = line[line.count - 1]
    let middle = line[1_000]
    root.register(\.huntBShared, scope: .singleton) { HuntBBox("first") }
    let first = try last[\.huntBShared]
    #expect(first.tag == "first")
    root.register(\.huntBShared, scope: .singleton) { HuntBBox("second") }
    #expect(try last[\.huntBShared].tag == "second")
    // A registration halfway down reaches the end too, and not the root.
    middle.register(\.huntBShared, scope: .singleton) { HuntBBox("middle") }
    #expect(try last[\.huntBShared].tag == "middle")
    #expect(try root[\.huntBShared].tag == "second")
    // A decorator and a contribution high up reach it as well.
    line[10].decorate(\.huntBShared) { _, box in HuntBBox("decorated " + box.tag) }
    #expect(try last[\.huntBShared].tag == "decorated middle")
    line[5].contribute(to: \.huntBPlugins) { _ in HuntBBox("plugin") }
    #expect(try last[\.huntBPlugins].map(\.tag) == ["plugin"])
  }

  @Test func aReplacedRegistrationIsFreedFromTheEndOfALine() async throws {
    let root = Container()
    var line = [root]
    for _ in 0..<500 { line.append(line[line.count - 1].makeChild()) }
    let watch = HuntBWatch()
    do {
      let captured = watch.watch("captured", HuntBBox("captured"))
      root.register(\.huntBUnique, scope: .unique) { HuntBBox("old", captured: captured) }
      _ = try line[line.count - 1][\.huntBUnique]
    }
    root.register(\.huntBUnique) { HuntBBox("new") }
    #expect(try line[line.count - 1][\.huntBUnique].tag == "new")
    #expect(await freedSoon { watch.alive == [] })
  }

  @Test func aRegistrationReachesAScopesCopyOfAGrandchild() async throws {
    let parent = Container()
    let child = parent.makeChild()
    let grandchild = child.makeChild()
    parent.register(\.huntBUnique) { HuntBBox("first") }
    let tags = try await withOverrides {
      $0.register(\.huntBShared) { HuntBBox("scoped") }
    } operation: {
      let before = try grandchild[\.huntBUnique].tag
      parent.register(\.huntBUnique) { HuntBBox("second") }
      return [before, try grandchild[\.huntBUnique].tag, try grandchild[\.huntBShared].tag]
    }
    #expect(tags == ["first", "second", "scoped"])
  }

  @Test func registeringWhileLinesBelowPlanConcurrentlyIsSeenByEveryLine() async throws {
    // Lines of children are made and resolve for the first time while the root registers again
    // and again: every resolution after the last registration sees it.
    let root = Container()
    root.register(type: Int.self, name: "huntB line value") { 0 }
    let lines = (0..<8).map { _ -> [Container] in
      var line = [root.makeChild()]
      for _ in 0..<50 { line.append(line[line.count - 1].makeChild()) }
      return line
    }
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for value in 1...200 { root.register(type: Int.self, name: "huntB line value") { value } }
      }
      for line in lines {
        group.addTask {
          for container in line.reversed() { _ = try? container.resolve(type: Int.self, name: "huntB line value") }
        }
      }
    }
    for line in lines {
      for container in [line[0], line[25], line[50]] {
        #expect(try container.resolve(type: Int.self, name: "huntB line value") == 200)
      }
    }
  }
}
