/* blas_trace.c — TILEMM_BLAS_TRACE: what libtilemm_blas.so did in this process, for users and
 * for tests (tests/xblat3.sh checks that the tester's products were tilemm's).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * With TILEMM_BLAS_TRACE naming a file, a process that made at least one BLAS call appends ONE
 * record to it at exit (opened with O_APPEND, written with one write, so the records of processes
 * that end together do not interleave; a process that made no call writes nothing: a preloaded
 * `timeout` or shell leaves no record of zeros).  Every line of a record starts with
 * "tilemm_blas PID PROGRAM:", then per routine called:
 *   dgemm calls N cpu N gpu N next N loop N fallbacks N
 *     calls: the calls that reached the routine with valid arguments; cpu, gpu: products tilemm
 *     computed on that backend; next: calls handed to the next BLAS (too small for the GPU to
 *     pay, or after a failure); loop: products of tilemm's own loop (the last resort);
 *     fallbacks: GPU or CPU products that failed and were computed again elsewhere
 * and per routine and place that ran products:
 *   dgemm gpu sizes <=4096:3 <=8192:1 largest 8192x8192x8192 seconds 0.41
 *     how many products had their largest dimension (of m, n, k) up to each power of two, the
 *     largest one (m×n×k), and the wall time spent in them (the whole call).
 * A child made by fork starts with no counts (its parent writes its own).  The variable is read
 * when the library loads (the process's settings, tilemm_settings.h), so a program that changes it
 * later changes nothing.
 */
#define _GNU_SOURCE   /* program_invocation_short_name */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "blas_internal.h"
#include "blas_shim.h"
#include "tilemm_settings.h"

static const char *const routine_names[BLAS_NROUTINES]
  = { "sgemm", "dgemm", "cgemm", "zgemm", "ssyrk", "dsyrk", "csyrk", "zsyrk", "cherk", "zherk" };
static const char *const place_names[BLAS_NPLACES] = { "cpu", "gpu", "next", "loop" };

const char *blas_routine_name (blas_routine routine)
{
  return routine_names[routine];
}

enum { SIZE_BUCKETS = 33 };   /* largest dimension up to 2^0 … 2^32 */

typedef struct {
  atomic_ullong calls, fallbacks;
  atomic_ullong products[BLAS_NPLACES];
  atomic_ullong sizes[BLAS_NPLACES][SIZE_BUCKETS];
  atomic_ullong nanoseconds[BLAS_NPLACES];
  /* The largest product (by m·n·k) per place; updated under a compare-and-swap of its volume. */
  atomic_ullong largest_volume[BLAS_NPLACES];
  atomic_llong largest_m[BLAS_NPLACES], largest_n[BLAS_NPLACES], largest_k[BLAS_NPLACES];
} routine_counts;

static routine_counts counts[BLAS_NROUTINES];
static atomic_int any_call;

static void reset_counts (void)
{
  memset (counts, 0, sizeof counts);
  atomic_store (&any_call, 0);
}

/* The counts of a parent are its own record, not its child's. */
static pthread_once_t fork_handler_once = PTHREAD_ONCE_INIT;
static void install_fork_handler (void)
{
  pthread_atfork (NULL, NULL, reset_counts);
}

void blas_trace_call (blas_routine routine)
{
  if (!atomic_load_explicit (&any_call, memory_order_relaxed))
    {
      pthread_once (&fork_handler_once, install_fork_handler);
      atomic_store (&any_call, 1);
    }
  atomic_fetch_add_explicit (&counts[routine].calls, 1, memory_order_relaxed);
}

void blas_trace_fallback (blas_routine routine)
{
  atomic_fetch_add_explicit (&counts[routine].fallbacks, 1, memory_order_relaxed);
}

void blas_trace_product (blas_routine routine, blas_place place, int64_t m, int64_t n, int64_t k,
                         double seconds)
{
  routine_counts *r = &counts[routine];
  atomic_fetch_add_explicit (&r->products[place], 1, memory_order_relaxed);
  int64_t largest = m > n ? m : n;
  largest = largest > k ? largest : k;
  int bucket = 0;
  while (bucket < SIZE_BUCKETS - 1 && ((int64_t) 1 << bucket) < largest)
    bucket++;
  atomic_fetch_add_explicit (&r->sizes[place][bucket], 1, memory_order_relaxed);
  atomic_fetch_add_explicit (&r->nanoseconds[place],
                             (unsigned long long) (seconds > 0 ? seconds * 1e9 : 0),
                             memory_order_relaxed);
  const unsigned long long volume = (unsigned long long) m * (unsigned long long) n
                                    * (unsigned long long) k;
  unsigned long long seen = atomic_load (&r->largest_volume[place]);
  while (volume > seen)
    if (atomic_compare_exchange_weak (&r->largest_volume[place], &seen, volume))
      {
        /* (Two threads racing here may pair one's m with the other's n: a trace, not a result.) */
        atomic_store (&r->largest_m[place], m);
        atomic_store (&r->largest_n[place], n);
        atomic_store (&r->largest_k[place], k);
        break;
      }
}

/* Appends printf-style text to buf (len bytes, *used so far); stops quietly when full. */
static void append (char *buf, size_t len, size_t *used, const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5)));
static void append (char *buf, size_t len, size_t *used, const char *fmt, ...)
{
  if (*used >= len)
    return;
  va_list ap;
  va_start (ap, fmt);
  const int wrote = vsnprintf (buf + *used, len - *used, fmt, ap);
  va_end (ap);
  if (wrote > 0)
    *used = *used + (size_t) wrote < len ? *used + (size_t) wrote : len;
}

/* The process's settings as the library loads (the trace's file among them). */
__attribute__ ((constructor)) static void read_settings (void)
{
  (void) tilemm_process_settings_get ();
}

__attribute__ ((destructor)) static void trace_write (void)
{
  const char *path = tilemm_process_settings_get ()->blas_trace;
  if (!*path || !atomic_load (&any_call))
    return;
  /* Lines per routine: one of counts and at most one per place: a record is a few KiB. */
  enum { RECORD_BYTES = 1 << 16 };
  char *buf = malloc (RECORD_BYTES);
  if (!buf)
    return;
  size_t used = 0;
  char who[128];
  snprintf (who, sizeof who, "tilemm_blas %ld %s:", (long) getpid (),
            program_invocation_short_name && *program_invocation_short_name
              ? program_invocation_short_name
              : "?");
  for (int routine = 0; routine < BLAS_NROUTINES; routine++)
    {
      routine_counts *r = &counts[routine];
      if (!atomic_load (&r->calls))
        continue;
      append (buf, RECORD_BYTES, &used, "%s %s calls %llu", who, routine_names[routine],
              atomic_load (&r->calls));
      for (int place = 0; place < BLAS_NPLACES; place++)
        append (buf, RECORD_BYTES, &used, " %s %llu", place_names[place],
                atomic_load (&r->products[place]));
      append (buf, RECORD_BYTES, &used, " fallbacks %llu\n", atomic_load (&r->fallbacks));
      for (int place = 0; place < BLAS_NPLACES; place++)
        {
          if (!atomic_load (&r->products[place]))
            continue;
          append (buf, RECORD_BYTES, &used, "%s %s %s sizes", who, routine_names[routine],
                  place_names[place]);
          for (int bucket = 0; bucket < SIZE_BUCKETS; bucket++)
            if (atomic_load (&r->sizes[place][bucket]))
              append (buf, RECORD_BYTES, &used, " <=%llu:%llu", 1ull << bucket,
                      atomic_load (&r->sizes[place][bucket]));
          append (buf, RECORD_BYTES, &used, " largest %lldx%lldx%lld seconds %.6f\n",
                  (long long) atomic_load (&r->largest_m[place]),
                  (long long) atomic_load (&r->largest_n[place]),
                  (long long) atomic_load (&r->largest_k[place]),
                  (double) atomic_load (&r->nanoseconds[place]) * 1e-9);
        }
    }
  const int saved_errno = errno;
  const int fd = open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd >= 0)
    {
      /* One write: O_APPEND places it whole at the end of the file. */
      if (write (fd, buf, used) < 0)
        {
          /* Nothing to do: a trace that cannot be written is not the program's failure. */
        }
      close (fd);
    }
  errno = saved_errno;
  free (buf);
}

void tilemm_blas_last_stats (struct tilemm_cuda_stats_s *stats)
{
  tilemm_cuda_last_stats (stats);
}
