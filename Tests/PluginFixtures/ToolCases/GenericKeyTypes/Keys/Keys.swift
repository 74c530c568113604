import Knapsack

public struct Profile: Sendable {
  public let id: Int
}

extension Dependencies {
  public var profile: DependencyKey<AsyncKind, Int, Profile> { .required() }
  public var screen: DependencyKey<MainActorKind, Int, Profile> { .required() }
  public var plugins: MultibindingKey<SyncKind, String> { Multibinding<String>() }
  public var session: ArgumentKey<Int, Profile> { .required() }
  public var account: DependencyKey<SyncKind, Void, Profile> { .required() }
}
