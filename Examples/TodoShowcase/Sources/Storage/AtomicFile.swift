import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file's content atomically: the new bytes go to a temporary file in the same
/// folder, are flushed to disk, and the temporary file is renamed over the old one. A crash at
/// any point leaves either the old content or the new, never a mix.
///
/// A read-only file (or folder) is refused with ``StorageError/readOnly(path:)`` before
/// anything is written: the rename needs only the folder's permission, so it would otherwise
/// replace a file the user made read-only.
enum AtomicFile {
  static func write(_ data: Data, to url: URL, permissions: mode_t) throws {
    let path = url.path
    if let readOnly = FileAccess.readOnlyPath(for: url) {
      throw StorageError.readOnly(path: readOnly)
    }
    let folder = url.deletingLastPathComponent()
    let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
    guard descriptor >= 0 else {
      let code = errno
      throw StorageError.system(path: folder.path, "cannot create a temporary file in this folder", code: code)
    }
    var renamed = false
    defer {
      if !renamed { unlink(temporary) }
    }
    do {
      defer { close(descriptor) }
      try data.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
          let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
          if written < 0 {
            if errno == EINTR { continue }
            throw StorageError.system(path: temporary, "cannot write", code: errno)
          }
          offset += written
        }
      }
      guard fsync(descriptor) == 0 else {
        throw StorageError.system(path: temporary, "cannot flush", code: errno)
      }
    }
    guard rename(temporary, path) == 0 else {
      throw StorageError.system(path: path, "cannot replace", code: errno)
    }
    renamed = true
  }
}

@inline(__always)
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  #if canImport(Darwin)
  Darwin.write(descriptor, buffer, count)
  #elseif canImport(Musl)
  Musl.write(descriptor, buffer, count)
  #else
  Glibc.write(descriptor, buffer, count)
  #endif
}
