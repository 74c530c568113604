/// A value type in a file that names none of the words the check looks for: the check does not
/// parse this file, but still knows `Session` is a struct, so a singleton may keep one.
public struct Session: Sendable {
  public init() {}
  struct Token {}
}

@available(macOS 10.15, *) public struct Stamp: Sendable {
  public init() {}
}
