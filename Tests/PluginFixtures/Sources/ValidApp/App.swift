public import Knapsack
import ValidKeys

/// The app of the "everything valid" case: a key-path and a type registration, in an assembly
/// and a child container.
public enum ValidApp {
  /// Registers the user name.
  struct NameAssembly: Assembly {
    func assemble(into container: Container) {
      container.register(\.userName, scope: .singleton) { "Ada" }
    }
  }

  /// The app's container: a child of a parent that holds the type registration.
  public static func container() -> Container {
    let parent = Container()
    parent.register(Format.self, name: "short", scope: .singleton) { Format() }
    let child = parent.makeChild()
    NameAssembly().assemble(into: child)
    return child
  }

  /// Every key of the case, for `validate(including:)`.
  public static let keys: [PartialKeyPath<Dependencies>] = [\.userName, \.label, \.banner]
}
