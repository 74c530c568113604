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

  /// The app's container: a child of the parent that holds the registrations. (A key that only a
  /// child registers, resolved by a parent's singleton, is a captive dependency that only
  /// `validate()` sees: the static check does not know which container a registration is in.)
  public static func container() -> Container {
    let parent = Container()
    parent.register(type: Format.self, name: "short", scope: .singleton) { Format() }
    NameAssembly().assemble(into: parent)
    return parent.makeChild()
  }

  /// Every key of the case, for `validate(including:)`.
  public static var keys: [PartialKeyPath<Dependencies>] { [\.userName, \.label, \.banner] }
}
