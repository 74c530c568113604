/// Why a store could not be used. Every case names the file, and the file is left as it was.
public enum StorageError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The file is not a store of this kind: another format, or damaged beyond reading.
  case unreadableFile(path: String, reason: String)
  /// The file is a valid file of its format but belongs to something else.
  case foreignFile(path: String, reason: String)
  /// The encrypted file cannot be opened with the key given.
  case cannotDecrypt(path: String)
  /// The encryption key is missing or malformed.
  case invalidKey(source: String, reason: String)
  /// A value in the store does not have the type asked for.
  case valueMismatch(path: String, key: String, reason: String)
  /// The operating system refused a file operation.
  case fileSystem(path: String, reason: String)
  /// The store cannot be changed: the file (or, for a new file or a journal beside it, the
  /// folder) at `path` is read-only. Reading the store still works.
  case readOnly(path: String)

  public var description: String {
    switch self {
    case .unreadableFile(let path, let reason):
      "\(path) is not a readable TodoShowcase store (\(reason)). The file was left untouched; move it away or choose another --data-dir."
    case .foreignFile(let path, let reason):
      "\(path) belongs to something else (\(reason)). The file was left untouched; move it away or choose another --data-dir."
    case .cannotDecrypt(let path):
      "\(path) cannot be decrypted with this key: the key is wrong or the file was damaged. The file was left untouched."
    case .invalidKey(let source, let reason):
      "The encryption key from \(source) is unusable: \(reason)."
    case .valueMismatch(let path, let key, let reason):
      "The value \"\(key)\" in \(path) has an unexpected shape (\(reason))."
    case .fileSystem(let path, let reason):
      "\(path): \(reason)."
    case .readOnly(let path):
      "\(path) is read-only (no write permission), so the change was not saved and the store was left untouched. Make it writable (chmod u+w) or choose another --data-dir."
    }
  }
}
