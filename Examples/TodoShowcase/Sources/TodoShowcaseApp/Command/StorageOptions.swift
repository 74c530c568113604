import ArgumentParser
import DIShowcase
import Foundation

/// The `--storage` values; the same names as ``StoreKind``.
enum StorageChoice: String, CaseIterable, ExpressibleByArgument {
  case sqlite, json, encrypted, memory

  var kind: StoreKind { StoreKind(rawValue: rawValue)! }
}

/// The storage flags every subcommand shares, so `add` and `list` see what `serve` serves.
struct StorageOptions: ParsableArguments {
  static let dataDirectoryVariable = "TODO_SHOWCASE_DATA_DIR"

  @Option(help: "Where items are kept.")
  var storage: StorageChoice = .sqlite

  @Option(
    name: .customLong("data-dir"),
    help: ArgumentHelp(
      "The folder for the store's files; created if missing.",
      discussion: """
        Defaults to $\(dataDirectoryVariable), else $XDG_DATA_HOME/todo-showcase, \
        else ~/.local/share/todo-showcase.
        """,
      valueName: "path"
    )
  )
  var dataDirectory: String?

  /// The data directory as an absolute URL.
  var dataDirectoryURL: URL {
    Self.resolveDataDirectory(dataDirectory, environment: ProcessInfo.processInfo.environment)
  }

  /// `--data-dir` if given, else the environment's choice, else the user's data folder.
  static func resolveDataDirectory(_ option: String?, environment: [String: String]) -> URL {
    let base = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
    if let path = option ?? environment[dataDirectoryVariable], !path.isEmpty {
      return URL(fileURLWithPath: path, isDirectory: true, relativeTo: base).standardizedFileURL
    }
    if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
      return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("todo-showcase", isDirectory: true)
    }
    if let home = environment["HOME"], !home.isEmpty {
      return URL(fileURLWithPath: home, isDirectory: true)
        .appendingPathComponent(".local/share/todo-showcase", isDirectory: true)
    }
    return base.appendingPathComponent(".todo-data", isDirectory: true)
  }

  /// Opens the store, creating the data directory first if needed.
  ///
  /// - Parameter announce: Called with lines worth telling the user (the data directory, the file).
  func open(announce: (String) -> Void = { _ in }) throws -> any LocalStorage {
    guard storage != .memory else {
      announce("Storage: memory (items are lost when the process ends)")
      return InMemoryStorage()
    }
    let directory = dataDirectoryURL
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
      guard isDirectory.boolValue else {
        throw ValidationError("The data directory \(directory.path) is a file, not a folder.")
      }
      announce("Data directory: \(directory.path)")
    } else {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      announce("Data directory: \(directory.path) (created)")
    }
    let store = try storage.kind.open(in: directory)
    if let file = storage.kind.file(in: directory) {
      announce("Storage: \(storage.rawValue) in \(file.path)")
    }
    return store
  }
}
