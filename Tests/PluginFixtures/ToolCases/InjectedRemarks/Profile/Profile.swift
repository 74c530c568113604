import Knapsack

public final class Avatar: Sendable { public init() {} }
public final class Theme: Sendable { public init() {} }

public struct Screen: Sendable {
  @Injected(type: Avatar.self) var avatar: Avatar
  public init() {}
}

/// What an attribute computes at run time is not followed: a remark at the property.
public struct Settings: Sendable {
  static let themeKey = \Dependencies.theme
  @Injected(Settings.themeKey) var theme: Theme
  @Injected(type: Theme.self, name: Settings.themeName) var named: Theme
  static let themeName = "dark"
  public init() {}
}

extension Dependencies {
  public var theme: Key<Theme> { Key { Theme() } }
  public var settings: Key<Settings> { Key { Settings() } }
}
