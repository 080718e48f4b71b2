/* kernels.cu — the kernel variants' configurations and the launcher that picks one.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Each variant (numbered, one idea each) is a row per element type of the one list,
 * src/common/cuda_variant_list.h, which names the configuration below that the row launches; the
 * launch table is expanded from that list, and every row is checked against its configuration
 * when this file compiles.  The launcher checks the matrices, chooses the wide-load or
 * element-load instantiation from the pointers' and strides' alignment, and splits very tall
 * products into several launches so the grid never exceeds its 65535-block y limit.
 */
#include <stdint.h>
#include <type_traits>

#include "cuda_try.h"
#include "cuda_variant_list.h"
#include "fault.h"
#include "kernels.h"
#include "kernels_dmma.cuh"
#include "kernels_regtile.cuh"
#include "kernels_simt.cuh"
#include "ksplit.h"

/* The variants no plan chooses (USE BENCH_ONLY in cuda_variant_list.h: the progression's history
 * and the benchmark's baselines) are compiled only where TILEMM_BENCH_VARIANTS is defined, as the
 * benchmark scripts build this file (bench/build-common.sh, with -Ibench for the guide's kernel,
 * which lives there); the package's fat binary carries only what a plan can launch. */
#ifdef TILEMM_BENCH_VARIANTS
#include "kernels_guide.cuh"
#define BENCH_VARIANTS_BUILT 1
#else
#define BENCH_VARIANTS_BUILT 0
#endif


/* ---------------------------------------------------------------- configurations
 * regtile_config<T, BM, BN, BK, TM, TN, PAD, STAGES, MIN_BLOCKS[, MIN_BLOCKS before sm_90]>.
 * The tile shapes here are the kernels' tuning; src/common/cuda_variant_list.h names each row's shape,
 * and CHECK_VARIANT (below) fails the compile where the two differ.
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

/* Variant 6: register tiles as variant 3, fed by a 3-stage cp.async pipeline (X transposed on the
 * way by 4-byte copies), fragments of k+1 loaded while k is multiplied (kernels_simt.cuh).  Complex
 * single is the same kernel on the real reading of the product: 128×128 reals = 128×64 complex. */
typedef simt_config<float, false, 128, 128, 16, 8, 8, 3, 2, 1, 1> v6_single;
typedef simt_config<float, true, 128, 128, 16, 8, 8, 3, 2, 1> v6_csingle;

/* Variant 7: variant 6 with 64×64 tiles (of reals), 8×4 per thread, 128 threads: four times the
 * blocks of variant 6, for products too small to fill the GPU with 128×128 tiles. */
typedef simt_config<float, false, 64, 64, 16, 8, 4, 3, 4> v7_single;
typedef simt_config<float, true, 64, 64, 16, 8, 4, 3, 4> v7_csingle;

/* Variants 8 and 9: FP64 tensor cores (kernels_dmma.cuh), 128×128 tiles of reals, k-step 16,
 * 8 warps of 64×32, 3 stages (112 KB of shared memory: one block per SM, as the 128 accumulator
 * registers per thread ask anyway).  8 issues m8n8k4 everywhere; 9 the m16n8k8 of sm_90 (what
 * cuBLAS uses on the H100), m8n8k4 before. */
typedef dmma_config<false, 128, 128, 16, 2, 4, 3, 884, 1> v8_double;
typedef dmma_config<true, 128, 128, 16, 2, 4, 3, 884, 1> v8_cdouble;
typedef dmma_config<false, 128, 128, 16, 2, 4, 3, 1688, 1> v9_double;
typedef dmma_config<true, 128, 128, 16, 2, 4, 3, 1688, 1> v9_cdouble;

/* Variant 10: variant 9 with 64×64 tiles, 4 warps of 32×32: for products too small for 9. */
typedef dmma_config<false, 64, 64, 16, 2, 2, 3, 1688, 2> v10_double;
typedef dmma_config<true, 64, 64, 16, 2, 2, 3, 1688, 2> v10_cdouble;

/* Variant 12: variant 6 (single) with one block per SM and registers to spare (up to 255): the
 * fragments of k+1 explicitly double-buffered.  Variant 6 fits 128 registers for two blocks per
 * SM and leaves that overlap to the compiler; 12 measures the other side of the trade. */
typedef simt_config<float, false, 128, 128, 16, 8, 8, 3, 1, 2> v12_single;

/* Variant 13: variant 12 with 8×16 per-thread tiles and 128×256 blocks (of reals) of 256 threads,
 * one block per SM: per k-step a thread loads 2 + 4 fragments of 16 bytes for 128 FMAs (variant 6:
 * 2 + 2 for 64), so fewer of the issue slots of the FFMA loop go to shared loads and addresses
 * (bench/NOTES.md, round 3).  128 accumulators and 2 × 24 fragment registers: up to 255 registers,
 * 3 stages of 16 k (74.5 KB).  Blocks wholly inside the product copy whole k-tiles without edge
 * tests (FAST_INTERIOR).  Complex single is the same kernel on the real reading: 128×128 complex
 * outputs per block. */
struct v13_single : simt_config<float, false, 128, 256, 16, 8, 16, 3, 1, 2>
{
  static constexpr bool FAST_INTERIOR = true;
};
struct v13_csingle : simt_config<float, true, 128, 256, 16, 8, 16, 3, 1, 2>
{
  static constexpr bool FAST_INTERIOR = true;
};

/* Variant 11: split k for small C' and long k: variant 7 (real and complex single) or 10 (double
 * and complex double) with gridDim.z splits of k, each writing a partial C' to a workspace, then
 * splitk_reduce adding the partials in a fixed order.  The caller plans the split (a function of
 * the shape alone, tilemm_plan_ksplit in src/common/ksplit.c, so a product gives the same bits on
 * any GPU) and gives the scratch; the launcher checks and follows it. */

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

/* The pipelined kernels' 16-byte cp.async also need rows of whole 16-byte chunks, so that no
 * copy is partial (kernels_async.cuh says why). */
bool wide_whole (const tilemm_matrix &m, size_t elem)
{
  return wide_ok (m, elem) && ((size_t) m.width * elem) % 16 == 0;
}

#ifdef TILEMM_BENCH_VARIANTS
template <typename T>
void launch_guide (const tilemm_matrix &c, const tilemm_matrix &x, const tilemm_matrix &y,
                   const tilemm_kernel_launch &, cudaStream_t stream)
{
  const int B = TILEMM_GUIDE_BLOCK;
  const int64_t step = max_grid_y * B;
  for (int64_t r = 0; r < c.height; r += step)
    {
      const int64_t h = c.height - r < step ? c.height - r : step;
      dim3 grid ((unsigned) tilemm_ceil_div (c.width, B), (unsigned) tilemm_ceil_div (h, B));
      dim3 block (B, B);
      TILEMM_LAUNCH (guide_kernel<T>, grid, block, stream, typed<T> (rows_of (c, r, h, sizeof (T))),
                     typed<const T> (rows_of (x, r, h, sizeof (T))), typed<const T> (y));
    }
}
#endif

template <class Cfg, bool WX, bool WY>
void launch_regtile_as (const tilemm_matrix &c, const tilemm_matrix &x, const tilemm_matrix &y,
                        cudaStream_t stream)
{
  typedef typename Cfg::T T;
  const int64_t step = max_grid_y * Cfg::BM;
  for (int64_t r = 0; r < c.height; r += step)
    {
      const int64_t h = c.height - r < step ? c.height - r : step;
      dim3 grid ((unsigned) tilemm_ceil_div (c.width, Cfg::BN), (unsigned) tilemm_ceil_div (h, Cfg::BM));
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

/* Kernels with more than 48 KB of dynamic shared memory must say so, per kernel and device.  It is
 * asked at every launch (a host-side attribute write of about a microsecond): a cache keyed by
 * the kernel's type was shared by every instantiation of one signature, so only the first of
 * them got the attribute and the others failed to launch ("invalid argument", found on the H100).
 * A failure here shows as the launch's own error. */
template <typename Kernel> void allow_smem (Kernel kernel, int bytes)
{
  if (bytes > 48 * 1024)
    cudaFuncSetAttribute ((const void *) kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          bytes);
}

const ksplit no_split = { 0, 0 };

/* Launches a pipelined kernel (simt or dmma) on real readings, in slices of at most 65535 tile
 * rows, with `splits` planes along z (1: none). */
template <class Cfg, typename Kernel>
void launch_pipelined (Kernel kernel, const tilemm_matrix &c, const tilemm_matrix &x,
                       const tilemm_matrix &y, int splits, ksplit split, cudaStream_t stream)
{
  typedef typename Cfg::R R;
  allow_smem (kernel, Cfg::SMEM_BYTES);
  const int64_t step = max_grid_y * Cfg::BM;
  for (int64_t r = 0; r < c.height; r += step)
    {
      const int64_t h = c.height - r < step ? c.height - r : step;
      dim3 grid ((unsigned) tilemm_ceil_div (c.width, Cfg::BN), (unsigned) tilemm_ceil_div (h, Cfg::BM),
                 (unsigned) splits);
      dim3 block (Cfg::THREADS);
      TILEMM_LAUNCH_SMEM (kernel, grid, block, Cfg::SMEM_BYTES, stream,
                          typed<R> (rows_of (c, r, h, sizeof (R))),
                          typed<const R> (rows_of (x, r, h, sizeof (R))), typed<const R> (y),
                          split);
    }
}

/* The real reading of a complex matrix: (re, im) pairs as reals, twice as wide. */
tilemm_matrix real_reading (const tilemm_matrix &m)
{
  tilemm_matrix r = { m.height, 2 * m.width, 2 * m.stride, m.elements };
  return r;
}

/* Variant 6/7 (simt) on matrices of `type`, real or complex, into c; with k split into `splits`
 * planes of a workspace when SPLIT. */
template <class Cfg, bool SPLIT>
void run_simt (const tilemm_matrix &c0, const tilemm_matrix &x0, const tilemm_matrix &y0,
               int splits, ksplit split, cudaStream_t stream)
{
  typedef typename Cfg::R R;
  const tilemm_matrix c = Cfg::CPLX ? real_reading (c0) : c0;
  const tilemm_matrix x = Cfg::CPLX ? real_reading (x0) : x0;
  const tilemm_matrix y = Cfg::CPLX ? real_reading (y0) : y0;
  if (wide_whole (y, sizeof (R)) && wide_ok (c, sizeof (R)))
    launch_pipelined<Cfg> (simt_kernel<Cfg, true, SPLIT>, c, x, y, splits, split, stream);
  else
    launch_pipelined<Cfg> (simt_kernel<Cfg, false, SPLIT>, c, x, y, splits, split, stream);
}

template <class Cfg, bool SPLIT>
void run_dmma (const tilemm_matrix &c0, const tilemm_matrix &x0, const tilemm_matrix &y0,
               int splits, ksplit split, cudaStream_t stream)
{
  const tilemm_matrix c = Cfg::CPLX ? real_reading (c0) : c0;
  const tilemm_matrix x = Cfg::CPLX ? real_reading (x0) : x0;
  const tilemm_matrix y = Cfg::CPLX ? real_reading (y0) : y0;
  const bool wx = wide_whole (x, 8), wy = wide_whole (y, 8) && wide_ok (c, 8);
  if (wx && wy)
    launch_pipelined<Cfg> (dmma_kernel<Cfg, true, true, SPLIT>, c, x, y, splits, split, stream);
  else if (wx)
    launch_pipelined<Cfg> (dmma_kernel<Cfg, true, false, SPLIT>, c, x, y, splits, split, stream);
  else if (wy)
    launch_pipelined<Cfg> (dmma_kernel<Cfg, false, true, SPLIT>, c, x, y, splits, split, stream);
  else
    launch_pipelined<Cfg> (dmma_kernel<Cfg, false, false, SPLIT>, c, x, y, splits, split, stream);
}

/* The kernels of variants 6 and 7 on the whole product. */
template <class Cfg>
void launch_simt (const tilemm_matrix &c, const tilemm_matrix &x, const tilemm_matrix &y,
                  const tilemm_kernel_launch &, cudaStream_t stream)
{
  run_simt<Cfg, false> (c, x, y, 1, no_split, stream);
}

/* Variants 8–10; where the caller says the device has no DMMA (before sm_80), the register-tiled
 * kernel Fallback instead. */
template <class Cfg, class Fallback>
void launch_dmma (const tilemm_matrix &c, const tilemm_matrix &x, const tilemm_matrix &y,
                  const tilemm_kernel_launch &lp, cudaStream_t stream)
{
  if (lp.dmma_fallback)
    launch_regtile<Fallback> (c, x, y, stream);
  else
    run_dmma<Cfg, false> (c, x, y, 1, no_split, stream);
}

/* ---------------------------------------------------------------- split k (variant 11) */

/* Runs Cfg with k split as the caller planned (lp: its pieces, their chunk of k, the scratch for
 * the partial sums, checked by tilemm_cuda_launch), then the reduction into C'; unsplit when one
 * piece was planned.  Run is run_simt<Cfg> or run_dmma<Cfg>. */
template <class Cfg, void (*Run) (const tilemm_matrix &, const tilemm_matrix &,
                                  const tilemm_matrix &, int, ksplit, cudaStream_t),
          void (*Whole) (const tilemm_matrix &, const tilemm_matrix &,
                         const tilemm_matrix &, int, ksplit, cudaStream_t)>
void launch_split (const tilemm_matrix &c, const tilemm_matrix &x, const tilemm_matrix &y,
                   const tilemm_kernel_launch &lp, cudaStream_t stream)
{
  typedef typename Cfg::R R;
  const int parts = Cfg::CPLX ? 2 : 1;
  const int64_t width = c.width * parts; /* reals */
  const int splits = lp.splits;
  if (splits <= 1)
    {
      Whole (c, x, y, 1, no_split, stream);
      return;
    }
  const int64_t ws_stride = tilemm_ceil_div (width, 4) * 4; /* keeps 16-byte rows */
  const int64_t plane = c.height * ws_stride;
  R *ws = (R *) lp.scratch;
  /* The scratch as a matrix of the type (complex: ws_stride / 2 complex elements per row). */
  const tilemm_matrix w = { c.height, c.width, ws_stride / parts, ws };
  const ksplit split = { lp.kchunk, plane };
  Run (w, x, y, splits, split, stream);
  const kmatrix<R> cr = { c.height, width, c.stride * parts, (R *) c.elements };
  dim3 grid ((unsigned) tilemm_ceil_div (width, 32), (unsigned) (c.height < max_grid_y ? c.height : max_grid_y));
  TILEMM_LAUNCH (splitk_reduce<R>, grid, dim3 (32, 8), stream, cr, (const R *) ws, ws_stride,
                 plane, splits);
}

template <class Cfg, class Fallback>
void launch_split_dmma (const tilemm_matrix &c, const tilemm_matrix &x, const tilemm_matrix &y,
                        const tilemm_kernel_launch &lp, cudaStream_t stream)
{
  if (lp.dmma_fallback)
    launch_regtile<Fallback> (c, x, y, stream);
  else
    launch_split<Cfg, run_dmma<Cfg, true>, run_dmma<Cfg, false> > (c, x, y, lp, stream);
}

/* Variants 2–5: the register-tiled kernels, nothing to decide. */
template <class Cfg>
void launch_regtile_kind (const tilemm_matrix &c, const tilemm_matrix &x, const tilemm_matrix &y,
                          const tilemm_kernel_launch &, cudaStream_t stream)
{
  launch_regtile<Cfg> (c, x, y, stream);
}

typedef void (*launch_fn) (const tilemm_matrix &, const tilemm_matrix &, const tilemm_matrix &,
                           const tilemm_kernel_launch &, cudaStream_t);

/* What a compiled kernel is: block tile of C' (rows × cols) and k step in elements of its type
 * (real-product kinds: complex columns and k), shared-memory padding, threads per block. */
struct kernel_shape
{
  int tile_rows, tile_cols, tile_depth, pad, threads;
};

constexpr bool operator== (const kernel_shape &a, const kernel_shape &b)
{
  return a.tile_rows == b.tile_rows && a.tile_cols == b.tile_cols
         && a.tile_depth == b.tile_depth && a.pad == b.pad && a.threads == b.threads;
}

struct kernel_entry
{
  int variant;
  tilemm_type type;
  launch_fn launch;
  kernel_shape shape;
  bool split;    /* splits k as its caller plans (tilemm_kernel_launch)            */
  bool fallback; /* has a register-tiled fallback for devices without DMMA        */
};

/* Which kinds split k, and which fall back without DMMA. */
#define KIND_SPLIT_GUIDE 0
#define KIND_SPLIT_REGTILE 0
#define KIND_SPLIT_SIMT 0
#define KIND_SPLIT_DMMA 0
#define KIND_SPLIT_SPLIT_SIMT 1
#define KIND_SPLIT_SPLIT_DMMA 1
/* Which fall back without DMMA: TILEMM_KIND_FALLBACK_* (cuda_variant_list.h, the plan's too). */
/* The plan knows the split-k rows by their USE (ksplit.c): SPLIT is the split kinds' use. */
#define USE_SPLIT_PREFERRED 0
#define USE_SPLIT_SMALL 0
#define USE_SPLIT_PREFERRED_SMALL 0
#define USE_SPLIT_SPLIT 1
#define USE_SPLIT_BENCH_ONLY 0

/* Each KIND of cuda_variant_list.h: its launcher, the shape its configuration compiles, and
 * whether that configuration computes a type's elements (a float kernel launched on doubles
 * would read garbage, so the element type is checked too). */
#define KIND_LAUNCH_GUIDE(T, fallback) launch_guide<T>
#define KIND_LAUNCH_REGTILE(Cfg, fallback) launch_regtile_kind<Cfg>
#define KIND_LAUNCH_SIMT(Cfg, fallback) launch_simt<Cfg>
#define KIND_LAUNCH_DMMA(Cfg, Fallback) launch_dmma<Cfg, Fallback>
#define KIND_LAUNCH_SPLIT_SIMT(Cfg, fallback)                                                   \
  launch_split<Cfg, run_simt<Cfg, true>, run_simt<Cfg, false> >
#define KIND_LAUNCH_SPLIT_DMMA(Cfg, Fallback) launch_split_dmma<Cfg, Fallback>

#define KIND_SHAPE_GUIDE(T)                                                                     \
  (kernel_shape{ TILEMM_GUIDE_BLOCK, TILEMM_GUIDE_BLOCK, TILEMM_GUIDE_BLOCK, 0,                 \
                 TILEMM_GUIDE_BLOCK * TILEMM_GUIDE_BLOCK })
#define KIND_SHAPE_REGTILE(Cfg)                                                                 \
  (kernel_shape{ Cfg::BM, Cfg::BN, Cfg::BK, Cfg::PAD, Cfg::THREADS })
#define KIND_SHAPE_SIMT(Cfg)                                                                    \
  (kernel_shape{ Cfg::BM, Cfg::TABLE_COLS, Cfg::TABLE_DEPTH, Cfg::PAD, Cfg::THREADS })
#define KIND_SHAPE_DMMA(Cfg)                                                                    \
  (kernel_shape{ Cfg::BM, Cfg::TABLE_COLS, Cfg::TABLE_DEPTH, Cfg::LDX - Cfg::BK, Cfg::THREADS })
#define KIND_SHAPE_SPLIT_SIMT KIND_SHAPE_SIMT
#define KIND_SHAPE_SPLIT_DMMA KIND_SHAPE_DMMA

template <tilemm_type> struct element;
template <> struct element<TILEMM_SINGLE> { typedef float type; typedef float real; };
template <> struct element<TILEMM_DOUBLE> { typedef double type; typedef double real; };
template <> struct element<TILEMM_COMPLEX_SINGLE> { typedef float2 type; typedef float real; };
template <> struct element<TILEMM_COMPLEX_DOUBLE> { typedef double2 type; typedef double real; };
constexpr bool complex_type (tilemm_type t)
{
  return t == TILEMM_COMPLEX_SINGLE || t == TILEMM_COMPLEX_DOUBLE;
}

#define KIND_COMPUTES_GUIDE(T, t) std::is_same<T, element<t>::type>::value
#define KIND_COMPUTES_REGTILE(Cfg, t) std::is_same<Cfg::T, element<t>::type>::value
#define KIND_COMPUTES_SIMT(Cfg, t)                                                              \
  (std::is_same<Cfg::R, element<t>::real>::value && Cfg::CPLX == complex_type (t))
#define KIND_COMPUTES_DMMA KIND_COMPUTES_SIMT
#define KIND_COMPUTES_SPLIT_SIMT KIND_COMPUTES_SIMT
#define KIND_COMPUTES_SPLIT_DMMA KIND_COMPUTES_SIMT

/* A row of the list, or nothing for a BENCH_ONLY row outside the benchmark's build. */
#define ROW_PREFERRED(...) __VA_ARGS__
#define ROW_SMALL(...) __VA_ARGS__
#define ROW_PREFERRED_SMALL(...) __VA_ARGS__
#define ROW_SPLIT(...) __VA_ARGS__
#if BENCH_VARIANTS_BUILT
#define ROW_BENCH_ONLY(...) __VA_ARGS__
#else
#define ROW_BENCH_ONLY(...)
#endif

/* Every row of the list against the configuration it names, when this file compiles: the one
 * list cannot disagree with the kernels (the plan's tiles are the launched ones). */
#define CHECK_ROW(id, type, tile, pad, threads, use, kind, cfg, fallback, name)                 \
  static_assert (KIND_SHAPE_##kind (cfg) == (kernel_shape{ TILEMM_##tile, pad, threads }),      \
                 "cuda_variant_list.h: variant " #id " " #type " says " #tile " pad " #pad      \
                 " threads " #threads ", which is not what " #cfg " compiles");                 \
  static_assert (KIND_COMPUTES_##kind (cfg, TILEMM_##type),                                     \
                 "cuda_variant_list.h: variant " #id ": " #cfg " does not compute " #type);     \
  static_assert (KIND_SPLIT_##kind == USE_SPLIT_##use,                                          \
                 "cuda_variant_list.h: variant " #id ": USE SPLIT and a SPLIT kind go together");
#define CHECK_VARIANT(id, type, tile, pad, threads, use, kind, cfg, fallback, name)             \
  ROW_##use (CHECK_ROW (id, type, tile, pad, threads, use, kind, cfg, fallback, name))
TILEMM_CUDA_VARIANT_LIST (CHECK_VARIANT)
#undef CHECK_VARIANT

#define KERNEL_ENTRY(id, type, tile, pad, threads, use, kind, cfg, fallback, name)              \
  ROW_##use ({ id, TILEMM_##type, KIND_LAUNCH_##kind (cfg, fallback), KIND_SHAPE_##kind (cfg),   \
              KIND_SPLIT_##kind != 0, TILEMM_KIND_FALLBACK_##kind != 0 },)
const kernel_entry kernel_table[] = { TILEMM_CUDA_VARIANT_LIST (KERNEL_ENTRY) };
#undef KERNEL_ENTRY

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

/* The caller's split of k against the kernel it runs: pieces of whole k steps that cover k, a
 * product no taller than one grid, and scratch enough for the partial sums. */
tilemm_status check_split (const kernel_entry &kernel, tilemm_type type, const tilemm_matrix &c,
                           const tilemm_matrix &x, const tilemm_kernel_launch &lp,
                           tilemm_error *err)
{
  if (lp.splits < 1 || (lp.splits > 1 && !kernel.split))
    return tilemm_error_set (err, TILEMM_EINVAL, "CUDA kernel variant %d for %s: %d pieces of k "
                             "(only the split-k variant splits, into at least one)",
                             kernel.variant, tilemm_type_name (type), lp.splits);
  if (lp.splits == 1 || (kernel.fallback && lp.dmma_fallback))
    return TILEMM_OK;
  const int parts = complex_type (type) ? 2 : 1;
  const int64_t kr = x.width * parts, bk = (int64_t) kernel.shape.tile_depth * parts;
  if (lp.kchunk <= 0 || lp.kchunk % bk != 0 || tilemm_ceil_div (kr, lp.kchunk) != lp.splits
      || c.height > max_grid_y * kernel.shape.tile_rows)
    return tilemm_error_set (err, TILEMM_EINVAL, "CUDA kernel variant %d for %s: k = %lld reals "
                             "cannot be %d pieces of %lld (whole steps of %lld, covering k once)",
                             kernel.variant, tilemm_type_name (type), (long long) kr, lp.splits,
                             (long long) lp.kchunk, (long long) bk);
  const size_t need = tilemm_cuda_launch_scratch_bytes (type, c.height, c.width, lp.splits);
  if (!lp.scratch || lp.scratch_bytes < need || (uintptr_t) lp.scratch % 16 != 0)
    return tilemm_error_set (err, TILEMM_EINVAL, "CUDA kernel variant %d for %s: k in %d pieces "
                             "needs %zu bytes of 16-byte aligned scratch, given %zu at %p",
                             kernel.variant, tilemm_type_name (type), lp.splits, need,
                             lp.scratch_bytes, lp.scratch);
  return TILEMM_OK;
}

} /* namespace */

extern "C" tilemm_status tilemm_cuda_launch (int variant, tilemm_type type, tilemm_matrix c,
                                             tilemm_matrix x, tilemm_matrix y,
                                             const tilemm_kernel_launch *launch,
                                             cudaStream_t stream, tilemm_error *err)
{
  const tilemm_kernel_launch unsplit = { 0, 1, 0, nullptr, 0 };
  const tilemm_kernel_launch &lp = launch ? *launch : unsplit;
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
  if ((status = check_split (*kernel, type, c, x, lp, err)) != TILEMM_OK)
    return status;
  /* TILEMM_FAULT=launch:N (fault.h): the Nth launch of a product fails, and does not run. */
  const cudaError_t e = TILEMM_FAULT_OR (TILEMM_FAULT_LAUNCH, cudaErrorInvalidValue,
                                         (kernel->launch (c, x, y, lp, stream), cudaGetLastError ()));
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
  *tile_rows = kernel->shape.tile_rows;
  *tile_cols = kernel->shape.tile_cols;
  *tile_depth = kernel->shape.tile_depth;
  *pad = kernel->shape.pad;
  *threads = kernel->shape.threads;
  return 1;
}

extern "C" int tilemm_cuda_bench_variants_built (void)
{
  return BENCH_VARIANTS_BUILT;
}
