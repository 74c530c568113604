#define _GNU_SOURCE
#include "CKnapsack.h"

#include <pthread.h>

__thread uintptr_t knapsack_thread_frame = 0;
__thread uintptr_t knapsack_thread_serial = 0;
static __thread uintptr_t stack_limit = 0;
static __thread int stack_limit_known = 0;

__attribute__((noinline)) uintptr_t knapsack_stack_pointer(void) {
  return (uintptr_t)__builtin_frame_address(0);
}

uintptr_t knapsack_stack_limit(void) {
  if (stack_limit_known) return stack_limit;
  stack_limit_known = 1;
#if defined(__APPLE__)
  pthread_t self = pthread_self();
  uintptr_t top = (uintptr_t)pthread_get_stackaddr_np(self);
  size_t size = pthread_get_stacksize_np(self);
  stack_limit = top - size;
#elif defined(__linux__)
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
    void *low = 0;
    size_t size = 0;
    size_t guard = 0;
    if (pthread_attr_getstack(&attributes, &low, &size) == 0) {
      pthread_attr_getguardsize(&attributes, &guard);
      stack_limit = (uintptr_t)low + guard;
    }
    pthread_attr_destroy(&attributes);
  }
#endif
  return stack_limit;
}
