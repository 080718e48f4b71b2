/* batch_product.cu — the GPU's batched product (batch.h: tilemm_cuda_multiply_batch): panels of
 * pages through the pinned staging into the calling thread's workspace, one launch of the
 * batched kernels (src/kernels/batched.cu) per panel of small and medium pages (large pages run
 * alone, as plain products: the batch's plan), each panel's results back through the staging.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "batch.h"
#include "batched.h"
#include "executor.h"

using namespace tilemm_cuda;

namespace {

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

/* One panel of Z's pages and the ranges of X's and Y's pages it reads. */
struct panel
{
  int64_t first, count, x_lo, x_hi, y_lo, y_hi;
};

/* The panels of a batch: `per_panel` pages each, fewer where expansion makes the ranges of X
 * and Y a panel reads wider than its own pages, down to one, so that a panel's bytes stay
 * within `budget`. */
std::vector<panel> cut_panels (const tilemm_batch_shape *s, int64_t per_panel, size_t x_page,
                               size_t y_page, size_t z_page, double budget)
{
  std::vector<panel> out;
  for (int64_t first = 0; first < s->z_pages;)
    {
      panel p;
      p.first = first;
      p.count = s->z_pages - first < per_panel ? s->z_pages - first : per_panel;
      for (;;)
        {
          panel_ranges (s, first, p.count, &p.x_lo, &p.x_hi, &p.y_lo, &p.y_hi);
          const double bytes = (double) (p.x_hi - p.x_lo + 1) * (double) x_page
                               + (double) (p.y_hi - p.y_lo + 1) * (double) y_page
                               + (double) p.count * (double) z_page;
          if (p.count == 1 || bytes <= budget)
            break;
          p.count /= 2;
        }
      out.push_back (p);
      first += p.count;
    }
  return out;
}

/* Batches this large (operands and result) are cut into several panels (the plan's
 * pipeline_panels or more) even where they fit the device whole, so that a panel's pages travel
 * while the one before it computes. */
const double PIPELINE_BYTES = 8.0 * 1024 * 1024;

/* A batch cut into panels, and its steps on the device: a panel's operands up, its kernel, its
 * results down.  Where there are several panels, two are in flight: panel i's X and Y go up into
 * slot i mod 2 (BUF_X/BUF_Y or BUF_XT/BUF_YT, and half of BUF_C) while panel i-1 computes.  A
 * slot's operands are overwritten only after the kernel that read them (its EV_COMP event); its
 * part of Z only after that part came down (download returns when it has). */
struct batch_run
{
  workspace &ws;
  const tilemm_batch_job *job;
  std::vector<panel> panels;
  bool pipelined;
  size_t most_z;   /* the bytes of a slot's part of BUF_C */

  int slot (size_t i) const { return pipelined ? (int) (i % 2) : 0; }
  void *z_slot (size_t i) const
  {
    return (unsigned char *) ws.buffer[BUF_C] + (size_t) slot (i) * most_z;
  }
  tilemm_view z_pages (size_t i) const
  {
    const panel &p = panels[i];
    return pages_view (job->type, job->z, job->z_page, p.first, p.first + p.count - 1);
  }

  /* Panel i's X and Y pages through the upload half of the staging, on ws.up, once the kernel
   * that last read the slot (panel i-2's) is done. */
  tilemm_status upload (size_t i, int threads, tilemm_cuda_stats *st, tilemm_error *err) const
  {
    const panel &p = panels[i];
    const int s = slot (i);
    if (i >= 2)
      CUDA_TRY (cudaStreamWaitEvent (ws.up, ws.ring[EV_COMP][s], 0), "cudaStreamWaitEvent");
    tilemm_status status;
    if ((status = stage_up (ws, pages_view (job->type, job->x, job->x_page, p.x_lo, p.x_hi),
                            ws.buffer[s ? BUF_XT : BUF_X], threads, st, err))
          != TILEMM_OK
        || (status = stage_up (ws, pages_view (job->type, job->y, job->y_page, p.y_lo, p.y_hi),
                               ws.buffer[s ? BUF_YT : BUF_Y], threads, st, err))
             != TILEMM_OK)
      return status;
    return TILEMM_OK;
  }

  /* Panel i's kernel on ws.comp[0] once its operands are up; its slot's EV_COMP says when it is
   * done.  The caller has made sure that the slot's part of Z came down before. */
  tilemm_status launch (size_t i, tilemm_error *err) const
  {
    const panel &p = panels[i];
    const int s = slot (i);
    cudaStream_t cs = ws.comp[0];
    CUDA_TRY (cudaEventRecord (ws.ring[EV_X][s], ws.up), "cudaEventRecord");
    CUDA_TRY (cudaStreamWaitEvent (cs, ws.ring[EV_X][s], 0), "cudaStreamWaitEvent");
    const tilemm_batched_pages map = device_map (job->shape, p.first, p.x_lo, p.y_lo);
    const tilemm_status status
      = tilemm_batched_launch (job->type, job->op_a, job->op_b, job->m, job->n, job->k,
                               ws.buffer[s ? BUF_XT : BUF_X], job->x_page,
                               ws.buffer[s ? BUF_YT : BUF_Y], job->y_page, z_slot (i), p.count,
                               &map, cs, err);
    if (status != TILEMM_OK)
      return status;
    CUDA_TRY (cudaEventRecord (ws.ring[EV_COMP][s], cs), "cudaEventRecord");
    return TILEMM_OK;
  }

  /* Panel i's results into Z through the download half of the staging, once its kernel is done;
   * returns when they are in Z. */
  tilemm_status download (size_t i, int threads, tilemm_cuda_stats *st, tilemm_error *err) const
  {
    return stage_down (ws, z_slot (i), z_pages (i), ws.ring[EV_COMP][slot (i)], threads, st, err);
  }
};

/* The second host thread of an overlapped batch: brings the panels' results down and copies
 * them into Z, panel after panel in the order the caller launched them, while the caller copies
 * the next panels' operands in.  While it runs it alone touches the download half of the
 * staging (ws.down, ws.down_ev, the download chunks) and its own figures; the caller alone the
 * upload half and the compute stream.  Its end is explicit (finish) or, on the caller's error
 * path, the destructor's: it stops after the panel in hand and is joined, so no thread outlives
 * the call. */
class copy_out_thread
{
public:
  /* threads: the team of each copy out; the last panel's, which nothing overlaps, takes
   * last_threads. */
  copy_out_thread (const batch_run &run, int threads, int last_threads)
    : run_ (run), threads_ (threads), last_threads_ (last_threads)
  {
    memset (&st_, 0, sizeof st_);
    error_.status = TILEMM_OK;
    error_.detail[0] = '\0';
  }
  ~copy_out_thread () { close (true); }
  copy_out_thread (const copy_out_thread &) = delete;
  copy_out_thread &operator= (const copy_out_thread &) = delete;

  tilemm_status start (tilemm_error *err)
  {
    try
      {
        thread_ = std::thread (&copy_out_thread::run, this);
      }
    catch (const std::system_error &e)
      {
        return tilemm_error_set (err, TILEMM_ENOMEM, "starting the batch's copy-out thread: %s",
                                 e.what ());
      }
    return TILEMM_OK;
  }

  /* Panels [0, launched) are launched: their results may come down. */
  void hand (size_t launched)
  {
    {
      std::lock_guard<std::mutex> lock (m_);
      handed_ = launched;
    }
    cv_.notify_all ();
  }

  /* Waits until panels [0, panels) are in Z; the thread's error if it failed. */
  tilemm_status wait_done (size_t panels, tilemm_error *err)
  {
    std::unique_lock<std::mutex> lock (m_);
    cv_.wait (lock, [&] { return done_ >= panels || failed_ != TILEMM_OK; });
    return report (err);
  }

  /* Every panel handed in Z, the thread joined, its figures added to st; its error if it
   * failed. */
  tilemm_status finish (tilemm_cuda_stats *st, tilemm_error *err)
  {
    close (false);
    st->copy_out_ms += st_.copy_out_ms;
    st->bytes_down += st_.bytes_down;
    std::lock_guard<std::mutex> lock (m_);
    return report (err);
  }

private:
  void run ()
  {
    tilemm_error e = { TILEMM_OK, "" };
    tilemm_status status = set_device (&e);
    for (size_t j = 0; status == TILEMM_OK; j++)
      {
        {
          std::unique_lock<std::mutex> lock (m_);
          cv_.wait (lock, [&] { return j < handed_ || closing_; });
          if (j >= handed_ || abandoned_)
            return;
        }
        const bool last = j + 1 == run_.panels.size ();
        status = run_.download (j, last ? last_threads_ : threads_, &st_, &e);
        {
          std::lock_guard<std::mutex> lock (m_);
          if (status == TILEMM_OK)
            done_ = j + 1;
        }
        cv_.notify_all ();
      }
    std::lock_guard<std::mutex> lock (m_);
    failed_ = status;
    error_ = e;
    cv_.notify_all ();
  }

  /* The device is a host thread's own setting: this thread's is the workspace's. */
  tilemm_status set_device (tilemm_error *err)
  {
    CUDA_TRY (cudaSetDevice (run_.ws.device), "cudaSetDevice(%d) on the copy-out thread",
              run_.ws.device);
    return TILEMM_OK;
  }

  /* Ends the thread: after every panel handed, or (abandon) after the one in hand. */
  void close (bool abandon)
  {
    if (!thread_.joinable ())
      return;
    {
      std::lock_guard<std::mutex> lock (m_);
      closing_ = true;
      abandoned_ = abandon;
    }
    cv_.notify_all ();
    thread_.join ();
  }

  /* With m_ held. */
  tilemm_status report (tilemm_error *err) const
  {
    if (failed_ == TILEMM_OK)
      return TILEMM_OK;
    if (err)
      *err = error_;
    return failed_;
  }

  const batch_run &run_;
  const int threads_, last_threads_;
  std::mutex m_;
  std::condition_variable cv_;
  size_t handed_ = 0, done_ = 0;
  bool closing_ = false, abandoned_ = false;
  tilemm_status failed_ = TILEMM_OK;
  tilemm_error error_;
  tilemm_cuda_stats st_;   /* the thread's copies out; added to the call's by finish */
  std::thread thread_;
};

tilemm_status interrupted (const batch_run &run, size_t i, tilemm_error *err)
{
  return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted at page %lld of %lld",
                           (long long) run.panels[i].first + 1,
                           (long long) run.job->shape->z_pages);
}

/* The panels on the caller's thread alone: each panel's copy in, then (pipelined) the copy out
 * of the panel before it, which computed meanwhile; without a pipeline the panel's own. */
tilemm_status run_serial (const batch_run &run, const tilemm_stop *stop, tilemm_cuda_stats *st,
                          tilemm_error *err)
{
  const int threads = config ().copy_threads;
  const size_t count = run.panels.size ();
  tilemm_status status;
  for (size_t i = 0; i < count; i++)
    {
      if (i > 0 && tilemm_stop_requested (stop))
        {
          /* The panel in flight comes down first, so what was computed is in Z. */
          if (run.pipelined && (status = run.download (i - 1, threads, st, err)) != TILEMM_OK)
            return status;
          return interrupted (run, i, err);
        }
      st->panels++;
      st->steps++;
      auto t0 = std::chrono::steady_clock::now ();
      if ((status = run.upload (i, threads, st, err)) != TILEMM_OK)
        return status;
      st->upload_ms += ms_since (t0);
      t0 = std::chrono::steady_clock::now ();
      if ((status = run.launch (i, err)) != TILEMM_OK)
        return status;
      /* Without a pipeline this panel comes down now; with one, the panel before it. */
      if (!run.pipelined || i >= 1)
        if ((status = run.download (run.pipelined ? i - 1 : i, threads, st, err)) != TILEMM_OK)
          return status;
      st->compute_ms += ms_since (t0);
    }
  if (run.pipelined && count > 0)
    return run.download (count - 1, threads, st, err);
  return TILEMM_OK;
}

/* The panels with the host's copies overlapped (the plan's overlap_copies; two panels in
 * flight): panel i's results come down on the copy-out thread while the caller copies panel
 * i+1's operands in, each copy on its share of the threads; the first panel's copy in and the
 * last one's copy out, which nothing overlaps, on all of them.  Before panel i+1's kernel writes
 * its slot of Z, the caller waits until panel i-1's part of Z, the slot's last, is in Z. */
tilemm_status run_overlapped (const batch_run &run, const tilemm_batch_plan *plan,
                              const tilemm_stop *stop, tilemm_cuda_stats *st, tilemm_error *err)
{
  const int all_threads = plan->copy_in_threads + plan->copy_out_threads;
  copy_out_thread out (run, plan->copy_out_threads, all_threads);
  tilemm_status status = out.start (err);
  if (status != TILEMM_OK)
    return status;
  st->copy_out_threads = plan->copy_out_threads;
  const size_t count = run.panels.size ();
  for (size_t i = 0; i < count; i++)
    {
      if (i > 0 && tilemm_stop_requested (stop))
        {
          /* Every panel launched comes down first, so what was computed is in Z. */
          if ((status = out.finish (st, err)) != TILEMM_OK)
            return status;
          return interrupted (run, i, err);
        }
      st->panels++;
      st->steps++;
      auto t0 = std::chrono::steady_clock::now ();
      if ((status = run.upload (i, i == 0 ? all_threads : plan->copy_in_threads, st, err))
          != TILEMM_OK)
        return status;
      st->upload_ms += ms_since (t0);
      t0 = std::chrono::steady_clock::now ();
      if (i >= 2)
        {
          if ((status = out.wait_done (i - 1, err)) != TILEMM_OK)
            return status;
          st->copy_wait_ms += ms_since (t0);
        }
      if ((status = run.launch (i, err)) != TILEMM_OK)
        return status;
      out.hand (i + 1);
      st->compute_ms += ms_since (t0);
    }
  const auto t0 = std::chrono::steady_clock::now ();
  status = out.finish (st, err);
  st->copy_wait_ms += ms_since (t0);
  st->compute_ms += ms_since (t0);
  return status;
}

/* The batch's panels (two in flight where there are several), the device buffers they take,
 * the result's pages prepared, then the panels run as the plan says. */
tilemm_status run_batch (workspace &ws, const tilemm_batch_job *job, const tilemm_batch_plan *plan,
                         const tilemm_stop *stop, tilemm_cuda_stats *st, tilemm_error *err)
{
  const tilemm_batch_shape *s = job->shape;
  const size_t es = tilemm_type_size (job->type);
  const int64_t pages = s->z_pages;
  const size_t x_page = (size_t) job->x_page * es, y_page = (size_t) job->y_page * es;
  const size_t z_page = (size_t) job->z_page * es;
  const int64_t pages_per_panel = plan->pages_per_panel < 1 ? 1 : plan->pages_per_panel;
  const double page_bytes = (double) (x_page + y_page + z_page);
  const int64_t least_panels = plan->pipeline_panels < 2 ? 2 : plan->pipeline_panels;
  const bool pipelined = pages >= 2 * least_panels
                         && (double) pages * page_bytes > PIPELINE_BYTES && pages_per_panel >= 2;
  int64_t per_panel = pages_per_panel;
  if (pipelined)
    {
      /* Two panels on the device at once: each within half the limit. */
      per_panel = pages_per_panel / 2;
      const int64_t share = (pages + least_panels - 1) / least_panels;
      per_panel = per_panel < share ? per_panel : share;
    }
  const double budget = (double) per_panel * page_bytes;
  batch_run run = { ws, job, cut_panels (s, per_panel, x_page, y_page, z_page, budget),
                    pipelined, 0 };
  size_t most_x = 0, most_y = 0;
  for (const panel &p : run.panels)
    {
      most_x = std::max (most_x, (size_t) (p.x_hi - p.x_lo + 1) * x_page);
      most_y = std::max (most_y, (size_t) (p.y_hi - p.y_lo + 1) * y_page);
      run.most_z = std::max (run.most_z, (size_t) p.count * z_page);
    }
  const size_t bytes[NBUF] = {
    most_x, most_y, (pipelined ? 2 : 1) * run.most_z, pipelined ? most_x : 0,
    pipelined ? most_y : 0, 0 };
  tilemm_status status = workspace_reserve (ws, bytes, 2, err);
  if (status != TILEMM_OK)
    return status;
  /* The result's pages: huge, as a plain product's (prepare_result), so the copies out of the
   * staging fault one page per 2 MiB rather than per 4 KiB. */
  prefault_guard prefault;
  const tilemm_view z_all = pages_view (job->type, job->z, job->z_page, 0, pages - 1);
  prefault.p = prepare_result (&z_all, st, config ().prefault_threads);
  /* The overlap needs the second slot: a panel's results come down while the next computes. */
  if (plan->overlap_copies && pipelined && run.panels.size () >= 2)
    return run_overlapped (run, plan, stop, st, err);
  return run_serial (run, stop, st, err);
}

} // namespace

extern "C" {

tilemm_status tilemm_cuda_multiply_batch (const tilemm_batch_job *job,
                                          const tilemm_batch_plan *plan,
                                          const tilemm_stop *stop, tilemm_error *err)
{
  if (!job || !job->shape || !plan)
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
  workspace &ws = ws_pool[0]; /* the caller's thread: worker 0 */
  return recorded_product (ws,
    [&] (tilemm_cuda_stats *st) { return run_batch (ws, job, plan, stop, st, err); },
    false);
}

} /* extern "C" */
