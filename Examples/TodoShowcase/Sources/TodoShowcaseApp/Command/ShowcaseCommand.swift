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

    static let defaultPort = 8080
    static let defaultIdleTimeout = 30

    // `.unconditional`: the value after the flag is taken even when it starts with "-", so
    // `--port -1` is refused for its value rather than reported as a missing one. (With a
    // transform, ArgumentParser does not show the default, so the help states it.)
    @Option(
      parsing: .unconditional,
      help: "The port to listen on; 0 picks a free one. (default: \(Serve.defaultPort))",
      transform: CommandLineFormat.integer("the port", in: 0...65535, lowest: "0 (any free port)")
    )
    var port = Serve.defaultPort

    @Option(
      parsing: .unconditional,
      help: """
        Seconds a connection may send nothing (a half-sent request, an idle keep-alive) before it is closed. \
        (default: \(Serve.defaultIdleTimeout))
        """,
      transform: CommandLineFormat.integer("the idle timeout in seconds", in: 1...3600)
    )
    var idleTimeout = Serve.defaultIdleTimeout

    @Option(
      parsing: .unconditional,
      help: """
        Storage calls that may be queued or running at once; a request that would need one more gets \
        503 with Retry-After. (default: \(ShowcaseServer.defaultMaximumStorageCalls))
        """,
      transform: CommandLineFormat.integer("the storage call limit", in: 1...10_000)
    )
    var maxStorageCalls = ShowcaseServer.defaultMaximumStorageCalls

    @Option(
      parsing: .unconditional,
      help: """
        Access log lines written per second at most (as many at once); the lines over it are dropped \
        and their number logged with the next line. (default: \(ShowcaseServer.defaultAccessLogLinesPerSecond))
        """,
      transform: CommandLineFormat.integer("the access log rate", in: 1...1_000_000)
    )
    var accessLogRate = ShowcaseServer.defaultAccessLogLinesPerSecond

    @Option(
      parsing: .unconditional,
      help: """
        Connections that may be open at once; one more gets 503 with Retry-After and is closed. \
        (default: \(ConnectionLimit.default.total))
        """,
      transform: CommandLineFormat.integer("the connection limit", in: 1...1_000_000)
    )
    var maxConnections = ConnectionLimit.default.total

    @Option(
      parsing: .unconditional,
      help: """
        Connections that may be open at once from one IP address (behind a proxy, all come from the proxy's). \
        (default: \(ConnectionLimit.default.perAddress))
        """,
      transform: CommandLineFormat.integer("the per-address connection limit", in: 1...1_000_000)
    )
    var maxConnectionsPerAddress = ConnectionLimit.default.perAddress

    @Option(
      name: .customLong("allowed-host"),
      help: ArgumentHelp(
        """
        A name (such as todo.lan) that requests may give in Host, besides IP addresses and loopback names; \
        repeat for more. Other names get 403 (against DNS rebinding).
        """,
        valueName: "name"
      )
    )
    var allowedHosts: [String] = []

    @OptionGroup var storageOptions: StorageOptions

    /// Refuses a host that is not an IP address or `localhost` before anything is opened, so a
    /// typo is a clear start-up error rather than another address. (`--port` and
    /// `--idle-timeout` are checked as they are read.)
    func validate() throws {
      guard Self.isListenAddress(host) else {
        throw ValidationError(
          "--host \"\(host)\" is not an IPv4 or IPv6 address (or localhost), e.g. 127.0.0.1 or ::1."
        )
      }
      if let name = allowedHosts.first(where: { !HostPolicy.isValidName($0) }) {
        throw ValidationError(
          "--allowed-host \"\(name)\" is not a host name (letters, digits, '-', '_' and dots, no port), e.g. todo.lan."
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
      let storage = try storageOptions.open(.createIfMissing) { Console.announce($0) }
      let server = ShowcaseServer(
        storage: storage, storageLabel: storageOptions.storage.rawValue, maximumStorageCalls: maxStorageCalls,
        accessLogLinesPerSecond: accessLogRate)
      try await server.run(
        host: host, port: port, idleTimeout: .seconds(idleTimeout), allowedHosts: allowedHosts,
        connectionLimit: ConnectionLimit(total: maxConnections, perAddress: maxConnectionsPerAddress))
    }
  }

  struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Add an item.")

    @Argument(help: "The item's title (1 to \(TodoTitle.maximumLength) characters).")
    var title: String

    @OptionGroup var storageOptions: StorageOptions

    /// Refuses a title the list would refuse (empty, too long, a control character) before
    /// the store is opened or created.
    func validate() throws {
      do {
        _ = try TodoTitle.validate(title)
      } catch {
        throw ValidationError(error.description)
      }
    }

    func run() throws {
      let viewModel = LiveTodoListViewModel(storage: try storageOptions.open(.createIfMissing))
      let item = try viewModel.add(title: title)
      print("Added \(CommandLineFormat.shortID(item.id))  \(CommandLineFormat.printable(item.title))")
    }
  }

  struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the items.")

    @OptionGroup var storageOptions: StorageOptions

    func run() throws {
      let storage: any LocalStorage
      do {
        storage = try storageOptions.open(.existing)
      } catch let missing as MissingStoreError {
        // An empty list, as on a new install; the note (on standard error) names the file, so a
        // mistyped --storage or --data-dir shows.
        print("Nothing to do.")
        Console.note(missing.description)
        return
      }
      let viewModel = LiveTodoListViewModel(storage: storage)
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

    @OptionGroup var itemID: ItemIDArgument

    @Flag(help: "Mark the item as not done instead.")
    var undo = false

    @OptionGroup var storageOptions: StorageOptions

    func run() throws {
      let viewModel = LiveTodoListViewModel(storage: try storageOptions.open(.existing))
      try viewModel.load()
      let item = try viewModel.setDone(!undo, id: CommandLineFormat.resolve(itemID.id, in: viewModel.items))
      print(CommandLineFormat.line(for: item))
    }
  }

  struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete an item.")

    @OptionGroup var itemID: ItemIDArgument

    @OptionGroup var storageOptions: StorageOptions

    func run() throws {
      let viewModel = LiveTodoListViewModel(storage: try storageOptions.open(.existing))
      try viewModel.load()
      let uuid = try CommandLineFormat.resolve(itemID.id, in: viewModel.items)
      try viewModel.delete(id: uuid)
      print("Removed \(CommandLineFormat.shortID(uuid))")
    }
  }
}

/// The id argument of `done` and `remove`, checked the same way for both before the store is
/// opened.
struct ItemIDArgument: ParsableArguments {
  @Argument(help: "The item's id, or a unique prefix of it as `list` shows.")
  var id: String

  func validate() throws {
    _ = try CommandLineFormat.idPrefix(id)
  }
}

/// A command that failed although its arguments were fine (the store does not exist, no item
/// has the id): printed as `Error: …` without the usage, exit code 1. Arguments that are wrong
/// in themselves are `ValidationError`s, found before anything is opened, and show the command's
/// usage.
struct CommandLineError: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) {
    self.description = description
  }
}

/// How the command line reads its input, and shows and finds items.
enum CommandLineFormat {
  /// Reads an integer option that must lie in `range`, so each such option refuses a value the
  /// same way. ArgumentParser names the option and the value given:
  /// `The value '-1' is invalid for '--port <port>': the port must be an integer from 0 (any
  /// free port) to 65535.`
  ///
  /// - Parameter lowest: How to say `range.lowerBound` when it means something special.
  static func integer(
    _ what: String,
    in range: ClosedRange<Int>,
    lowest: String? = nil
  ) -> @Sendable (String) throws -> Int {
    let rule = "\(what) must be an integer from \(lowest ?? "\(range.lowerBound)") to \(range.upperBound)."
    return { text in
      guard let value = Int(text), range.contains(value) else { throw ValidationError(rule) }
      return value
    }
  }

  /// `text` as an id prefix to look for: trimmed and uppercased. Refuses an empty one, which
  /// would match every item.
  static func idPrefix(_ text: String) throws -> String {
    let prefix = text.trimmingCharacters(in: .whitespaces).uppercased()
    guard !prefix.isEmpty else {
      throw ValidationError(
        "The id is empty: give an item's id, or a unique prefix of it as `todo-showcase list` shows."
      )
    }
    return prefix
  }

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
    EscapedText.escaping(text) { $0.properties.generalCategory == .control }
  }

  /// The id of the one item whose id starts with `text` (case-insensitive).
  static func resolve(_ text: String, in items: [TodoItem]) throws -> UUID {
    let prefix = try idPrefix(text)
    let matches = items.filter { $0.id.uuidString.hasPrefix(prefix) }
    guard matches.count <= 1 else {
      throw CommandLineError("\"\(text)\" matches \(matches.count) items; give more of the id.")
    }
    guard let match = matches.first else {
      throw CommandLineError("No item has an id starting with \"\(text)\". Run `todo-showcase list`.")
    }
    return match.id
  }
}
