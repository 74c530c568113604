public import ArgumentParser
import DIShowcase
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `todo-showcase`: serves the web app (the default) or changes the list from the command line.
public struct ShowcaseCommand: AsyncParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "todo-showcase",
    abstract: "A to-do list wired four ways (manual, provider, Knapsack, Swinject) on one storage.",
    subcommands: [Serve.self, Add.self, List.self, Done.self, Remove.self],
    defaultSubcommand: Serve.self
  )

  public init() {}
}

extension ShowcaseCommand {
  struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start the web app (the default).")

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 8080

    @Option(
      help: "Seconds a connection may send nothing (a half-sent request, an idle keep-alive) before it is closed.")
    var idleTimeout = 30

    @OptionGroup var storageOptions: StorageOptions

    /// Refuses a port outside 0...65535 and a host that is not an IP address or `localhost`,
    /// before anything is opened, so a typo is a clear start-up error rather than another port.
    func validate() throws {
      guard (0...65535).contains(port) else {
        throw ValidationError("--port \(port) is not a TCP port: use 0 (any free port) to 65535.")
      }
      guard (1...3600).contains(idleTimeout) else {
        throw ValidationError("--idle-timeout \(idleTimeout) is out of range: use 1 to 3600 seconds.")
      }
      guard Self.isListenAddress(host) else {
        throw ValidationError(
          "--host \"\(host)\" is not an IPv4 or IPv6 address (or localhost), e.g. 127.0.0.1 or ::1."
        )
      }
    }

    /// Whether `host` is an IPv4 or IPv6 literal, or `localhost`.
    static func isListenAddress(_ host: String) -> Bool {
      if host == "localhost" { return true }
      var ipv4 = in_addr()
      var ipv6 = in6_addr()
      return inet_pton(AF_INET, host, &ipv4) == 1 || inet_pton(AF_INET6, host, &ipv6) == 1
    }

    func run() async throws {
      let storage = try storageOptions.open { Console.announce($0) }
      let server = ShowcaseServer(storage: storage, storageLabel: storageOptions.storage.rawValue)
      try await server.run(host: host, port: port, idleTimeout: .seconds(idleTimeout))
    }
  }

  struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Add an item.")

    @Argument(help: "The item's title (1 to \(TodoTitle.maximumLength) characters).")
    var title: String

    @OptionGroup var storageOptions: StorageOptions

    func run() throws {
      let viewModel = LiveTodoListViewModel(storage: try storageOptions.open())
      let item = try viewModel.add(title: title)
      print("Added \(CommandLineFormat.shortID(item.id))  \(CommandLineFormat.printable(item.title))")
    }
  }

  struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the items.")

    @OptionGroup var storageOptions: StorageOptions

    func run() throws {
      let viewModel = LiveTodoListViewModel(storage: try storageOptions.open())
      try viewModel.load()
      if viewModel.items.isEmpty {
        print("Nothing to do.")
      }
      for item in viewModel.items {
        print(CommandLineFormat.line(for: item))
      }
    }
  }

  struct Done: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Mark an item as done.")

    @Argument(help: "The item's id, or a unique prefix of it as `list` shows.")
    var id: String

    @Flag(help: "Mark the item as not done instead.")
    var undo = false

    @OptionGroup var storageOptions: StorageOptions

    func run() throws {
      let viewModel = LiveTodoListViewModel(storage: try storageOptions.open())
      try viewModel.load()
      let item = try viewModel.setDone(!undo, id: CommandLineFormat.resolve(id, in: viewModel.items))
      print(CommandLineFormat.line(for: item))
    }
  }

  struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete an item.")

    @Argument(help: "The item's id, or a unique prefix of it as `list` shows.")
    var id: String

    @OptionGroup var storageOptions: StorageOptions

    func run() throws {
      let viewModel = LiveTodoListViewModel(storage: try storageOptions.open())
      try viewModel.load()
      let uuid = try CommandLineFormat.resolve(id, in: viewModel.items)
      try viewModel.delete(id: uuid)
      print("Removed \(CommandLineFormat.shortID(uuid))")
    }
  }
}

/// How the command line shows and finds items.
enum CommandLineFormat {
  static func shortID(_ id: UUID) -> String {
    String(id.uuidString.prefix(8))
  }

  static func line(for item: TodoItem) -> String {
    "[\(item.done ? "x" : " ")] \(shortID(item.id))  \(printable(item.title))"
  }

  /// `text` safe to print on a terminal: each control character (Unicode category Cc, such as
  /// ESC, NUL, a newline or the C1 CSI) is written as `\u{1B}`, so a title stored before titles
  /// were checked (or written to the file by hand) cannot move the cursor, retitle the window or
  /// fake other lines.
  static func printable(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      if scalar.properties.generalCategory == .control {
        result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// The id of the one item whose id starts with `text` (case-insensitive).
  static func resolve(_ text: String, in items: [TodoItem]) throws -> UUID {
    let prefix = text.uppercased()
    let matches = items.filter { $0.id.uuidString.hasPrefix(prefix) }
    guard !prefix.isEmpty, matches.count <= 1 else {
      throw ValidationError("\"\(text)\" matches \(matches.count) items; give more of the id.")
    }
    guard let match = matches.first else {
      throw ValidationError("No item has an id starting with \"\(text)\". Run `todo-showcase list`.")
    }
    return match.id
  }
}
