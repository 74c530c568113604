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
      "The folder for the store's files; `serve` and `add` create it if missing.",
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

  /// Whether a command may create the store it opens.
  enum Use {
    /// `serve` and `add`: the data directory and the store are created when missing.
    case createIfMissing
    /// `list`, `done` and `remove`, which have nothing to do on a new store: it must exist, and
    /// nothing is created (no folder, no database, no key or lock file).
    case existing
  }

  /// Opens the store; for ``Use/createIfMissing`` creates the data directory first if needed,
  /// for ``Use/existing`` throws a ``MissingStoreError`` naming the file when there is no store.
  ///
  /// - Parameter announce: Called with lines worth telling the user (the data directory, the file).
  func open(_ use: Use, announce: (String) -> Void = { _ in }) throws -> any LocalStorage {
    let kind = storage.kind
    let directory = dataDirectoryURL
    guard let file = kind.file(in: directory) else {
      announce("Storage: memory (items are lost when the process ends)")
      return InMemoryStorage()
    }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
      guard isDirectory.boolValue else {
        throw CommandLineError("The data directory \(directory.path) is a file, not a folder.")
      }
      announce("Data directory: \(directory.path)")
    } else if use == .createIfMissing {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      announce("Data directory: \(directory.path) (created)")
    }
    if use == .existing && !FileManager.default.fileExists(atPath: file.path) {
      throw MissingStoreError(kind: kind, file: file)
    }
    let store = try kind.open(in: directory)
    announce("Storage: \(kind.rawValue) in \(file.path)")
    return store
  }
}

/// A read command's store does not exist (a mistyped `--storage` or `--data-dir`, or a new
/// install); nothing was created for it.
struct MissingStoreError: Error, CustomStringConvertible {
  let kind: StoreKind
  let file: URL

  var description: String {
    "There is no \(kind.rawValue) store at \(file.path), and nothing was created. "
      + "Check --storage and --data-dir; `todo-showcase add` starts a new store."
  }
}
