import CBlackHole
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Describes the machine a run happens on.
public enum Machine {
  /// For example `Intel Xeon Platinum 8375C @ 2.90GHz, 2 cores, Linux 6.1.0 x86_64`.
  public static func describe() -> String {
    var parts: [String] = []
    if let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
      let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
      let colon = line.firstIndex(of: ":")
    {
      parts.append(
        line[line.index(after: colon)...].split(separator: " ", omittingEmptySubsequences: true)
          .joined(separator: " "))
    }
    parts.append("\(ProcessInfo.processInfo.activeProcessorCount) cores")
    var name = utsname()
    if uname(&name) == 0 {
      let system = withUnsafeBytes(of: &name.sysname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      parts.append("\(system) \(release) \(machine)")
    }
    return parts.joined(separator: ", ")
  }

  /// The current UTC time as `2026-11-22 06:40 UTC`.
  public static func timestamp() -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
    return formatter.string(from: Date())
  }
}

/// Bytes currently allocated on the heap through malloc, as the allocator counts them.
public func heapBytesInUse() -> Int {
  Int(knapsack_bench_heap_bytes_in_use())
}
