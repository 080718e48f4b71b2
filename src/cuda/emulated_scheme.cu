/* emulated_scheme.cu — the emulated precision (Ozaki scheme II, src/common/emulated.h) on the
 * GPU, its host side: one call's stages on one stream in the caller's arena (its slots reserved,
 * the scan's flag and the statistics brought to the host, where they select the plan among the
 * call plan's branches between the stages, then the product's launches block by block of C), and the entry
 * points of emulated_scheme.h.  The kernels and their launchers are src/kernels/emulated_cuda.cu's
 * (emulated_launch.h); the operands' staging is the executor's (emulated_product.cu).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h> /* tests/emu has its own, for the host emulation */

#include "backend.h"
#include "cuda_try.h"
#include "emulated.h"
#include "emulated_arena.h"
#include "emulated_launch.h"
#include "emulated_scheme.h"
#include "fault.h"
#ifndef TILEMM_EMULATE
#include "imma_wgmma.h" /* tilemm_emu_wgmma_usable: whether the Hopper GEMM runs here */
#endif

namespace tilemm_emu_gpu {

inline size_t align256 (size_t x) { return (x + 255) & ~(size_t) 255; }

/* The piece of the caller's arena a stage works in: slot `slot`, which must hold `bytes`
 * (tilemm_emu_cuda_arena_need says how many; the call allocates nothing). */
tilemm_status reserve (char *&base, size_t bytes, const tilemm_emu_cuda_arena *arena, int slot,
                       tilemm_error *err)
{
  if (!arena)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: no arena (the caller gives "
                             "one, sized by tilemm_emu_cuda_arena_need)");
  if (arena->bytes[slot] < bytes || (bytes > 0 && !arena->base[slot]))
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: arena slot %d holds %zu "
                             "bytes, the call needs %zu (tilemm_emu_cuda_arena_need)", slot,
                             arena->bytes[slot], bytes);
  base = (char *) arena->base[slot];
  return TILEMM_OK;
}

/* Stage timing: events on the stream (none in the host emulation). */
struct timer
{
#ifndef TILEMM_EMULATE
  cudaEvent_t ev[6] = {};
#endif
  int used = 0;
  bool on = false;
  ~timer ()
  {
#ifndef TILEMM_EMULATE
    for (int i = 0; i < 6; i++)
      if (ev[i])
        cudaEventDestroy (ev[i]);
#endif
  }
  void start (bool want)
  {
#ifndef TILEMM_EMULATE
    on = want;
    for (int i = 0; on && i < 6; i++)
      if (cudaEventCreate (&ev[i]) != cudaSuccess)
        on = false;
#else
    (void) want;
#endif
  }
  void mark (int i, cudaStream_t s)
  {
#ifndef TILEMM_EMULATE
    if (on && cudaEventRecord (ev[i], s) == cudaSuccess)
      used = i + 1;
#else
    (void) i, (void) s;
#endif
  }
  void report (tilemm_emu_cuda_times *t)
  {
    if (!t)
      return;
    memset (t, 0, sizeof *t);
#ifndef TILEMM_EMULATE
    float ms[5] = {};
    for (int i = 0; i + 1 < used && i < 5; i++)
      if (cudaEventElapsedTime (&ms[i], ev[i], ev[i + 1]) != cudaSuccess)
        ms[i] = 0.0f;
    t->scan_ms = ms[0];
    t->stats_ms = ms[1];
    t->convert_ms = ms[2];
    t->gemm_ms = ms[3];
    t->crt_ms = ms[4];
#endif
  }
};

/* The width of C's column blocks a call was given (tilemm_emu_cuda_blocks): n, one block, when
 * none or no narrower width was asked for. */
inline int64_t block_width (const tilemm_emu_cuda_blocks *blocks, int64_t n)
{
  return blocks && blocks->cols > 0 && blocks->cols < n ? blocks->cols : n;
}

/* One real problem C = A·B (m×k times k×n, column-major), through its stages. */
template <typename T> struct problem
{
  int64_t m, n, k, lda, ldb, kp;
  const T *a, *b;
  tilemm_emu_stats_layout l1;
  char *w1;       /* exponents, sums, lo matrices: kept until the product is done */
  int *ea, *eb;
  tilemm_emu_stats stats;
  tilemm_emu_cuda_keep *keep = nullptr; /* A's work kept between calls (real products only) */
};

/* The caller's record of A's kept work for this problem's A: reset when it described another. */
template <typename T> tilemm_emu_cuda_keep *kept_for (problem<T> &pr)
{
  tilemm_emu_cuda_keep *const keep = pr.keep;
  if (keep && (keep->a != (const void *) pr.a || keep->m != pr.m || keep->k != pr.k
               || keep->lda != pr.lda))
    {
      memset (keep, 0, sizeof *keep);
      keep->a = pr.a;
      keep->m = pr.m;
      keep->k = pr.k;
      keep->lda = pr.lda;
    }
  return keep;
}

/* Steps 1 and 2 for one problem: p.stats (p.stats.nonfinite set and nothing more done when A or B
 * has NaN or Inf).  Marks the timer at the end of the scan (mark_scan) and of the statistics. */
template <typename T>
tilemm_status stage_stats (const tilemm_emu_options *opt, const gemm_choice &gc, problem<T> &pr,
                           cudaStream_t stream, const tilemm_emu_cuda_arena *arena, int slot,
                           timer &tm, int mark_scan, bool exponents_only, tilemm_error *err)
{
  const int64_t m = pr.m, n = pr.n, k = pr.k, lda = pr.lda, ldb = pr.ldb;
  const T *const a = pr.a, *const b = pr.b;
  tilemm_emu_stats &stats = pr.stats;
  memset (&stats, 0, sizeof stats);
  stats.inner = k;
  /* S and lo: the certified rule's; a given plan needs the exponents only */
  const bool automatic = tilemm_emu_needs_ratios (opt) != 0 && !exponents_only;
  const int64_t kp = pr.kp = tilemm_emu_padded_k (k);
  const int64_t ktiles = tilemm_ceil_div (kp, 64);
  const bool chunked = ktiles > gc.chunk_tiles;
  /* A's pieces kept from an earlier call on this A (then the lo matrices' room in every mode,
   * so that no call's B lands on a kept lo(A)) */
  tilemm_emu_cuda_keep *const keep = kept_for (pr);
  const bool kept_e = keep && keep->exponents;
  const tilemm_emu_stats_layout l1 = pr.l1
    = tilemm_emu_layout_stats (m, n, kp, automatic || keep, automatic && chunked);
  tilemm_status st = reserve (pr.w1, l1.total, arena, slot, err);
  if (st != TILEMM_OK)
    return st;
  char *const base1 = pr.w1;
  int *const ea = pr.ea = (int *) (base1 + l1.e), *const eb = pr.eb = (int *) (base1 + l1.eb);
  int *const flag = (int *) (base1 + l1.flag);
  unsigned long long *const ratio = (unsigned long long *) (base1 + l1.ratio);

  /* 1. scan (A's rows only where their exponents are not kept) */
  if (!kept_e)
    CUDA_TRY (cudaMemsetAsync (base1 + l1.amax, 0, l1.e - l1.amax, stream), "cudaMemsetAsync(scan of A)");
  CUDA_TRY (cudaMemsetAsync (base1 + l1.amaxb, 0, l1.lob - l1.amaxb, stream),
            "cudaMemsetAsync(scan of B, sums)");
  st = launch_scan<T> (a, kept_e ? 0 : m, k, lda, b, n, ldb,
                       (unsigned long long *) (base1 + l1.amax),
                       (unsigned long long *) (base1 + l1.amaxb), ea, eb, flag, stream, err);
  if (st != TILEMM_OK)
    return st;
  /* The statistics come back to the host here, inside the stage, because the plan that the next
   * stage runs is selected on the host between the two (among the call plan's branches). */
  int nonfinite = 0;
  CUDA_TRY (TILEMM_FAULT_OR (TILEMM_FAULT_MEMCPY, cudaErrorInvalidValue,
                             cudaMemcpyAsync (&nonfinite, flag, sizeof nonfinite, cudaMemcpyDeviceToHost, stream)),
            "cudaMemcpyAsync(non-finite flag)");
  CUDA_TRY (cudaStreamSynchronize (stream), "cudaStreamSynchronize(scan)");
  if (mark_scan >= 0)
    tm.mark (mark_scan, stream);
  if (nonfinite)
    {
      stats.nonfinite = 1;
      return TILEMM_OK;
    }
  if (keep)
    keep->exponents = 1; /* A finite: its exponents stand for every later call */
  if (exponents_only) /* a given plan needs the exponents only */
    return TILEMM_OK;

  /* 2. statistics */
  unsigned long long *const sa = (unsigned long long *) (base1 + l1.sa);
  unsigned long long *const qa = (unsigned long long *) (base1 + l1.qa);
  unsigned long long *const sb = (unsigned long long *) (base1 + l1.sb);
  unsigned long long *const qb = (unsigned long long *) (base1 + l1.qb);
  int8_t *const loa = automatic ? (int8_t *) (base1 + l1.loa) : nullptr;
  int8_t *const lob = automatic ? (int8_t *) (base1 + l1.lob) : nullptr;
  /* A's rows quantized unless their sums (and lo(A), where the rule needs it) are kept */
  if (!(keep && keep->sums && (keep->lo || !automatic)))
    {
      if (keep)
        keep->sums = keep->lo = 0;
      CUDA_TRY (cudaMemsetAsync (base1 + l1.sa, 0, l1.loa - l1.sa, stream), "cudaMemsetAsync(sums of A)");
      st = launch_quantize<T> (true, a, m, k, lda, kp, ea, loa, sa, qa, stream, err);
      if (st == TILEMM_OK && keep)
        {
          keep->sums = 1;
          keep->lo = automatic;
        }
    }
  if (st == TILEMM_OK)
    st = launch_quantize<T> (false, b, n, k, ldb, kp, eb, lob, sb, qb, stream, err);
  if (st == TILEMM_OK && automatic)
    {
      /* the statistics' GEMM the plan names (one launch or chunks) */
      const gemm_choice gs = { gc.stats_gemm, gc.chunk_tiles, gc.stats_gemm, gc.blocks,
                               gc.multiprocessors };
      st = launch_stats_gemm (gs, loa, lob, m, n, kp, (int64_t *) (base1 + l1.s64), sa, sb, ea, eb,
                              ratio, stream, err);
    }
  if (st != TILEMM_OK)
    return st;
  /* the few numbers the plan needs (their maxima over the rows' and columns' sums on the host) */
  {
    unsigned long long *hq = (unsigned long long *) malloc (8 * (size_t) (m + n)); /* host */
    if (!hq)
      return tilemm_error_set (err, TILEMM_ENOMEM, "malloc(%zu bytes)", 8 * (size_t) (m + n));
    unsigned long long hr[2] = { 0, 0 };
    cudaError_t e = TILEMM_FAULT_OR (TILEMM_FAULT_MEMCPY, cudaErrorInvalidValue,
                                     cudaMemcpyAsync (hq, qa, 8 * (size_t) m, cudaMemcpyDeviceToHost, stream));
    if (e == cudaSuccess)
      e = cudaMemcpyAsync (hq + m, qb, 8 * (size_t) n, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync (hr, ratio, sizeof hr, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess)
      e = cudaStreamSynchronize (stream);
    if (e != cudaSuccess)
      {
        free (hq);
        return tilemm_cuda_failure (err, e, "cudaMemcpyAsync(statistics)");
      }
    for (int64_t i = 0; i < m; i++)
      stats.max_qa = (int64_t) hq[i] > stats.max_qa ? (int64_t) hq[i] : stats.max_qa;
    for (int64_t j = 0; j < n; j++)
      stats.max_qb = (int64_t) hq[m + j] > stats.max_qb ? (int64_t) hq[m + j] : stats.max_qb;
    free (hq);
    if (automatic)
      {
        memcpy (&stats.ratio_a, &hr[0], 8);
        memcpy (&stats.ratio_b, &hr[1], 8);
      }
  }
  return TILEMM_OK;
}

/* Step 4 for one block of C's `cols` columns: the modular GEMMs of all N moduli, as many a
 * launch as the plan's reader says for the block's shape and the device (the product and
 * calibration's timing launch alike); with a stop, polled before each launch but a first one. */
tilemm_status launch_block_gemms (const gemm_choice &gc, const int8_t *ra, const int8_t *rb,
                                  int64_t m, int64_t cols, int64_t n, int64_t kp, int N,
                                  uint8_t *r, cudaStream_t stream, const tilemm_stop *stop,
                                  bool first, tilemm_error *err)
{
  const int per_launch = tilemm_emu_planes_per_launch (gc.gemm, m, cols, N, gc.multiprocessors);
  for (int z0 = 0; z0 < N; z0 += per_launch)
    {
      if ((z0 > 0 || !first) && tilemm_stop_requested (stop))
        {
          cudaStreamSynchronize (stream);
          return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted");
        }
      const int planes = N - z0 < per_launch ? N - z0 : per_launch;
      const tilemm_status st = launch_mod_gemms (gc, ra, rb, m, cols, n, kp, z0, planes, r,
                                                 stream, err);
      if (st != TILEMM_OK)
        return st;
    }
  return TILEMM_OK;
}

/* Steps 3 to 5 for one problem under `plan`: C(i, j) at c[(i + j·ldc)·step]. */
template <typename T>
tilemm_status stage_product (const tilemm_emu_plan &plan, const gemm_choice &gc, problem<T> &pr, T *c,
                             int64_t ldc, int step, cudaStream_t stream, const tilemm_stop *stop,
                             const tilemm_emu_cuda_arena *arena, int slot, timer &tm, bool marks,
                             const tilemm_emu_cuda_blocks *blocks, tilemm_error *err)
{
  const int64_t m = pr.m, n = pr.n, k = pr.k, lda = pr.lda, ldb = pr.ldb, kp = pr.kp;
  const T *const a = pr.a, *const b = pr.b;
  int *const ea = pr.ea, *const eb = pr.eb;
  tilemm_status st;
  /* 3. scaled integers and residues */
  const int N = plan.moduli;
  if (N < 1 || N > TILEMM_EMU_MAX_MODULI)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated plan with %d moduli", N);
  const tilemm_emu_product_layout l2 = tilemm_emu_layout_product (m, n, kp, N);
  char *base2 = nullptr;
  st = reserve (base2, l2.total, arena, slot, err);
  if (st != TILEMM_OK)
    return st;
  int8_t *const ra = (int8_t *) (base2 + l2.ra), *const rb = (int8_t *) (base2 + l2.rb);
  uint8_t *const rr = (uint8_t *) (base2 + l2.r);
  /* A's residues unless kept at the plan's bits for its moduli (B's, written after A's N planes,
   * overwrite any plane past N: the record keeps N) */
  tilemm_emu_cuda_keep *const keep = kept_for (pr);
  if (!(keep && keep->residue_bits == plan.pa && keep->residue_moduli >= N))
    {
      if (keep)
        keep->residue_moduli = 0;
      st = launch_residues<T> (true, a, m, k, lda, kp, ea, plan.pa, N, ra, stream, err);
      if (st == TILEMM_OK && keep)
        keep->residue_bits = plan.pa;
    }
  if (keep && st == TILEMM_OK)
    keep->residue_moduli = N;
  if (st == TILEMM_OK)
    st = launch_residues<T> (false, b, n, k, ldb, kp, eb, plan.pb, N, rb, stream, err);
  if (st != TILEMM_OK)
    return st;
  if (marks)
    tm.mark (3, stream);

  /* 4–5 for each block of C's columns (tilemm_emu_cuda_blocks): the modular GEMMs of all moduli
   * on the block's columns of B's residues, then the CRT of its entries into C; so a caller can
   * copy a block out while the device works on the next ones.  The residues are the whole
   * product's (planes of n·kp and m·n bytes): a block is an offset into them. */
  const int64_t bc = block_width (blocks, n);
  const bool one_block = bc == n;
  int block = 0;
  for (int64_t j0 = 0; j0 < n; j0 += bc, block++)
    {
      const int64_t cols = n - j0 < bc ? n - j0 : bc;
      /* 4. the modular GEMMs, as many moduli a launch as the plan's reader says (the stop
       * polled in between) */
      st = launch_block_gemms (gc, ra, rb + j0 * kp, m, cols, n, kp, N, rr + j0 * m, stream, stop,
                               j0 == 0, err);
      if (st != TILEMM_OK)
        return st;
      if (marks && one_block)
        tm.mark (4, stream);

      /* 5. CRT into C: the block's columns of every residue plane (planes of m·n bytes) */
      st = launch_crt<T> (N, rr + j0 * m, m * n, m, cols, ea, eb + j0, plan.pa + plan.pb,
                          c + j0 * ldc * step, ldc, step, stream, err);
      if (st != TILEMM_OK)
        return st;
      if (blocks && blocks->done)
        CUDA_TRY (cudaEventRecord ((cudaEvent_t) blocks->done[block], stream),
                  "cudaEventRecord(block %d of C)", block);
    }
  if (marks)
    tm.mark (5, stream);
  return TILEMM_OK;
}

/* What one call runs: the whole scheme (statistics, the plan, the product), the statistics only
 * (a panel's share of a product whose plan is made from all panels), or the product under a plan
 * made elsewhere (the exponents, which depend on a row of A or a column of B only, and steps 3–5:
 * so a panel of a product comes out bitwise as in the whole product). */
enum run_mode { RUN_WHOLE = TILEMM_EMU_RUN_WHOLE, RUN_STATS = TILEMM_EMU_RUN_STATS,
                RUN_GIVEN = TILEMM_EMU_RUN_GIVEN };

/* What the caller decided for one call: the mode, the plan (RUN_GIVEN: the given one; RUN_WHOLE:
 * the branch of the call plan's that the statistics select), the int8 GEMM and its k-chunk. */
struct run_request
{
  run_mode mode;
  const tilemm_emu_plan *given;
  const tilemm_emu_branches *branches;
  gemm_choice gc;
  tilemm_emu_cuda_keep *keep; /* A's work kept between calls (a real product's; NULL: none) */
};

/* The plan of a call from its statistics, or the one given; false when the product is not run
 * (RUN_STATS, or a verdict other than OK). */
bool settle_plan (const run_request &rq, const tilemm_emu_options *opt, const tilemm_emu_stats &stats,
                  tilemm_emu_plan *used)
{
  (void) opt;
  tilemm_emu_plan plan;
  memset (&plan, 0, sizeof plan);
  if (stats.nonfinite)
    plan.verdict = TILEMM_EMU_NONFINITE;
  else if (rq.mode == RUN_GIVEN)
    plan = *rq.given;
  else if (rq.mode == RUN_WHOLE)
    tilemm_emu_select (rq.branches, &stats, &plan);
  *used = plan;
  return rq.mode != RUN_STATS && plan.verdict == TILEMM_EMU_OK;
}

/* The end of a product: wait for the device and report the stages' times, unless the caller
 * takes C block by block on its events (then only when it asked for the times). */
tilemm_status finish (cudaStream_t stream, timer &tm, tilemm_emu_cuda_times *times,
                      const tilemm_emu_cuda_blocks *blocks, tilemm_error *err)
{
  if (blocks && blocks->done && !times)
    return TILEMM_OK;
  CUDA_TRY (cudaStreamSynchronize (stream), "cudaStreamSynchronize(emulated product)");
  tm.report (times);
  return TILEMM_OK;
}

/* A real product: the stages in a row. */
template <typename T>
tilemm_status run_real (const run_request &rq, const tilemm_emu_options *opt, int64_t m, int64_t n,
                        int64_t k, const T *a, int64_t lda, const T *b, int64_t ldb, T *c, int64_t ldc,
                        cudaStream_t stream, const tilemm_stop *stop, tilemm_emu_plan *used,
                        tilemm_emu_stats *stats_out, tilemm_emu_cuda_times *times,
                        const tilemm_emu_cuda_arena *arena, const tilemm_emu_cuda_blocks *blocks,
                        tilemm_error *err)
{
  problem<T> pr;
  pr.m = m; pr.n = n; pr.k = k; pr.a = a; pr.lda = lda; pr.b = b; pr.ldb = ldb;
  pr.keep = rq.keep;
  timer tm;
  tm.start (times != nullptr);
  tm.mark (0, stream);
  tilemm_status st = stage_stats (opt, rq.gc, pr, stream, arena, 0, tm, 1, rq.mode == RUN_GIVEN, err);
  if (st != TILEMM_OK)
    return st;
  if (stats_out)
    *stats_out = pr.stats;
  if (!settle_plan (rq, opt, pr.stats, used))
    return TILEMM_OK;
  tm.mark (2, stream);
  if (tilemm_stop_requested (stop))
    return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted");
  st = stage_product (*used, rq.gc, pr, c, ldc, 1, stream, stop, arena, 1, tm, true, blocks, err);
  if (st != TILEMM_OK)
    return st;
  return finish (stream, tm, times, blocks, err);
}

/* A complex product (emulated.h, the end): Re C = [Ar −Ai]·[Br; Bi], Im C = [Ar Ai]·[Bi; Br],
 * two real problems of inner dimension 2k under one plan (their statistics merged), each part
 * rounded once.  The real operands are formed on the device first (twice A's and B's bytes). */
template <typename T>
tilemm_status run_complex (const run_request &rq, const tilemm_emu_options *opt, int64_t m, int64_t n,
                           int64_t k, const T *a, int64_t lda, const T *b, int64_t ldb, T *c, int64_t ldc,
                           cudaStream_t stream, const tilemm_stop *stop, tilemm_emu_plan *used,
                           tilemm_emu_stats *stats_out, tilemm_emu_cuda_times *times,
                           const tilemm_emu_cuda_arena *arena, const tilemm_emu_cuda_blocks *blocks,
                           tilemm_error *err)
{
  const int64_t k2 = 2 * k;
  const size_t xa = align256 (sizeof (T) * (size_t) m * (k2 > 0 ? k2 : 1));
  const size_t yb = align256 (sizeof (T) * (size_t) (k2 > 0 ? k2 : 1) * n);
  char *ops = nullptr;
  tilemm_status st = reserve (ops, 2 * xa + 2 * yb, arena, 3, err);
  if (st != TILEMM_OK)
    return st;
  T *const x1 = (T *) ops, *const x2 = (T *) (ops + xa);
  T *const y1 = (T *) (ops + 2 * xa), *const y2 = (T *) (ops + 2 * xa + yb);
  timer tm;
  tm.start (times != nullptr);
  tm.mark (0, stream);
  st = launch_complex_split<T> (a, m, k, lda, b, n, ldb, x1, x2, y1, y2, stream, err);
  if (st != TILEMM_OK)
    return st;
  problem<T> p1, p2;
  p1.m = p2.m = m; p1.n = p2.n = n; p1.k = p2.k = k2;
  p1.lda = p2.lda = m > 1 ? m : 1;
  p1.ldb = p2.ldb = k2 > 1 ? k2 : 1;
  p1.a = x1; p1.b = y1; p2.a = x2; p2.b = y2;
  const bool given = rq.mode == RUN_GIVEN;
  st = stage_stats (opt, rq.gc, p1, stream, arena, 0, tm, 1, given, err);
  if (st != TILEMM_OK)
    return st;
  tilemm_emu_stats stats = p1.stats;
  if (!stats.nonfinite)
    {
      st = stage_stats (opt, rq.gc, p2, stream, arena, 2, tm, -1, given, err);
      if (st != TILEMM_OK)
        return st;
      tilemm_emu_stats_merge (&stats, &p2.stats);
    }
  if (stats_out)
    *stats_out = stats;
  if (!settle_plan (rq, opt, stats, used))
    return TILEMM_OK;
  const tilemm_emu_plan plan = *used;
  tm.mark (2, stream);
  if (tilemm_stop_requested (stop))
    return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted");
  /* The real parts whole, then the imaginary parts in the caller's blocks: the two products
   * share the residues' workspace, so only the second can hand C over block by block. */
  st = stage_product (plan, rq.gc, p1, c, ldc, 2, stream, stop, arena, 1, tm, false, nullptr, err);
  if (st != TILEMM_OK)
    return st;
  if (tilemm_stop_requested (stop))
    {
      cudaStreamSynchronize (stream);
      return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted");
    }
  st = stage_product (plan, rq.gc, p2, c + 1, ldc, 2, stream, stop, arena, 1, tm, true, blocks, err);
  if (st != TILEMM_OK)
    return st;
  return finish (stream, tm, times, blocks, err);
}

} // namespace tilemm_emu_gpu

/* ---------------------------------------------------------------- entry points */

namespace tilemm_emu_gpu {

/* The entry points' common body. */
tilemm_status run_entry (const run_request &rq, const tilemm_emu_options *options, tilemm_type type,
                         int64_t m, int64_t n, int64_t k, const void *a, int64_t lda, const void *b,
                         int64_t ldb, void *c, int64_t ldc, void *stream, const tilemm_stop *stop,
                         tilemm_emu_plan *used, tilemm_emu_stats *stats, tilemm_emu_cuda_times *times,
                         const tilemm_emu_cuda_arena *arena, const tilemm_emu_cuda_blocks *blocks,
                         tilemm_error *err)
{
  if (rq.gc.chunk_tiles < 0)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: no setup (the caller decides "
                             "the int8 GEMM and, for the whole scheme, the plan's branches)");
  if (rq.mode == RUN_WHOLE && !rq.branches)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: no planned branches to select "
                             "the plan from");
  if (rq.gc.chunk_tiles < 1 || rq.gc.chunk_tiles > TILEMM_EMU_KCHUNK_TILES)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: a k-chunk of %lld tiles "
                             "(1 to %d)", (long long) rq.gc.chunk_tiles, TILEMM_EMU_KCHUNK_TILES);
  if (rq.gc.gemm == TILEMM_EMU_GEMM_WGMMA && !tilemm_emu_cuda_wgmma_runs ())
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: the wgmma GEMM was chosen "
                             "for a device or build that cannot run it");
  if ((int) rq.gc.gemm < TILEMM_EMU_GEMM_WGMMA || (int) rq.gc.gemm > TILEMM_EMU_GEMM_SMALL
      || (int) rq.gc.stats_gemm < TILEMM_EMU_GEMM_WGMMA
      || (int) rq.gc.stats_gemm > TILEMM_EMU_GEMM_SMALL)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: no int8 GEMM %d (statistics' %d)",
                             (int) rq.gc.gemm, (int) rq.gc.stats_gemm);
  /* a refusal before any work, not a switch: the wgmma GEMM runs on the plan's grid or not at all */
  const bool wgmma_named = rq.gc.gemm == TILEMM_EMU_GEMM_WGMMA || rq.gc.stats_gemm == TILEMM_EMU_GEMM_WGMMA;
  if (wgmma_named && rq.gc.blocks < 1)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: the wgmma GEMM has no grid "
                             "(gemm_blocks %d: the plan's, from the device's multiprocessors)",
                             rq.gc.blocks);
  tilemm_emu_options opt;
  if (options)
    opt = *options;
  else
    tilemm_emu_default_options (&opt, type);
  if (m < 0 || n < 0 || k < 0 || lda < (m > 1 ? m : 1) || ldb < (k > 1 ? k : 1)
      || (rq.mode != RUN_STATS && ldc < (m > 1 ? m : 1)))
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: bad sizes or leading dimensions");
  if (opt.moduli > TILEMM_EMU_MAX_MODULI)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: %d moduli (at most %d)", opt.moduli,
                             TILEMM_EMU_MAX_MODULI);
  if (rq.mode == RUN_GIVEN
      && (!rq.given || rq.given->verdict != TILEMM_EMU_OK || rq.given->moduli < 1
          || rq.given->moduli > TILEMM_EMU_MAX_MODULI))
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: the given plan cannot run");
  const int64_t c_blocks = n > 0 ? tilemm_ceil_div (n, block_width (blocks, n)) : 1;
  if (blocks && blocks->done && c_blocks > (int64_t) blocks->count)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: %lld blocks of C, %d events",
                             (long long) c_blocks, blocks->count);
  tilemm_emu_plan local;
  if (!used)
    used = &local;
  memset (used, 0, sizeof *used);
  if (stats)
    {
      memset (stats, 0, sizeof *stats);
      stats->inner = tilemm_type_is_complex (type) ? 2 * k : k;
    }
  if (times)
    memset (times, 0, sizeof *times);
  if (m == 0 || n == 0)
    return TILEMM_OK;
  const cudaStream_t s = (cudaStream_t) stream;
  switch (type)
    {
    case TILEMM_DOUBLE:
      return run_real<double> (rq, &opt, m, n, k, (const double *) a, lda, (const double *) b, ldb,
                               (double *) c, ldc, s, stop, used, stats, times, arena, blocks, err);
    case TILEMM_SINGLE:
      return run_real<float> (rq, &opt, m, n, k, (const float *) a, lda, (const float *) b, ldb,
                              (float *) c, ldc, s, stop, used, stats, times, arena, blocks, err);
    case TILEMM_COMPLEX_DOUBLE:
      return run_complex<double> (rq, &opt, m, n, k, (const double *) a, lda, (const double *) b, ldb,
                                  (double *) c, ldc, s, stop, used, stats, times, arena, blocks, err);
    case TILEMM_COMPLEX_SINGLE:
      return run_complex<float> (rq, &opt, m, n, k, (const float *) a, lda, (const float *) b, ldb,
                                 (float *) c, ldc, s, stop, used, stats, times, arena, blocks, err);
    default:
      return tilemm_error_set (err, TILEMM_ETYPE, "emulated product: unknown element type %d", (int) type);
    }
}

} // namespace tilemm_emu_gpu

/* The caller's setup as a request of `mode` (NULL: none, refused by run_entry). */
static tilemm_emu_gpu::run_request request (tilemm_emu_gpu::run_mode mode, const tilemm_emu_plan *given,
                                            const tilemm_emu_cuda_setup *setup)
{
  tilemm_emu_gpu::run_request rq = { mode, given, nullptr,
                                      { TILEMM_EMU_GEMM_V2, 0, TILEMM_EMU_GEMM_V2, 0, 0 }, nullptr };
  if (setup)
    {
      rq.branches = setup->branches;
      rq.keep = setup->keep;
      rq.gc.gemm = setup->gemm;
      rq.gc.chunk_tiles = setup->chunk_tiles > 0 ? setup->chunk_tiles : TILEMM_EMU_KCHUNK_TILES;
      rq.gc.stats_gemm = setup->stats_gemm;
      rq.gc.blocks = setup->gemm_blocks;
      rq.gc.multiprocessors = setup->multiprocessors;
    }
  else
    rq.gc.chunk_tiles = -1; /* no setup: refused by run_entry */
  return rq;
}

extern "C" int tilemm_emu_cuda_wgmma_runs (void)
{
#ifdef TILEMM_EMULATE
  return 0;
#else
  return tilemm_emu_wgmma_usable () ? 1 : 0;   /* the device and the build (imma_wgmma.cu) */
#endif
}

extern "C" tilemm_status tilemm_emu_cuda_time_gemm (const tilemm_emu_cuda_setup *setup, int64_t m,
                                                    int64_t n, int64_t k, int moduli,
                                                    void *stream,
                                                    const tilemm_emu_cuda_arena *arena,
                                                    double *ms, tilemm_error *err)
{
  *ms = 0;
  const tilemm_emu_gpu::run_request rq = request (tilemm_emu_gpu::RUN_GIVEN, nullptr, setup);
  if (rq.gc.chunk_tiles < 1 || m < 1 || n < 1 || k < 1 || moduli < 1
      || moduli > TILEMM_EMU_MAX_MODULI)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated GEMM timing: bad setup or sizes");
  if (rq.gc.gemm == TILEMM_EMU_GEMM_WGMMA && !tilemm_emu_cuda_wgmma_runs ())
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated GEMM timing: no wgmma here");
  const bool wgmma_named = rq.gc.gemm == TILEMM_EMU_GEMM_WGMMA;
  if (wgmma_named && rq.gc.blocks < 1)   /* a refusal, as above */
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated GEMM timing: the wgmma GEMM has no grid");
  const int64_t kp = tilemm_emu_padded_k (k);
  const tilemm_emu_product_layout l = tilemm_emu_layout_product (m, n, kp, moduli);
  char *base = nullptr;
  tilemm_status st = tilemm_emu_gpu::reserve (base, l.total, arena, 1, err);
  if (st != TILEMM_OK)
    return st;
  const cudaStream_t s = (cudaStream_t) stream;
  int8_t *const ra = (int8_t *) (base + l.ra), *const rb = (int8_t *) (base + l.rb);
  uint8_t *const rr = (uint8_t *) (base + l.r);
  /* Residues of some value (the GEMM's time does not depend on it), then the launches untimed
   * (the kernel's first launch loads it) and timed: as many moduli a launch as the product
   * would take for a block of this shape (launch_block_gemms). */
  CUDA_TRY (cudaMemsetAsync (ra, 1, (size_t) m * (size_t) kp, s), "cudaMemsetAsync(ra)");
  CUDA_TRY (cudaMemsetAsync (rb, 1, (size_t) n * (size_t) kp, s), "cudaMemsetAsync(rb)");
#ifndef TILEMM_EMULATE
  cudaEvent_t ev[2] = { nullptr, nullptr };
  cudaError_t e = cudaEventCreate (&ev[0]);
  if (e == cudaSuccess)
    e = cudaEventCreate (&ev[1]);
  for (int round = 0; round < 2 && e == cudaSuccess && st == TILEMM_OK; round++)
    {
      e = cudaEventRecord (ev[0], s);
      if (e == cudaSuccess)
        st = tilemm_emu_gpu::launch_block_gemms (rq.gc, ra, rb, m, n, n, kp, moduli, rr, s,
                                                 nullptr, true, err);
      if (e == cudaSuccess && st == TILEMM_OK)
        e = cudaEventRecord (ev[1], s);
    }
  float elapsed = 0;
  if (e == cudaSuccess && st == TILEMM_OK)
    e = cudaEventSynchronize (ev[1]);
  if (e == cudaSuccess && st == TILEMM_OK)
    e = cudaEventElapsedTime (&elapsed, ev[0], ev[1]);
  for (cudaEvent_t x : ev)
    if (x)
      cudaEventDestroy (x);
  if (st != TILEMM_OK)
    return st;
  if (e != cudaSuccess)
    return tilemm_cuda_failure (err, e, "timing the emulated GEMM");
  *ms = elapsed;
#else
  st = tilemm_emu_gpu::launch_block_gemms (rq.gc, ra, rb, m, n, n, kp, moduli, rr, s, nullptr,
                                           true, err);
  if (st != TILEMM_OK)
    return st;
  CUDA_TRY (cudaStreamSynchronize (s), "cudaStreamSynchronize(emulated GEMM)");
#endif
  return TILEMM_OK;
}

extern "C" tilemm_status tilemm_emu_cuda_run (const tilemm_emu_options *options,
                                              const tilemm_emu_cuda_setup *setup, tilemm_type type,
                                              int64_t m, int64_t n, int64_t k, const void *a,
                                              int64_t lda, const void *b, int64_t ldb, void *c,
                                              int64_t ldc, void *stream, const tilemm_stop *stop,
                                              tilemm_emu_plan *used, tilemm_emu_stats *stats,
                                              tilemm_emu_cuda_times *times,
                                              const tilemm_emu_cuda_arena *arena,
                                              const tilemm_emu_cuda_blocks *blocks,
                                              tilemm_error *err)
{
  const tilemm_emu_gpu::run_request rq = request (tilemm_emu_gpu::RUN_WHOLE, nullptr, setup);
  return tilemm_emu_gpu::run_entry (rq, options, type, m, n, k, a, lda, b, ldb, c, ldc, stream, stop,
                                    used, stats, times, arena, blocks, err);
}

extern "C" tilemm_status tilemm_emu_cuda_stats (const tilemm_emu_options *options,
                                                const tilemm_emu_cuda_setup *setup, tilemm_type type,
                                                int64_t m, int64_t n, int64_t k, const void *a,
                                                int64_t lda, const void *b, int64_t ldb, void *stream,
                                                tilemm_emu_stats *stats,
                                                const tilemm_emu_cuda_arena *arena, tilemm_error *err)
{
  const tilemm_emu_gpu::run_request rq = request (tilemm_emu_gpu::RUN_STATS, nullptr, setup);
  return tilemm_emu_gpu::run_entry (rq, options, type, m, n, k, a, lda, b, ldb, nullptr, 1, stream,
                                    nullptr, nullptr, stats, nullptr, arena, nullptr, err);
}

extern "C" tilemm_status tilemm_emu_cuda_run_plan (const tilemm_emu_plan *plan,
                                                   const tilemm_emu_cuda_setup *setup,
                                                   tilemm_type type, int64_t m, int64_t n, int64_t k,
                                                   const void *a, int64_t lda, const void *b,
                                                   int64_t ldb, void *c, int64_t ldc, void *stream,
                                                   const tilemm_stop *stop, tilemm_emu_plan *used,
                                                   tilemm_emu_cuda_times *times,
                                                   const tilemm_emu_cuda_arena *arena,
                                                   const tilemm_emu_cuda_blocks *blocks,
                                                   tilemm_error *err)
{
  const tilemm_emu_gpu::run_request rq = request (tilemm_emu_gpu::RUN_GIVEN, plan, setup);
  return tilemm_emu_gpu::run_entry (rq, nullptr, type, m, n, k, a, lda, b, ldb, c, ldc, stream, stop,
                                    used, nullptr, times, arena, blocks, err);
}
