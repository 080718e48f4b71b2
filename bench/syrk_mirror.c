/* bench/syrk_mirror.c — the loop Octave runs after ?syrk for A'*A (liboctave's xgemm: the upper
 * triangle copied to the lower, element by element, a strided write per element), timed alone
 * on an n x n double matrix: its floor is what A'*A costs beyond the BLAS call, whatever BLAS is
 * preloaded.  Also with the matrix's pages asked as huge pages (madvise) before first touch,
 * which a BLAS library could ask for the result it writes.
 *   cc -O2 -o syrk_mirror bench/syrk_mirror.c && ./syrk_mirror 8192 3
 * Prints the median of REPEATS runs of the loop, each on a matrix touched first (zero fill).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* As liboctave: for j, for i < j: C(j,i) = C(i,j) (column-major, leading dimension n). */
static void mirror (double *c, long n)
{
  for (long j = 0; j < n; j++)
    for (long i = 0; i < j; i++)
      c[j + i * n] = c[i + j * n];
}

static double run (long n, int huge)
{
  const size_t bytes = (size_t) n * (size_t) n * sizeof (double);
  double *c = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (c == MAP_FAILED)
    {
      perror ("mmap");
      exit (1);
    }
  if (huge && madvise (c, bytes, MADV_HUGEPAGE) != 0)
    perror ("madvise");
  for (size_t e = 0; e < (size_t) n * (size_t) n; e++)
    c[e] = (double) (e % 1021);
  const double t0 = now_ms ();
  mirror (c, n);
  const double t = now_ms () - t0;
  volatile double sink = c[n - 1];
  (void) sink;
  munmap (c, bytes);
  return t;
}

int main (int argc, char **argv)
{
  const long n = argc > 1 ? atol (argv[1]) : 8192;
  int repeats = argc > 2 ? atoi (argv[2]) : 3;
  if (n < 1 || repeats < 1 || repeats > 64)
    {
      fprintf (stderr, "usage: syrk_mirror N [REPEATS <= 64]\n");
      return 2;
    }
  for (int huge = 0; huge < 2; huge++)
    {
      double t[64];
      for (int r = 0; r < repeats; r++)
        t[r] = run (n, huge);
      qsort (t, (size_t) repeats, sizeof t[0], by_value);
      printf ("syrk_mirror n=%ld %s: median %.1f ms (min %.1f, max %.1f) of %d\n", n,
              huge ? "huge pages asked" : "4 KiB pages", t[repeats / 2], t[0],
              t[repeats - 1], repeats);
    }
  return 0;
}
