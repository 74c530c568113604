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
struct FileLock: Sendable {
  let path: String

  /// Runs `body` holding the lock exclusively.
  func withLock<Result>(_ body: () throws -> Result) throws -> Result {
    try withLock(operation: LOCK_EX, body)
  }

  /// Runs `body` holding the lock shared with other readers.
  func withSharedLock<Result>(_ body: () throws -> Result) throws -> Result {
    try withLock(operation: LOCK_SH, body)
  }

  private func withLock<Result>(operation: Int32, _ body: () throws -> Result) throws -> Result {
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw StorageError.fileSystem(path: path, reason: "cannot open the lock file (errno \(errno))")
    }
    defer { close(descriptor) }
    while flock(descriptor, operation) != 0 {
      guard errno == EINTR else {
        throw StorageError.fileSystem(path: path, reason: "cannot lock (errno \(errno))")
      }
    }
    defer { flock(descriptor, LOCK_UN) }
    return try body()
  }
}
