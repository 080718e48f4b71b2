// bench/hostmem.cu — what the host side of an Octave call costs on this machine, piece by piece:
// first touch of fresh memory (4 KiB pages, huge pages, populated in the kernel, 1 or 16
// threads), freeing it, host copies with 1..16 threads, pinned transfers, registering pageable
// memory with CUDA, and a pinned staging ring (host copy + DMA) from pageable memory each way.
//   nvcc -O2 -std=c++17 -arch=sm_90 -Xcompiler -fopenmp bench/hostmem.cu -o hostmem && ./hostmem
// Prints one line per measurement: "hostmem WHAT MIB MS GBPS" (median of 5).
//
// Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
#include <cuda_runtime_api.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <functional>
#include <vector>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now_ms ()
{
  timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

#define CK(call)                                                                              \
  do                                                                                          \
    {                                                                                         \
      cudaError_t e_ = (call);                                                                \
      if (e_ != cudaSuccess)                                                                  \
        {                                                                                     \
          printf ("hostmem: %s: %s\n", #call, cudaGetErrorString (e_));                       \
          exit (1);                                                                           \
        }                                                                                     \
    }                                                                                         \
  while (0)

static const size_t MiB = (size_t) 1 << 20;

// Median of 5 runs of setup (untimed) then f (timed), then teardown (untimed).
static void measure (const char *what, size_t bytes, std::function<void ()> setup,
                     std::function<void ()> f, std::function<void ()> teardown)
{
  std::vector<double> t;
  for (int i = 0; i < 5; i++)
    {
      setup ();
      const double t0 = now_ms ();
      f ();
      t.push_back (now_ms () - t0);
      teardown ();
    }
  std::sort (t.begin (), t.end ());
  printf ("hostmem %-44s %6zu %9.2f %8.1f\n", what, bytes / MiB, t[2], bytes / t[2] / 1e6);
  fflush (stdout);
}

static void touch (char *p, size_t n, int threads)
{
#pragma omp parallel for num_threads (threads) schedule (static)
  for (int64_t i = 0; i < (int64_t) (n / 4096); i++)
    p[(size_t) i * 4096] = 1;
}

static void copy (char *d, const char *s, size_t n, int threads)
{
  const size_t piece = MiB;
  const int64_t pieces = (int64_t) ((n + piece - 1) / piece);
#pragma omp parallel for num_threads (threads) schedule (static)
  for (int64_t i = 0; i < pieces; i++)
    {
      const size_t at = (size_t) i * piece, len = std::min (piece, n - at);
      memcpy (d + at, s + at, len);
    }
}

static char *fresh (size_t n)
{
  void *p = mmap (nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    {
      perror ("mmap");
      exit (1);
    }
  return (char *) p;
}

static void advise_huge (char *p, size_t n)
{
  const uintptr_t a = ((uintptr_t) p + (2 * MiB - 1)) & ~(uintptr_t) (2 * MiB - 1);
  const uintptr_t b = ((uintptr_t) p + n) & ~(uintptr_t) (2 * MiB - 1);
  if (b > a)
    madvise ((void *) a, b - a, MADV_HUGEPAGE);
}

int main ()
{
  const size_t n = 128 * MiB;
  char *p = nullptr;
  int ok_populate = 1;
  {
    char *q = fresh (4096);
    ok_populate = madvise (q, 4096, MADV_POPULATE_WRITE) == 0;
    munmap (q, 4096);
  }
  printf ("hostmem: %d OpenMP threads; MADV_POPULATE_WRITE %s\n", omp_get_max_threads (),
          ok_populate ? "works" : "unsupported");
  FILE *f = fopen ("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  char line[256] = "?";
  if (f && fgets (line, sizeof line, f))
    printf ("hostmem: transparent_hugepage/enabled: %s", line);
  if (f)
    fclose (f);

  // ---- first touch of fresh memory, and freeing it
  auto mk = [&] () { p = fresh (n); };
  auto rm = [&] () { munmap (p, n); };
  for (int th : { 1, 4, 16 })
    {
      char what[64];
      snprintf (what, sizeof what, "first touch, 4K pages, %d threads", th);
      measure (what, n, mk, [&] () { touch (p, n, th); }, rm);
      snprintf (what, sizeof what, "first touch, huge pages, %d threads", th);
      measure (what, n, mk, [&] () { advise_huge (p, n); touch (p, n, th); }, rm);
    }
  if (ok_populate)
    {
      measure ("MADV_POPULATE_WRITE, 4K pages, 1 thread", n, mk,
               [&] () { madvise (p, n, MADV_POPULATE_WRITE); }, rm);
      measure ("MADV_POPULATE_WRITE, huge pages, 1 thread", n, mk,
               [&] () { advise_huge (p, n); madvise (p, n, MADV_POPULATE_WRITE); }, rm);
      measure ("MADV_POPULATE_WRITE, huge pages, 4 threads", n, mk, [&] () {
        advise_huge (p, n);
#pragma omp parallel for num_threads (4)
        for (int i = 0; i < 4; i++)
          madvise (p + n / 4 * i, n / 4, MADV_POPULATE_WRITE);
      }, rm);
    }
  measure ("munmap of touched 4K pages", n, [&] () { p = fresh (n); touch (p, n, 16); },
           [&] () { munmap (p, n); }, [] () {});
  measure ("munmap of touched huge pages", n,
           [&] () { p = fresh (n); advise_huge (p, n); touch (p, n, 16); },
           [&] () { munmap (p, n); }, [] () {});

  // ---- host copies between resident buffers
  char *src = fresh (n), *dst = fresh (n);
  touch (src, n, 16);
  touch (dst, n, 16);
  memset (src, 7, n);
  for (int th : { 1, 4, 8, 12, 16 })
    {
      char what[64];
      snprintf (what, sizeof what, "memcpy resident, %d threads", th);
      measure (what, n, [] () {}, [&] () { copy (dst, src, n, th); }, [] () {});
    }
  {
    measure ("memcpy into fresh 4K pages, 16 threads", n, mk, [&] () { copy (p, src, n, 16); }, rm);
    measure ("memcpy into fresh huge pages, 16 threads", n, mk,
             [&] () { advise_huge (p, n); copy (p, src, n, 16); }, rm);
  }

  // ---- the bus
  CK (cudaSetDevice (0));
  CK (cudaFree (0));
  void *dbuf, *pin;
  CK (cudaMalloc (&dbuf, n));
  CK (cudaHostAlloc (&pin, n, cudaHostAllocDefault));
  memset (pin, 1, n);
  cudaStream_t s1, s2;
  CK (cudaStreamCreateWithFlags (&s1, cudaStreamNonBlocking));
  CK (cudaStreamCreateWithFlags (&s2, cudaStreamNonBlocking));
  measure ("H2D pinned, one copy", n, [] () {},
           [&] () { CK (cudaMemcpyAsync (dbuf, pin, n, cudaMemcpyHostToDevice, s1)); CK (cudaStreamSynchronize (s1)); },
           [] () {});
  measure ("D2H pinned, one copy", n, [] () {},
           [&] () { CK (cudaMemcpyAsync (pin, dbuf, n, cudaMemcpyDeviceToHost, s1)); CK (cudaStreamSynchronize (s1)); },
           [] () {});
  {
    void *dbuf2;
    CK (cudaMalloc (&dbuf2, n));
    char *pin2;
    CK (cudaHostAlloc ((void **) &pin2, n, cudaHostAllocDefault));
    measure ("H2D + D2H pinned at once (each way)", n, [] () {}, [&] () {
      CK (cudaMemcpyAsync (dbuf, pin, n, cudaMemcpyHostToDevice, s1));
      CK (cudaMemcpyAsync (pin2, dbuf2, n, cudaMemcpyDeviceToHost, s2));
      CK (cudaStreamSynchronize (s1));
      CK (cudaStreamSynchronize (s2));
    }, [] () {});
    CK (cudaFree (dbuf2));
    CK (cudaFreeHost (pin2));
  }
  measure ("H2D pageable (resident), one copy", n, [] () {},
           [&] () { CK (cudaMemcpy (dbuf, src, n, cudaMemcpyHostToDevice)); }, [] () {});
  measure ("D2H pageable (resident), one copy", n, [] () {},
           [&] () { CK (cudaMemcpy (dst, dbuf, n, cudaMemcpyDeviceToHost)); }, [] () {});
  measure ("cudaHostRegister resident + unregister", n, [] () {},
           [&] () { CK (cudaHostRegister (src, n, cudaHostRegisterDefault)); CK (cudaHostUnregister (src)); },
           [] () {});
  measure ("cudaHostRegister fresh (4K) + unregister", n, mk,
           [&] () { CK (cudaHostRegister (p, n, cudaHostRegisterDefault)); CK (cudaHostUnregister (p)); },
           rm);

  // ---- a staging ring: host copies into 16 MiB pinned chunks overlapped with DMA
  const size_t chunk = 16 * MiB;
  const int nchunks = 4;
  cudaEvent_t ev[nchunks];
  for (int i = 0; i < nchunks; i++)
    CK (cudaEventCreateWithFlags (&ev[i], cudaEventDisableTiming));
  for (int th : { 8, 12, 16 })
    {
      char what[64];
      snprintf (what, sizeof what, "staged H2D from pageable, %d threads", th);
      measure (what, n, [] () {}, [&] () {
        for (size_t at = 0, i = 0; at < n; at += chunk, i++)
          {
            const int c = (int) (i % nchunks);
            CK (cudaEventSynchronize (ev[c]));
            copy ((char *) pin + c * chunk, src + at, chunk, th);
            CK (cudaMemcpyAsync ((char *) dbuf + at, (char *) pin + c * chunk, chunk,
                                 cudaMemcpyHostToDevice, s1));
            CK (cudaEventRecord (ev[c], s1));
          }
        CK (cudaStreamSynchronize (s1));
      }, [] () {});
    }
  auto staged_down = [&] (char *out, int th) {
    size_t issued = 0, done = 0;
    const size_t total = n / chunk;
    while (done < total)
      {
        while (issued < total && issued - done < (size_t) nchunks)
          {
            const int c = (int) (issued % nchunks);
            CK (cudaMemcpyAsync ((char *) pin + c * chunk, (char *) dbuf + issued * chunk, chunk,
                                 cudaMemcpyDeviceToHost, s1));
            CK (cudaEventRecord (ev[c], s1));
            issued++;
          }
        const int c = (int) (done % nchunks);
        CK (cudaEventSynchronize (ev[c]));
        copy (out + done * chunk, (char *) pin + c * chunk, chunk, th);
        done++;
      }
  };
  measure ("staged D2H into resident, 16 threads", n, [] () {}, [&] () { staged_down (dst, 16); },
           [] () {});
  measure ("staged D2H into fresh 4K pages, 16 threads", n, mk, [&] () { staged_down (p, 16); }, rm);
  measure ("staged D2H into fresh huge pages, 16 threads", n, mk,
           [&] () { advise_huge (p, n); staged_down (p, 16); }, rm);
  return 0;
}
