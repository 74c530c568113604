import CaptiveKeys
public import Knapsack

/// The app of the "captive singleton" case: it uses the defaults.
public enum CaptiveApp {
  /// The app's container.
  public static func container() -> Container { Container() }

  /// Every key of the case, for `validate(including:)`.
  public static var keys: [PartialKeyPath<Dependencies>] {
    [\.session, \.sessionCache, \.sharedSession, \.currentSession, \.sharedSessionCache]
  }
}
