// bench/fresh_probe.cu — why copying a freshly written operand into pinned staging is slower
// than copying one that was copied before (issue 26: "fresh" operands).  Reproduces the
// oct-file's copy-in without Octave: an operand written on one thread (as rand/randn write it),
// then copied by every OpenMP thread into a pinned buffer (as the staging does), and counts
// what the kernel did meanwhile (page faults of this process, NUMA hinting faults, page
// migrations, huge pages).  Cases, each repeated and printed one line a repeat:
//   reused        the same operand again
//   fresh         a new allocation written on the main thread, then copied
//   fresh-par     a new allocation written by all threads
//   fresh-huge    a new allocation advised MADV_HUGEPAGE before it is written
//   fresh-pause   a new allocation, then 1 s idle, then copied
//   reused-pause  the same operand after 1 s idle
//   fresh-1thr    a new allocation copied by one thread
//   nvcc -O2 -std=c++17 -Xcompiler -fopenmp bench/fresh_probe.cu -o fresh_probe && ./fresh_probe [MiB]
// Prints "probe CASE REPEAT MS GBPS minflt=.. numa_hint=.. migrated=.. thp=..".
//
// Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
#include <cuda_runtime_api.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <string>

static double now_ms ()
{
  timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void check (cudaError_t e, const char *what)
{
  if (e != cudaSuccess)
    {
      printf ("probe: %s: %s\n", what, cudaGetErrorString (e));
      exit (1);
    }
}

// One counter of /proc/vmstat (0 where the kernel has none of that name).
static long long vmstat (const char *name)
{
  FILE *f = fopen ("/proc/vmstat", "r");
  if (!f)
    return 0;
  char key[128];
  long long value, found = 0;
  while (fscanf (f, "%127s %lld", key, &value) == 2)
    if (!strcmp (key, name))
      {
        found = value;
        break;
      }
  fclose (f);
  return found;
}

static long minor_faults ()
{
  rusage u;
  getrusage (RUSAGE_SELF, &u);
  return u.ru_minflt;
}

static void print_file (const char *path)
{
  FILE *f = fopen (path, "r");
  char line[512] = "(absent)\n";
  if (f)
    {
      if (!fgets (line, sizeof line, f))
        strcpy (line, "(empty)\n");
      fclose (f);
    }
  printf ("probe: %s: %s", path, line);
}

// Values as a generator writes them: every element, in order, on the calling thread(s).
static void write_values (double *p, size_t n, int threads)
{
#pragma omp parallel for num_threads (threads) schedule (static)
  for (size_t i = 0; i < n; i++)
    p[i] = (double) ((i * 2654435761u) & 0xffff) / 65536.0 + 0.5;
}

static void copy_in (char *dst, const char *src, size_t bytes, int threads)
{
  const size_t chunk = (bytes + threads - 1) / threads;
#pragma omp parallel num_threads (threads)
  {
    const size_t lo = (size_t) omp_get_thread_num () * chunk;
    if (lo < bytes)
      memcpy (dst + lo, src + lo, lo + chunk > bytes ? bytes - lo : chunk);
  }
}

static double *fresh_operand (size_t bytes, bool huge)
{
  void *p = nullptr;
  if (posix_memalign (&p, 64, bytes))
    {
      printf ("probe: out of memory\n");
      exit (1);
    }
  if (huge)
    {
      // The region's whole 2 MiB pages: what glibc's hugetlb tunable would advise.
      const uintptr_t lo = ((uintptr_t) p + (2u << 20) - 1) & ~(uintptr_t) ((2u << 20) - 1);
      const uintptr_t hi = ((uintptr_t) p + bytes) & ~(uintptr_t) ((2u << 20) - 1);
      if (hi > lo)
        madvise ((void *) lo, hi - lo, MADV_HUGEPAGE);
    }
  return (double *) p;
}

int main (int argc, char **argv)
{
  const size_t mib = argc > 1 ? (size_t) atol (argv[1]) : 128;
  const size_t bytes = mib << 20, n = bytes / sizeof (double);
  const int threads = omp_get_max_threads ();
  printf ("probe: %zu MiB, %d OpenMP threads\n", mib, threads);
  print_file ("/sys/kernel/mm/transparent_hugepage/enabled");
  print_file ("/sys/kernel/mm/transparent_hugepage/defrag");
  print_file ("/proc/sys/kernel/numa_balancing");
  print_file ("/sys/devices/system/node/possible");
  print_file ("/sys/devices/system/node/online");
  char *pinned = nullptr;
  check (cudaHostAlloc ((void **) &pinned, bytes, cudaHostAllocDefault), "cudaHostAlloc");
  memset (pinned, 1, bytes);
  double *kept = fresh_operand (bytes, false);
  write_values (kept, n, 1);
  copy_in (pinned, (const char *) kept, bytes, threads);   // warm the threads and the buffer

  const char *cases[] = { "reused", "fresh", "fresh-par", "fresh-huge", "fresh-pause",
                          "reused-pause", "fresh-1thr" };
  const int repeats = 4;
  for (const char *what : cases)
    for (int r = 0; r < repeats; r++)
      {
        const std::string c = what;
        const bool fresh = c.rfind ("fresh", 0) == 0;
        double *op = kept;
        if (fresh)
          {
            op = fresh_operand (bytes, c == "fresh-huge");
            write_values (op, n, c == "fresh-par" ? threads : 1);
          }
        if (c.find ("pause") != std::string::npos)
          sleep (1);
        const long long hint0 = vmstat ("numa_hint_faults"), mig0 = vmstat ("numa_pages_migrated");
        const long long thp0 = vmstat ("thp_fault_alloc");
        const long flt0 = minor_faults ();
        const double t0 = now_ms ();
        copy_in (pinned, (const char *) op, bytes, c == "fresh-1thr" ? 1 : threads);
        const double ms = now_ms () - t0;
        printf ("probe %-13s %d %8.2f ms %6.1f GB/s minflt=%ld numa_hint=%lld migrated=%lld "
                "thp_alloc_during=%lld\n",
                what, r, ms, bytes / ms / 1e6, minor_faults () - flt0,
                vmstat ("numa_hint_faults") - hint0, vmstat ("numa_pages_migrated") - mig0,
                vmstat ("thp_fault_alloc") - thp0);
        if (fresh)
          free (op);
      }
  free (kept);
  check (cudaFreeHost (pinned), "cudaFreeHost");
  return 0;
}
