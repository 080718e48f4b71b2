/* batched.cu — many pages of one shape in one launch (see batched.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Two kernels; the batch plan names which (batch_plan.c: gpu_kernel).  Small pages (m·n ≤ 32,
 * TILEMM_BATCHED_SMALL): a thread per element of Z, consecutive threads
 * on consecutive elements across pages, so a block of 256 threads computes eight or more pages
 * and the loads of neighbouring pages coalesce.  Larger pages (TILEMM_BATCHED_TILED): a block of 32×8 threads per 32×32
 * tile of a page, op(X)'s and op(Y)'s 32×32 tiles through shared memory (read as stored,
 * transposed and conjugated as they load), each thread four elements of Z.
 */
#include <cuda_runtime.h>

#include "batched.h"

namespace {

template <typename R> struct cplx { R re, im; };

template <typename R, bool C> struct elem;
template <typename R> struct elem<R, false>
{
  typedef R type;
  static __device__ type zero () { return (R) 0; }
  static __device__ type conj (type a) { return a; }
  static __device__ type mul_add (type acc, type a, type b) { return acc + a * b; }
};
template <typename R> struct elem<R, true>
{
  typedef cplx<R> type;
  static __device__ type zero () { return { (R) 0, (R) 0 }; }
  static __device__ type conj (type a) { return { a.re, -a.im }; }
  /* BLAS's product: no recovery of infinities (C99 Annex G), as the host's gemm. */
  static __device__ type mul_add (type acc, type a, type b)
  {
    return { acc.re + (a.re * b.re - a.im * b.im), acc.im + (a.re * b.im + a.im * b.re) };
  }
};

/* The pages of X and Y that local page `local` reads (batched.h). */
__device__ void sources (const tilemm_batched_pages &map, int64_t local, int64_t *xp, int64_t *yp)
{
  int64_t rest = map.first + local, x = 0, y = 0;
  for (int d = 0; d < map.ndims && rest > 0; d++)
    {
      const int64_t at = rest % map.z_dims[d];
      rest /= map.z_dims[d];
      x += at * map.x_step[d];
      y += at * map.y_step[d];
    }
  *xp = x - map.x_first;
  *yp = y - map.y_first;
}

/* op(X)(i, l) of a page stored with `ld` rows. */
template <typename E>
__device__ typename E::type op_at (const typename E::type *p, int op, int64_t i, int64_t l,
                                   int64_t ld)
{
  if (op == TILEMM_OP_NONE)
    return p[i + l * ld];
  const typename E::type v = p[l + i * ld];
  return op == TILEMM_OP_CTRANSPOSE ? E::conj (v) : v;
}

template <typename E>
__global__ void small_pages (int op_a, int op_b, int64_t m, int64_t n, int64_t k,
                             const typename E::type *x, int64_t x_page,
                             const typename E::type *y, int64_t y_page, typename E::type *z,
                             int64_t pages, tilemm_batched_pages map)
{
  const int64_t per_page = m * n, total = per_page * pages;
  const int64_t lda = op_a == TILEMM_OP_NONE ? m : k, ldb = op_b == TILEMM_OP_NONE ? k : n;
  for (int64_t e = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (int64_t) gridDim.x * blockDim.x)
    {
      const int64_t page = e / per_page, at = e % per_page, i = at % m, j = at / m;
      int64_t xp, yp;
      sources (map, page, &xp, &yp);
      const typename E::type *a = x + xp * x_page, *b = y + yp * y_page;
      typename E::type acc = E::zero ();
      for (int64_t l = 0; l < k; l++)
        acc = E::mul_add (acc, op_at<E> (a, op_a, i, l, lda), op_at<E> (b, op_b, l, j, ldb));
      z[e] = acc;
    }
}

enum { TILE = 32, ROWS = 8 };

/* One 32×32 tile of one page per block: blockIdx.x = page · tiles + tile. */
template <typename E>
__global__ void tiled_pages (int op_a, int op_b, int64_t m, int64_t n, int64_t k,
                             const typename E::type *x, int64_t x_page,
                             const typename E::type *y, int64_t y_page, typename E::type *z,
                             int64_t tiles_down, int64_t tiles_across,
                             tilemm_batched_pages map)
{
  typedef typename E::type T;
  __shared__ T as[TILE][TILE + 1];   /* op(X)(i0 + r, l0 + c) at as[c][r] */
  __shared__ T bs[TILE][TILE + 1];   /* op(Y)(l0 + r, j0 + c) at bs[c][r] */
  const int64_t tiles = tiles_down * tiles_across;
  const int64_t page = (int64_t) blockIdx.x / tiles, tile = (int64_t) blockIdx.x % tiles;
  const int64_t i0 = (tile % tiles_down) * TILE, j0 = (tile / tiles_down) * TILE;
  int64_t xp, yp;
  sources (map, page, &xp, &yp);
  const T *a = x + xp * x_page, *b = y + yp * y_page;
  const int64_t lda = op_a == TILEMM_OP_NONE ? m : k, ldb = op_b == TILEMM_OP_NONE ? k : n;
  const int tr = threadIdx.x, tc = threadIdx.y;   /* 32 × 8 */
  T acc[TILE / ROWS];
  for (int q = 0; q < TILE / ROWS; q++)
    acc[q] = E::zero ();
  for (int64_t l0 = 0; l0 < k; l0 += TILE)
    {
      for (int q = 0; q < TILE / ROWS; q++)
        {
          const int c = tc + q * ROWS;
          /* Consecutive threads read consecutive elements as stored where the operand is
           * transposed: they walk its columns. */
          const int64_t ai = op_a == TILEMM_OP_NONE ? i0 + tr : i0 + c;
          const int64_t al = op_a == TILEMM_OP_NONE ? l0 + c : l0 + tr;
          T av = E::zero ();
          if (ai < m && al < k)
            av = op_at<E> (a, op_a, ai, al, lda);
          if (op_a == TILEMM_OP_NONE)
            as[c][tr] = av;
          else
            as[tr][c] = av;
          const int64_t bl = op_b == TILEMM_OP_NONE ? l0 + tr : l0 + c;
          const int64_t bj = op_b == TILEMM_OP_NONE ? j0 + c : j0 + tr;
          T bv = E::zero ();
          if (bl < k && bj < n)
            bv = op_at<E> (b, op_b, bl, bj, ldb);
          if (op_b == TILEMM_OP_NONE)
            bs[c][tr] = bv;
          else
            bs[tr][c] = bv;
        }
      __syncthreads ();
      const int depth = (int) (k - l0 < TILE ? k - l0 : TILE);
      for (int l = 0; l < depth; l++)
        for (int q = 0; q < TILE / ROWS; q++)
          acc[q] = E::mul_add (acc[q], as[l][tr], bs[tc + q * ROWS][l]);
      __syncthreads ();
    }
  T *c = z + page * m * n;
  for (int q = 0; q < TILE / ROWS; q++)
    {
      const int64_t i = i0 + tr, j = j0 + tc + q * ROWS;
      if (i < m && j < n)
        c[i + j * m] = acc[q];
    }
}

template <typename E>
tilemm_status launch (tilemm_batched_kernel kernel, int op_a, int op_b, int64_t m, int64_t n, int64_t k, const void *x,
                      int64_t x_page, const void *y, int64_t y_page, void *z, int64_t pages,
                      const tilemm_batched_pages &map, cudaStream_t stream, tilemm_error *err)
{
  typedef typename E::type T;
  if (kernel == TILEMM_BATCHED_SMALL)
    {
      const int64_t total = m * n * pages;
      const int threads = 256;
      int64_t blocks = (total + threads - 1) / threads;
      if (blocks > 1048576)
        blocks = 1048576;   /* the grid-stride loop takes the rest */
      small_pages<E><<<(unsigned) blocks, threads, 0, stream>>> (
        op_a, op_b, m, n, k, (const T *) x, x_page, (const T *) y, y_page, (T *) z, pages, map);
    }
  else
    {
      const int64_t down = (m + TILE - 1) / TILE, across = (n + TILE - 1) / TILE;
      const int64_t blocks = down * across * pages;
      if (blocks > 2147483647LL)
        return tilemm_error_set (err, TILEMM_EINVAL, "batched kernel: %lld blocks",
                                 (long long) blocks);
      tiled_pages<E><<<(unsigned) blocks, dim3 (TILE, ROWS), 0, stream>>> (
        op_a, op_b, m, n, k, (const T *) x, x_page, (const T *) y, y_page, (T *) z, down, across,
        map);
    }
  const cudaError_t e = cudaGetLastError ();
  if (e != cudaSuccess)
    return tilemm_error_set (err, TILEMM_ECUDA, "batched kernel launch: %s",
                             cudaGetErrorString (e));
  return TILEMM_OK;
}

} // namespace

extern "C" tilemm_status tilemm_batched_launch (tilemm_batched_kernel kernel, tilemm_type type,
                                                tilemm_op op_a, tilemm_op op_b,
                                                int64_t m, int64_t n, int64_t k, const void *x,
                                                int64_t x_page, const void *y, int64_t y_page,
                                                void *z, int64_t pages,
                                                const tilemm_batched_pages *map,
                                                cudaStream_t stream, tilemm_error *err)
{
  if ((int) kernel < 0 || kernel >= TILEMM_BATCHED_NKERNELS)
    return tilemm_error_set (err, TILEMM_EINVAL, "batched kernel: no kernel %d (the plan names "
                             "one: batch.h)", (int) kernel);
  if (pages <= 0 || m <= 0 || n <= 0)
    return TILEMM_OK;
  switch (type)
    {
    case TILEMM_SINGLE:
      return launch<elem<float, false>> (kernel, op_a, op_b, m, n, k, x, x_page, y, y_page, z, pages,
                                         *map, stream, err);
    case TILEMM_DOUBLE:
      return launch<elem<double, false>> (kernel, op_a, op_b, m, n, k, x, x_page, y, y_page, z, pages,
                                          *map, stream, err);
    case TILEMM_COMPLEX_SINGLE:
      return launch<elem<float, true>> (kernel, op_a, op_b, m, n, k, x, x_page, y, y_page, z, pages,
                                        *map, stream, err);
    case TILEMM_COMPLEX_DOUBLE:
      return launch<elem<double, true>> (kernel, op_a, op_b, m, n, k, x, x_page, y, y_page, z, pages,
                                         *map, stream, err);
    default:
      return tilemm_error_set (err, TILEMM_ETYPE, "batched kernel: unknown type %d", (int) type);
    }
}
