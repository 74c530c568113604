import Foundation
import GRDB
import Storage
import Testing

@Suite("JSON file store")
struct JSONFileStorageTests {
  @Test("The file is readable JSON with the values inside")
  func readableFile() throws {
    let directory = try TemporaryDirectory()
    let url = directory.file("todos.json")
    try JSONFileStorage(url: url).save(["milk", "eggs"], forKey: "shopping")

    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
    let entries = object?["entries"] as? [String: Any]
    #expect(object?["format"] as? String == "todo-showcase-store")
    #expect(entries?["shopping"] as? [String] == ["milk", "eggs"])
  }

  @Test("Valid JSON of another shape is a foreign file and is left untouched")
  func foreignJSON() throws {
    let directory = try TemporaryDirectory()
    let url = directory.file("todos.json")
    let foreign = Data(#"{"name": "someone else's settings", "entries": 3}"#.utf8)
    try foreign.write(to: url)

    #expect(
      throws: StorageError.foreignFile(path: url.path, reason: "valid JSON, but not a todo-showcase-store document")
    ) {
      try JSONFileStorage(url: url)
    }
    #expect(try Data(contentsOf: url) == foreign)
  }

  @Test("A leftover temporary file from a crashed write does not affect the store")
  func leftoverTemporaryFile() throws {
    let directory = try TemporaryDirectory()
    let url = directory.file("todos.json")
    try JSONFileStorage(url: url).save(["kept"], forKey: "list")
    try Data("{half-writ".utf8).write(to: directory.file(".todos.json.DEAD.tmp"))

    #expect(try JSONFileStorage(url: url).load([String].self, forKey: "list") == ["kept"])
  }
}

@Suite("Encrypted file store")
struct EncryptedFileStorageTests {
  @Test("The file does not contain the plaintext and cannot be read with another key")
  func unreadableWithoutTheKey() throws {
    let directory = try TemporaryDirectory()
    let url = directory.file("todos.encrypted")
    try EncryptedFileStorage(url: url, key: .random()).save(["Secret plans"], forKey: "list")
    let bytes = try Data(contentsOf: url)

    #expect(bytes.range(of: Data("Secret".utf8)) == nil)
    #expect(throws: StorageError.cannotDecrypt(path: url.path)) {
      try EncryptedFileStorage(url: url, key: .random())
    }
    #expect(try Data(contentsOf: url) == bytes)
  }

  @Test("A flipped byte is detected")
  func tamperingDetected() throws {
    let directory = try TemporaryDirectory()
    let url = directory.file("todos.encrypted")
    let key = EncryptionKey.random()
    try EncryptedFileStorage(url: url, key: key).save(["x"], forKey: "list")
    var bytes = try Data(contentsOf: url)
    bytes[bytes.count - 20] ^= 0x01
    try bytes.write(to: url)

    #expect(throws: StorageError.cannotDecrypt(path: url.path)) {
      try EncryptedFileStorage(url: url, key: key)
    }
  }

  @Test("The store file and a new key file are readable by the owner only")
  func ownerOnlyPermissions() throws {
    let directory = try TemporaryDirectory()
    let keyFile = StoreKind.keyFile(in: directory.url)
    let storage = try StoreKind.encrypted.open(in: directory.url, environment: [:])
    try storage.save([1], forKey: "n")

    let keyMode = try FileManager.default.attributesOfItem(atPath: keyFile.path)[.posixPermissions] as? Int
    let fileMode =
      try FileManager.default.attributesOfItem(
        atPath: StoreKind.encrypted.file(in: directory.url)!.path
      )[.posixPermissions] as? Int
    #expect(keyMode == 0o600)
    #expect(fileMode == 0o600)
  }

  @Test("The key file is reused: a second open reads what the first wrote")
  func keyFileReused() throws {
    let directory = try TemporaryDirectory()
    try StoreKind.encrypted.open(in: directory.url, environment: [:]).save(["kept"], forKey: "list")

    let reopened = try StoreKind.encrypted.open(in: directory.url, environment: [:])

    #expect(try reopened.load([String].self, forKey: "list") == ["kept"])
  }

  @Test("A missing key file next to existing encrypted data is an error that writes nothing")
  func missingKeyFileWritesNothing() throws {
    let directory = try TemporaryDirectory()
    try StoreKind.encrypted.open(in: directory.url, environment: [:]).save(["kept"], forKey: "list")
    let keyFile = StoreKind.keyFile(in: directory.url)
    let dataFile = StoreKind.encrypted.file(in: directory.url)!
    let data = try Data(contentsOf: dataFile)
    try FileManager.default.removeItem(at: keyFile)
    let before = try directory.contents()

    #expect {
      try StoreKind.encrypted.open(in: directory.url, environment: [:])
    } throws: { error in
      guard case .invalidKey(let source, let reason) = error as? StorageError else { return false }
      return source == keyFile.path && reason.contains("missing") && reason.contains(dataFile.path)
    }
    #expect(try directory.contents() == before)
    #expect(!FileManager.default.fileExists(atPath: keyFile.path))
    #expect(try Data(contentsOf: dataFile) == data)
  }

  @Test("The environment variable's key wins over the key file")
  func environmentKey() throws {
    let directory = try TemporaryDirectory()
    let key = EncryptionKey.random()
    let environment = [EncryptionKey.environmentVariable: key.base64]
    try StoreKind.encrypted.open(in: directory.url, environment: environment).save(["env"], forKey: "list")

    let url = StoreKind.encrypted.file(in: directory.url)!
    #expect(try EncryptedFileStorage(url: url, key: key).load([String].self, forKey: "list") == ["env"])
    #expect(!FileManager.default.fileExists(atPath: StoreKind.keyFile(in: directory.url).path))
    // Without the variable there is no key file next to the data: an error, and no key is written.
    #expect {
      try StoreKind.encrypted.open(in: directory.url, environment: [:])
    } throws: { error in
      guard case .invalidKey = error as? StorageError else { return false }
      return true
    }
    #expect(!FileManager.default.fileExists(atPath: StoreKind.keyFile(in: directory.url).path))
  }

  @Test("A malformed key is refused with a clear error", arguments: ["not base64!", "c2hvcnQ="])
  func malformedKey(text: String) throws {
    let directory = try TemporaryDirectory()
    #expect {
      try StoreKind.encrypted.open(in: directory.url, environment: [EncryptionKey.environmentVariable: text])
    } throws: { error in
      guard case .invalidKey(let source, _) = error as? StorageError else { return false }
      return source == "$TODO_SHOWCASE_KEY"
    }
  }
}

@Suite("SQLite store")
struct SQLiteStorageTests {
  @Test("A database of another application is refused and left untouched")
  func foreignDatabase() throws {
    let directory = try TemporaryDirectory()
    let url = directory.file("todos.sqlite")
    let other = try DatabaseQueue(path: url.path)
    try other.write { db in
      try db.execute(sql: "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
      try db.execute(sql: "INSERT INTO users (name) VALUES ('Ada')")
    }
    try other.close()
    let before = try Data(contentsOf: url)

    #expect {
      try SQLiteStorage(url: url)
    } throws: { error in
      guard case .foreignFile(let path, _) = error as? StorageError else { return false }
      return path == url.path
    }
    #expect(try Data(contentsOf: url) == before)
  }

  @Test("A damaged database with a valid header gives an error naming the file")
  func damagedDatabase() throws {
    let directory = try TemporaryDirectory()
    let url = directory.file("todos.sqlite")
    try SQLiteStorage(url: url).save(["x"], forKey: "list")
    var bytes = try Data(contentsOf: url)
    bytes.replaceSubrange(100..<bytes.count, with: Data(repeating: 0xFF, count: bytes.count - 100))
    try bytes.write(to: url)

    #expect {
      try SQLiteStorage(url: url).load([String].self, forKey: "list")
    } throws: { error in
      (error as? StorageError)?.description.contains(url.path) == true
    }
    #expect(try Data(contentsOf: url) == bytes)
  }
}
