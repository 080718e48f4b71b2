/* tests/mock_cuda/cuda_op_none.c — test_pipeline tests the streaming pipeline of src/cuda/
 * on a stand-in CUDA runtime; the device transpose (transpose.cu) and the emulated precision's
 * device side (emulated_cuda.cu), which launch kernels of their own, are not part of it, so they
 * answer TILEMM_ENOGPU there.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "backend.h"
#include "emulated_cuda.h"
#include "transpose.h"

/* The device transpose (transpose.cu): transposed products are not part of the pipeline test. */
tilemm_status tilemm_cuda_transpose (tilemm_type type, int conjugate, const void *src,
                                     int64_t rows, int64_t cols, int64_t ld_src, void *dst,
                                     int64_t ld_dst, cudaStream_t stream, tilemm_error *err)
{
  (void) type; (void) conjugate; (void) src; (void) rows; (void) cols; (void) ld_src; (void) dst;
  (void) ld_dst; (void) stream;
  return tilemm_error_set (err, TILEMM_ENOGPU, "transposed operands: not in the pipeline test");
}

/* The emulated precision's device side: the executor (src/cuda/) links against these. */
int tilemm_emu_cuda_wgmma_runs (void)
{
  return 0;
}

tilemm_status tilemm_emu_cuda_run (const tilemm_emu_options *options,
                                   const tilemm_emu_cuda_setup *setup, tilemm_type type, int64_t m,
                                   int64_t n, int64_t k, const void *a, int64_t lda, const void *b,
                                   int64_t ldb, void *c, int64_t ldc, void *stream,
                                   const tilemm_stop *stop, tilemm_emu_plan *used,
                                   tilemm_emu_stats *stats, tilemm_emu_cuda_times *times,
                                   const tilemm_emu_cuda_arena *arena,
                                   const tilemm_emu_cuda_blocks *blocks, tilemm_error *err)
{
  (void) options; (void) setup; (void) type; (void) m; (void) n; (void) k; (void) a; (void) lda;
  (void) b; (void) ldb; (void) c; (void) ldc; (void) stream; (void) stop; (void) stats;
  (void) times; (void) arena; (void) blocks;
  if (used)
    used->verdict = TILEMM_EMU_OK;
  return tilemm_error_set (err, TILEMM_ENOGPU, "emulated precision: not in the pipeline test");
}

tilemm_status tilemm_emu_cuda_stats (const tilemm_emu_options *options,
                                     const tilemm_emu_cuda_setup *setup, tilemm_type type, int64_t m,
                                     int64_t n, int64_t k, const void *a, int64_t lda, const void *b,
                                     int64_t ldb, void *stream, tilemm_emu_stats *stats,
                                     const tilemm_emu_cuda_arena *arena, tilemm_error *err)
{
  (void) options; (void) setup; (void) type; (void) m; (void) n; (void) k; (void) a; (void) lda;
  (void) b; (void) ldb; (void) stream; (void) stats; (void) arena;
  return tilemm_error_set (err, TILEMM_ENOGPU, "emulated precision: not in the pipeline test");
}

tilemm_status tilemm_emu_cuda_run_plan (const tilemm_emu_plan *plan,
                                        const tilemm_emu_cuda_setup *setup, tilemm_type type,
                                        int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
                                        const void *b, int64_t ldb, void *c, int64_t ldc,
                                        void *stream, const tilemm_stop *stop,
                                        tilemm_emu_plan *used, tilemm_emu_cuda_times *times,
                                        const tilemm_emu_cuda_arena *arena,
                                        const tilemm_emu_cuda_blocks *blocks, tilemm_error *err)
{
  (void) plan; (void) setup; (void) type; (void) m; (void) n; (void) k; (void) a; (void) lda;
  (void) b; (void) ldb; (void) c; (void) ldc; (void) stream; (void) stop; (void) used;
  (void) times; (void) arena; (void) blocks;
  return tilemm_error_set (err, TILEMM_ENOGPU, "emulated precision: not in the pipeline test");
}
