#ifndef KNAPSACK_BENCH_C_BLACK_HOLE_H
#define KNAPSACK_BENCH_C_BLACK_HOLE_H

#include <stddef.h>

/// Receives a pointer the Swift optimiser cannot see through: the function body lives in a
/// separate C translation unit, so every value passed here must really be produced.
void knapsack_bench_black_hole(const void *_Nullable pointer);

/// Bytes allocated through malloc and not yet freed (glibc's `mallinfo2()`: arena blocks plus
/// mmapped blocks), or 0 where
/// the C library does not report it.
size_t knapsack_bench_heap_bytes_in_use(void);

#endif
