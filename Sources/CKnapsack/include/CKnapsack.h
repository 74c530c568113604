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

/// An executor reference as the Concurrency runtime passes it (`UnownedSerialExecutor`'s two
/// words).
struct knapsack_executor {
  uintptr_t identity;
  uintptr_t implementation;
};

/// Whether the calling code runs isolated to `executor`, asked of the Concurrency runtime without
/// the trap of `assumeIsolated`: 1 if it does, 0 if not, -1 if this runtime cannot tell so (it
/// lacks the entry point). Knows what a queue check does not: main-actor code running a block with
/// `DispatchQueue.sync` on another queue runs that block isolated to the main actor.
int knapsack_is_current_executor(struct knapsack_executor executor);

/// The frame address of the function this is inlined into (of this function, where it is not
/// inlined): how deep the stack is right now, to within one frame. Inline, so that a resolution
/// reads it without a call.
static inline uintptr_t knapsack_stack_pointer(void) { return (uintptr_t)__builtin_frame_address(0); }

// The graph-scoped instances of this thread's synchronous resolutions: a stack of (binding
// serial, retained object) entries. A synchronous resolution runs on one thread, and one that
// starts inside it (a factory resolving through a captured container, a deinit resolving) ends
// before it, so each resolution owns the entries from where the stack stood when it stored its
// first one, and gives them back when it ends. Resolving graph-scoped keys so takes no lock and
// allocates nothing but the instances. A resolution that needs more room, or keeps an instance
// for an argument, moves its entries to a store object of its own. Empty whenever no synchronous
// resolution runs on the thread, so the thread's exit has nothing to release.
#define KNAPSACK_THREAD_GRAPH_CAPACITY 16
struct knapsack_graph_entry {
  uintptr_t serial;
  uintptr_t object;
};
extern __thread uintptr_t knapsack_thread_graph_count;
extern __thread struct knapsack_graph_entry knapsack_thread_graph[KNAPSACK_THREAD_GRAPH_CAPACITY];

/// How many entries the thread's stack holds: where a resolution's own entries will begin.
static inline uintptr_t knapsack_thread_graph_top(void) { return knapsack_thread_graph_count; }

/// The object stored for `serial` among the entries from `base` on, unretained, or 0.
static inline uintptr_t knapsack_thread_graph_find(uintptr_t base, uintptr_t serial) {
  uintptr_t count = knapsack_thread_graph_count;
  for (uintptr_t index = base; index < count; index++) {
    if (knapsack_thread_graph[index].serial == serial) return knapsack_thread_graph[index].object;
  }
  return 0;
}

/// Pushes an entry (the object retained by the caller, and owned by the stack from now on);
/// returns 0, taking nothing, if the stack is full.
static inline int knapsack_thread_graph_push(uintptr_t serial, uintptr_t object) {
  uintptr_t count = knapsack_thread_graph_count;
  if (__builtin_expect(count == KNAPSACK_THREAD_GRAPH_CAPACITY, 0)) return 0;
  knapsack_thread_graph[count].serial = serial;
  knapsack_thread_graph[count].object = object;
  knapsack_thread_graph_count = count + 1;
  return 1;
}

/// The entry at `index` (below the top), for a resolution moving its entries elsewhere.
static inline struct knapsack_graph_entry knapsack_thread_graph_entry(uintptr_t index) {
  return knapsack_thread_graph[index];
}

/// Drops the entries from `base` on without releasing them (their objects were moved elsewhere).
static inline void knapsack_thread_graph_truncate(uintptr_t base) { knapsack_thread_graph_count = base; }

/// Releases the entries from `base` on, last first. Each entry leaves the stack before its object
/// is released, so a deinit that resolves again starts on a consistent stack.
void knapsack_thread_graph_pop(uintptr_t base);

// Safe reclamation of what lock-free readers may still use (epoch-based, per domain).
//
// A domain is one table of one container, and keeps its own epoch counter (see
// `struct knapsack_domain`): a writer that retires in one container advances only that
// container's epoch, so readers of other containers never see its cache lines change.
//
// A reader brackets each lock-free read of a domain with `knapsack_read_begin(domain)` and
// `knapsack_read_end()`, and keeps nothing it read beyond the section without retaining it. A
// writer that unpublishes an object of a domain calls `knapsack_retire(domain)` after the new
// value is visible, keeps the object alive, and releases it once
// `knapsack_reclaimable(epoch, domain)` says that no reader that could have seen it is still
// reading that domain.
//
// Sections nest: a synchronous resolution reads its whole path, its factories included, in one
// section, so what it reads (the plan, its binding) stays alive without being retained until it
// returns. The outermost section announces its domain and that domain's epoch; a nested one that
// reads another domain adds it with that domain's epoch at the time, and the domain stays listed
// until the outermost section ends. A factory that runs long so holds back only the release of
// what the containers its resolution reads retire before it reads them (every container's, in
// the rare resolution that reads more than KNAPSACK_READER_DOMAINS). A section belongs to its
// thread: it never spans a suspension.
//
// Retired objects are released by the writer that retires them, at a later store into the same
// table, or when the outermost section that held them back ends (see `knapsack_read_end`).

/// A domain: its epoch counter, and the table it belongs to (for the release hook). Allocated by
/// the table on lines of its own; only writers of that table write here. The table outlives
/// every section whose first domain it is, and only a first domain is ever dereferenced: a
/// domain a nested section listed may be gone (its address then only compared) once that nested
/// section has returned.
struct knapsack_domain {
  /// Advanced by every retirement in the domain; starts above every freed domain's (never 0, which
  /// in a record means "not reading").
  uint64_t epoch;
  /// The table (an unretained object address), given to the release hook.
  uintptr_t table;
};

/// Readies `domain` (uninitialized memory) for `table`. Its epoch starts above every epoch a freed
/// domain reached: a running section may still list a freed domain whose address this one
/// reuses, with an epoch of the freed domain's count, and that entry must never look newer than
/// what this domain retires.
void knapsack_domain_init(struct knapsack_domain *domain, uintptr_t table);

/// Called just before `domain` is freed: raises the epoch new domains start at above the one it
/// reached (see `knapsack_domain_init`). Only containers being made or freed touch that floor.
void knapsack_domain_finish(const struct knapsack_domain *domain);

/// The domains a reader record can list before it stands for every domain.
#define KNAPSACK_READER_DOMAINS 8

/// One thread's reader record. The thread writes it; writers scanning for readers read it.
struct knapsack_reader {
  /// The epoch of the outermost open section, in the count of its domain (`domains[0]`), or 0
  /// when the thread is not reading.
  uint64_t epoch;
  int taken;
  struct knapsack_reader *next;
  /// The domains the open section reads (addresses of `struct knapsack_domain`): the outermost
  /// section's, then the first `extra_count` others, or every domain when `extra_count` exceeds
  /// KNAPSACK_READER_DOMAINS - 1.
  uintptr_t domains[KNAPSACK_READER_DOMAINS];
  /// The epoch of each of `domains[1...]` when the section first read it, in that domain's count
  /// (`epochs[0]` is unused: the outermost domain's is `epoch`).
  uint64_t epochs[KNAPSACK_READER_DOMAINS];
  uintptr_t extra_count;
  /// Set by a writer that could not release what it retired because of this reader's open
  /// section; the section's end then reports it, so that the reader tries again.
  int held_back;
};

/// The calling thread's reader record, 0 until the thread first reads.
extern __thread struct knapsack_reader *knapsack_thread_reader;
/// How many read sections the calling thread has open.
extern __thread uintptr_t knapsack_thread_read_depth;

/// Gives the calling thread a reader record (reusing one of an exited thread) and returns it.
struct knapsack_reader *knapsack_reader_acquire(void);

/// Adds `domain` to the open section of `reader`, unless it lists it already (out of line: a
/// nested section in another container than the outermost one is rare).
void knapsack_read_add_domain(struct knapsack_reader *reader, uintptr_t domain);

static inline void knapsack_read_begin(uintptr_t domain) {
  struct knapsack_reader *reader = knapsack_thread_reader;
  if (__builtin_expect(reader == 0, 0)) reader = knapsack_reader_acquire();
  if (knapsack_thread_read_depth++ != 0) {
    // Nested: the outermost section's epoch protects what is read from here on in its domain; a
    // domain listed with its own epoch, what is read from here on in that one.
    if (__builtin_expect(reader->domains[0] != domain, 0)) knapsack_read_add_domain(reader, domain);
    return;
  }
  // Release: a writer that reads this domain (acquiring) sees the previous section of this
  // thread ended, with every read it made.
  __atomic_store_n(&reader->domains[0], domain, __ATOMIC_RELEASE);
  // Sequentially consistent, like the slot loads that follow: a writer that does not see this
  // announcement has published its new value first. A writer that reads this epoch sees the
  // domain written above with it.
  uint64_t epoch = __atomic_load_n(&((const struct knapsack_domain *)domain)->epoch, __ATOMIC_ACQUIRE);
  __atomic_store_n(&reader->epoch, epoch, __ATOMIC_SEQ_CST);
}

/// Ends a read section. If it was the thread's outermost one and a writer could not release what
/// it retired because of it, calls the release hook with the table of the section's first
/// domain, which the caller still holds; the hook tries again every table with retired objects
/// (see `HeldBackTables`). A writer that marks the section just as it ends is not called back
/// then: what it retired waits for the thread's next section end, another held-back section's
/// end, or the next store into its table. Not inline on purpose: the Swift optimizer moves a retain past a plain
/// store (it cannot release), which would retain what was read after the section ended; it never
/// moves one past a call it cannot see into.
void knapsack_read_end(void);

/// Sets the function that tries again to release what a table retired (see
/// `knapsack_read_end`); it receives the `table` of the domain.
void knapsack_set_release_hook(void (*hook)(uintptr_t table));

/// Starts a new epoch of `domain` and returns the one that ends: the epoch of what was just
/// unpublished from it.
uint64_t knapsack_retire(struct knapsack_domain *domain);

/// The current epoch of `domain`.
static inline uint64_t knapsack_domain_epoch(const struct knapsack_domain *domain) {
  return __atomic_load_n(&domain->epoch, __ATOMIC_ACQUIRE);
}

/// Whether no thread is still reading `domain` in a section that began reading it in `epoch` of
/// that domain or earlier (or in any section, for a thread reading more domains than its record
/// lists). Marks every such section, so that its end retries the release. Monotonic in `epoch`:
/// a section that holds one retirement back holds back every later one of the domain.
int knapsack_reclaimable(uint64_t epoch, uintptr_t domain);

// The key cache: a direct-mapped table from the address of a key path object (or a metatype) to
// an immutable entry that Knapsack keeps alive (see `AddressCache`). A C global, so that a
// resolution reaches it without a lazy-initialization check.
#define KNAPSACK_KEY_CACHE_SIZE 32768
extern uintptr_t knapsack_key_cache[KNAPSACK_KEY_CACHE_SIZE];

static inline uintptr_t knapsack_key_cache_load(intptr_t slot) {
  return __atomic_load_n(&knapsack_key_cache[slot], __ATOMIC_ACQUIRE);
}

static inline void knapsack_key_cache_store(intptr_t slot, uintptr_t entry) {
  __atomic_store_n(&knapsack_key_cache[slot], entry, __ATOMIC_RELEASE);
}

// The task-local key of the override scope (the address of its `TaskLocal` object), published
// before the first scope opens, and the number of override scopes alive. A task can have a scope
// bound only while that scope is alive, so while none is, a resolution skips the task-local
// look-up: a scope slows other tasks only while it is open, and nothing once it has closed.
extern uintptr_t knapsack_override_key;
extern intptr_t knapsack_live_override_scopes;

/// The task-local key to look up, or 0 when no override scope is alive.
static inline uintptr_t knapsack_override_key_load(void) {
  if (__atomic_load_n(&knapsack_live_override_scopes, __ATOMIC_ACQUIRE) == 0) return 0;
  return __atomic_load_n(&knapsack_override_key, __ATOMIC_ACQUIRE);
}

// The override scope that this thread's code outside any task sees (an unretained `OverrideScope`
// address, or 0), kept by the synchronous binders of the scope's task local when they run outside
// a task. Outside a task, the task local lives in the thread's own storage, and only those binders
// change it there: so while no task is current, this word holds what the task-local look-up
// would return, without the look-up.
extern __thread uintptr_t knapsack_thread_override_scope;

/// The Concurrency runtime's current task, or null outside a task: its exported, ABI-stable entry
/// point, which `withUnsafeCurrentTask` reads too. It takes nothing and returns a pointer, so the
/// Swift calling convention it is defined with passes them as the C one does.
extern void *swift_task_getCurrent(void);

/// The runtime's conformance look-up, its exported, ABI-stable entry point (also declared by the
/// standard library's own shims): the witness table of `type`'s conformance to the protocol
/// `protocol_descriptor`, or null if it does not conform. Both are metadata addresses; the Swift
/// calling convention it is defined with passes two pointers and returns one as the C one does.
/// Only errors call it (near matches), never a resolution.
extern const void *swift_conformsToProtocol(const void *type, const void *protocol_descriptor);

static inline uintptr_t knapsack_thread_override_scope_load(void) { return knapsack_thread_override_scope; }
static inline void knapsack_thread_override_scope_store(uintptr_t scope) { knapsack_thread_override_scope = scope; }

// Whether this thread is running a resolution observer's callback: resolutions the callback
// makes (an observer that logs through a logger it resolves) are not observed again.
extern __thread uintptr_t knapsack_thread_observing;
static inline uintptr_t knapsack_thread_observing_load(void) { return knapsack_thread_observing; }
static inline void knapsack_thread_observing_store(uintptr_t observing) { knapsack_thread_observing = observing; }

/// Called when a scope is made, before it is bound: publishes the key and counts the scope.
static inline void knapsack_override_scope_made(uintptr_t key) {
  __atomic_store_n(&knapsack_override_key, key, __ATOMIC_RELEASE);
  __atomic_fetch_add(&knapsack_live_override_scopes, 1, __ATOMIC_ACQ_REL);
}

/// Called when a scope is freed (no task can have it bound any more).
static inline void knapsack_override_scope_freed(void) {
  __atomic_fetch_sub(&knapsack_live_override_scopes, 1, __ATOMIC_ACQ_REL);
}

#endif
