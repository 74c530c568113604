import CaptiveKeys
public import Knapsack

/// The app of the "captive singleton" case: it uses the defaults, and contributes one session
/// to a list that a singleton keeps.
public enum CaptiveApp {
  /// The app's container.
  public static func container() -> Container {
    let container = Container()
    container.contribute(to: \.sessions) { _ in Session() }
    return container
  }

  /// Every key of the case, for `validate(including:)`.
  public static var keys: [PartialKeyPath<Dependencies>] {
    [\.session, \.sessionCache, \.sharedSession, \.currentSession, \.sharedSessionCache, \.sessionArchive]
  }
}
