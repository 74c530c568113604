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

/// The line of the user's code that asked for a dependency, as the call's defaults give it: kept
/// as it is passed (no `String` is made) until an error names it.
@usableFromInline
struct CallSite: Sendable {
  @usableFromInline let fileID: StaticString
  @usableFromInline let line: UInt

  @inlinable
  init(_ fileID: StaticString, _ line: UInt) {
    self.fileID = fileID
    self.line = line
  }

  var location: CodeLocation { CodeLocation(fileID, line) }
}
