import Crypto
public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A 256-bit AES key for ``EncryptedFileStorage``.
public struct EncryptionKey: Sendable {
  /// The environment variable that holds a base64-encoded key; it wins over the key file.
  public static let environmentVariable = "TODO_SHOWCASE_KEY"

  let symmetricKey: SymmetricKey

  /// A new random key.
  public static func random() -> EncryptionKey {
    EncryptionKey(symmetricKey: SymmetricKey(size: .bits256))
  }

  /// A key from its base64 text (32 bytes once decoded).
  public init(base64 text: String, source: String) throws {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard let data = Data(base64Encoded: trimmed) else {
      throw StorageError.invalidKey(source: source, reason: "not base64 text")
    }
    guard data.count == 32 else {
      throw StorageError.invalidKey(source: source, reason: "\(data.count) bytes, expected 32")
    }
    symmetricKey = SymmetricKey(data: data)
  }

  private init(symmetricKey: SymmetricKey) {
    self.symmetricKey = symmetricKey
  }

  /// The key as base64 text, the form the key file and the environment variable use.
  public var base64: String {
    symmetricKey.withUnsafeBytes { Data($0).base64EncodedString() }
  }

  /// The key from ``environmentVariable`` if it is set; otherwise the key in `keyFile`,
  /// which is created with a new random key and permissions 0600 if it does not exist.
  ///
  /// When `dataFile` already exists, a missing key file is an error and nothing is written:
  /// a new key could never open that data, so the key file must be restored instead.
  public static func resolve(
    keyFile: URL,
    dataFile: URL? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> EncryptionKey {
    if let text = environment[environmentVariable] {
      return try EncryptionKey(base64: text, source: "$\(environmentVariable)")
    }
    if let dataFile, FileManager.default.fileExists(atPath: dataFile.path),
      !FileManager.default.fileExists(atPath: keyFile.path)
    {
      throw StorageError.invalidKey(
        source: keyFile.path,
        reason:
          "the key file is missing but \(dataFile.path) holds encrypted data; restore the key file "
          + "or set $\(environmentVariable). Nothing was written"
      )
    }
    return try loadOrCreate(keyFile: keyFile)
  }

  /// The key in `keyFile`, created with a new random key and permissions 0600 if missing.
  public static func loadOrCreate(keyFile: URL) throws -> EncryptionKey {
    let path = keyFile.path
    let key = random()
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    if descriptor >= 0 {
      defer { close(descriptor) }
      // The umask can only remove bits; set the mode explicitly all the same.
      fchmod(descriptor, 0o600)
      let text = Array((key.base64 + "\n").utf8)
      let written = text.withUnsafeBytes { write(descriptor, $0.baseAddress!, $0.count) }
      guard written == text.count, fsync(descriptor) == 0 else {
        let code = errno
        unlink(path)
        throw StorageError.system(path: path, "cannot write the new key", code: code)
      }
      return key
    }
    let code = errno
    guard code == EEXIST else {
      throw StorageError.system(path: path, "cannot create the key file", code: code)
    }
    let text: String
    do {
      text = try String(contentsOf: keyFile, encoding: .utf8)
    } catch {
      throw StorageError.invalidKey(source: path, reason: "cannot read it as text")
    }
    return try EncryptionKey(base64: text, source: path)
  }
}
