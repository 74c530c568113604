import ArgumentParser
import DIShowcase
import Foundation
import Testing

@testable import TodoShowcaseApp

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Command line")
struct CommandTests {
  @Test("With no arguments, serve runs on 127.0.0.1:8080 with SQLite")
  func defaults() throws {
    let command = try ShowcaseCommand.parseAsRoot([])
    let serve = try #require(command as? ShowcaseCommand.Serve)
    #expect(serve.host == "127.0.0.1")
    #expect(serve.port == 8080)
    #expect(serve.storageOptions.storage == .sqlite)
  }

  @Test("serve takes every flag")
  func serveFlags() throws {
    let command = try ShowcaseCommand.parseAsRoot([
      "serve", "--host", "0.0.0.0", "--port", "9000", "--storage", "encrypted", "--data-dir", "/tmp/x",
    ])
    let serve = try #require(command as? ShowcaseCommand.Serve)
    #expect(serve.host == "0.0.0.0")
    #expect(serve.port == 9000)
    #expect(serve.storageOptions.storage == .encrypted)
    #expect(serve.storageOptions.dataDirectoryURL.path == "/tmp/x")
  }

  @Test(
    "An invalid port or address is a start-up error that names the value",
    arguments: [
      (["serve", "--port", "99999"], "99999"),
      (["serve", "--port=-1"], "-1"),
      (["serve", "--host", "not an address"], "not an address"),
      (["serve", "--host", "300.1.1.1"], "300.1.1.1"),
    ]
  )
  func invalidListenAddress(arguments: [String], named: String) {
    #expect {
      try ShowcaseCommand.parseAsRoot(arguments)
    } throws: { error in
      ShowcaseCommand.exitCode(for: error) != .success
        && ShowcaseCommand.message(for: error).contains(named)
    }
  }

  @Test(
    "A port or timeout that is not an integer in range names the value and the range",
    arguments: [
      (["--port", "-1"], "'-1'", "from 0 (any free port) to 65535"),
      (["--port=-1"], "'-1'", "from 0 (any free port) to 65535"),
      (["--port", "70000"], "'70000'", "from 0 (any free port) to 65535"),
      (["--port", "65536"], "'65536'", "from 0 (any free port) to 65535"),
      (["--port", "http"], "'http'", "from 0 (any free port) to 65535"),
      (["--port", "80.5"], "'80.5'", "from 0 (any free port) to 65535"),
      (["--port", ""], "''", "from 0 (any free port) to 65535"),
      (["--idle-timeout", "-5"], "'-5'", "from 1 to 3600"),
      (["--idle-timeout", "0"], "'0'", "from 1 to 3600"),
      (["--idle-timeout", "soon"], "'soon'", "from 1 to 3600"),
    ]
  )
  func outOfRangeInteger(arguments: [String], value: String, range: String) {
    #expect {
      try ShowcaseCommand.parseAsRoot(["serve"] + arguments)
    } throws: { error in
      let message = ShowcaseCommand.message(for: error)
      return ShowcaseCommand.exitCode(for: error) == .validationFailure
        && message.contains(value) && message.contains("an integer \(range)")
    }
  }

  @Test("--allowed-host is repeatable and refuses what is not a host name")
  func allowedHost() throws {
    let command = try ShowcaseCommand.parseAsRoot([
      "serve", "--host", "0.0.0.0", "--allowed-host", "todo.lan", "--allowed-host", "box.example.",
    ])
    #expect((command as? ShowcaseCommand.Serve)?.allowedHosts == ["todo.lan", "box.example."])
    for name in ["todo.lan:8080", "http://todo.lan", "", "a..b", "todo lan"] {
      #expect(throws: (any Error).self, "\(name)") {
        try ShowcaseCommand.parseAsRoot(["serve", "--allowed-host", name])
      }
    }
  }

  @Test("A port in use is a clear error naming the address, not the socket call's text")
  func portInUse() async throws {
    let storage = InMemoryStorage()
    let server = ShowcaseServer(storage: storage, storageLabel: "test")
    let taken = Socket.listeningOnLoopback()
    defer { close(taken.descriptor) }
    let error = await #expect(throws: ListenError.self) {
      try await server.run(host: "127.0.0.1", port: taken.port)
    }
    let message = ShowcaseCommand.message(for: try #require(error))
    #expect(message.contains("Cannot listen on 127.0.0.1:\(taken.port): the port is already in use"))
    #expect(message.contains("--port"))
    #expect(!message.contains("errno"))
    #expect(ShowcaseCommand.exitCode(for: try #require(error)) != .success)
  }

  @Test("LOG_LEVEL takes a level in any case; anything else logs at info with a warning naming the levels")
  func logLevel() {
    #expect(ShowcaseServer.logLevel(nil) == (.info, nil))
    #expect(ShowcaseServer.logLevel("debug").level == .debug)
    #expect(ShowcaseServer.logLevel("WARNING") == (.warning, nil))
    let (level, warning) = ShowcaseServer.logLevel("verbose")
    #expect(level == .info)
    #expect(
      warning == #"Warning: LOG_LEVEL "verbose" is not a log level; logging at info. "#
        + "Use one of: trace, debug, info, notice, warning, error, critical.")
  }

  @Test("The ends of the port range are accepted", arguments: [0, 65535])
  func portRangeEnds(port: Int) throws {
    let command = try ShowcaseCommand.parseAsRoot(["serve", "--port", "\(port)"])
    #expect((command as? ShowcaseCommand.Serve)?.port == port)
  }

  @Test("IPv4, IPv6 and localhost are accepted listen addresses", arguments: ["0.0.0.0", "::1", "localhost"])
  func validListenAddress(host: String) throws {
    let command = try ShowcaseCommand.parseAsRoot(["serve", "--host", host, "--port", "0"])
    #expect((command as? ShowcaseCommand.Serve)?.host == host)
  }

  @Test("An unknown storage is refused")
  func unknownStorage() {
    #expect(throws: (any Error).self) {
      try ShowcaseCommand.parseAsRoot(["list", "--storage", "postgres"])
    }
  }

  @Test("The data directory: flag, then environment, then XDG, then HOME")
  func dataDirectory() {
    let resolve = StorageOptions.resolveDataDirectory
    #expect(resolve("/data", ["TODO_SHOWCASE_DATA_DIR": "/env"]).path == "/data")
    #expect(resolve(nil, ["TODO_SHOWCASE_DATA_DIR": "/env", "XDG_DATA_HOME": "/xdg"]).path == "/env")
    #expect(resolve(nil, ["XDG_DATA_HOME": "/xdg", "HOME": "/home/a"]).path == "/xdg/todo-showcase")
    #expect(resolve(nil, ["HOME": "/home/a"]).path == "/home/a/.local/share/todo-showcase")
  }

  @Test("add, list, done and remove work on the store serve uses", arguments: ["sqlite", "json"])
  func subcommands(storage: String) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("todo-showcase-cli-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let flags = ["--storage", storage, "--data-dir", directory.path]
    func run(_ arguments: [String]) throws {
      var command = try ShowcaseCommand.parseAsRoot(arguments + flags)
      try command.run()
    }

    try run(["add", "Buy milk"])
    try run(["add", "Walk the dog"])
    try run(["list"])
    let store = try StoreKind(rawValue: storage)!.open(in: directory)
    let viewModel = LiveTodoListViewModel(storage: store)
    try viewModel.load()
    #expect(viewModel.items.map(\.title) == ["Buy milk", "Walk the dog"])

    let first = viewModel.items[0].id.uuidString
    try run(["done", String(first.prefix(8)).lowercased()])
    try run(["remove", viewModel.items[1].id.uuidString])
    try viewModel.load()
    #expect(viewModel.items.map(\.title) == ["Buy milk"])
    #expect(viewModel.items[0].done)
  }

  @Test(
    "list on a store that does not exist is an empty list; done and remove name the missing file; none creates anything",
    arguments: ["sqlite", "json", "encrypted"], [["list"], ["done", "3F2A"], ["remove", "3F2A"]]
  )
  func readingMissingStoreCreatesNothing(storage: String, command: [String]) throws {
    let parent = FileManager.default.temporaryDirectory.appendingPathComponent("todo-showcase-cli-\(UUID())")
    defer { try? FileManager.default.removeItem(at: parent) }
    let emptyDirectory = parent.appendingPathComponent("empty")
    try FileManager.default.createDirectory(at: emptyDirectory, withIntermediateDirectories: true)
    let kind = try #require(StoreKind(rawValue: storage))

    for directory in [emptyDirectory, parent.appendingPathComponent("missing")] {
      let file = try #require(kind.file(in: directory))
      var parsed = try ShowcaseCommand.parseAsRoot(command + ["--storage", storage, "--data-dir", directory.path])
      if command == ["list"] {
        try parsed.run()
        continue
      }
      #expect {
        try parsed.run()
      } throws: { error in
        let message = ShowcaseCommand.message(for: error)
        return ShowcaseCommand.exitCode(for: error) == .failure && message.contains(file.path)
          && message.contains("no \(storage) store")
      }
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["empty"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: emptyDirectory.path).isEmpty)
  }

  @Test(
    "An empty id or title says so and shows the command's usage",
    arguments: [
      (["done", ""], "The id is empty", "todo-showcase done"),
      (["done", "  "], "The id is empty", "todo-showcase done"),
      (["done", "--undo", ""], "The id is empty", "todo-showcase done"),
      (["remove", ""], "The id is empty", "todo-showcase remove"),
      (["add", ""], "The title must not be empty", "todo-showcase add"),
      (["add", " \n "], "The title must not be empty", "todo-showcase add"),
    ]
  )
  func emptyArgument(arguments: [String], problem: String, usage: String) {
    #expect {
      try ShowcaseCommand.parseAsRoot(arguments + ["--storage", "memory"])
    } throws: { error in
      let message = ShowcaseCommand.fullMessage(for: error)
      return ShowcaseCommand.exitCode(for: error) == .validationFailure
        && message.contains(problem) && message.contains("Usage: \(usage) ")
    }
  }

  @Test("list prints control characters of a stored title escaped, so they cannot reach the terminal")
  func controlCharactersEscaped() throws {
    let id = try #require(UUID(uuidString: "AAAA0000-0000-0000-0000-000000000001"))
    let title = "\u{1B}]0;pwned\u{07}\u{1B}[2Jmilk\u{0}\nfake line\u{9B}31m"
    let item = TodoItem(id: id, title: title, created: Date())
    let line = CommandLineFormat.line(for: item)
    #expect(line == #"[ ] AAAA0000  \u{1B}]0;pwned\u{7}\u{1B}[2Jmilk\u{0}\u{A}fake line\u{9B}31m"#)
    #expect(!line.unicodeScalars.contains { $0.properties.generalCategory == .control })
    #expect(CommandLineFormat.printable("Crème brûlée 🍮") == "Crème brûlée 🍮")
  }

  @Test("An id prefix must match exactly one item")
  func idPrefix() throws {
    let items = [
      TodoItem(id: UUID(uuidString: "AAAA0000-0000-0000-0000-000000000001")!, title: "a", created: Date()),
      TodoItem(id: UUID(uuidString: "AAAA0000-0000-0000-0000-000000000002")!, title: "b", created: Date()),
    ]
    #expect(throws: CommandLineError.self) { try CommandLineFormat.resolve("aaaa", in: items) }
    #expect(throws: CommandLineError.self) { try CommandLineFormat.resolve("bbbb", in: items) }
    #expect(throws: ValidationError.self) { try CommandLineFormat.resolve("", in: items) }
    #expect(try CommandLineFormat.resolve("aaaa0000-0000-0000-0000-000000000002", in: items) == items[1].id)
  }
}

/// A plain TCP socket, to hold a port the way another process would.
enum Socket {
  /// A socket listening on 127.0.0.1 on a free port, and that port.
  static func listeningOnLoopback() -> (descriptor: CInt, port: Int) {
    #if canImport(Glibc)
    let descriptor = socket(AF_INET, CInt(SOCK_STREAM.rawValue), 0)
    #else
    let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
        _ = bind(descriptor, raw, length)
        _ = listen(descriptor, 1)
        _ = getsockname(descriptor, raw, &length)
      }
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
  }
}
