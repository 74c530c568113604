/// A place in source code: where a key was declared or a registration was made.
public struct CodeLocation: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The file, as `#fileID` gives it (`Module/File.swift`).
  public let fileID: String
  /// The line in that file.
  public let line: Int

  /// Creates a location from a file identifier and a line.
  public init(fileID: String, line: Int) {
    self.fileID = fileID
    self.line = line
  }

  init(_ fileID: StaticString, _ line: UInt) {
    self.fileID = "\(fileID)"
    self.line = Int(line)
  }

  /// `Module/File.swift:12`.
  public var description: String { "\(fileID):\(line)" }
}
