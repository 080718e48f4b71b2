/* bench/bench_common.cuh — what the benchmark programs share: checked CUDA and cuBLAS calls
 * (a benchmark stops at the first failure) and random inputs generated on the device.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_BENCH_COMMON_CUH
#define TILEMM_BENCH_COMMON_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#define CUDA_OK(call)                                                                       \
  do                                                                                        \
    {                                                                                       \
      const cudaError_t e_ = (call);                                                        \
      if (e_ != cudaSuccess)                                                                \
        {                                                                                   \
          fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString (e_)); \
          exit (2);                                                                         \
        }                                                                                   \
    }                                                                                       \
  while (0)

#define CUBLAS_OK(call)                                                                     \
  do                                                                                        \
    {                                                                                       \
      const cublasStatus_t s_ = (call);                                                     \
      if (s_ != CUBLAS_STATUS_SUCCESS)                                                      \
        {                                                                                   \
          fprintf (stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, (int) s_); \
          exit (2);                                                                         \
        }                                                                                   \
    }                                                                                       \
  while (0)

/* A hash of (seed, index) to a real in [-1, 1] away from zero: no host generation of 8192² data. */
__device__ inline double uniform_nonzero (uint64_t seed, uint64_t i)
{
  uint64_t z = seed + i * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  double v = (double) (z >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
  return fabs (v) < 1e-3 ? (v < 0 ? -0.5 : 0.5) : v;
}

/* p[0 … n) = uniform_nonzero (seed, i), in T. */
template <typename T> __global__ void fill (T *p, size_t n, uint64_t seed)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    p[i] = (T) uniform_nonzero (seed, i);
}

/* The median in ms of `runs` timings (CUDA events on the default stream) of run (r % sets),
 * after `warmups` untimed runs (module load, clocks, code caches). */
template <typename F> static double median_ms (F run, int sets, int runs, int warmups = 3)
{
  cudaEvent_t start, stop;
  CUDA_OK (cudaEventCreate (&start));
  CUDA_OK (cudaEventCreate (&stop));
  for (int w = 0; w < warmups; w++)
    run (w % sets);
  CUDA_OK (cudaDeviceSynchronize ());
  std::vector<float> ms;
  for (int r = 0; r < runs; r++)
    {
      CUDA_OK (cudaEventRecord (start));
      run (r % sets);
      CUDA_OK (cudaEventRecord (stop));
      CUDA_OK (cudaEventSynchronize (stop));
      float t = 0;
      CUDA_OK (cudaEventElapsedTime (&t, start, stop));
      ms.push_back (t);
    }
  CUDA_OK (cudaEventDestroy (start));
  CUDA_OK (cudaEventDestroy (stop));
  std::sort (ms.begin (), ms.end ());
  return ms.size () % 2 ? ms[ms.size () / 2] : (ms[ms.size () / 2 - 1] + ms[ms.size () / 2]) / 2;
}

#endif
