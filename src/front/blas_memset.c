/* blas_memset.c — the zero fill Octave gives a large result before it calls dgemm_, on all cores.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Octave (7 and later) value-initialises every array it allocates: one memset of the whole block,
 * on one thread, the first touch of each of its pages included.  Under the preloaded library
 * that fill is most of `*`: for a 8192x8192 double product it took longer on the GPU machine
 * than the product itself on the GPU (bench/RESULTS.md, "The BLAS library preloaded").  So the
 * library exports memset: calls from outside the C library (Octave's, the program's) come here,
 * and a block of at least PARALLEL_MEMSET_MIN_BYTES is set by OpenMP threads, each its own slice
 * of whole pages, so the page faults are taken in parallel too (TILEMM_BLAS_MEMSET=huge: after
 * asking huge pages for the block).  Smaller blocks, calls made inside a parallel region or in a
 * child of fork, and everything when TILEMM_BLAS_MEMSET=0 is set go to the C library's memset
 * unchanged.  The bytes written are the same either way.
 */
#define _GNU_SOURCE   /* RTLD_NEXT */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host_pages.h"

#ifdef _OPENMP
#include <omp.h>
#endif

typedef void *(*memset_fn) (void *, int, size_t);

/* Blocks from this size are set in parallel; each thread takes at least a slice this large. */
enum { PARALLEL_MEMSET_MIN_BYTES = 32 << 20, PARALLEL_MEMSET_SLICE = 4 << 20, PAGE = 4096 };

static _Atomic (memset_fn) next_memset;   /* the C library's, looked up on first use */
static atomic_int parallel_state;         /* parallel_setting's */

/* OpenMP's threads are not in a child of fork, and GNU OpenMP can hang starting a parallel region
 * there once the parent has run one: a child sets its blocks on its own thread. */
static void in_forked_child (void)
{
  atomic_store_explicit (&parallel_state, 2, memory_order_relaxed);
}

__attribute__ ((constructor)) static void watch_fork (void)
{
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

/* The setting (TILEMM_BLAS_MEMSET, read once): 0 unread, 1 threads (the default), 2 off ("0"),
 * 3 threads after asking huge pages for the block ("huge"). */
static int parallel_setting (void)
{
  int state = atomic_load_explicit (&parallel_state, memory_order_relaxed);
  if (state == 0)
    {
      const char *e = getenv ("TILEMM_BLAS_MEMSET");
      state = !e ? 1 : (e[0] == '0' && e[1] == '\0') ? 2 : (strcmp (e, "huge") == 0) ? 3 : 1;
      atomic_store_explicit (&parallel_state, state, memory_order_relaxed);
    }
  return state;
}

void *memset (void *s, int c, size_t n)
{
  const memset_fn next = the_next ();
  if (!next)
    return fill_bytes (s, c, n);
#ifdef _OPENMP
  const int setting = n >= PARALLEL_MEMSET_MIN_BYTES && !omp_in_parallel () ? parallel_setting () : 2;
  if (setting == 1 || setting == 3)
    {
      int threads = omp_get_max_threads ();
      if ((size_t) threads > n / PARALLEL_MEMSET_SLICE)
        threads = (int) (n / PARALLEL_MEMSET_SLICE);
      if (threads > 1)
        {
          unsigned char *const base = (unsigned char *) s;
          /* Slice boundaries on page boundaries (of the address), so no page is faulted by two
           * threads; the first and last slices take the unaligned ends. */
          const uintptr_t start = (uintptr_t) base, end = start + n;
          const size_t pages = n / PAGE;
          /* Asked for: huge pages for the block's 2 MiB-aligned interior (advice, as for a GPU
           * product's result: host_pages.h), one fault per 2 MiB instead of per 4 KiB.  Not the
           * default: on the GPU machine the preloaded products were no faster with it, some
           * slower, and a process's first such block can wait for the kernel to compact memory. */
          if (setting == 3)
            tilemm_prefault_finish (tilemm_prefault_start (s, n, 1, 0));
#pragma omp parallel num_threads(threads)
          {
            const int t = omp_get_thread_num (), nt = omp_get_num_threads ();
            uintptr_t lo = t == 0 ? start
                                  : ((start + (uintptr_t) ((pages * (size_t) t / (size_t) nt) * PAGE))
                                     & ~(uintptr_t) (PAGE - 1));
            uintptr_t hi = t == nt - 1
                             ? end
                             : ((start + (uintptr_t) ((pages * (size_t) (t + 1) / (size_t) nt) * PAGE))
                                & ~(uintptr_t) (PAGE - 1));
            if (lo < start)
              lo = start;
            if (hi > lo)
              next ((void *) lo, c, (size_t) (hi - lo));
          }
          return s;
        }
    }
#endif
  return next (s, c, n);
}
