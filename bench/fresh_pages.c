/* fresh_pages.c — what a result's host copy meets, without tilemm: 128 MiB and 512 MiB written by
 * T threads (default 15: a 16-CPU host's copy team) into a fresh mapping with huge pages advised
 * (as a result Octave has just allocated), copied into one, and copied into pages already in
 * memory; the median of 7 runs and their range.  Run it in several processes to see how much a
 * fresh mapping's cost moves from one process to the next on a machine.
 *
 *   cc -O2 -std=c11 -pthread bench/fresh_pages.c -o fresh_pages && ./fresh_pages [T]
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

enum { RUNS = 7, MOST_THREADS = 64 };
static const size_t HUGE_PAGE = (size_t) 2 << 20;

typedef struct {
  char *dst;
  const char *src; /* NULL: fill */
  size_t bytes;
} slice;

static void *write_slice (void *arg)
{
  const slice *s = arg;
  if (s->src)
    memcpy (s->dst, s->src, s->bytes);
  else
    memset (s->dst, 1, s->bytes);
  return NULL;
}

static double now_s (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

static int by_value (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Seconds to write `bytes` into `into` (NULL: a fresh mapping, huge pages advised) from `src`
 * (NULL: a fill), in `threads` slices cut at huge pages; -1 where memory was refused. */
static double one_run (size_t bytes, int threads, const char *src, char *into)
{
  char *dst = into;
  if (!dst)
    {
      void *p = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED)
        return -1;
      dst = p;
      madvise (dst, bytes, MADV_HUGEPAGE); /* advice: where refused, 4 KiB pages are measured */
    }
  pthread_t thread[MOST_THREADS];
  slice s[MOST_THREADS];
  int started[MOST_THREADS] = { 0 };
  const size_t per = bytes / (size_t) threads / HUGE_PAGE * HUGE_PAGE;
  const double t0 = now_s ();
  for (int i = 0; i < threads; i++)
    {
      const size_t at = (size_t) i * per;
      s[i] = (slice) { dst + at, src ? src + at : NULL, i + 1 < threads ? per : bytes - at };
      started[i] = pthread_create (&thread[i], NULL, write_slice, &s[i]) == 0;
      if (!started[i])
        write_slice (&s[i]);
    }
  for (int i = 0; i < threads; i++)
    if (started[i])
      pthread_join (thread[i], NULL);
  const double seconds = now_s () - t0;
  if (!into)
    munmap (dst, bytes);
  return seconds;
}

static void report (const char *what, double *s)
{
  qsort (s, RUNS, sizeof *s, by_value);
  printf (", %s %.1f ms (%.1f-%.1f)", what, 1e3 * s[RUNS / 2], 1e3 * s[0], 1e3 * s[RUNS - 1]);
}

int main (int argc, char **argv)
{
  int threads = argc > 1 ? atoi (argv[1]) : 15;
  if (threads < 1 || threads > MOST_THREADS)
    {
      fprintf (stderr, "fresh_pages: threads from 1 to %d\n", MOST_THREADS);
      return 2;
    }
  const size_t sizes[] = { (size_t) 128 << 20, (size_t) 512 << 20 };
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    {
      const size_t bytes = sizes[k];
      char *src = malloc (bytes), *resident = malloc (bytes);
      if (!src || !resident)
        {
          fprintf (stderr, "fresh_pages: out of memory\n");
          return 1;
        }
      memset (src, 2, bytes);
      memset (resident, 3, bytes);
      double fill[RUNS], copy_fresh[RUNS], copy_resident[RUNS];
      for (int r = 0; r < RUNS; r++)
        {
          fill[r] = one_run (bytes, threads, NULL, NULL);
          copy_fresh[r] = one_run (bytes, threads, src, NULL);
          copy_resident[r] = one_run (bytes, threads, src, resident);
          if (fill[r] < 0 || copy_fresh[r] < 0)
            {
              fprintf (stderr, "fresh_pages: mmap refused %zu bytes\n", bytes);
              return 1;
            }
        }
      printf ("%zu MiB, %d threads", bytes >> 20, threads);
      report ("fill fresh", fill);
      report ("copy into fresh", copy_fresh);
      report ("copy into resident", copy_resident);
      printf ("\n");
      free (src);
      free (resident);
    }
  return 0;
}
