/* copy_pool.c — the host threads of the staging copies (see copy_pool.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * One copy (a job) at a time: its pieces are claimed from one atomic word that holds the job's
 * generation, its number of pieces and the next unclaimed piece, so a thread that read an older
 * job's word cannot claim a piece of a newer one (its compare-and-swap fails), and the bound it
 * claims against is always its own job's.  The job's function and argument are written (release)
 * before its word is published and read (acquire) after it: a claim that succeeds for a piece of
 * the job means the job is not finished, so they have not been replaced.  The caller counts the
 * finished pieces and returns when all are, whichever threads ran them.
 */
#if defined(__linux__)
#define _GNU_SOURCE
#endif

#include "copy_pool.h"

#if defined(__unix__) || defined(__APPLE__)
#define COPY_POOL_THREADS 1
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#endif

#ifdef COPY_POOL_THREADS

/* An idle thread watches for the next copy this long before it sleeps: a product's next chunk
 * usually comes within it, and beyond it the core is better left to others. */
static const long IDLE_SPIN_NS = 1000000;

typedef void (*piece_fn) (void *arg, int64_t i);

/* The job word: generation (24 bits) | pieces (20 bits) | next unclaimed piece (20 bits). */
enum { PIECE_BITS = 20 };
#define PIECE_MASK ((uint_fast64_t) ((1u << PIECE_BITS) - 1))

static inline long long word_pieces (uint_fast64_t w)
{
  return (long long) ((w >> PIECE_BITS) & PIECE_MASK);
}

static inline long long word_next (uint_fast64_t w)
{
  return (long long) (w & PIECE_MASK);
}

typedef struct {
  pthread_mutex_t lock;     /* guards started, sleeping, wake_seq, stopping                   */
  pthread_cond_t wake;
  int started, sleeping, stopping;
  unsigned long long wake_seq;
  pthread_t thread[TILEMM_COPY_POOL_MAX];
  atomic_int busy;          /* a caller owns the pool (one job at a time)                     */
  atomic_uint_fast64_t word; /* the current job's word (above)                                */
  atomic_llong done;        /* pieces of the current job finished                             */
  _Atomic (piece_fn) fn;    /* the current job, written before its word is published          */
  _Atomic (void *) arg;
  atomic_int width;         /* pool threads that may join it (threads - 1)                    */
  uint_fast64_t generation; /* the caller's, under busy                                       */
} copy_pool;

static copy_pool pool = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

static inline void relax (void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_ia32_pause ();
#elif defined(__GNUC__) && defined(__aarch64__)
  __asm__ __volatile__ ("yield");
#endif
}

static long long now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (long long) t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Claims and runs pieces of the job whose word was `w` until it has none left to claim (or a
 * newer job replaced it); returns how many this thread ran. */
static long long run_pieces (uint_fast64_t w)
{
  const uint_fast64_t job = w >> PIECE_BITS; /* generation and pieces: the job's identity */
  const piece_fn fn = atomic_load_explicit (&pool.fn, memory_order_acquire);
  void *const arg = atomic_load_explicit (&pool.arg, memory_order_acquire);
  long long ran = 0;
  while ((w >> PIECE_BITS) == job && word_next (w) < word_pieces (w))
    if (atomic_compare_exchange_weak_explicit (&pool.word, &w, w + 1, memory_order_acq_rel,
                                               memory_order_acquire))
      {
        fn (arg, (int64_t) word_next (w));
        ran++;
        atomic_fetch_add_explicit (&pool.done, 1, memory_order_release);
        w = atomic_load_explicit (&pool.word, memory_order_acquire);
      }
  return ran;
}

/* Whether the job of word `w` has a piece left that pool thread number `self` may take. */
static int has_work (uint_fast64_t w, int self)
{
  return word_next (w) < word_pieces (w)
         && self < atomic_load_explicit (&pool.width, memory_order_relaxed);
}

static void *pool_thread (void *arg)
{
  const int self = (int) (intptr_t) arg;
  unsigned long long seen = 0;
  for (;;)
    {
      /* Work while there is some, then watch a while, then sleep until a caller wakes us. */
      long long idle_since = now_ns ();
      for (int spins = 0;; spins++)
        {
          const uint_fast64_t w = atomic_load_explicit (&pool.word, memory_order_acquire);
          if (has_work (w, self))
            {
              run_pieces (w);
              idle_since = now_ns ();
              continue;
            }
          if ((spins & 63) == 63 && now_ns () - idle_since > IDLE_SPIN_NS)
            break;
          relax ();
        }
      pthread_mutex_lock (&pool.lock);
      for (;;)
        {
          if (pool.stopping)
            {
              pthread_mutex_unlock (&pool.lock);
              return NULL;
            }
          /* Checked under the lock, against the caller's publish-then-lock: no wake is missed. */
          if (has_work (atomic_load_explicit (&pool.word, memory_order_acquire), self)
              || pool.wake_seq != seen)
            break;
          pool.sleeping++;
          pthread_cond_wait (&pool.wake, &pool.lock);
          pool.sleeping--;
        }
      seen = pool.wake_seq;
      pthread_mutex_unlock (&pool.lock);
    }
}

/* Starts pool threads up to `want` (under pool.lock); fewer where the system refuses. */
static void start_threads (int want)
{
  if (want > TILEMM_COPY_POOL_MAX - 1)
    want = TILEMM_COPY_POOL_MAX - 1;
  while (pool.started < want && !pool.stopping)
    {
      if (pthread_create (&pool.thread[pool.started], NULL, pool_thread,
                          (void *) (intptr_t) pool.started)
          != 0)
        break;
      pool.started++;
    }
}

int tilemm_copy_pool_run (int threads, int64_t pieces, void (*fn) (void *arg, int64_t i), void *arg)
{
  int free_pool = 0;
  if (threads <= 1 || pieces <= 1 || pieces > TILEMM_COPY_POOL_MAX_PIECES
      || !atomic_compare_exchange_strong (&pool.busy, &free_pool, 1))
    return 0;
  const int width = threads - 1 < TILEMM_COPY_POOL_MAX - 1 ? threads - 1 : TILEMM_COPY_POOL_MAX - 1;
  atomic_store_explicit (&pool.fn, fn, memory_order_release);
  atomic_store_explicit (&pool.arg, arg, memory_order_release);
  atomic_store_explicit (&pool.width, width, memory_order_relaxed);
  atomic_store_explicit (&pool.done, 0, memory_order_relaxed);
  pool.generation = (pool.generation + 1) & ((1u << 24) - 1);
  const uint_fast64_t w = (pool.generation << (2 * PIECE_BITS)) | ((uint_fast64_t) pieces << PIECE_BITS);
  atomic_store_explicit (&pool.word, w, memory_order_release);
  pthread_mutex_lock (&pool.lock);
  if (pool.started < width)
    start_threads (width);
  if (pool.sleeping > 0)
    {
      pool.wake_seq++;
      pthread_cond_broadcast (&pool.wake);
    }
  pthread_mutex_unlock (&pool.lock);
  /* The caller takes pieces too, then waits for the ones others took. */
  run_pieces (atomic_load_explicit (&pool.word, memory_order_acquire));
  while (atomic_load_explicit (&pool.done, memory_order_acquire) < (long long) pieces)
    relax ();
  atomic_store_explicit (&pool.busy, 0, memory_order_release);
  return 1;
}

int tilemm_copy_pool_threads (void)
{
  pthread_mutex_lock (&pool.lock);
  const int n = pool.started;
  pthread_mutex_unlock (&pool.lock);
  return n;
}

void tilemm_copy_pool_stop (void)
{
  pthread_mutex_lock (&pool.lock);
  pool.stopping = 1;
  pthread_cond_broadcast (&pool.wake);
  const int n = pool.started;
  pthread_mutex_unlock (&pool.lock);
  for (int t = 0; t < n; t++)
    pthread_join (pool.thread[t], NULL);
  pthread_mutex_lock (&pool.lock);
  pool.started = 0;
  pool.stopping = 0;
  pthread_mutex_unlock (&pool.lock);
}

/* A child of fork has none of the parent's threads: it starts its own on first use.  (The lock
 * is taken around fork so the child's copy of it is not held by a thread that is not there.) */
static void before_fork (void)
{
  pthread_mutex_lock (&pool.lock);
}

static void after_fork_parent (void)
{
  pthread_mutex_unlock (&pool.lock);
}

static void after_fork_child (void)
{
  pool.started = 0;
  pool.sleeping = 0;
  pool.stopping = 0;
  atomic_store (&pool.busy, 0);
  pthread_mutex_unlock (&pool.lock);
}

__attribute__ ((constructor)) static void copy_pool_load (void)
{
  pthread_atfork (before_fork, after_fork_parent, after_fork_child);
}

__attribute__ ((destructor)) static void copy_pool_unload (void)
{
  tilemm_copy_pool_stop ();
}

#else /* no POSIX threads: the caller copies its own way */

int tilemm_copy_pool_run (int threads, int64_t pieces, void (*fn) (void *arg, int64_t i), void *arg)
{
  (void) threads, (void) pieces, (void) fn, (void) arg;
  return 0;
}

int tilemm_copy_pool_threads (void)
{
  return 0;
}

void tilemm_copy_pool_stop (void)
{
}

#endif
