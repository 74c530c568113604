import Common
import Foundation
import Storage
import Testing

/// Behaviour every store shares, run against each real store in a temporary directory.
@Suite("Every store")
struct StoreTests {
  static let fileKinds: [StoreKind] = [.sqlite, .json, .encrypted]
  private static let environment = [EncryptionKey.environmentVariable: EncryptionKey.random().base64]

  private func open(_ kind: StoreKind, in directory: borrowing TemporaryDirectory) throws -> any LocalStorage {
    try kind.open(in: directory.url, environment: Self.environment)
  }

  @Test("Round trip: save, load, modify, remove", arguments: StoreKind.allCases)
  func roundTrip(kind: StoreKind) throws {
    let directory = try TemporaryDirectory()
    let storage = try open(kind, in: directory)
    let note = Note(text: "Hello, <world> & \"friends\" ✓", count: 3, when: Date(timeIntervalSince1970: 1_767_346_200))

    #expect(try storage.load(Note.self, forKey: "note") == nil)
    try storage.save(note, forKey: "note")
    #expect(try storage.load(Note.self, forKey: "note") == note)

    let count = try storage.modify(Note.self, forKey: "note", default: note) { value in
      value.count += 1
      return value.count
    }
    #expect(count == 4)
    #expect(try storage.load(Note.self, forKey: "note")?.count == 4)

    try storage.save(["a", "b"], forKey: "letters")
    try storage.remove(forKey: "note")
    #expect(try storage.load(Note.self, forKey: "note") == nil)
    #expect(try storage.load([String].self, forKey: "letters") == ["a", "b"])
  }

  @Test("Values survive reopening the store", arguments: fileKinds)
  func survivesReopening(kind: StoreKind) throws {
    let directory = try TemporaryDirectory()
    try open(kind, in: directory).save(["kept"], forKey: "list")

    let reopened = try open(kind, in: directory)

    #expect(try reopened.load([String].self, forKey: "list") == ["kept"])
  }

  @Test("A change that throws saves nothing", arguments: StoreKind.allCases)
  func throwingModifySavesNothing(kind: StoreKind) throws {
    struct Refused: Error {}
    let directory = try TemporaryDirectory()
    let storage = try open(kind, in: directory)
    try storage.save([1, 2], forKey: "numbers")

    #expect(throws: Refused.self) {
      try storage.modify([Int].self, forKey: "numbers", default: []) { numbers in
        numbers.append(3)
        throw Refused()
      }
    }

    #expect(try storage.load([Int].self, forKey: "numbers") == [1, 2])
  }

  @Test("Concurrent writers through one store lose no change", arguments: StoreKind.allCases)
  func concurrentWritersOneInstance(kind: StoreKind) async throws {
    let directory = try TemporaryDirectory()
    let storage = try open(kind, in: directory)

    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<25 {
        group.addTask {
          try storage.modify([Int].self, forKey: "numbers", default: []) { $0.append(index) }
        }
      }
      try await group.waitForAll()
    }

    #expect(try storage.load([Int].self, forKey: "numbers")?.sorted() == Array(0..<25))
  }

  @Test("Concurrent writers through separate stores on one file lose no change", arguments: fileKinds)
  func concurrentWritersSeparateInstances(kind: StoreKind) async throws {
    let directory = try TemporaryDirectory()
    let url = directory.url
    _ = try open(kind, in: directory)

    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<25 {
        group.addTask {
          let storage = try kind.open(in: url, environment: Self.environment)
          try storage.modify([Int].self, forKey: "numbers", default: []) { $0.append(index) }
        }
      }
      try await group.waitForAll()
    }

    let numbers = try open(kind, in: directory).load([Int].self, forKey: "numbers")
    #expect(numbers?.sorted() == Array(0..<25))
  }

  @Test("A corrupted file gives an error naming it and is left untouched", arguments: fileKinds)
  func corruptedFile(kind: StoreKind) throws {
    let directory = try TemporaryDirectory()
    let file = kind.file(in: directory.url)!
    let garbage = Data("this is not a store \u{0} \u{7f} {[".utf8)
    try garbage.write(to: file)

    #expect {
      try open(kind, in: directory)
    } throws: { error in
      (error as? StorageError)?.description.contains(file.path) == true
    }

    #expect(try Data(contentsOf: file) == garbage)
  }

  @Test("A failed read does not change the file, even through an open store", arguments: fileKinds)
  func corruptedAfterOpening(kind: StoreKind) throws {
    let directory = try TemporaryDirectory()
    let storage = try open(kind, in: directory)
    try storage.save(["before"], forKey: "list")
    let file = kind.file(in: directory.url)!
    let garbage = Data(repeating: 0x41, count: 4096)
    try garbage.write(to: file)

    #expect(throws: StorageError.self) {
      try storage.modify([String].self, forKey: "list", default: []) { $0.append("after") }
    }

    #expect(try Data(contentsOf: file) == garbage)
  }

  @Test(
    "A read-only store file can be listed; a change fails naming it as read-only and leaves it untouched",
    arguments: fileKinds
  )
  func readOnlyFile(kind: StoreKind) throws {
    let directory = try TemporaryDirectory()
    let file = kind.file(in: directory.url)!
    try LiveTodoListViewModel(storage: open(kind, in: directory)).add(title: "Kept")
    try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: file.path)
    try expectListedButNotChanged(kind, in: directory, readOnly: file.path)
    #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o444)
  }

  @Test(
    "A store in a read-only folder can be listed; a change fails naming the folder as read-only",
    .enabled(if: geteuid() != 0, "the superuser may write in any folder"),
    arguments: fileKinds
  )
  func readOnlyFolder(kind: StoreKind) throws {
    let directory = try TemporaryDirectory()
    try LiveTodoListViewModel(storage: open(kind, in: directory)).add(title: "Kept")
    try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.url.path)
    defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url.path) }
    try expectListedButNotChanged(kind, in: directory, readOnly: directory.url.path)
  }

  /// Opens the store in `directory`, which holds the one item "Kept" and which the caller made
  /// read-only at `readOnly` (the file or the folder), and checks that it lists, and that a change
  /// fails naming `readOnly` as read-only and leaves the file and the folder as they were.
  private func expectListedButNotChanged(
    _ kind: StoreKind, in directory: borrowing TemporaryDirectory, readOnly: String
  ) throws {
    let file = kind.file(in: directory.url)!
    let bytes = try Data(contentsOf: file)
    let names = try directory.contents()

    let viewModel = LiveTodoListViewModel(storage: try open(kind, in: directory))
    try viewModel.load()
    #expect(viewModel.items.map(\.title) == ["Kept"])
    #expect {
      try viewModel.add(title: "Lost")
    } throws: { error in
      let message = (error as? StorageError)?.description ?? ""
      return message.contains(readOnly) && message.contains("read-only") && !message.contains("not a readable")
    }

    #expect(try Data(contentsOf: file) == bytes)
    #expect(try directory.contents() == names)
  }

  @Test("Writes leave no temporary files behind", arguments: [StoreKind.json, .encrypted])
  func noTemporaryFiles(kind: StoreKind) throws {
    let directory = try TemporaryDirectory()
    let storage = try open(kind, in: directory)
    for index in 0..<5 {
      try storage.save(index, forKey: "n")
    }
    let names = try directory.contents()
    #expect(names.allSatisfy { !$0.hasSuffix(".tmp") })
    #expect(names.contains(kind.file(in: directory.url)!.lastPathComponent))
  }
}
