import Testing

@testable import Knapsack

// What a container leaves behind once it is gone: these bounds are internal state, so these tests
// read it directly (as the few other files that import Knapsack as testable do, each for internal
// state that no public API shows).

extension Dependencies {
  var retentionNumbers: Multibinding<Int> { Multibinding() }
  var retentionValue: Key<Int> { Key { 0 } }
  /// A key with a subscript argument: its key path is a new object each time it is evaluated.
  subscript(retentionSlot slot: Int) -> Key<Int> { Key { slot } }
  var retentionAppended: Key<Int> { Key { 11 } }
}

/// Contributes `value` to `\.retentionNumbers` from one line: the same site every call.
private func contributeFromOneSite(_ container: Container, _ value: Int) {
  container.contribute(to: \.retentionNumbers) { _ in value }
}

/// Like `contributeFromOneSite`, from a site of its own, which only the test of index reuse
/// contributes from: no test running beside it can take the index it frees.
private func contributeFromTheReuseSite(_ container: Container, _ value: Int) {
  container.contribute(to: \.retentionNumbers) { _ in value }
}

@Suite struct RetentionTests {
  /// The plan of a key whose index is above the table's directly indexed range is kept like any
  /// other: resolving it again reuses the container's cached route (there is no limit on the
  /// number of keys a container caches).
  @Test func aKeyAboveTheDirectRangeIsCachedToo() throws {
    let container = Container()
    for index in 0..<70_000 {
      container.register(type: Int.self, name: "retention many \(index)") { index }
    }
    let index = KeyTable.index(of: Int.self, name: "retention many 69999")
    try #require(index >= SlotTable<Slot>.directCapacity, "index \(index)")
    #expect(container.slots.load(index) == nil, "not planned before its first resolution")
    #expect(try container.resolve(type: Int.self, name: "retention many 69999") == 69_999)
    let planned = try #require(container.slots.load(index), "the first resolution cached its route")
    #expect(try container.resolve(type: Int.self, name: "retention many 69999") == 69_999)
    #expect(container.slots.load(index) === planned, "the second resolution reused it")
  }

  /// A key path with a subscript argument, or one built with `appending`, is a new object each
  /// time: resolving through it many times keeps a bounded number of them, and still resolves.
  @Test func keyPathsThatAreNewObjectsEachTimeAreRememberedABoundedNumberOfTimes() throws {
    let container = Container()
    for _ in 0..<(KeyTable.rememberedPerKey + 200) {
      #expect(try container.resolve(\.[retentionSlot: 424_242]) == 424_242)
      let appended: KeyPath<Dependencies, Key<Int>> = (\Dependencies.self).appending(path: \.retentionAppended)
      #expect(try container.resolve(appended) == 11)
    }
    let slot = KeyTable.index(of: \Dependencies.[retentionSlot: 424_242])
    let appended = KeyTable.index(of: \Dependencies.retentionAppended)
    #expect(KeyTable.shared.rememberedCount(of: slot) == KeyTable.rememberedPerKey)
    #expect(KeyTable.shared.rememberedCount(of: appended) <= KeyTable.rememberedPerKey)
  }

  @Test func retiringInOneContainerAdvancesOnlyItsOwnEpoch() throws {
    // Readers announce the epoch of the container they read: a container whose registrations
    // keep changing must not touch what readers of another one read.
    let quiet = Container()
    let busy = Container()
    #expect(try quiet.resolve(\.retentionValue) == 0)
    #expect(try busy.resolve(\.retentionValue) == 0)
    let quietEpoch = quiet.slots.epoch
    let busyEpoch = busy.slots.epoch
    for value in 1...10 {
      busy.register(\.retentionValue) { value }
      #expect(try busy.resolve(\.retentionValue) == value)
    }
    #expect(busy.slots.epoch > busyEpoch)
    #expect(quiet.slots.epoch == quietEpoch)
    #expect(try quiet.resolve(\.retentionValue) == 0)
  }

  @Test func aNewContainersEpochStartsAboveEveryDroppedOnesEpoch() throws {
    // A running read section may still list a dropped container's table whose address a new
    // table reuses, with the old table's epoch: new epochs start above every old one, so that
    // entry never looks newer than what the new table retires.
    var reached: UInt64 = 0
    do {
      let dropped = Container()
      for value in 1...20 {
        dropped.register(\.retentionValue) { value }
        #expect(try dropped.resolve(\.retentionValue) == value)
      }
      reached = dropped.slots.epoch
    }
    #expect(reached > 1)
    #expect(Container().slots.epoch > reached)
  }

  @Test func aParentForgetsTheChildrenThatAreGone() {
    let parent = Container()
    let kept = (0..<3).map { _ in parent.makeChild() }
    for _ in 0..<1_000 { _ = parent.makeChild() }
    #expect(parent.state.withLock { $0.children.count } < 32)
    #expect(parent.plans.dependents.withLock { $0.count } < 32)
    #expect(parent.state.withLock { $0.children.objects }.count == kept.count)
  }

  @Test func contributionsIntoContainersThatAreGoneReuseTheirIndices() throws {
    let first = try contributionIndex(of: Container())
    var reused = false
    // The site is this test's own, so the first round should get the index back; the rounds
    // only allow for a container freed a moment late.
    for _ in 0..<100 where !reused { reused = try contributionIndex(of: Container()) == first }
    #expect(reused)
  }

  @Test func contributionsFromOnePlaceStayApartInOneContainerAndAcrossParentAndChild() throws {
    let parent = Container()
    contributeFromOneSite(parent, 1)
    contributeFromOneSite(parent, 2)
    let child = parent.makeChild()
    contributeFromOneSite(child, 3)
    #expect(try parent.resolve(\.retentionNumbers) == [1, 2])
    #expect(try child.resolve(\.retentionNumbers) == [1, 2, 3])
    let overridden = try withOverrides {
      contributeFromOneSite($0, 4)
    } operation: {
      try child.resolve(\.retentionNumbers)
    }
    #expect(overridden == [1, 2, 3, 4])
  }

  /// The index of the one contribution `contributeFromTheReuseSite` makes into `container`,
  /// which is then dropped.
  private func contributionIndex(of container: Container) throws -> Int {
    contributeFromTheReuseSite(container, 0)
    #expect(try container.resolve(\.retentionNumbers) == [0])
    let key = KeyTable.index(of: \Dependencies.retentionNumbers)
    return try #require(container.state.withLock { $0.contributions[key]?.first?.index })
  }
}
