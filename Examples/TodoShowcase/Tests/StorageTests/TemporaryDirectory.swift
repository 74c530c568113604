import Foundation

/// A fresh folder under the system's temporary directory, removed when the test is done.
struct TemporaryDirectory: ~Copyable {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("todo-showcase-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(at: url)
  }

  func file(_ name: String) -> URL {
    url.appendingPathComponent(name)
  }

  /// The names of the files in the folder.
  func contents() throws -> Set<String> {
    Set(try FileManager.default.contentsOfDirectory(atPath: url.path))
  }
}

struct Note: Codable, Equatable {
  var text: String
  var count: Int
  var when: Date
}
