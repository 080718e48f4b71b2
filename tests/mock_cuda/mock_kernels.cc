// tests/mock_cuda/mock_kernels.cc — the stand-in for src/kernels/kernels.cu on the stand-in runtime: a
// "kernel" that multiplies on the host, in the order the real kernels do (one multiply-add per k,
// increasing k), on the device buffers it is given, run when the mock runtime runs its stream.
// Shared by tests/test_pipeline.cc and tests/test_leaks.c (mock build).
//
// Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).

#include <atomic>
#include <complex>

#include "fault.h"
#include "kernels.h"
#include "tilemm.h"
#include "transpose.h"

namespace
{
struct launch
{
  tilemm_type type;
  tilemm_matrix c, x, y;
};

template <typename T> void multiply (const launch &l)
{
  const T *x = (const T *) l.x.elements, *y = (const T *) l.y.elements;
  T *c = (T *) l.c.elements;
  for (int64_t r = 0; r < l.c.height; r++)
    for (int64_t j = 0; j < l.c.width; j++)
      {
        T acc = T (0);
        for (int64_t q = 0; q < l.x.width; q++)
          acc += x[r * l.x.stride + q] * y[q * l.y.stride + j];
        c[r * l.c.stride + j] = acc;
      }
}

void run_launch (void *arg)
{
  launch *l = (launch *) arg;
  switch (l->type)
    {
    case TILEMM_SINGLE: multiply<float> (*l); break;
    case TILEMM_DOUBLE: multiply<double> (*l); break;
    case TILEMM_COMPLEX_SINGLE: multiply<std::complex<float>> (*l); break;
    default: multiply<std::complex<double>> (*l); break;
    }
  delete l;
}

std::atomic<int> launches_bad (0); // workers launch from their own threads
std::atomic<unsigned long long> launches[17];
std::atomic<unsigned long long> transposes (0);
std::atomic<unsigned long long> fallback_launches (0), split_pieces (0);

// The device transpose (src/kernels/transpose.cu) on the host: dst (cols×rows, ld_dst) =
// src (rows×cols, ld_src) transposed, conjugated when asked; run in stream order.
struct transpose_job
{
  tilemm_type type;
  int conjugate;
  const void *src;
  int64_t rows, cols, ld_src;
  void *dst;
  int64_t ld_dst;
};

template <typename T> void transpose_as (const transpose_job &t, bool complex_type)
{
  const T *src = (const T *) t.src;
  T *dst = (T *) t.dst;
  const int parts = complex_type ? 2 : 1;
  for (int64_t j = 0; j < t.cols; j++)
    for (int64_t i = 0; i < t.rows; i++)
      for (int p = 0; p < parts; p++)
        {
          const T x = src[parts * (i + j * t.ld_src) + p];
          dst[parts * (j + i * t.ld_dst) + p] = p == 1 && t.conjugate ? -x : x;
        }
}

void run_transpose (void *arg)
{
  transpose_job *t = (transpose_job *) arg;
  switch (t->type)
    {
    case TILEMM_SINGLE: transpose_as<float> (*t, false); break;
    case TILEMM_DOUBLE: transpose_as<double> (*t, false); break;
    case TILEMM_COMPLEX_SINGLE: transpose_as<float> (*t, true); break;
    default: transpose_as<double> (*t, true); break;
    }
  delete t;
}
} // namespace

extern "C" tilemm_status tilemm_cuda_transpose (tilemm_type type, int conjugate, const void *src,
                                                int64_t rows, int64_t cols, int64_t ld_src,
                                                void *dst, int64_t ld_dst, cudaStream_t stream,
                                                tilemm_error *err)
{
  if (rows < 0 || cols < 0 || ld_src < (rows > 1 ? rows : 1) || ld_dst < (cols > 1 ? cols : 1))
    return tilemm_error_set (err, TILEMM_EINVAL, "stand-in transpose: bad sizes");
  transposes++;
  mock_cuda_enqueue (stream, run_transpose,
                     new transpose_job{ type, conjugate, src, rows, cols, ld_src, dst, ld_dst });
  return TILEMM_OK;
}

extern "C" unsigned long long mock_kernels_launches (int variant)
{
  return variant >= 1 && variant <= 16 ? launches[variant].load () : 0;
}

extern "C" unsigned long long mock_kernels_fallback_launches (void)
{
  return fallback_launches;
}

extern "C" unsigned long long mock_kernels_split_pieces (void)
{
  return split_pieces;
}

extern "C" unsigned long long mock_kernels_transposes (void)
{
  return transposes;
}

extern "C" tilemm_status tilemm_cuda_launch (int variant, tilemm_type type, tilemm_matrix c,
                                             tilemm_matrix x, tilemm_matrix y,
                                             const tilemm_kernel_launch *plan,
                                             cudaStream_t stream, tilemm_error *err)
{
  // The stand-in multiplies whole: the split of k the caller planned changes no bit of it, but
  // a split must come with its scratch, as the real launcher checks.
  if (plan && plan->splits > 1
      && (!plan->scratch
          || plan->scratch_bytes < tilemm_cuda_launch_scratch_bytes (type, c.height, c.width,
                                                                     plan->splits)))
    return tilemm_error_set (err, TILEMM_EINVAL, "split of k without its scratch");
  if (variant < 1 || variant > 16)
    return tilemm_error_set (err, TILEMM_EINVAL, "no variant %d", variant);
  // The fault hook of the real launcher (src/kernels/kernels.cu), in the same place: before the launch.
  if (tilemm_fault_hit (TILEMM_FAULT_LAUNCH))
    return tilemm_error_set (err, TILEMM_ECUDA, "launching the stand-in kernel: %s",
                             cudaGetErrorString (cudaErrorInvalidValue));
  if (c.height != x.height || c.width != y.width || x.width != y.height || c.stride < c.width
      || x.stride < x.width || y.stride < y.width)
    {
      launches_bad++;
      return tilemm_error_set (err, TILEMM_ESHAPE, "bad launch shapes");
    }
  launches[variant]++;
  fallback_launches += plan && plan->dmma_fallback;
  split_pieces += plan && plan->splits > 1 ? (unsigned long long) plan->splits : 1;
  mock_cuda_enqueue (stream, run_launch, new launch{ type, c, x, y });
  return TILEMM_OK;
}

extern "C" int tilemm_cuda_kernel_shape (int variant, tilemm_type type, int *tile_rows,
                                         int *tile_cols, int *tile_depth, int *pad, int *threads)
{
  (void) type;
  if (variant < 1 || variant > 16) // every variant is the one stand-in (the plan picks any)
    return 0;
  *tile_rows = *tile_cols = 128;
  *tile_depth = 8;
  *pad = 0;
  *threads = 256;
  return 1;
}

extern "C" int mock_kernels_bad_launches (void)
{
  return launches_bad;
}
