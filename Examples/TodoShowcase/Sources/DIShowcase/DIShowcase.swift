@_exported public import Common
@_exported public import ManualDIToDoList
@_exported public import Storage
@_exported public import ThirdPartyDIToDoList

/// The four DI styles side by side, all on one storage.
///
/// This is the only module the app imports: it re-exports the shared model, the stores and
/// every feature module.
public enum Showcase {
  /// The styles in tab order.
  public static let styles: [DIStyle] = [
    ManualDIToDoListFactory.style,
    ThirdPartyDIToDoListFactory.style,
  ]

  /// Makes the screen of the style with this id on `storage`, or `nil` for an unknown id.
  public static func makeScreen(styleID: String, storage: any LocalStorage) -> TodoListScreen? {
    switch styleID {
    case ManualDIToDoListFactory.style.id: ManualDIToDoListFactory.make(storage: storage)
    case ThirdPartyDIToDoListFactory.style.id: ThirdPartyDIToDoListFactory.make(storage: storage)
    default: nil
    }
  }
}
