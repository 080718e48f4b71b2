/* tests/mock_cuda/cuda_op_none.c — test_pipeline tests the host side of src/cuda/ on a
 * stand-in CUDA runtime; the emulated precision's scheme on device pointers (emulated_scheme.cu,
 * on the kernels of emulated_cuda.cu), which launches kernels of its own, is not part of it, so
 * it answers TILEMM_ENOGPU there.  (The device
 * transpose has a stand-in: mock_kernels.cc.)
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "backend.h"
#include "emulated_scheme.h"

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
