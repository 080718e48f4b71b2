/* batch_product.cu — the GPU's batched product (batch.h: tilemm_cuda_multiply_batch): panels of
 * pages through the pinned staging into the calling thread's workspace, one launch of the
 * batched kernels (src/kernels/batched.cu) per panel of small and medium pages, the tiled
 * kernels page by page for large ones, each panel's results back through the staging.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "batch.h"
#include "batched.h"
#include "executor.h"

using namespace tilemm_cuda;

namespace {

/* Pages this large take the tiled kernels (tuned for whole matrices) one page a launch; smaller
 * ones the batched kernels, all the panel's pages in one launch. */
bool large_pages (const tilemm_batch_job *job)
{
  return job->m >= 384 && job->n >= 384 && job->k >= 64;
}

/* The pages of X and Y the panel of Z's pages [first, first + count) reads: each lies in a
 * range of stored pages (consecutive pages of Z read ranges of X and Y without gaps wider than
 * the expansion). */
void panel_ranges (const tilemm_batch_shape *s, int64_t first, int64_t count, int64_t *x_lo,
                   int64_t *x_hi, int64_t *y_lo, int64_t *y_hi)
{
  *x_lo = *y_lo = INT64_MAX;
  *x_hi = *y_hi = -1;
  for (int64_t p = first; p < first + count; p++)
    {
      int64_t xp, yp;
      tilemm_batch_sources (s, p, &xp, &yp);
      *x_lo = xp < *x_lo ? xp : *x_lo;
      *x_hi = xp > *x_hi ? xp : *x_hi;
      *y_lo = yp < *y_lo ? yp : *y_lo;
      *y_hi = yp > *y_hi ? yp : *y_hi;
    }
}

/* The host's pages [lo, hi] of an operand as one view: a column per page. */
tilemm_view pages_view (tilemm_type type, const void *base, int64_t page, int64_t lo, int64_t hi)
{
  const size_t es = tilemm_type_size (type);
  tilemm_view v;
  v.type = type;
  v.rows = page;
  v.cols = hi - lo + 1;
  v.stride = page > 0 ? page : 1;
  v.data = (unsigned char *) base + (size_t) lo * (size_t) page * es;
  return v;
}

tilemm_batched_pages device_map (const tilemm_batch_shape *s, int64_t first, int64_t x_lo,
                                 int64_t y_lo)
{
  tilemm_batched_pages map;
  map.ndims = s->page_ndims;
  for (int d = 0; d < s->page_ndims && d < TILEMM_BATCHED_MAX_DIMS; d++)
    {
      map.z_dims[d] = s->z_dims[d];
      map.x_step[d] = s->x_step[d];
      map.y_step[d] = s->y_step[d];
    }
  map.first = first;
  map.x_first = x_lo;
  map.y_first = y_lo;
  return map;
}

/* Large pages of one panel, one at a time: op(X) and op(Y) transposed on the device where
 * transposed (transpose.cu), then the plan's tiled kernel, as op_panel does for one product. */
tilemm_status large_panel (const tilemm_batch_job *job, const tilemm_plan *plan, int64_t first,
                           int64_t count, int64_t x_lo, int64_t y_lo, cudaStream_t s,
                           tilemm_error *err)
{
  const size_t es = tilemm_type_size (job->type);
  const int64_t m = job->m, n = job->n, k = job->k;
  for (int64_t p = first; p < first + count; p++)
    {
      int64_t xp, yp;
      tilemm_batch_sources (job->shape, p, &xp, &yp);
      const void *a = (unsigned char *) ws.buffer[BUF_X] + (size_t) (xp - x_lo) * (size_t) job->x_page * es;
      const void *b = (unsigned char *) ws.buffer[BUF_Y] + (size_t) (yp - y_lo) * (size_t) job->y_page * es;
      void *c = (unsigned char *) ws.buffer[BUF_C] + (size_t) (p - first) * (size_t) job->z_page * es;
      tilemm_status status;
      if (job->op_a != TILEMM_OP_NONE)
        {
          /* X's page is k×m as stored: its transpose, m×k packed. */
          if ((status = tilemm_cuda_transpose (job->type, job->op_a == TILEMM_OP_CTRANSPOSE, a, k,
                                               m, k, ws.buffer[BUF_XT], m, s, err))
              != TILEMM_OK)
            return status;
          a = ws.buffer[BUF_XT];
        }
      if (job->op_b != TILEMM_OP_NONE)
        {
          if ((status = tilemm_cuda_transpose (job->type, job->op_b == TILEMM_OP_CTRANSPOSE, b, n,
                                               k, n, ws.buffer[BUF_YT], k, s, err))
              != TILEMM_OK)
            return status;
          b = ws.buffer[BUF_YT];
        }
      /* Zᵀ (n×m) = op(Y)ᵀ (n×k) · op(X)ᵀ (k×m): the row-major readings of the packed pages. */
      if ((status = tilemm_cuda_launch (plan->variant, job->type, device_matrix (c, n, m),
                                        device_matrix ((void *) b, n, k),
                                        device_matrix ((void *) a, k, m), s, err))
          != TILEMM_OK)
        return status;
    }
  return TILEMM_OK;
}

tilemm_status run_batch (const tilemm_batch_job *job, int64_t pages_per_panel,
                         const tilemm_stop *stop, tilemm_cuda_stats *st, tilemm_error *err)
{
  const tilemm_batch_shape *s = job->shape;
  const size_t es = tilemm_type_size (job->type);
  const int64_t pages = s->z_pages;
  const bool large = large_pages (job);
  tilemm_plan plan;
  if (large)
    {
      const tilemm_status status
        = tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, job->type, job->m, job->n, job->k, NULL);
      if (status != TILEMM_OK)
        return tilemm_error_set (err, status, "%s", tilemm_strerror (status));
    }
  const size_t x_page = (size_t) job->x_page * es, y_page = (size_t) job->y_page * es;
  const size_t z_page = (size_t) job->z_page * es;
  const double budget = (double) pages_per_panel * (double) (x_page + y_page + z_page);
  if (pages_per_panel < 1)
    pages_per_panel = 1;
  for (int64_t first = 0; first < pages;)
    {
      if (first > 0 && tilemm_stop_requested (stop))
        return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted at page %lld of %lld",
                                 (long long) first + 1, (long long) pages);
      int64_t count = pages - first < pages_per_panel ? pages - first : pages_per_panel;
      int64_t x_lo, x_hi, y_lo, y_hi;
      /* The ranges of X and Y a panel reads can be wider than its own pages (expansion): fewer
       * pages a panel then, down to one, so that the panel stays within the budget. */
      for (;;)
        {
          panel_ranges (s, first, count, &x_lo, &x_hi, &y_lo, &y_hi);
          const double bytes = (double) (x_hi - x_lo + 1) * (double) x_page
                               + (double) (y_hi - y_lo + 1) * (double) y_page
                               + (double) count * (double) z_page;
          if (count == 1 || bytes <= budget)
            break;
          count /= 2;
        }
      const size_t bytes[NBUF] = {
        (size_t) (x_hi - x_lo + 1) * x_page, (size_t) (y_hi - y_lo + 1) * y_page,
        (size_t) count * z_page,
        large && job->op_a != TILEMM_OP_NONE ? x_page : 0,
        large && job->op_b != TILEMM_OP_NONE ? y_page : 0 };
      tilemm_status status = workspace_reserve (bytes, 1, err);
      if (status != TILEMM_OK)
        return status;
      st->panels++;
      st->steps++;
      auto t0 = std::chrono::steady_clock::now ();
      if ((status = stage_up (pages_view (job->type, job->x, job->x_page, x_lo, x_hi),
                              ws.buffer[BUF_X], st, err))
            != TILEMM_OK
          || (status = stage_up (pages_view (job->type, job->y, job->y_page, y_lo, y_hi),
                                 ws.buffer[BUF_Y], st, err))
               != TILEMM_OK)
        return status;
      st->upload_ms += ms_since (t0);
      t0 = std::chrono::steady_clock::now ();
      cudaStream_t cs = ws.comp[0];
      CUDA_TRY (cudaEventRecord (ws.t_begin, ws.up), "cudaEventRecord");
      CUDA_TRY (cudaStreamWaitEvent (cs, ws.t_begin, 0), "cudaStreamWaitEvent");
      if (large)
        status = large_panel (job, &plan, first, count, x_lo, y_lo, cs, err);
      else
        {
          const tilemm_batched_pages map = device_map (s, first, x_lo, y_lo);
          status = tilemm_batched_launch (job->type, job->op_a, job->op_b, job->m, job->n,
                                          job->k, ws.buffer[BUF_X], job->x_page,
                                          ws.buffer[BUF_Y], job->y_page, ws.buffer[BUF_C], count,
                                          &map, cs, err);
        }
      if (status != TILEMM_OK)
        return status;
      CUDA_TRY (cudaEventRecord (ws.t_last, cs), "cudaEventRecord");
      const tilemm_view z = pages_view (job->type, job->z, job->z_page, first, first + count - 1);
      status = stage_down (ws.buffer[BUF_C], z, ws.t_last, st, err);
      st->compute_ms += ms_since (t0);
      if (status != TILEMM_OK)
        return status;
      first += count;
    }
  return TILEMM_OK;
}

} // namespace

extern "C" {

tilemm_status tilemm_cuda_multiply_batch (const tilemm_batch_job *job, int64_t pages_per_panel,
                                          const tilemm_stop *stop, tilemm_error *err)
{
  if (!job || !job->shape)
    return tilemm_error_set (err, TILEMM_EINVAL, "tilemm_cuda_multiply_batch: null argument");
  if (job->shape->page_ndims > TILEMM_BATCHED_MAX_DIMS)
    return tilemm_error_set (err, TILEMM_EINVAL, "batched product: %d page dimensions",
                             job->shape->page_ndims);
  if (job->shape->z_pages == 0 || job->m == 0 || job->n == 0)
    return tilemm_error_set (err, TILEMM_OK, NULL);
  std::lock_guard<std::mutex> lock (ws_mutex);
  tilemm_fault_begin ();
  tilemm_status status = probe (err);
  if (status != TILEMM_OK)
    return status;
  return recorded_product (
    [&] (tilemm_cuda_stats *st) { return run_batch (job, pages_per_panel, stop, st, err); },
    false);
}

} /* extern "C" */
