// tests/mock_cuda/mock_batched.cc — the stand-in for src/kernels/batched.cu on the stand-in runtime:
// the batched product's pages multiplied on the host, on the device buffers it is given, in the
// order the real kernels sum (one multiply-add per k, increasing k), run when the mock runtime
// runs its stream.  Its own reading of the page map (batched.h), so that a wrong map on the host
// side (src/cuda/batch_product.cu) shows.
//
// Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).

#include <atomic>
#include <complex>

#include "batched.h"
#include "tilemm.h"

namespace
{
struct batched
{
  tilemm_type type;
  tilemm_op op_a, op_b;
  int64_t m, n, k;
  const void *x, *y;
  void *z;
  int64_t x_page, y_page, pages;
  tilemm_batched_pages map;
};

template <typename T> T conj_if (T v, bool) { return v; }
template <typename R> std::complex<R> conj_if (std::complex<R> v, bool c)
{
  return c ? std::conj (v) : v;
}

template <typename T> void multiply (const batched &b)
{
  const int64_t lda = b.op_a == TILEMM_OP_NONE ? b.m : b.k, ldb = b.op_b == TILEMM_OP_NONE ? b.k : b.n;
  for (int64_t p = 0; p < b.pages; p++)
    {
      int64_t rest = b.map.first + p, xp = 0, yp = 0;
      for (int d = 0; d < b.map.ndims; d++)
        {
          xp += rest % b.map.z_dims[d] * b.map.x_step[d];
          yp += rest % b.map.z_dims[d] * b.map.y_step[d];
          rest /= b.map.z_dims[d];
        }
      const T *x = (const T *) b.x + (xp - b.map.x_first) * b.x_page;
      const T *y = (const T *) b.y + (yp - b.map.y_first) * b.y_page;
      T *z = (T *) b.z + p * b.m * b.n;
      for (int64_t j = 0; j < b.n; j++)
        for (int64_t i = 0; i < b.m; i++)
          {
            T acc = T (0);
            for (int64_t l = 0; l < b.k; l++)
              {
                const T a = b.op_a == TILEMM_OP_NONE ? x[i + l * lda]
                                                     : conj_if (x[l + i * lda], b.op_a == TILEMM_OP_CTRANSPOSE);
                const T c = b.op_b == TILEMM_OP_NONE ? y[l + j * ldb]
                                                     : conj_if (y[j + l * ldb], b.op_b == TILEMM_OP_CTRANSPOSE);
                acc += a * c;
              }
            z[i + j * b.m] = acc;
          }
    }
}

void run_batched (void *arg)
{
  batched *b = (batched *) arg;
  switch (b->type)
    {
    case TILEMM_SINGLE: multiply<float> (*b); break;
    case TILEMM_DOUBLE: multiply<double> (*b); break;
    case TILEMM_COMPLEX_SINGLE: multiply<std::complex<float>> (*b); break;
    default: multiply<std::complex<double>> (*b); break;
    }
  delete b;
}
} // namespace

// Launches of the batched kernels (tests that pages run alone check that none came here).
std::atomic<unsigned long long> batched_launches (0);

extern "C" unsigned long long mock_batched_launches (void)
{
  return batched_launches.load ();
}

// Launches of each batched kernel the caller named (tests that the plan's kernel is the one run).
std::atomic<unsigned long long> kernel_launches[TILEMM_BATCHED_NKERNELS];

extern "C" unsigned long long mock_batched_kernel_launches (int kernel)
{
  return kernel >= 0 && kernel < TILEMM_BATCHED_NKERNELS ? kernel_launches[kernel].load () : 0;
}

extern "C" tilemm_status tilemm_batched_launch (tilemm_batched_kernel kernel, tilemm_type type,
                                                tilemm_op op_a, tilemm_op op_b,
                                                int64_t m, int64_t n, int64_t k, const void *x,
                                                int64_t x_page, const void *y, int64_t y_page,
                                                void *z, int64_t pages,
                                                const tilemm_batched_pages *map,
                                                cudaStream_t stream, tilemm_error *err)
{
  if ((int) kernel < 0 || kernel >= TILEMM_BATCHED_NKERNELS)
    return tilemm_error_set (err, TILEMM_EINVAL, "batched kernel: no kernel %d", (int) kernel);
  if (pages <= 0 || m <= 0 || n <= 0)
    return TILEMM_OK;
  batched_launches++;
  kernel_launches[kernel]++;
  mock_cuda_enqueue (stream, run_batched,
                     new batched{ type, op_a, op_b, m, n, k, x, y, z, x_page, y_page, pages,
                                  *map });
  return TILEMM_OK;
}
