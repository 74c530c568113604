import Foundation
import Knapsack
import Testing

extension Dependencies {
  var spsTop: Key<String> {
    Key { r in
      Thread.sleep(forTimeInterval: 0.02)
      return "top:" + (try r[\.spsMiddle])
    }
  }
  var spsMiddle: Key<String> { .required() }
}

/// Records nothing: an observer of its own on a child container.
private struct SpsSilentObserver: ResolutionObserver {
  func didResolve(_ event: ResolutionEvent) {}
}

@Suite struct StartupProfilerStaleSpanTests {
  /// A child with an observer of its own resolves `\.spsTop`, whose parent-kept singleton
  /// `\.spsMiddle` the parent's profiler sees as asked for by `\.spsTop`; that span must not be
  /// subtracted from a later, separate resolution of `\.spsTop` in the parent.
  @Test func aSpanFromAnotherResolutionIsNotSubtracted() throws {
    let parent = Container()
    parent.register(\.spsMiddle, scope: .singleton) {
      Thread.sleep(forTimeInterval: 0.06)
      return "middle"
    }
    let profiler = StartupProfiler()
    parent.observe(profiler)
    let child = parent.makeChild()
    child.observe(SpsSilentObserver())
    _ = try child[\.spsTop]
    _ = try parent[\.spsTop]
    let top = try #require(profiler.slowestFactories.first { $0.dependency.name == "\\.spsTop" })
    #expect(top.selfDuration >= .milliseconds(15), "\(profiler.report())")
  }
}
