/* batch_product.cu — the GPU's batched product (the GPU table's `batch`): a chunk of a batch's
 * pages in panels through the pinned staging into the worker's workspace, one launch of the
 * batched kernels (src/kernels/batched.cu) per panel of small and medium pages (large pages run
 * alone, as plain products: the batch's plan), each panel's results back through the staging.
 * The panels are the plan's (common/batch_plan.c); several GPUs take chunks from one queue.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <algorithm>
#include <vector>

#include "batch.h"
#include "batched.h"
#include "executor.h"

using namespace tilemm_cuda;

namespace {

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

/* One panel of Z's pages and the ranges of X's and Y's pages it reads. */
struct panel
{
  int64_t first, count, x_lo, x_hi, y_lo, y_hi;
};

/* The panels of the job's pages [first, first + pages) one after another, as the batch's plan
 * cuts them (tilemm_batch_chunk_cut, tilemm_batch_panel_at); where there are several, two in
 * flight: panel i's X and Y go up (slot i mod 2: BUF_X/BUF_Y or BUF_XT/BUF_YT, and half of
 * BUF_C) while panel i-1 computes, and panel i-1's Z comes down while panel i computes.  A
 * slot's operands are overwritten only after the kernel that read them (its EV_COMP event); its
 * part of Z only after that part came down (stage_down returns when it has). */
tilemm_status run_batch (workspace &ws, const tilemm_batch_job *job, int64_t first, int64_t pages,
                         const tilemm_stop *stop, tilemm_cuda_stats *st, tilemm_error *err)
{
  const tilemm_batch_shape *s = job->shape;
  const size_t es = tilemm_type_size (job->type);
  const size_t x_page = (size_t) job->x_page * es, y_page = (size_t) job->y_page * es;
  const size_t z_page = (size_t) job->z_page * es;
  const double page_bytes = (double) (x_page + y_page + z_page);
  int64_t per_panel;
  int pipelined_plan;
  if (!tilemm_batch_chunk_cut (job->plan, pages, &per_panel, &pipelined_plan))
    return tilemm_error_set (err, TILEMM_EINVAL,
                             "GPU batch: the plan holds no panels for a chunk of %lld pages",
                             (long long) pages);
  const bool pipelined = pipelined_plan != 0;
  const double budget = (double) per_panel * page_bytes;
  std::vector<panel> panels;
  for (int64_t at = first; at < first + pages;)
    {
      panel p;
      p.first = at;
      p.count = tilemm_batch_panel_at (s, at, first + pages, per_panel, (double) x_page,
                                       (double) y_page, (double) z_page, budget, &p.x_lo, &p.x_hi,
                                       &p.y_lo, &p.y_hi);
      panels.push_back (p);
      at += p.count;
    }
  /* The workspace for the chunk's largest panel, or for the plan's: a worker's chunks (the
   * last one smaller) then make it once. */
  size_t most_x = 0, most_y = 0, most_z = 0;
  for (const panel &p : panels)
    {
      most_x = std::max (most_x, (size_t) (p.x_hi - p.x_lo + 1) * x_page);
      most_y = std::max (most_y, (size_t) (p.y_hi - p.y_lo + 1) * y_page);
      most_z = std::max (most_z, (size_t) p.count * z_page);
    }
  const size_t bytes[NBUF] = {
    most_x, most_y, (pipelined ? 2 : 1) * most_z, pipelined ? most_x : 0, pipelined ? most_y : 0,
    0 };
  tilemm_status status = workspace_reserve (ws, bytes, 2, err);
  if (status != TILEMM_OK)
    return status;
  /* The result's pages: huge, as a plain product's (prepare_result), so the copies out of the
   * staging fault one page per 2 MiB rather than per 4 KiB. */
  prefault_guard prefault;
  const tilemm_view z_all = pages_view (job->type, job->z, job->z_page, first, first + pages - 1);
  prefault.p = prepare_result (ws, &z_all, st);
  cudaStream_t cs = ws.comp[0];
  const size_t count = panels.size ();
  /* The kernels' own device time, each panel's between its slot's k_begin and k_end, read once
   * the panel has come down (its kernel is done, and the slot's events are not yet recorded
   * again): what calibration fits the batch's kernel rate to, apart from the copies. */
  double kernels_ms = 0;
  auto add_kernel_ms = [&] (int slot) {
    float ms = 0;
    CUDA_TRY (cudaEventElapsedTime (&ms, ws.k_begin[slot], ws.k_end[slot]),
              "cudaEventElapsedTime(a batch panel's kernels)");
    kernels_ms += ms;
    return TILEMM_OK;
  };
  for (size_t i = 0; i < count; i++)
    {
      const panel &p = panels[i];
      if (i > 0 && tilemm_stop_requested (stop))
        {
          /* The panel in flight comes down first, so what was computed is in Z. */
          if (pipelined)
            stage_down (ws, (unsigned char *) ws.buffer[BUF_C] + ((i - 1) % 2) * most_z,
                        pages_view (job->type, job->z, job->z_page, panels[i - 1].first,
                                    panels[i - 1].first + panels[i - 1].count - 1),
                        ws.ring[EV_COMP][(i - 1) % 2], st, err);
          return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted at page %lld of %lld",
                                   (long long) p.first + 1, (long long) s->z_pages);
        }
      const int slot = pipelined ? (int) (i % 2) : 0;
      void *x_dev = ws.buffer[slot ? BUF_XT : BUF_X], *y_dev = ws.buffer[slot ? BUF_YT : BUF_Y];
      void *z_dev = (unsigned char *) ws.buffer[BUF_C] + (size_t) slot * most_z;
      st->panels++;
      st->steps++;
      auto t0 = std::chrono::steady_clock::now ();
      if (i >= 2)   /* the slot's operands were read by panel i-2's kernel */
        CUDA_TRY (cudaStreamWaitEvent (ws.up, ws.ring[EV_COMP][slot], 0), "cudaStreamWaitEvent");
      if ((status = stage_up (ws, pages_view (job->type, job->x, job->x_page, p.x_lo, p.x_hi),
                              x_dev, st, err))
            != TILEMM_OK
          || (status = stage_up (ws, pages_view (job->type, job->y, job->y_page, p.y_lo, p.y_hi),
                                 y_dev, st, err))
               != TILEMM_OK)
        return status;
      st->upload_ms += ms_since (t0);
      t0 = std::chrono::steady_clock::now ();
      CUDA_TRY (cudaEventRecord (ws.ring[EV_X][slot], ws.up), "cudaEventRecord");
      CUDA_TRY (cudaStreamWaitEvent (cs, ws.ring[EV_X][slot], 0), "cudaStreamWaitEvent");
      const tilemm_batched_pages map = device_map (s, p.first, p.x_lo, p.y_lo);
      CUDA_TRY (cudaEventRecord (ws.k_begin[slot], cs), "cudaEventRecord");
      status = tilemm_batched_launch (job->plan->gpu_kernel, job->type, job->op_a, job->op_b, job->m, job->n, job->k,
                                      x_dev, job->x_page, y_dev, job->y_page, z_dev, p.count,
                                      &map, cs, err);
      if (status != TILEMM_OK)
        return status;
      CUDA_TRY (cudaEventRecord (ws.k_end[slot], cs), "cudaEventRecord");
      CUDA_TRY (cudaEventRecord (ws.ring[EV_COMP][slot], cs), "cudaEventRecord");
      /* Without a pipeline this panel comes down now; with one, the panel before it. */
      const panel *down = pipelined ? (i >= 1 ? &panels[i - 1] : nullptr) : &p;
      const int down_slot = pipelined ? (int) ((i + 1) % 2) : 0;
      if (down)
        {
          status = stage_down (ws, (unsigned char *) ws.buffer[BUF_C] + (size_t) down_slot * most_z,
                               pages_view (job->type, job->z, job->z_page, down->first,
                                           down->first + down->count - 1),
                               ws.ring[EV_COMP][down_slot], st, err);
          if (status != TILEMM_OK || (status = add_kernel_ms (down_slot)) != TILEMM_OK)
            return status;
        }
      st->compute_ms += ms_since (t0);
    }
  if (pipelined && count > 0)
    {
      const panel &last = panels[count - 1];
      const int slot = (int) ((count - 1) % 2);
      status = stage_down (ws, (unsigned char *) ws.buffer[BUF_C] + (size_t) slot * most_z,
                           pages_view (job->type, job->z, job->z_page, last.first,
                                       last.first + last.count - 1),
                           ws.ring[EV_COMP][slot], st, err);
      if (status != TILEMM_OK || (status = add_kernel_ms (slot)) != TILEMM_OK)
        return status;
    }
  st->kernels_ms += kernels_ms;
  return TILEMM_OK;
}

} // namespace

namespace tilemm_cuda {

tilemm_status batch_chunk (workspace &ws, const tilemm_batch_job *job, int64_t first,
                           int64_t pages, const tilemm_stop *stop, tilemm_cuda_stats *st,
                           tilemm_error *err)
{
  if (job->shape->page_ndims > TILEMM_BATCHED_MAX_DIMS)
    return tilemm_error_set (err, TILEMM_EINVAL, "batched product: %d page dimensions",
                             job->shape->page_ndims);
  if (pages <= 0 || job->m == 0 || job->n == 0)
    return tilemm_error_set (err, TILEMM_OK, NULL);
  return run_batch (ws, job, first, pages, stop, st, err);
}

} // namespace tilemm_cuda
