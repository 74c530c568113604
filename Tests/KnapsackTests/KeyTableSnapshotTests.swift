import Foundation
import Testing

@testable import Knapsack

/// The key table's snapshot of every descriptor, which the near matches of an error take: held
/// while new dependencies are registered, it must not make each registration copy the table.
@Suite struct KeyTableSnapshotTests {
  private struct SnapshotProbe {}

  @Test func aSnapshotHeldWhileThousandsOfTypesAreRegisteredIsNeitherChangedNorCopied() throws {
    let table = KeyTable.shared
    let container = Container()
    container.register(type: Token.self, name: "snapshot probe 0") { Token() }
    let before = table.descriptors
    let names = (1...3000).map { "snapshot probe \($0)" }
    for name in names { container.register(type: Token.self, name: name) { Token() } }
    let after = table.descriptors
    // What the first snapshot covers is what it held, and the same storage: the table added to
    // it in place, where an array would have been copied on the first addition.
    #expect(before.count < after.count)
    #expect(before.count + names.count <= after.count)
    try #require(!before.pages.isEmpty)
    for page in before.pages.indices.dropLast() { #expect(before.pages[page] === after.pages[page]) }
    #expect(before.pages.last === after.pages[before.pages.count - 1])
    for index in stride(from: 0, to: before.count, by: 97) {
      #expect(before[index].displayName == after[index].displayName)
    }
    let probe = KeyTable.index(of: Token.self, name: "snapshot probe 3000")
    #expect(probe >= before.count && probe < after.count)
    #expect(after[probe].displayName == #"Token (name: "snapshot probe 3000")"#)
  }

  /// Near matches read the snapshot while another thread registers: each sees the descriptors
  /// of its own snapshot, and the registrations all land.
  @Test func nearMatchesReadWhileAnotherThreadRegistersNewTypes() async throws {
    let container = Container()
    container.register(type: SnapshotProbe.self, name: "registered") { SnapshotProbe() }
    let registering = ThreadGroup(count: 1) { _ in
      for number in 0..<2000 {
        container.register(type: SnapshotProbe.self, name: "racing \(number)") { SnapshotProbe() }
      }
    }
    var suggestions = 0
    for _ in 0..<200 {
      do {
        _ = try container.resolve(type: SnapshotProbe.self)
      } catch let error as ResolutionError {
        suggestions += error.nearMatches.isEmpty ? 0 : 1
      }
    }
    #expect(await registering.join())
    #expect(suggestions == 200)
    // The last registration landed: resolving it throws otherwise.
    _ = try container.resolve(type: SnapshotProbe.self, name: "racing 1999")
  }
}
