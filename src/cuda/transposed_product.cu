/* transposed_product.cu — transposed operands on one device: the emulated product's whole
 * operand transposed on the device (operand_on_device).  (A native product with transposed
 * operands runs through the pipeline, pipeline.cu: each step's piece transposed on the device.)
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "executor.h"

using namespace tilemm_cuda;

namespace tilemm_cuda {

/* ---------------------------------------------------------------- transposed operands */

tilemm_status operand_on_device (workspace &ws, tilemm_op op, const tilemm_view *x, int stored,
                                 int transposed,
                                 cudaStream_t s, const void **ready, tilemm_error *err)
{
  *ready = ws.buffer[stored];
  if (op == TILEMM_OP_NONE)
    return TILEMM_OK;
  *ready = ws.buffer[transposed];
  return tilemm_cuda_transpose (x->type, op == TILEMM_OP_CTRANSPOSE, ws.buffer[stored], x->rows,
                                x->cols, x->rows > 0 ? x->rows : 1, ws.buffer[transposed],
                                x->cols > 0 ? x->cols : 1, s, err);
}

} /* namespace tilemm_cuda */
