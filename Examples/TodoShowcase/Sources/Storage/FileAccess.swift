import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the file stores may do with a file, asked the same way by each of them.
enum FileAccess {
  /// The path that keeps a store from changing `file`, or `nil` when nothing does.
  ///
  /// That is `file` itself when it exists and is read-only: this process may not write it, or
  /// it has no write permission for anyone, which is how a user marks a file read-only (the
  /// superuser passes every permission check, so the second test is what protects the file from
  /// a server run as root). Otherwise it is the file's folder when this process may not create
  /// files there, since every change needs a new file beside the store (the temporary file an
  /// atomic write renames over it, SQLite's journal).
  ///
  /// A store asks before changing anything: replacing a file by renaming a new one over it needs
  /// only the folder's permission, so without the question a read-only file would be silently
  /// replaced.
  static func readOnlyPath(for file: URL) -> String? {
    let path = file.path
    var status = stat()
    if stat(path, &status) == 0, status.st_mode & 0o222 == 0 || access(path, W_OK) != 0 {
      return path
    }
    let folder = file.deletingLastPathComponent().path
    if access(folder, W_OK) != 0, [EACCES, EPERM, EROFS].contains(errno) {
      return folder
    }
    return nil
  }
}

extension StorageError {
  /// A ``fileSystem(path:reason:)`` error for a failed system call: what was being done and
  /// the system's reason for `code`, such as "cannot create a file in this folder: Permission
  /// denied".
  static func system(path: String, _ action: String, code: Int32) -> StorageError {
    .fileSystem(path: path, reason: "\(action): \(String(cString: strerror(code)))")
  }
}
