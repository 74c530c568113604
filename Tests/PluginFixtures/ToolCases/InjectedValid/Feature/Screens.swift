import Keys
import Knapsack

/// Every form of the attribute, each resolving something the graph provides.
public struct TodoScreen: Sendable {
  @Injected(\.storage) var storage: any LocalStorage
  @Injected(\Dependencies.profile, argument: 7) var profile: Profile
  @Knapsack.Injected(type: Clock.self, name: "wall", container: .shared) var clock: Clock
  @Injected(name: "wall") var sameClock: Clock
  #if DEBUG
  @Injected(\.logger) var logger: Logger
  #endif
  public init() {}
}

public enum API {
  /// `API.Screen`: made as `Screen()` inside `extension API`.
  public struct Screen: Sendable {
    @Injected(\.logger) var logger: Logger
    public init() {}
  }
}

extension API {
  public static func register(in container: Container) {
    container.register(\.apiScreen, scope: .singleton) { Screen() }
  }
}

extension Dependencies {
  public var todoScreen: Key<TodoScreen> { Key { TodoScreen() } }
  public var apiScreen: Key<API.Screen> { .required() }
}
