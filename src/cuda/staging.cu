/* staging.cu — the bus: the units a view travels in, an
 * upload and a download of a unit, whole views up and down, and the result's pages prepared
 * while the device computes.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdlib.h>

#include "executor.h"

using namespace tilemm_cuda;

namespace tilemm_cuda {

unit next_unit (const piece &p, cursor &c, size_t most)
{
  unit u;
  u.line = c.line;
  if (p.width <= most)
    {
      int64_t n = (int64_t) (most / (p.width ? p.width : 1));
      if (n < 1)
        n = 1;
      u.lines = n < p.lines - c.line ? n : p.lines - c.line;
      u.off = 0;
      u.len = p.width;
      c.line += u.lines;
    }
  else
    {
      u.lines = 1;
      u.off = c.off;
      u.len = p.width - c.off < most ? p.width - c.off : most;
      c.off += u.len;
      if (c.off == p.width)
        {
          c.off = 0;
          c.line++;
        }
    }
  return u;
}

/* A piece of a view: its row-major reading (height = lines, width = elements per line). */
piece piece_of (const tilemm_view &v, void *dev, size_t es)
{
  const tilemm_matrix r = tilemm_row_major_reading (&v);
  piece p = { (char *) r.elements, (size_t) r.stride * es, (char *) dev, (size_t) r.width * es,
              r.height };
  return p;
}

void copy_on_team (workspace &ws, void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
                   size_t row_bytes, size_t cols, bool into_result)
{
  /* The members the plan names for a unit of these bytes on this worker's team. */
  const int members = tilemm_staging_copy_members (&ws.staging, ws.team_threads, row_bytes * cols);
  if (into_result)
    tilemm_parallel_copy_into_huge (ws.team, members, dst, dst_pitch, src, src_pitch, row_bytes,
                                    cols);
  else
    tilemm_parallel_copy_2d (ws.team, members, dst, dst_pitch, src, src_pitch, row_bytes, cols);
}

/* One unit of a piece through upload chunk `stage` (chunk number `chunk`): host threads copy it
 * in, the copy engine takes it to the device on ws.up, and the chunk's event says when the chunk
 * is free again.  What every upload does, the pipeline's and stage_up's. */
tilemm_status send_unit (workspace &ws, const piece &p, const unit &u, int chunk,
                         unsigned char *stage,
                         const char *what, tilemm_cuda_stats *st, tilemm_error *err)
{
  const auto t0 = std::chrono::steady_clock::now ();
  copy_on_team (ws, stage, u.len, p.host + (size_t) u.line * p.pitch + u.off, p.pitch, u.len,
                (size_t) u.lines, false);
  st->copy_in_ms += std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now () - t0)
                      .count ();
  CUDA_TRY (TILEMM_FAULT_OR (TILEMM_FAULT_MEMCPY, cudaErrorInvalidValue,
            cudaMemcpyAsync (p.dev + (size_t) u.line * p.width + u.off, stage, u.bytes (),
                             cudaMemcpyHostToDevice, ws.up)),
            "cudaMemcpyAsync(%s, %zu bytes, host to device)", what, u.bytes ());
  CUDA_TRY (cudaEventRecord (ws.up_ev[chunk], ws.up), "cudaEventRecord");
  st->bytes_up += (double) u.bytes ();
  return TILEMM_OK;
}

/* One unit of a piece from the device into download chunk `stage` (number `chunk`) on ws.down;
 * the chunk's event says when it has arrived.  What every download enqueues. */
tilemm_status fetch_unit (workspace &ws, const piece &p, const unit &u, int chunk,
                          unsigned char *stage,
                          tilemm_cuda_stats *st, tilemm_error *err)
{
  CUDA_TRY (TILEMM_FAULT_OR (TILEMM_FAULT_MEMCPY, cudaErrorInvalidValue,
            cudaMemcpyAsync (stage, p.dev + (size_t) u.line * p.width + u.off, u.bytes (),
                             cudaMemcpyDeviceToHost, ws.down)),
            "cudaMemcpyAsync(C, %zu bytes, device to host)", u.bytes ());
  CUDA_TRY (cudaEventRecord (ws.down_ev[chunk], ws.down), "cudaEventRecord");
  st->bytes_down += (double) u.bytes ();
  return TILEMM_OK;
}

tilemm_matrix device_matrix (void *elements, int64_t height, int64_t width)
{
  tilemm_matrix m = { height, width, width > 0 ? width : 1, elements };
  return m;
}

double ms_since (std::chrono::steady_clock::time_point t0)
{
  return std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now () - t0)
    .count ();
}


/* Asks for the result's pages as huge pages (and has TILEMM_PREFAULT_THREADS threads fault them
 * in, no more than ws's copy team and on its CPUs: they take the team's cores while it waits)
 * before any copy into it; tilemm_prefault_finish (prefault_guard) waits for those threads. */
tilemm_prefault *prepare_result (workspace &ws, const tilemm_view *c, tilemm_cuda_stats *st)
{
  const tilemm_staging_plan &cfg = ws.staging;
  if (c->rows == 0 || c->cols == 0)
    return nullptr;
  const auto t0 = std::chrono::steady_clock::now ();
  const size_t extent = (size_t) ((c->cols - 1) * c->stride + c->rows) * tilemm_type_size (c->type);
  const int threads = cfg.prefault_threads < ws.team_threads ? cfg.prefault_threads
                                                             : ws.team_threads;
  tilemm_prefault *p = extent >= cfg.prepare_result_bytes
                         ? tilemm_prefault_start (c->data, extent, cfg.huge_pages, threads,
                                                  &ws.team_plan.cpus)
                         : nullptr;
  st->result_prep_ms += ms_since (t0);
  return p;
}

/* A whole view into packed device memory through the pinned upload chunks: host threads fill a
 * chunk while the copy engine sends the ones before it.  Enqueued on ws.up. */
tilemm_status stage_up (workspace &ws, const tilemm_view &v, void *dev, tilemm_cuda_stats *st,
                        tilemm_error *err)
{
  const tilemm_staging_plan &cfg = ws.staging;
  const piece p = piece_of (v, dev, tilemm_type_size (v.type));
  if (p.width == 0 || p.lines == 0)
    return TILEMM_OK;
  cursor cur = { 0, 0, false };
  for (unsigned long long count = 0; cur.line < p.lines; count++)
    {
      const int chunk = (int) (count % (unsigned long long) cfg.chunks);
      unsigned char *const stage = ws.pinned + (size_t) chunk * cfg.chunk_bytes;
      CUDA_TRY (cudaEventSynchronize (ws.up_ev[chunk]), "copying an operand to the device");
      const unit u = next_unit (p, cur, cfg.chunk_bytes);
      const tilemm_status status
        = send_unit (ws, p, u, chunk, stage, "an operand", st, err);
      if (status != TILEMM_OK)
        return status;
    }
  return TILEMM_OK;
}

/* Packed device memory into a whole view through the pinned download chunks, once `ready` has
 * happened: the copy engine brings the next chunks while host threads empty the oldest. */
tilemm_status stage_down (workspace &ws, void *dev, const tilemm_view &v, cudaEvent_t ready,
                          tilemm_cuda_stats *st,
                          tilemm_error *err)
{
  const tilemm_staging_plan &cfg = ws.staging;
  const piece p = piece_of (v, dev, tilemm_type_size (v.type));
  if (p.width == 0 || p.lines == 0)
    return TILEMM_OK;
  CUDA_TRY (cudaStreamWaitEvent (ws.down, ready, 0), "cudaStreamWaitEvent");
  unsigned char *const stage = ws.pinned + (size_t) cfg.chunks * cfg.chunk_bytes;
  struct in_flight
  {
    int chunk;
    unit u;
  } fifo[MAX_CHUNKS];
  int head = 0, count = 0;
  unsigned long long issued = 0;
  cursor cur = { 0, 0, false };
  while (cur.line < p.lines || count > 0)
    {
      while (cur.line < p.lines && count < cfg.chunks)
        {
          const int chunk = (int) (issued++ % (unsigned long long) cfg.chunks);
          const unit u = next_unit (p, cur, cfg.chunk_bytes);
          const tilemm_status status
            = fetch_unit (ws, p, u, chunk, stage + (size_t) chunk * cfg.chunk_bytes, st, err);
          if (status != TILEMM_OK)
            return status;
          fifo[(head + count++) % MAX_CHUNKS] = { chunk, u };
        }
      const in_flight f = fifo[head];
      head = (head + 1) % MAX_CHUNKS;
      count--;
      CUDA_TRY (cudaEventSynchronize (ws.down_ev[f.chunk]), "copying C to the host");
      const auto t0 = std::chrono::steady_clock::now ();
      copy_on_team (ws, p.host + (size_t) f.u.line * p.pitch + f.u.off, p.pitch,
                    stage + (size_t) f.chunk * cfg.chunk_bytes, f.u.len, f.u.len,
                    (size_t) f.u.lines, true);
      st->copy_out_ms += ms_since (t0);
    }
  return TILEMM_OK;
}

} /* namespace tilemm_cuda */

