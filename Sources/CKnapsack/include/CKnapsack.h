#ifndef CKNAPSACK_H
#define CKNAPSACK_H

#include <stdint.h>

// Per-thread words used by Knapsack's engine. Defined in thread_state.c; the accessors are
// inline so that a resolution reads them with one instruction.
extern __thread uintptr_t knapsack_thread_frame;
extern __thread uintptr_t knapsack_thread_serial;

/// The innermost synchronous resolution frame running on this thread (an address on its
/// stack), or 0.
static inline uintptr_t knapsack_current_frame(void) { return knapsack_thread_frame; }
static inline void knapsack_set_current_frame(uintptr_t frame) { knapsack_thread_frame = frame; }

/// A number never returned before on this thread: tells a frame apart from an earlier one at
/// the same stack address.
static inline uintptr_t knapsack_next_serial(void) { return ++knapsack_thread_serial; }

/// The lowest usable address of this thread's stack (its guard page excluded), or 0 if
/// unknown. Computed once per thread.
uintptr_t knapsack_stack_limit(void);

/// The address of a local variable of the caller: how deep the stack is right now.
uintptr_t knapsack_stack_pointer(void);

#endif
