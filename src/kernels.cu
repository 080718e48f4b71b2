/* kernels.cu — the kernel variants' configurations and the launcher that picks one.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Each variant (numbered, one idea each; see src/cuda_variants.h) is instantiated here for the
 * four element types.  The launcher checks the matrices, chooses the wide-load or element-load
 * instantiation from the pointers' and strides' alignment, and splits very tall products into
 * several launches so the grid never exceeds its 65535-block y limit.
 */
#include <stdint.h>

#include "kernels.h"
#include "kernels_guide.cuh"
#include "kernels_regtile.cuh"

#ifndef TILEMM_LAUNCH
#define TILEMM_LAUNCH(kernel, grid, block, stream, ...) kernel<<<grid, block, 0, stream>>> (__VA_ARGS__)
#endif

/* ---------------------------------------------------------------- configurations
 * regtile_config<T, BM, BN, BK, TM, TN, PAD, STAGES, MIN_BLOCKS[, MIN_BLOCKS before sm_90]>.
 * Keep src/cuda_variants.h in step
 * (tests/test_cuda checks every row against tilemm_cuda_kernel_shape).
 *
 * Variant 2: register tiles, one shared buffer.  Single 128×128 blocks, 8×8 per thread (64 FMAs per
 * 16 shared loads); double the same (1 block per SM: 64 accumulators are 128 registers); complex
 * 64×64, 4×4 per thread (16 complex = 64 real FMAs per k for 8 complex loads). */
typedef regtile_config<float, 128, 128, 8, 8, 8, 4, 1, 2> v2_single;
typedef regtile_config<double, 128, 128, 8, 8, 8, 0, 1, 1> v2_double;
typedef regtile_config<float2, 64, 64, 8, 4, 4, 0, 1, 2> v2_csingle;
typedef regtile_config<double2, 64, 64, 8, 4, 4, 0, 1, 1> v2_cdouble;

/* Variant 3: variant 2 double-buffered (the next k-tile in registers while this one is used).
 * Single: 2 blocks per SM on sm_90; 1 before it, where 128 registers would spill. */
typedef regtile_config<float, 128, 128, 8, 8, 8, 4, 2, 2, 1> v3_single;
typedef regtile_config<double, 128, 128, 8, 8, 8, 0, 2, 1> v3_double;
typedef regtile_config<float2, 64, 64, 8, 4, 4, 0, 2, 2> v3_csingle;
typedef regtile_config<double2, 64, 64, 8, 4, 4, 0, 2, 1> v3_cdouble;

/* Variant 4: variant 3 with k-tiles twice as deep: half the barriers per FMA.  Single needs more
 * than 128 registers for it, so one block per SM (8 warps) instead of two: the trade measured. */
typedef regtile_config<float, 128, 128, 16, 8, 8, 4, 2, 1> v4_single;
typedef regtile_config<float2, 64, 64, 16, 4, 4, 0, 2, 2> v4_csingle;

/* Variant 5: variant 3 with 64×64 blocks and 4×4 threads: a quarter of the registers, several
 * blocks per SM, more blocks for small and skinny products; twice the shared and L2 traffic per FMA.
 * (Single steps k by 16 so that each thread still copies one whole chunk of each tile.) */
typedef regtile_config<float, 64, 64, 16, 4, 4, 4, 2, 2> v5_single;
typedef regtile_config<double, 64, 64, 8, 4, 4, 0, 2, 2> v5_double;

/* ---------------------------------------------------------------- launch helpers */

namespace {

const int64_t max_grid_y = 65535;

template <typename T> kmatrix<T> typed (const tilemm_matrix &m)
{
  kmatrix<T> k = { m.height, m.width, m.stride, (T *) m.elements };
  return k;
}

/* The rows [r, r+h) of a matrix: the guide's GetSubMatrix. */
tilemm_matrix rows_of (const tilemm_matrix &m, int64_t r, int64_t h, size_t elem)
{
  tilemm_matrix s = m;
  s.height = h;
  s.elements = (char *) m.elements + (size_t) (r * m.stride) * elem;
  return s;
}

/* 16-byte loads and stores need the base and every row start 16-byte aligned. */
bool wide_ok (const tilemm_matrix &m, size_t elem)
{
  return ((uintptr_t) m.elements % 16 == 0) && ((size_t) m.stride * elem) % 16 == 0;
}

int64_t ceil_div (int64_t a, int64_t b)
{
  return (a + b - 1) / b;
}

template <typename T>
void launch_guide (const tilemm_matrix &c, const tilemm_matrix &x, const tilemm_matrix &y,
                   cudaStream_t stream)
{
  const int B = TILEMM_GUIDE_BLOCK;
  const int64_t step = max_grid_y * B;
  for (int64_t r = 0; r < c.height; r += step)
    {
      const int64_t h = c.height - r < step ? c.height - r : step;
      dim3 grid ((unsigned) ceil_div (c.width, B), (unsigned) ceil_div (h, B));
      dim3 block (B, B);
      TILEMM_LAUNCH (guide_kernel<T>, grid, block, stream, typed<T> (rows_of (c, r, h, sizeof (T))),
                     typed<const T> (rows_of (x, r, h, sizeof (T))), typed<const T> (y));
    }
}

template <class Cfg, bool WX, bool WY>
void launch_regtile_as (const tilemm_matrix &c, const tilemm_matrix &x, const tilemm_matrix &y,
                        cudaStream_t stream)
{
  typedef typename Cfg::T T;
  const int64_t step = max_grid_y * Cfg::BM;
  for (int64_t r = 0; r < c.height; r += step)
    {
      const int64_t h = c.height - r < step ? c.height - r : step;
      dim3 grid ((unsigned) ceil_div (c.width, Cfg::BN), (unsigned) ceil_div (h, Cfg::BM));
      dim3 block (Cfg::THREADS);
      TILEMM_LAUNCH ((regtile_kernel<Cfg, WX, WY>), grid, block, stream,
                     typed<T> (rows_of (c, r, h, sizeof (T))),
                     typed<const T> (rows_of (x, r, h, sizeof (T))), typed<const T> (y));
    }
}

/* Wide loads of X need X aligned; wide loads of Y and wide stores of C need both Y and C aligned
 * (one flag for the two keeps the instantiations at four). */
template <class Cfg>
void launch_regtile (const tilemm_matrix &c, const tilemm_matrix &x, const tilemm_matrix &y,
                     cudaStream_t stream)
{
  typedef typename Cfg::T T;
  if constexpr (vec16<T>::n == 1) /* one element is 16 bytes: every aligned load is wide */
    launch_regtile_as<Cfg, true, true> (c, x, y, stream);
  else
    {
      const bool wx = wide_ok (x, sizeof (T));
      const bool wy = wide_ok (y, sizeof (T)) && wide_ok (c, sizeof (T));
      if (wx && wy)
        launch_regtile_as<Cfg, true, true> (c, x, y, stream);
      else if (wx)
        launch_regtile_as<Cfg, true, false> (c, x, y, stream);
      else if (wy)
        launch_regtile_as<Cfg, false, true> (c, x, y, stream);
      else
        launch_regtile_as<Cfg, false, false> (c, x, y, stream);
    }
}

typedef void (*launch_fn) (const tilemm_matrix &, const tilemm_matrix &, const tilemm_matrix &,
                           cudaStream_t);

struct kernel_entry
{
  int variant;
  tilemm_type type;
  launch_fn launch;
  int tile_rows, tile_cols, tile_depth, pad, threads;
};

#define GUIDE_ENTRY(type, T)                                                                \
  { 1, type, launch_guide<T>, TILEMM_GUIDE_BLOCK, TILEMM_GUIDE_BLOCK, TILEMM_GUIDE_BLOCK, 0,   \
    TILEMM_GUIDE_BLOCK * TILEMM_GUIDE_BLOCK }
#define REGTILE_ENTRY(variant, type, Cfg)                                                   \
  { variant, type, launch_regtile<Cfg>, Cfg::BM, Cfg::BN, Cfg::BK, Cfg::PAD, Cfg::THREADS }

const kernel_entry kernel_table[] = {
  GUIDE_ENTRY (TILEMM_SINGLE, float),
  GUIDE_ENTRY (TILEMM_DOUBLE, double),
  GUIDE_ENTRY (TILEMM_COMPLEX_SINGLE, float2),
  GUIDE_ENTRY (TILEMM_COMPLEX_DOUBLE, double2),
  REGTILE_ENTRY (2, TILEMM_SINGLE, v2_single),
  REGTILE_ENTRY (2, TILEMM_DOUBLE, v2_double),
  REGTILE_ENTRY (2, TILEMM_COMPLEX_SINGLE, v2_csingle),
  REGTILE_ENTRY (2, TILEMM_COMPLEX_DOUBLE, v2_cdouble),
  REGTILE_ENTRY (3, TILEMM_SINGLE, v3_single),
  REGTILE_ENTRY (3, TILEMM_DOUBLE, v3_double),
  REGTILE_ENTRY (3, TILEMM_COMPLEX_SINGLE, v3_csingle),
  REGTILE_ENTRY (3, TILEMM_COMPLEX_DOUBLE, v3_cdouble),
  REGTILE_ENTRY (4, TILEMM_SINGLE, v4_single),
  REGTILE_ENTRY (4, TILEMM_COMPLEX_SINGLE, v4_csingle),
  REGTILE_ENTRY (5, TILEMM_SINGLE, v5_single),
  REGTILE_ENTRY (5, TILEMM_DOUBLE, v5_double),
};

const kernel_entry *find_kernel (int variant, tilemm_type type)
{
  for (const kernel_entry &k : kernel_table)
    if (k.variant == variant && k.type == type)
      return &k;
  return nullptr;
}

/* The alignment a kernel's element loads need (double2 is 16-byte aligned). */
size_t element_alignment (tilemm_type type)
{
  return type == TILEMM_COMPLEX_DOUBLE ? 16 : type == TILEMM_SINGLE ? 4 : 8;
}

tilemm_status check_matrix (const tilemm_matrix &m, const char *name, tilemm_type type,
                            tilemm_error *err)
{
  if (m.height < 0 || m.width < 0 || m.stride < (m.width > 1 ? m.width : 1))
    return tilemm_error_set (err, TILEMM_EINVAL,
                             "matrix %s: height %lld, width %lld, stride %lld (stride must be >= "
                             "width)",
                             name, (long long) m.height, (long long) m.width,
                             (long long) m.stride);
  if (m.height > 0 && m.width > 0 && !m.elements)
    return tilemm_error_set (err, TILEMM_EINVAL, "matrix %s: no data", name);
  if ((uintptr_t) m.elements % element_alignment (type) != 0)
    return tilemm_error_set (err, TILEMM_EINVAL,
                             "matrix %s: %s elements at %p are not %zu-byte aligned", name,
                             tilemm_type_name (type), m.elements, element_alignment (type));
  return TILEMM_OK;
}

} /* namespace */

extern "C" tilemm_status tilemm_cuda_launch (int variant, tilemm_type type, tilemm_matrix c,
                                             tilemm_matrix x, tilemm_matrix y,
                                             cudaStream_t stream, tilemm_error *err)
{
  const kernel_entry *kernel = find_kernel (variant, type);
  if (!kernel)
    return tilemm_error_set (err, TILEMM_EINVAL, "no CUDA kernel variant %d for %s", variant,
                             tilemm_type_name (type));
  tilemm_status status;
  if ((status = check_matrix (c, "C", type, err)) != TILEMM_OK
      || (status = check_matrix (x, "X", type, err)) != TILEMM_OK
      || (status = check_matrix (y, "Y", type, err)) != TILEMM_OK)
    return status;
  if (x.height != c.height || y.width != c.width || x.width != y.height)
    return tilemm_error_set (err, TILEMM_ESHAPE,
                             "C' (%lldx%lld) = X (%lldx%lld) * Y (%lldx%lld): sizes disagree",
                             (long long) c.height, (long long) c.width, (long long) x.height,
                             (long long) x.width, (long long) y.height, (long long) y.width);
  if (c.height == 0 || c.width == 0)
    return tilemm_error_set (err, TILEMM_OK, NULL);
  if (c.width > (int64_t) 0x7fffffff * 16)
    return tilemm_error_set (err, TILEMM_EOVERFLOW, "C' is %lld wide: too many blocks",
                             (long long) c.width);
  kernel->launch (c, x, y, stream);
  const cudaError_t e = cudaGetLastError ();
  if (e != cudaSuccess)
    return tilemm_error_set (err, TILEMM_ECUDA,
                             "launching CUDA kernel variant %d for %s (%lldx%lldx%lld): %s",
                             variant, tilemm_type_name (type), (long long) c.height,
                             (long long) c.width, (long long) x.width, cudaGetErrorString (e));
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

extern "C" int tilemm_cuda_kernel_shape (int variant, tilemm_type type, int *tile_rows,
                                         int *tile_cols, int *tile_depth, int *pad, int *threads)
{
  const kernel_entry *kernel = find_kernel (variant, type);
  if (!kernel)
    return 0;
  *tile_rows = kernel->tile_rows;
  *tile_cols = kernel->tile_cols;
  *tile_depth = kernel->tile_depth;
  *pad = kernel->pad;
  *threads = kernel->threads;
  return 1;
}
