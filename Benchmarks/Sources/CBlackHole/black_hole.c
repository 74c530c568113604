#include "CBlackHole.h"

#if defined(__linux__)
#include <malloc.h>  // also defines __GLIBC__ on glibc systems
#endif

void knapsack_bench_black_hole(const void *pointer) {
  // An empty asm statement that claims to read the pointer and clobber memory keeps even
  // link-time optimisation from deleting the call.
  __asm__ volatile("" : : "r"(pointer) : "memory");
}

size_t knapsack_bench_heap_bytes_in_use(void) {
#if defined(__GLIBC__)
  struct mallinfo2 info = mallinfo2();
  // Small blocks come from the arenas (uordblks); large ones (a big hash table) are mmapped (hblkhd).
  return info.uordblks + info.hblkhd;
#else
  return 0;
#endif
}
