import Foundation
import Knapsack
import Synchronization
import Testing

protocol NearMatchRaceStore: Sendable {}
struct NearMatchRaceSQLite: NearMatchRaceStore {}

@Suite struct NearMatchConcurrencyTests {
  /// Errors about a missing existential read their near matches on three threads while a fourth
  /// registers conforming types: an error whose descriptor snapshot is older than the conformance
  /// cache (extended meanwhile by another error) must skip the newer indices, not index past its
  /// snapshot (it crashed with "Index out of range" in NearMatchGroup.precedes, 2 runs in 3).
  @Test func nearMatchesOfAnExistentialWhileConformingTypesAreRegistered() throws {
    let container = Container()
    container.register(type: NearMatchRaceSQLite.self, name: "zzzz") { _ in NearMatchRaceSQLite() }
    let done = Atomic<Bool>(false)
    let group = DispatchGroup()
    for _ in 0..<3 {
      group.enter()
      Thread.detachNewThread {
        while !done.load(ordering: .relaxed) {
          do { _ = try container.resolve(type: (any NearMatchRaceStore).self, name: nil) } catch let error
            as ResolutionError
          {
            _ = error.nearMatches
          } catch {}
        }
        group.leave()
      }
    }
    for i in 0..<4000 {
      // Each new name sorts first.
      container.register(type: NearMatchRaceSQLite.self, name: String(format: "%08d", 99_999_999 - i)) { _ in
        NearMatchRaceSQLite()
      }
    }
    done.store(true, ordering: .relaxed)
    group.wait()
  }
}
