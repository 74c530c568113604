import Foundation
import Knapsack
import Testing

// Found by using the library as a new user would, in a five-module app outside the repository.

final class H1Node: Sendable {
  let child: H1Node?
  init(child: H1Node?) { self.child = child }
}

extension Dependencies {
  /// Walks down from its argument, then asks for 1 again: a cycle that starts mid-path.
  var h1Countdown: ArgumentKey<Int, H1Node> {
    ArgumentKey { r, n in H1Node(child: try r.resolve(\.h1Countdown, argument: n > 1 ? n - 1 : 1)) }
  }
  var h1Ping: ArgumentKey<Int, H1Node> { ArgumentKey { r, n in H1Node(child: try r.resolve(\.h1Pong, argument: n)) } }
  var h1Pong: ArgumentKey<Int, H1Node> { ArgumentKey { r, n in H1Node(child: try r.resolve(\.h1Ping, argument: n)) } }
}

@Suite struct HuntH1Tests {
  /// A decoded error says what the error said: the arguments its path's steps were made for
  /// included. Without them, `\.h1Countdown(3) → \.h1Countdown(2) → \.h1Countdown(1) →
  /// \.h1Countdown(1)` decoded as four equal steps, a loop from the first.
  @Test func aDecodedErrorKeepsTheArgumentsOfItsPath() throws {
    let container = Container()
    let countdown = try #require(throws: ResolutionError.self) { try container.resolve(\.h1Countdown, argument: 3) }
    #expect(countdown.description.contains("\\.h1Countdown(1) → \\.h1Countdown(1) (reached from"), "\(countdown)")
    let pingPong = try #require(throws: ResolutionError.self) { try container.resolve(\.h1Ping, argument: 7) }
    for error in [countdown, pingPong] {
      let decoded = try JSONDecoder().decode(ResolutionError.self, from: JSONEncoder().encode(error))
      #expect(decoded == error)
      #expect(decoded.description == error.description)
      #expect(decoded.pathDescription == error.pathDescription)
      // Encoded again, it still says the same.
      let again = try JSONDecoder().decode(ResolutionError.self, from: JSONEncoder().encode(decoded))
      #expect(again.description == error.description)
    }
  }
}
