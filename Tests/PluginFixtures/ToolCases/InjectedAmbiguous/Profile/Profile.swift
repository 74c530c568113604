import Knapsack

public final class Avatar: Sendable { public init() {} }

public struct Screen: Sendable {
  @Injected(type: Avatar.self) var avatar: Avatar
  public init() {}
}
