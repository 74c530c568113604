#ifndef KNAPSACK_BENCH_C_MALLOC_COUNTER_H
#define KNAPSACK_BENCH_C_MALLOC_COUNTER_H

#include <stdint.h>

/// Heap allocations made by any thread since the process started: every call to malloc, calloc,
/// realloc, posix_memalign, aligned_alloc, memalign and valloc. Linking this target into an
/// executable replaces those functions (glibc) with wrappers that count and forward to glibc's
/// allocator; where that is not possible the count stays 0 and
/// `knapsack_bench_allocations_counted()` is 0.
uint64_t knapsack_bench_allocations(void);

/// 1 when allocations are counted, 0 where the platform does not allow the wrappers.
int knapsack_bench_allocations_counted(void);

#endif
