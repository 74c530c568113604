import InjectedKeys
public import Knapsack

/// The app of the "`@Injected` properties of instances that factories make" case: it registers
/// nothing, and validates the keys that make the instances, not the clock their properties need.
public enum InjectedApp {
  /// The app's container.
  public static func container() -> Container { Container() }

  /// The keys whose factories make instances with `@Injected` or `@LazyInjected` properties, for
  /// `validate(including:)`: `\.wallClock` is found through the screen's property.
  public static var keys: [PartialKeyPath<Dependencies>] {
    [\.screen, \.dashboard, \.loopScreen, \.lazyDashboard, \.lazyStorage]
  }
}
