import BenchSupport
import Foundation

// Peak memory of the 10,000-registration start-up: each contender in a fresh process
// (`knapsack-bench peak-memory CONTENDER`), which does nothing but one start-up and then reads its
// resident-set high-water mark. The figure includes what every process of this executable holds
// (Swift runtime, Foundation, the benchmark's code): compare it with the manual row.

/// The `VmHWM` line of /proc/self/status in bytes, or `nil` where there is no such file.
func residentHighWaterMark() -> Double? {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
  for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
    let fields = line.split(separator: " ", omittingEmptySubsequences: true)
    if fields.count >= 2, let kibibytes = Double(fields[1]) { return kibibytes * 1024 }
  }
  return nil
}

/// One start-up, then prints the high-water mark and exits: the body of `peak-memory`.
func runPeakMemory(_ contender: Contender) -> Never {
  let startUp: (Int) -> any Sendable =
    switch contender {
    case .manual: manualStartUp
    case .knapsack: knapsackStartUp
    case .swinject: swinjectStartUp
    case .swiftDependencies: dependenciesStartUp
    }
  let container = startUp(10_000)
  guard let peak = residentHighWaterMark() else {
    print("peak-memory: no /proc/self/status on this system")
    exit(1)
  }
  withExtendedLifetime(container) {}
  print(Int(peak))
  exit(0)
}

/// Runs `peak-memory` for `contender` in a new process of this executable; `nil` if it fails.
func peakResidentBytes(of contender: Contender) -> Double? {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
  process.arguments = ["peak-memory", contender.rawValue]
  let pipe = Pipe()
  process.standardOutput = pipe
  do {
    try process.run()
  } catch {
    return nil
  }
  let output = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else { return nil }
  return Double(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
}
