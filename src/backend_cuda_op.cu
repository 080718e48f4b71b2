/* backend_cuda_op.cu — C = op(A)·op(B) on the GPU when an operand is transposed.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The tiled kernels (kernels.h) read their operands in one layout only: op(A) and op(B) as
 * column-major matrices.  A transposed operand is therefore uploaded exactly as stored, then
 * transposed (and conjugated, for 'C') on the device by transpose.cu, an O(n²) pass next to the
 * O(n³) product; nothing is transposed on the host.  The product then runs in one launch of the
 * plan's kernel variant and C comes back at its own stride.
 *
 * This path is deliberately simple and separate from the streaming pipeline of backend_cuda.cu
 * (which another engineer owns): no pinned staging, no overlap, no panels.  A, B, their
 * transposes and C must fit on the device at once (TILEMM_EDEVMEM otherwise), and every buffer
 * is allocated and freed within the call, so nothing survives it.  Calls take turns on a mutex
 * of their own (the kernels' split-k workspace pool is not for concurrent launches).
 */
#include <cuda_runtime_api.h>

#include <mutex>

#include <string.h>

#include "backend.h"
#include "kernels.h"
#include "transpose.h"

namespace {

std::mutex op_mutex;

/* The device buffers of one call, freed however it ends. */
struct buffers
{
  void *a = nullptr, *b = nullptr, *a_op = nullptr, *b_op = nullptr, *c = nullptr;
  /* Frees them all; the first failure is reported into err if the call had succeeded so far. */
  tilemm_status release (tilemm_status status, tilemm_error *err)
  {
    void **all[] = { &a, &b, &a_op, &b_op, &c };
    for (void **p : all)
      {
        if (*p)
          {
            const cudaError_t e = cudaFree (*p);
            if (e != cudaSuccess && status == TILEMM_OK)
              status = tilemm_error_set (err, TILEMM_ECUDA, "cudaFree: %s", cudaGetErrorString (e));
          }
        *p = nullptr;
      }
    if (status != TILEMM_OK)
      cudaGetLastError (); /* no failure may linger into the next call */
    return status;
  }
};

tilemm_status failed (tilemm_error *err, cudaError_t e, const char *what)
{
  return tilemm_error_set (err, e == cudaErrorMemoryAllocation ? TILEMM_EDEVMEM : TILEMM_ECUDA,
                           "%s: %s", what, cudaGetErrorString (e));
}

#define OP_TRY(call, what)                                                                  \
  do                                                                                        \
    {                                                                                       \
      const cudaError_t op_try_e_ = (call);                                                 \
      if (op_try_e_ != cudaSuccess)                                                         \
        return failed (err, op_try_e_, what);                                               \
    }                                                                                       \
  while (0)

/* Uploads a stored view packed (stride = rows) into *dev; when op transposes, also makes *dev_op,
 * op(view) packed, on the device.  Returns in *ready the packed op(view). */
tilemm_status upload_operand (const tilemm_view *v, tilemm_op op, void **dev, void **dev_op,
                              const void **ready, tilemm_error *err)
{
  const size_t es = tilemm_type_size (v->type);
  const size_t bytes = (size_t) v->rows * (size_t) v->cols * es;
  OP_TRY (cudaMalloc (dev, bytes), "cudaMalloc(operand)");
  OP_TRY (cudaMemcpy2D (*dev, (size_t) v->rows * es, v->data, (size_t) v->stride * es,
                        (size_t) v->rows * es, (size_t) v->cols, cudaMemcpyHostToDevice),
          "cudaMemcpy2D(operand, host to device)");
  *ready = *dev;
  if (op == TILEMM_OP_NONE)
    return TILEMM_OK;
  OP_TRY (cudaMalloc (dev_op, bytes), "cudaMalloc(transposed operand)");
  const tilemm_status status
    = tilemm_cuda_transpose (v->type, op == TILEMM_OP_CTRANSPOSE, *dev, v->rows, v->cols,
                             v->rows, *dev_op, v->cols, 0, err);
  if (status != TILEMM_OK)
    return status;
  *ready = *dev_op;
  return TILEMM_OK;
}

tilemm_matrix device_matrix (const void *elements, int64_t height, int64_t width)
{
  tilemm_matrix m = { height, width, width > 0 ? width : 1, (void *) elements };
  return m;
}

tilemm_status run (const tilemm_plan *plan, tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                   const tilemm_view *b, const tilemm_view *c, buffers &d, tilemm_error *err)
{
  const int64_t m = plan->m, n = plan->n, k = plan->k;
  const size_t es = tilemm_type_size (plan->type);
  const void *a_ready = nullptr, *b_ready = nullptr;
  tilemm_status status;
  if ((status = upload_operand (a, op_a, &d.a, &d.a_op, &a_ready, err)) != TILEMM_OK
      || (status = upload_operand (b, op_b, &d.b, &d.b_op, &b_ready, err)) != TILEMM_OK)
    return status;
  OP_TRY (cudaMalloc (&d.c, (size_t) m * (size_t) n * es), "cudaMalloc(C)");
  /* Cᵀ (n×m) = op(B)ᵀ (n×k) · op(A)ᵀ (k×m): the row-major readings of the packed buffers. */
  status = tilemm_cuda_launch (plan->variant, plan->type, device_matrix (d.c, n, m),
                               device_matrix (b_ready, n, k), device_matrix (a_ready, k, m), 0,
                               err);
  if (status != TILEMM_OK)
    return status;
  OP_TRY (cudaMemcpy2D (c->data, (size_t) c->stride * es, d.c, (size_t) m * es, (size_t) m * es,
                        (size_t) n, cudaMemcpyDeviceToHost),
          "running the kernel, or cudaMemcpy2D(C, device to host)");
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

} /* namespace */

extern "C" tilemm_status tilemm_cuda_multiply_op (const tilemm_plan *plan, tilemm_op op_a,
                                                  const tilemm_view *a, tilemm_op op_b,
                                                  const tilemm_view *b, const tilemm_view *c,
                                                  tilemm_error *err)
{
  if (!plan || !a || !b || !c)
    return tilemm_error_set (err, TILEMM_EINVAL, "tilemm_cuda_multiply_op: null argument");
  if (op_a == TILEMM_OP_NONE && op_b == TILEMM_OP_NONE)
    return tilemm_cuda_multiply (plan, a, b, c, NULL, err);
  tilemm_status status = tilemm_cuda_probe (err);
  if (status != TILEMM_OK)
    return status;
  if (plan->m == 0 || plan->n == 0)
    return tilemm_error_set (err, TILEMM_OK, NULL);
  if (plan->k == 0)
    {
      /* C is zeros (all-bits-zero is +0 in every element type); no GPU work needed. */
      const size_t es = tilemm_type_size (c->type);
      for (int64_t j = 0; j < c->cols; j++)
        memset ((char *) c->data + (size_t) (j * c->stride) * es, 0, (size_t) c->rows * es);
      return tilemm_error_set (err, TILEMM_OK, NULL);
    }
  std::lock_guard<std::mutex> lock (op_mutex);
  buffers d;
  status = run (plan, op_a, a, op_b, b, c, d, err);
  return d.release (status, err);
}
