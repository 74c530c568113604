#include "CMallocCounter.h"

#include <errno.h>  // any libc header: defines __GLIBC__ on glibc
#include <stdatomic.h>
#include <stddef.h>

#if defined(__linux__) && defined(__GLIBC__)
#define KNAPSACK_BENCH_COUNT_MALLOC 1
#endif

static _Atomic uint64_t allocations;

uint64_t knapsack_bench_allocations(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }

#if defined(KNAPSACK_BENCH_COUNT_MALLOC)

// glibc exports its allocator under these names as well; the wrappers below forward to them, so
// the memory is glibc's own and its free() releases it. The executable's definitions take
// precedence over libc's for every shared library in the process (symbol interposition).
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static inline void count(void) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); }

int knapsack_bench_allocations_counted(void) { return 1; }

void *malloc(size_t size) {
  count();
  return __libc_malloc(size);
}

void *calloc(size_t count_, size_t size) {
  count();
  return __libc_calloc(count_, size);
}

void *realloc(void *pointer, size_t size) {
  count();
  return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
  count();
  return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
  count();
  return __libc_memalign(alignment, size);
}

void *valloc(size_t size) {
  count();
  return __libc_memalign(4096, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
  if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) {
    return EINVAL;
  }
  count();
  void *pointer = __libc_memalign(alignment, size);
  if (pointer == NULL && size != 0) {
    return ENOMEM;
  }
  *result = pointer;
  return 0;
}
#else
int knapsack_bench_allocations_counted(void) { return 0; }
#endif
