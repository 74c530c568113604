public import Common
import Crypto
public import Foundation

/// A store kept in one file encrypted with AES-GCM, written atomically like ``JSONFileStorage``.
///
/// Without the right key the file cannot be read, and a changed byte is detected: both give
/// ``StorageError/cannotDecrypt(path:)`` and the file is left as it was.
public struct EncryptedFileStorage: LocalStorage {
  private let store: FileDocumentStore

  /// The file the store lives in.
  public var url: URL { store.url }

  /// Opens the store in `url` with `key`; the file is created (mode 0600) on the first change.
  /// Throws if the file exists but is not a store or does not open with this key.
  public init(url: URL, key: EncryptionKey) throws {
    store = FileDocumentStore(url: url, codec: AESGCMCodec(key: key.symmetricKey))
    try store.validate()
  }

  public func save<T: Encodable>(_ value: T, forKey key: String) throws {
    try store.save(value, forKey: key)
  }

  public func load<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
    try store.load(type, forKey: key)
  }

  public func remove(forKey key: String) throws {
    try store.remove(forKey: key)
  }

  public func modify<T: Codable, Result>(
    _ type: T.Type,
    forKey key: String,
    default defaultValue: T,
    _ body: (inout T) throws -> Result
  ) throws -> Result {
    try store.modify(forKey: key, default: defaultValue, body)
  }
}

/// File layout: the magic bytes `TSENC1\n`, then AES-GCM's nonce, ciphertext and tag. The magic
/// bytes are also the authenticated data, so a file of another version never decrypts by accident.
struct AESGCMCodec: DocumentCodec {
  static let magic = Data("TSENC1\n".utf8)

  let key: SymmetricKey

  var filePermissions: UInt16 { 0o600 }

  func seal(_ document: Data) throws -> Data {
    let box = try AES.GCM.seal(document, using: key, authenticating: Self.magic)
    return Self.magic + box.combined!
  }

  func open(_ file: Data, path: String) throws -> Data {
    guard file.starts(with: Self.magic) else {
      throw StorageError.foreignFile(path: path, reason: "no TodoShowcase encryption header")
    }
    do {
      let box = try AES.GCM.SealedBox(combined: file.dropFirst(Self.magic.count))
      return try AES.GCM.open(box, using: key, authenticating: Self.magic)
    } catch {
      throw StorageError.cannotDecrypt(path: path)
    }
  }
}
