import Foundation
import Testing

@testable import Knapsack

/// The chain of containers whose disposal a task runs (``DisposalChain``): a list each nested
/// disposal extends by one link, where it was an array copied at each level (quadratic in a line
/// of nested children).
@Suite struct DisposalChainTests {
  @Test func aChainFindsEachOfItsContainersAndNoOther() {
    let containers = (0..<5).map { _ in Container() }
    var chain: DisposalChain?
    for container in containers { chain = DisposalChain(container, outer: chain) }
    #expect(containers.allSatisfy { chain?.contains($0) == true })
    #expect(chain?.contains(Container()) == false)
    #expect(chain?.container === containers[4])
  }

  /// Freed link by link, a chain longer than any line of nested children leaves a 512 KiB
  /// thread's stack alone: freed recursively, each link would take a stack frame.
  @Test func aLongChainIsFreedWithoutRecursion() async {
    let container = Container()
    let freed = await onThread(stackSize: 512 * 1024) { () -> Bool in
      var chain: DisposalChain?
      for _ in 0..<300_000 { chain = DisposalChain(container, outer: chain) }
      weak let innermost = chain
      chain = nil
      return innermost == nil
    }
    #expect(freed)
  }

  /// Freeing a chain stops at a link that something else still holds: that link, and the links
  /// it extends, stay whole.
  @Test func freeingAChainKeepsALinkHeldElsewhereWhole() {
    let root = Container()
    let middle = Container()
    let shared = DisposalChain(middle, outer: DisposalChain(root, outer: nil))
    var chain: DisposalChain? = DisposalChain(Container(), outer: DisposalChain(Container(), outer: shared))
    weak let weakChain = chain
    chain = nil
    #expect(weakChain == nil)
    #expect(shared.contains(root))
    #expect(shared.contains(middle))
  }
}
