/* tests/mock_cuda/cuda_op_none.c — test_pipeline tests the streaming pipeline of backend_cuda.cu
 * on a stand-in CUDA runtime; the transposed-operand path (backend_cuda_op.cu) and the emulated
 * precision (emulated_cuda.cu), which launch kernels of their own, are not part of it, so they
 * answer TILEMM_ENOGPU there.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "backend.h"

tilemm_status tilemm_cuda_multiply_op (const tilemm_plan *plan, tilemm_op op_a,
                                       const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                                       const tilemm_view *c, tilemm_error *err)
{
  (void) plan;
  (void) op_a;
  (void) a;
  (void) op_b;
  (void) b;
  (void) c;
  return tilemm_error_set (err, TILEMM_ENOGPU, "transposed operands: not in the pipeline test");
}


tilemm_status tilemm_cuda_multiply_emulated (const tilemm_plan *plan,
                                             const tilemm_emu_options *options,
                                             const tilemm_view *a, const tilemm_view *b,
                                             const tilemm_view *c, const tilemm_stop *stop,
                                             tilemm_emu_plan *used, tilemm_error *err)
{
  (void) plan;
  (void) options;
  (void) a;
  (void) b;
  (void) c;
  (void) stop;
  (void) used;
  return tilemm_error_set (err, TILEMM_ENOGPU, "emulated precision: not in the pipeline test");
}
