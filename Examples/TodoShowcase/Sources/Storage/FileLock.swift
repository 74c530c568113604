#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (`flock`) on a lock file beside a store.
///
/// Each call opens the lock file anew, so the lock excludes other threads of this process as
/// well as other processes (the server and the command line on the same data directory).
struct FileLock: Sendable {
  let path: String

  func withLock<Result>(_ body: () throws -> Result) throws -> Result {
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw StorageError.fileSystem(path: path, reason: "cannot open the lock file (errno \(errno))")
    }
    defer { close(descriptor) }
    while flock(descriptor, LOCK_EX) != 0 {
      guard errno == EINTR else {
        throw StorageError.fileSystem(path: path, reason: "cannot lock (errno \(errno))")
      }
    }
    defer { flock(descriptor, LOCK_UN) }
    return try body()
  }
}
