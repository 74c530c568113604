import CycleKeys
public import Knapsack

/// The app of the "cycle across two modules" case.
public enum CycleApp {
  /// The app's container.
  public static func container() -> Container {
    let container = Container()
    container.register(\.alpha) { r in Alpha(beta: try r[\.beta]) }
    return container
  }

  /// Every key of the case, for `validate(including:)`.
  public static var keys: [PartialKeyPath<Dependencies>] { [\.alpha, \.beta] }
}
