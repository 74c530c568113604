#define _GNU_SOURCE
#include "CKnapsack.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

__thread uintptr_t knapsack_thread_frame = 0;
__thread uintptr_t knapsack_thread_serial = 0;
static __thread uintptr_t stack_limit = 0;
static __thread int stack_limit_known = 0;

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

// The runtime's executor check with flags (weak, so that a runtime without it leaves it null). Flags 0 ask without asserting: it returns false where `assumeIsolated` traps.
extern __attribute__((swiftcall, weak)) _Bool swift_task_isCurrentExecutorWithFlags(
    struct knapsack_executor executor, uint64_t flags);

int knapsack_is_current_executor(struct knapsack_executor executor) {
  if (!swift_task_isCurrentExecutorWithFlags) return -1;
  return swift_task_isCurrentExecutorWithFlags(executor, 0) ? 1 : 0;
}

// Reader records for safe reclamation (see CKnapsack.h). Records are linked into a list that
// only grows; a thread's record is marked free when the thread exits and reused by a later one.
__thread struct knapsack_reader *knapsack_thread_reader = 0;
__thread uintptr_t knapsack_thread_read_depth = 0;
// The list's head is read and written sequentially consistently: a writer's scan must not miss
// a record pushed by a thread that then announced an epoch and read.
static struct knapsack_reader *readers = 0;
static pthread_key_t reader_key;
static pthread_once_t reader_key_once = PTHREAD_ONCE_INIT;

static void release_reader(void *record) {
  struct knapsack_reader *reader = record;
  knapsack_thread_reader = 0;
  __atomic_store_n(&reader->epoch, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&reader->extra_count, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&reader->held_back, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&reader->taken, 0, __ATOMIC_RELEASE);
}

static void make_reader_key(void) { pthread_key_create(&reader_key, release_reader); }

struct knapsack_reader *knapsack_reader_acquire(void) {
  pthread_once(&reader_key_once, make_reader_key);
  struct knapsack_reader *reader = __atomic_load_n(&readers, __ATOMIC_SEQ_CST);
  for (; reader; reader = reader->next) {
    int expected = 0;
    if (__atomic_compare_exchange_n(&reader->taken, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) break;
  }
  if (!reader) {
    // Cache lines of its own (whole pairs, for adjacent-line prefetching): every read section
    // writes its record, and records that shared a line would make threads that only read
    // contend.
    reader = aligned_alloc(128, 256);
    // Like the Swift runtime, which traps when an allocation fails.
    if (!reader) abort();
    memset(reader, 0, 256);
    _Static_assert(sizeof(struct knapsack_reader) <= 256, "a reader record fits its cache lines");
    reader->taken = 1;
    struct knapsack_reader *head = __atomic_load_n(&readers, __ATOMIC_SEQ_CST);
    do {
      reader->next = head;
    } while (!__atomic_compare_exchange_n(&readers, &head, reader, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
  }
  pthread_setspecific(reader_key, reader);
  knapsack_thread_reader = reader;
  return reader;
}

void knapsack_read_add_domain(struct knapsack_reader *reader, uintptr_t domain) {
  uintptr_t count = __atomic_load_n(&reader->extra_count, __ATOMIC_RELAXED);
  if (count >= KNAPSACK_READER_DOMAINS) return;
  for (uintptr_t index = 1; index <= count; index++) {
    if (__atomic_load_n(&reader->domains[index], __ATOMIC_RELAXED) == domain) return;
  }
  if (count + 1 < KNAPSACK_READER_DOMAINS) {
    __atomic_store_n(&reader->domains[count + 1], domain, __ATOMIC_RELEASE);
    // Acquire, like the outermost section's: if a retirement's increment is seen here, the value
    // it replaced is not seen by the loads that follow.
    uint64_t epoch = __atomic_load_n(&((const struct knapsack_domain *)domain)->epoch, __ATOMIC_ACQUIRE);
    __atomic_store_n(&reader->epochs[count + 1], epoch, __ATOMIC_RELEASE);
  }
  // Sequentially consistent, like the epoch's announcement: a writer that does not see the new
  // count has published its new value before this section reads the domain, and one that sees
  // it sees the domain and its epoch written above.
  __atomic_store_n(&reader->extra_count, count + 1, __ATOMIC_SEQ_CST);
}

// The epoch new domains start at: above every epoch a freed domain reached.
static uint64_t domain_epoch_floor = 1;

void knapsack_domain_init(struct knapsack_domain *domain, uintptr_t table) {
  // Acquire: a freed domain whose address this one reuses raised the floor before it was freed.
  domain->epoch = __atomic_load_n(&domain_epoch_floor, __ATOMIC_ACQUIRE);
  domain->table = table;
}

void knapsack_domain_finish(const struct knapsack_domain *domain) {
  uint64_t reached = __atomic_load_n(&domain->epoch, __ATOMIC_ACQUIRE) + 1;
  uint64_t floor = __atomic_load_n(&domain_epoch_floor, __ATOMIC_RELAXED);
  while (floor < reached &&
         !__atomic_compare_exchange_n(&domain_epoch_floor, &floor, reached, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
  }
}

static void (*release_hook)(uintptr_t) = 0;

void knapsack_set_release_hook(void (*hook)(uintptr_t table)) {
  __atomic_store_n(&release_hook, hook, __ATOMIC_RELEASE);
}

void knapsack_read_end(void) {
  if (--knapsack_thread_read_depth != 0) return;
  struct knapsack_reader *reader = knapsack_thread_reader;
  __atomic_store_n(&reader->epoch, 0, __ATOMIC_RELEASE);
  // Release, like the epoch's: a writer that reads the next section's domains (acquiring) sees
  // this section ended, with every read it made.
  if (reader->extra_count != 0) __atomic_store_n(&reader->extra_count, 0, __ATOMIC_RELEASE);
  if (__builtin_expect(__atomic_load_n(&reader->held_back, __ATOMIC_RELAXED) == 0, 1)) return;
  __atomic_store_n(&reader->held_back, 0, __ATOMIC_RELAXED);
  void (*hook)(uintptr_t) = __atomic_load_n(&release_hook, __ATOMIC_ACQUIRE);
  if (hook) hook(((const struct knapsack_domain *)reader->domains[0])->table);
}

uint64_t knapsack_retire(struct knapsack_domain *domain) {
  return __atomic_fetch_add(&domain->epoch, 1, __ATOMIC_SEQ_CST);
}

int knapsack_reclaimable(uint64_t epoch, uintptr_t domain) {
  // Every reader that holds the epoch back is marked, not only the first found: a section that
  // ends just as it is marked may miss the mark (its end read `held_back` first), and then
  // another holder's end must still retry. A holder of one retirement holds every later one, so
  // a writer that stops at the first retirement held back still marks every live holder.
  int reclaimable = 1;
  for (struct knapsack_reader *reader = __atomic_load_n(&readers, __ATOMIC_SEQ_CST); reader; reader = reader->next) {
    uint64_t reading = __atomic_load_n(&reader->epoch, __ATOMIC_SEQ_CST);
    if (reading == 0) continue;
    uintptr_t extra = __atomic_load_n(&reader->extra_count, __ATOMIC_SEQ_CST);
    int reads;
    // An epoch is compared only with one of the same domain's count: a section that announced a
    // later one began reading the domain after this retirement, and reads the new value. If the
    // thread's next section reused the record after `reading` was loaded, what is read below may
    // be that section's (and `reading` another domain's count): the section `reading` came from
    // has then ended, and the next one began after this scan loaded it, so after the retirement.
    if (__atomic_load_n(&reader->domains[0], __ATOMIC_ACQUIRE) == domain) {
      reads = reading <= epoch;
    } else {
      reads = extra >= KNAPSACK_READER_DOMAINS;
      for (uintptr_t index = 1; !reads && index <= extra; index++) {
        if (__atomic_load_n(&reader->domains[index], __ATOMIC_ACQUIRE) != domain) continue;
        reads = __atomic_load_n(&reader->epochs[index], __ATOMIC_ACQUIRE) <= epoch;
        break;
      }
    }
    if (reads) {
      __atomic_store_n(&reader->held_back, 1, __ATOMIC_RELAXED);
      reclaimable = 0;
    }
  }
  return reclaimable;
}

extern void swift_release(void *object);
__thread uintptr_t knapsack_thread_graph_count = 0;
__thread struct knapsack_graph_entry knapsack_thread_graph[KNAPSACK_THREAD_GRAPH_CAPACITY];

void knapsack_thread_graph_pop(uintptr_t base) {
  while (knapsack_thread_graph_count > base) {
    uintptr_t object = knapsack_thread_graph[--knapsack_thread_graph_count].object;
    swift_release((void *)object);
  }
}

uintptr_t knapsack_key_cache[KNAPSACK_KEY_CACHE_SIZE];
uintptr_t knapsack_override_key = 0;
intptr_t knapsack_live_override_scopes = 0;
__thread uintptr_t knapsack_thread_override_scope = 0;
__thread uintptr_t knapsack_thread_observing = 0;
