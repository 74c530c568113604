public import Common
public import Knapsack

/// The to-do feature's registrations: the app's storage, shared by every screen.
public struct TodoListAssembly: Assembly, Sendable {
  let storage: any LocalStorage

  public init(storage: any LocalStorage) {
    self.storage = storage
  }

  // showcase:begin The assembly: the one registration the app supplies, its storage
  public func assemble(into container: Container) {
    container.register(\.todoStorage, scope: .singleton) { [storage] in storage }
  }
  // showcase:end
}
