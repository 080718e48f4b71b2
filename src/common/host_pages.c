/* host_pages.c — preparing a fresh result array's pages (see host_pages.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#if defined(__linux__)
#define _GNU_SOURCE
#endif

#include <stdint.h>
#include <stdlib.h>

#if defined(__GLIBC__) /* (stdlib.h has said) */
#include <malloc.h>
#endif

#include "host_pages.h"

int tilemm_keep_freed_memory (void)
{
#if defined(__GLIBC__)
  /* Both or neither: without the first, a large block is its own mapping, given back at its
   * free whatever the second says. */
  return mallopt (M_MMAP_MAX, 0) == 1 && mallopt (M_TRIM_THRESHOLD, -1) == 1;
#else
  return 0;
#endif
}

#if defined(__linux__)
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels answer EINVAL, and nothing happens */
#endif

enum { PREFAULT_MAX_THREADS = 64, HUGE_PAGE = 2 << 20 };

typedef struct {
  uintptr_t begin, end; /* page-aligned */
  pthread_t thread;
  int started;
  const tilemm_cpu_set *cpus;
} prefault_slice;

struct tilemm_prefault {
  int count;
  tilemm_cpu_set cpus;
  prefault_slice slice[PREFAULT_MAX_THREADS];
};

static void *populate (void *arg)
{
  const prefault_slice *s = (const prefault_slice *) arg;
  /* In pieces, so an older kernel's EINVAL costs one call, not the whole range's. */
  for (uintptr_t at = s->begin; at < s->end; at += (uintptr_t) 64 << 20)
    {
      const uintptr_t end = s->end - at < ((uintptr_t) 64 << 20) ? s->end : at + ((uintptr_t) 64 << 20);
      if (madvise ((void *) at, end - at, MADV_POPULATE_WRITE) != 0)
        break;
    }
  return NULL;
}

/* A thread of its own: on the CPUs asked for, then its slice. */
static void *populate_thread (void *arg)
{
  const prefault_slice *s = (const prefault_slice *) arg;
  if (s->cpus)
    tilemm_pin_thread (s->cpus);
  return populate (arg);
}

tilemm_prefault *tilemm_prefault_start (void *data, size_t bytes, int huge, int threads,
                                        const tilemm_cpu_set *cpus)
{
  if (!data || bytes == 0)
    return NULL;
  const uintptr_t lo = (uintptr_t) data, hi = lo + bytes;
  if (huge)
    {
      const uintptr_t a = (lo + HUGE_PAGE - 1) & ~(uintptr_t) (HUGE_PAGE - 1);
      const uintptr_t b = hi & ~(uintptr_t) (HUGE_PAGE - 1);
      if (b > a)
        madvise ((void *) a, b - a, MADV_HUGEPAGE); /* advice: failure changes nothing */
    }
  if (threads <= 0)
    return NULL;
  if (threads > PREFAULT_MAX_THREADS)
    threads = PREFAULT_MAX_THREADS;
  /* Whole pages inside the range only: the pages at its ends may hold someone else's data, which
   * populating would not change either, but they are not ours to touch. */
  const long page_size = sysconf (_SC_PAGESIZE);
  const uintptr_t page = page_size > 0 ? (uintptr_t) page_size : 4096;
  const uintptr_t a = (lo + page - 1) & ~(page - 1), b = hi & ~(page - 1);
  if (b <= a)
    return NULL;
  tilemm_prefault *p = (tilemm_prefault *) calloc (1, sizeof *p);
  if (!p)
    return NULL;
  if (cpus)
    p->cpus = *cpus;
  /* Slices that meet at huge-page boundaries where possible, so no two threads fault one. */
  const uintptr_t grain = huge ? HUGE_PAGE : page;
  if ((uintptr_t) threads > (b - a) / page)
    threads = (int) ((b - a) / page);
  if (threads < 1)
    threads = 1;
  uintptr_t from = a;
  for (int i = 0; i < threads; i++)
    {
      prefault_slice *s = &p->slice[i];
      uintptr_t to = b;
      if (i + 1 < threads)
        {
          to = (a + (b - a) / (uintptr_t) threads * (uintptr_t) (i + 1) + grain - 1) & ~(grain - 1);
          if (to > b)
            to = b;
          if (to < from)
            to = from;
        }
      s->begin = from;
      s->end = to;
      s->cpus = &p->cpus;
      from = to;
      if (s->end > s->begin)
        s->started = pthread_create (&s->thread, NULL, populate_thread, s) == 0;
      if (!s->started) /* no thread: do this slice here, so the work is still done */
        populate (s);
    }
  p->count = threads;
  return p;
}

void tilemm_prefault_finish (tilemm_prefault *p)
{
  if (!p)
    return;
  for (int i = 0; i < p->count; i++)
    if (p->slice[i].started)
      pthread_join (p->slice[i].thread, NULL);
  free (p);
}

#else /* not Linux */

tilemm_prefault *tilemm_prefault_start (void *data, size_t bytes, int huge, int threads,
                                        const tilemm_cpu_set *cpus)
{
  (void) data;
  (void) bytes;
  (void) huge;
  (void) threads;
  (void) cpus;
  return NULL;
}

void tilemm_prefault_finish (tilemm_prefault *prefault)
{
  (void) prefault;
}

#endif
