import DynamicKeys
public import Knapsack

/// The app of the "dynamic registration" case: secrets registered in a loop over key paths.
public enum DynamicApp {
  /// The app's container.
  public static func container() -> Container {
    let container = Container()
    let secrets: [KeyPath<Dependencies, Key<String>>: String] = [\.token: "s3cret"]
    for (key, value) in secrets {
      container.register(key) { value }
    }
    return container
  }

  /// Every key of the case, for `validate(including:)`.
  public static var keys: [PartialKeyPath<Dependencies>] { [\.token, \.header] }
}
