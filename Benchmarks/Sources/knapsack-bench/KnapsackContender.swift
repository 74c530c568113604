import BenchSupport

// Placeholder until the Knapsack core builds (see /work/notes/CORE_READY).

func knapsackBenchmarks() -> [Benchmark] {
  []
}

func knapsackBytesPerRegistration() -> Double { .nan }
