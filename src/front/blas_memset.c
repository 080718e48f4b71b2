/* blas_memset.c — the zero fill Octave gives a large result before it calls dgemm_, on all cores.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Octave (7 and later) value-initialises every array it allocates: one memset of the whole block,
 * on one thread, the first touch of each of its pages included.  Under the preloaded library
 * that fill is most of `*`: for a 8192x8192 double product it took longer on the GPU machine
 * than the product itself on the GPU (bench/RESULTS.md, "The BLAS library preloaded").  So the
 * library exports memset: calls from outside the C library (Octave's, the program's) come here,
 * and a block of at least PARALLEL_MEMSET_MIN_BYTES is set by the host pool's threads
 * (host_pool.h), as many as the block pays for (team_size.h), in slices of whole pages claimed one
 * at a time, so the page faults are taken in parallel too (TILEMM_BLAS_MEMSET=huge: after asking
 * huge pages for the block).  Smaller blocks and everything when TILEMM_BLAS_MEMSET=0 is set go to
 * the C library's memset unchanged; a call made while the pool runs a job (from one of its
 * threads, or beside it), or in a child of fork, sets its block on its own thread.  The bytes written are the same either way.
 */
#define _GNU_SOURCE   /* RTLD_NEXT */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"
#include "host_pages.h"
#include "host_pool.h"
#include "team_size.h"
#include "tilemm_settings.h"

typedef void *(*memset_fn) (void *, int, size_t);

/* Blocks from this size are set in parallel, in slices of about this size. */
enum { PARALLEL_MEMSET_MIN_BYTES = 32 << 20, PARALLEL_MEMSET_SLICE = 4 << 20, PAGE = 4096 };

/* What the library does with a large block (TILEMM_BLAS_MEMSET: the process's settings, read
 * when the library loads). */
typedef enum {
  MEMSET_UNREAD,   /* not read yet                                                     */
  MEMSET_THREADS,  /* set by the threads (the default)                                 */
  MEMSET_OFF,      /* "0", and in a child of fork: the C library's memset              */
  MEMSET_HUGE      /* "huge": the threads, after asking huge pages for the block       */
} memset_setting;

static _Atomic (memset_fn) next_memset;   /* the C library's, looked up on first use */
static atomic_int setting_read;           /* a memset_setting */

/* The pool's threads are not in a child of fork: a child sets its blocks on its own thread (the
 * C library's memset, without the pool's checks). */
static void in_forked_child (void)
{
  atomic_store_explicit (&setting_read, MEMSET_OFF, memory_order_relaxed);
}

/* The process's setting, as the library loads (tilemm_settings.h: read once, in options.c); a memset
 * of a large block that comes before (another library's constructor) reads it then. */
static memset_setting read_setting (void)
{
  switch (tilemm_process_settings_get ()->blas_memset)
    {
    case TILEMM_BLAS_MEMSET_OFF:
      return MEMSET_OFF;
    case TILEMM_BLAS_MEMSET_HUGE:
      return MEMSET_HUGE;
    default:
      return MEMSET_THREADS;
    }
}

__attribute__ ((constructor)) static void watch_fork (void)
{
  int unread = MEMSET_UNREAD;
  atomic_compare_exchange_strong (&setting_read, &unread, read_setting ());
  pthread_atfork (NULL, NULL, in_forked_child);
}

/* Byte by byte, through a volatile pointer so the compiler cannot make it a call to memset:
 * only for a call that comes before the C library's memset could be looked up. */
static void *fill_bytes (void *s, int c, size_t n)
{
  volatile unsigned char *p = (volatile unsigned char *) s;
  for (size_t i = 0; i < n; i++)
    p[i] = (unsigned char) c;
  return s;
}

static memset_fn the_next (void)
{
  memset_fn f = atomic_load_explicit (&next_memset, memory_order_acquire);
  if (!f)
    {
      f = (memset_fn) dlsym (RTLD_NEXT, "memset");
      if (f)
        atomic_store_explicit (&next_memset, f, memory_order_release);
    }
  return f;
}

static memset_setting the_setting (void)
{
  int setting = atomic_load_explicit (&setting_read, memory_order_relaxed);
  if (setting == MEMSET_UNREAD)
    {
      /* A child of fork never gets here (in_forked_child set it): no once-lock a parent's thread
       * may have held at the fork is waited for. */
      int unread = MEMSET_UNREAD;
      atomic_compare_exchange_strong (&setting_read, &unread, read_setting ());
      setting = atomic_load_explicit (&setting_read, memory_order_relaxed);
    }
  return (memset_setting) setting;
}

/* Where slice t of nt of the block [start, end) begins (t = nt: end): on a page boundary of the
 * address, so that no page is faulted by two threads; the first slice takes the unaligned
 * start, the last the unaligned end. */
static uintptr_t slice_start (uintptr_t start, uintptr_t end, int t, int nt)
{
  if (t == 0)
    return start;
  if (t == nt)
    return end;
  const size_t pages = (size_t) (end - start) / PAGE;
  const uintptr_t at = (start + (uintptr_t) (pages * (size_t) t / (size_t) nt * PAGE))
                       & ~(uintptr_t) (PAGE - 1);
  return at > start ? at : start;
}

/* One block over the host pool: slice `index` of `slices`. */
typedef struct {
  memset_fn next;
  uintptr_t start, end;
  int c, slices;
} memset_job;

static void memset_slice (void *arg, int64_t index, int member)
{
  (void) member;
  const memset_job *j = (const memset_job *) arg;
  const uintptr_t lo = slice_start (j->start, j->end, (int) index, j->slices);
  const uintptr_t hi = slice_start (j->start, j->end, (int) index + 1, j->slices);
  if (hi > lo)
    j->next ((void *) lo, j->c, (size_t) (hi - lo));
}

void *memset (void *s, int c, size_t n)
{
  const memset_fn next = the_next ();
  if (!next)
    return fill_bytes (s, c, n);
  /* Small blocks (nearly every call) pay this comparison only. */
  if (n >= PARALLEL_MEMSET_MIN_BYTES)
    {
      const memset_setting setting = the_setting ();
      const int slices = (int) (n / PARALLEL_MEMSET_SLICE);
      /* (The setting first: a child of fork asks the host's facts nothing.) */
      const int threads
        = setting == MEMSET_OFF
            ? 1
            : tilemm_decide_host_threads (slices, (double) n / TILEMM_TEAM_THREAD_BYTES_PER_S);
      if (threads > 1)
        {
          /* Asked for: huge pages for the block's 2 MiB-aligned interior (advice, as for a GPU
           * product's result: host_pages.h), one fault per 2 MiB instead of per 4 KiB.  Not the
           * default: on the GPU machine the preloaded products were no faster with it, some
           * slower, and a process's first such block can wait for the kernel to compact memory. */
          if (setting == MEMSET_HUGE)
            tilemm_prefault_finish (tilemm_prefault_start (s, n, 1, 0, NULL));
          const memset_job j = { next, (uintptr_t) s, (uintptr_t) s + n, c, slices };
          tilemm_host_pool_run (threads, slices, memset_slice, (void *) &j);
          return s;
        }
    }
  return next (s, c, n);
}
