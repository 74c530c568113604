import DeepChain
import Foundation

// Built in the debug configuration by scripts/publish.sh and scripts/ci.sh: prints the stack one
// level of resolution takes in a debug build (the release figure comes from
// `knapsack-bench deep-chain`), for `knapsack-bench --debug-stack-bytes`.
#if DEBUG
let configuration = "debug"
#else
let configuration = "release"
#endif
guard let bytes = stackBytesPerLevel() else {
  print("stack-per-level: the 100-deep chain did not resolve")
  exit(1)
}
print("stack per level of resolution (\(configuration)): \(bytes) bytes")
