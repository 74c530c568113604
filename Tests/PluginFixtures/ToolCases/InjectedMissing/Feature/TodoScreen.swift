/// Names no Knapsack API but `Injected`: read all the same.
public struct TodoScreen: Sendable {
  @Injected(\.storage) var storage: any LocalStorage
  /// Nobody registers a wall clock: an error here, naming the factory's call that makes the screen.
  @Injected(type: Clock.self, name: "wall") var clock: any Clock
  public init() {}
}
