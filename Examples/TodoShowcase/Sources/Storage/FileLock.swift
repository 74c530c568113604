#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock (`flock`) on a lock file beside a store: exclusive for writers, shared for
/// readers.
///
/// Each call opens the lock file anew, so the lock excludes other threads of this process as
/// well as other processes (the server and the command line on the same data directory).
/// Readers hold it shared, so reads never wait for each other, only for a writer.
///
/// Only a writer creates the lock file. A reader that finds none reads without it: no writer
/// has locked the store yet, and a writer replaces the store file in one rename, so the reader
/// still sees a whole file. Reading therefore never leaves a file behind, and works in a folder
/// the process may not write.
struct FileLock: Sendable {
  let path: String

  /// Runs `body` holding the lock exclusively, creating the lock file if needed.
  func withLock<Result>(_ body: () throws -> Result) throws -> Result {
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      let code = errno
      throw StorageError.system(path: path, "cannot open the lock file", code: code)
    }
    return try withLock(descriptor, operation: LOCK_EX, body)
  }

  /// Runs `body` holding the lock shared with other readers, or without it when there is no
  /// lock file yet.
  func withSharedLock<Result>(_ body: () throws -> Result) throws -> Result {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      let code = errno
      guard code == ENOENT else { throw StorageError.system(path: path, "cannot open the lock file", code: code) }
      return try body()
    }
    return try withLock(descriptor, operation: LOCK_SH, body)
  }

  private func withLock<Result>(_ descriptor: Int32, operation: Int32, _ body: () throws -> Result) throws -> Result {
    defer { close(descriptor) }
    while flock(descriptor, operation) != 0 {
      let code = errno
      guard code == EINTR else {
        throw StorageError.system(path: path, "cannot lock", code: code)
      }
    }
    defer { flock(descriptor, LOCK_UN) }
    return try body()
  }
}
