public import Knapsack
import MissingKeys

/// The app of the "missing required key in a low-level module" case: it registers nothing.
public enum MissingApp {
  /// The app's container.
  public static func container() -> Container { Container() }

  /// Every key of the case, for `validate(including:)`.
  public static var keys: [PartialKeyPath<Dependencies>] { [\.clock, \.greeter] }
}
