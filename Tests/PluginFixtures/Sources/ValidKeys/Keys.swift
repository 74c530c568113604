public import Knapsack

/// A value made anew for each use; a singleton may keep one.
public struct Label: Sendable {
  public let text: String

  public init(text: String) { self.text = text }
}

/// Kept for the container's life.
public final class Banner: Sendable {
  let label: Label
  let format: Format

  public init(label: Label, format: Format) {
    self.label = label
    self.format = format
  }
}

/// Registered by type and name.
public final class Format: Sendable {
  public init() {}
}

extension Dependencies {
  /// Provided by the app.
  public var userName: Key<String> { .required() }

  /// A unique value type.
  public var label: Key<Label> { Key { r in Label(text: try r[\.userName]) } }

  /// A singleton that keeps a unique struct, and a type registration.
  public var banner: Key<Banner> {
    Key { r in Banner(label: try r[\.label], format: try r.resolve(type: Format.self, name: "short")) }.scope(
      .singleton)
  }
}
