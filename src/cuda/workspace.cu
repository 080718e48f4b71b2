/* workspace.cu — the device state each worker owns (streams, events, buffers, the pinned
 * ring, the emulated precision's arena), grown on demand, freed after a failure, drained
 * after a stop; and what every product's entry checks first.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdlib.h>

#include "executor.h"

using namespace tilemm_cuda;

namespace tilemm_cuda {

/* ---------------------------------------------------------------- the workspace */

static const char *const buffer_name[NBUF] = { "dX (panel of B)", "dY (slots of A's rows)",
                                               "dC (slots of C)", "dXT (op(B))", "dYT (op(A))",
                                               "split-k scratch (stream 0)",
                                               "split-k scratch (stream 1)" };

/* Device bytes a workspace holds: its buffers and the emulated precision's arena. */
size_t workspace_bytes (const workspace &w)
{
  size_t held = 0;
  for (int i = 0; i < NBUF; i++)
    held += w.capacity[i];
  for (size_t b : w.emu.bytes)
    held += b;
  return held;
}

/* One workspace per worker (multi.h): worker w of a product spread over several devices uses
 * ws_pool[w] from its own host thread; the one-device path is worker 0, on the caller's thread.
 * The functions below are handed the workspace they work on (ws). */
workspace ws_pool[TILEMM_MAX_WORKERS];
[[maybe_unused]] const bool ws_pool_ready = [] {
  for (workspace &w : ws_pool)
    w.device = -1;   /* bound to no device yet; everything else zero (null, false) */
  return true;
} ();
std::mutex ws_mutex;

tilemm_cuda_stats last_stats;        /* of the last product; `calls` counts them all */

/* Frees everything, ignoring errors (a broken context refuses to free; the reset reclaims it).
 * Nothing may be in flight into the pinned chunks when they go: wait for the device first. */
void workspace_free (workspace &ws)
{
  if (ws.up || ws.pinned)
    cudaDeviceSynchronize ();
  for (int i = 0; i < NBUF; i++)
    {
      if (ws.buffer[i])
        cudaFree (ws.buffer[i]);
      ws.buffer[i] = nullptr;
      ws.capacity[i] = 0;
    }
  emu_arena_free (&ws.emu);
  if (ws.pinned)
    cudaFreeHost (ws.pinned);
  ws.pinned = nullptr;
  ws.pinned_bytes = 0;
  for (int r = 0; r < NRING; r++)
    {
      for (size_t i = 0; ws.ring[r] && i < ws.ring_size; i++)
        if (ws.ring[r][i])
          cudaEventDestroy (ws.ring[r][i]);
      free (ws.ring[r]);
      ws.ring[r] = nullptr;
    }
  ws.ring_size = 0;
  if (ws.events)
    {
      for (int i = 0; i < MAX_CHUNKS; i++)
        {
          cudaEventDestroy (ws.up_ev[i]);
          cudaEventDestroy (ws.down_ev[i]);
        }
      cudaEventDestroy (ws.t_begin);
      cudaEventDestroy (ws.t_first);
      cudaEventDestroy (ws.t_last);
      for (int i = 0; i < 2; i++)
        {
          cudaEventDestroy (ws.k_begin[i]);
          cudaEventDestroy (ws.k_end[i]);
        }
      cudaEventDestroy (ws.share_up);
      for (cudaEvent_t e : ws.share_in)
        cudaEventDestroy (e);
      ws.events = false;
    }
  cudaStream_t *streams[] = { &ws.up, &ws.down, &ws.comp[0], &ws.comp[1], &ws.peer };
  for (cudaStream_t *s : streams)
    {
      if (*s)
        cudaStreamDestroy (*s);
      *s = nullptr;
    }
  ws.device = -1;
  ws.kept_x.product = ws.kept_y.product = 0;
  ws.arriving = 0;
  cudaGetLastError ();
}

tilemm_status workspace_team (workspace &ws, const tilemm_copy_team *team, tilemm_error *err)
{
  /* Every call plan that runs on the GPU sizes its workers' teams (copy_team.c), a low-level
   * entry's too: a plan without one is not the plan of a GPU product. */
  if (!team || team->threads <= 0)
    return tilemm_error_set (err, TILEMM_EINVAL, "GPU worker: the call plan gives it no copy team");
  const int threads = team->threads;
  /* A team of one is the worker's own thread: the kept team stays for the products after. */
  if (threads > 1 && !tilemm_host_team_fits (ws.team, threads, &team->cpus))
    {
      tilemm_host_team_stop (ws.team);
      ws.team = tilemm_host_team_start (threads, &team->cpus);
      ws.team_plan = *team;
    }
  ws.team_threads = threads;
  return TILEMM_OK;
}


/* After any failure: free everything, clear the error, and when the context is broken for good
 * (every call answers the same sticky error) reset the device so the next call works. */
void workspace_recover (void)
{
  pool_free_all (); /* every worker's workspace (this one too): a reset below would orphan them */
  if (cudaDeviceSynchronize () != cudaSuccess)
    {
      cudaDeviceReset ();
      cudaGetLastError ();
    }
}

/* After a stop: wait for everything enqueued (copies into the pinned ring and the buffers,
 * kernels), so the workspace is idle and consistent, and keep it for the next call.  If waiting
 * fails the device has a real error: free and reset as after any failure. */
void workspace_drain (workspace &ws)
{
  cudaStream_t *streams[] = { &ws.up, &ws.down, &ws.comp[0], &ws.comp[1], &ws.peer };
  for (cudaStream_t *s : streams)
    if (*s && cudaStreamSynchronize (*s) != cudaSuccess)
      {
        workspace_recover ();
        return;
      }
}

/* Creates the fixed events; on failure destroys those made and leaves ws.events false. */
tilemm_status create_events (workspace &ws, tilemm_error *err)
{
  /* The chunks' (both ways) and the shares' (this worker's up, each one's in) without timing,
   * then the seven timed ones. */
  enum { UNTIMED = 2 * MAX_CHUNKS + 1 + TILEMM_MAX_WORKERS, TIMED = 7 };
  cudaEvent_t made[UNTIMED + TIMED];
  int count = 0;
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < UNTIMED && e == cudaSuccess; i++)
    if ((e = cudaEventCreateWithFlags (&made[count], cudaEventDisableTiming)) == cudaSuccess)
      count++;
  for (int i = 0; i < TIMED && e == cudaSuccess; i++)
    if ((e = cudaEventCreate (&made[count])) == cudaSuccess)
      count++;
  if (e != cudaSuccess)
    {
      for (int i = 0; i < count; i++)
        cudaEventDestroy (made[i]);
      return tilemm_cuda_failure (err, e, "cudaEventCreate");
    }
  for (int i = 0; i < MAX_CHUNKS; i++)
    {
      ws.up_ev[i] = made[i];
      ws.down_ev[i] = made[MAX_CHUNKS + i];
    }
  ws.share_up = made[2 * MAX_CHUNKS];
  for (int i = 0; i < TILEMM_MAX_WORKERS; i++)
    ws.share_in[i] = made[2 * MAX_CHUNKS + 1 + i];
  ws.t_begin = made[UNTIMED];
  ws.t_first = made[UNTIMED + 1];
  ws.t_last = made[UNTIMED + 2];
  for (int i = 0; i < 2; i++)
    {
      ws.k_begin[i] = made[UNTIMED + 3 + 2 * i];
      ws.k_end[i] = made[UNTIMED + 4 + 2 * i];
    }
  ws.events = true;
  return TILEMM_OK;
}

/* Makes sure the streams, events and pinned chunks exist on the current device, buffer i holds
 * at least bytes[i] and each event ring has `ring` events. */
tilemm_status workspace_reserve (workspace &ws, const size_t bytes[NBUF], size_t ring,
                                 tilemm_error *err)
{
  int device = 0;
  CUDA_TRY (cudaGetDevice (&device), "cudaGetDevice");
  if (ws.device != device) /* first use, or the caller moved to another GPU */
    {
      if (ws.device >= 0) /* free the old GPU's workspace there, then come back */
        {
          CUDA_TRY (cudaSetDevice (ws.device), "cudaSetDevice(%d)", ws.device);
          workspace_free (ws);
          CUDA_TRY (cudaSetDevice (device), "cudaSetDevice(%d)", device);
        }
      ws.device = device;
    }
  cudaStream_t *streams[] = { &ws.up, &ws.down, &ws.comp[0], &ws.comp[1], &ws.peer };
  for (cudaStream_t *s : streams)
    if (!*s)
      CUDA_TRY (cudaStreamCreateWithFlags (s, cudaStreamNonBlocking), "cudaStreamCreate");
  if (!ws.events)
    {
      const tilemm_status status = create_events (ws, err);
      if (status != TILEMM_OK)
        return status;
    }
  if (ws.ring_size < ring)
    {
      /* Grow every ring to `ring` events, new slots null until created, so a failure half way
       * leaves nothing that workspace_free cannot find. */
      for (int r = 0; r < NRING; r++)
        {
          cudaEvent_t *grown = (cudaEvent_t *) realloc (ws.ring[r], ring * sizeof (cudaEvent_t));
          if (!grown)
            return tilemm_error_set (err, TILEMM_ENOMEM, "no memory for %zu CUDA events", ring);
          ws.ring[r] = grown;
          for (size_t i = ws.ring_size; i < ring; i++)
            grown[i] = nullptr;
        }
      const size_t old = ws.ring_size;
      ws.ring_size = ring;
      for (int r = 0; r < NRING; r++)
        for (size_t i = old; i < ring; i++)
          CUDA_TRY (cudaEventCreateWithFlags (&ws.ring[r][i], cudaEventDisableTiming),
                    "cudaEventCreate");
    }
  /* Buffers only grow, so that repeated products allocate nothing; but when one must grow, every
   * buffer is made this product's own size, so that what the workspace holds is at most one
   * panel's need (buffers grown by different panels would otherwise add up past the limit every
   * panel's plan keeps). */
  bool grow = false;
  for (int i = 0; i < NBUF; i++)
    grow = grow || ws.capacity[i] < bytes[i];
  /* Every buffer that changes is freed before any is allocated (growing needs the old bytes no
   * more): freed and allocated one by one, a buffer that grows would sit beside the old sizes
   * of those after it, past both panels' need (panels whose steps differ: one buffer grows as
   * another shrinks). */
  bool change[NBUF];
  if (grow)
    ws.kept_x.product = ws.kept_y.product = 0;   /* the buffers they lay in are made anew */
  for (int i = 0; i < NBUF; i++)
    {
      change[i] = ws.capacity[i] < bytes[i] || (grow && ws.capacity[i] > bytes[i]);
      if (!change[i] || !ws.buffer[i])
        continue;
      void *old = ws.buffer[i];
      ws.buffer[i] = nullptr;
      ws.capacity[i] = 0;
      CUDA_TRY (cudaFree (old), "cudaFree(%s)", buffer_name[i]);
    }
  for (int i = 0; i < NBUF; i++)
    {
      if (!change[i] || bytes[i] == 0)
        continue;
      CUDA_TRY (TILEMM_FAULT_OR (TILEMM_FAULT_MALLOC, cudaErrorMemoryAllocation,
                                 cudaMalloc (&ws.buffer[i], bytes[i])),
                "cudaMalloc(%s, %zu bytes)", buffer_name[i], bytes[i]);
      ws.capacity[i] = bytes[i];
    }
  const size_t pinned = 2 * (size_t) ws.staging.chunks * ws.staging.chunk_bytes;
  if (ws.pinned && ws.pinned_bytes < pinned)
    {
      /* A plan whose staging is larger than the chunks made for an earlier one: nothing may
       * still be in flight into the old chunks when they go. */
      CUDA_TRY (cudaDeviceSynchronize (), "cudaDeviceSynchronize");
      CUDA_TRY (cudaFreeHost (ws.pinned), "cudaFreeHost(pinned staging)");
      ws.pinned = nullptr;
      ws.pinned_bytes = 0;
    }
  if (!ws.pinned)
    {
      void *p = nullptr;
      const cudaError_t e = TILEMM_FAULT_OR (TILEMM_FAULT_HOST, cudaErrorMemoryAllocation,
                                             cudaHostAlloc (&p, pinned, cudaHostAllocDefault));
      if (e != cudaSuccess) /* host memory that ran out, not the GPU's: ENOMEM, not EDEVMEM */
        return tilemm_error_set (err, e == cudaErrorMemoryAllocation ? TILEMM_ENOMEM : TILEMM_ECUDA,
                                 "cudaHostAlloc(pinned staging, %zu bytes): %s", pinned,
                                 cudaGetErrorString (e));
      ws.pinned = (unsigned char *) p;
      ws.pinned_bytes = pinned;
    }
  return TILEMM_OK;
}

/* The emulated precision's arena, owned here like the buffers: a slot grows (freed first: the old
 * bytes are needed no more) when a call needs more than it holds. */
tilemm_status emu_arena_reserve (workspace &ws, const size_t bytes[4], tilemm_error *err)
{
  for (int s = 0; s < 4; s++)
    {
      if (ws.emu.bytes[s] >= bytes[s])
        continue;
      if (ws.emu.base[s])
        {
          void *old = ws.emu.base[s];
          ws.emu.base[s] = nullptr;
          ws.emu.bytes[s] = 0;
          CUDA_TRY (cudaFree (old), "cudaFree(emulated arena %d)", s);
        }
      CUDA_TRY (TILEMM_FAULT_OR (TILEMM_FAULT_MALLOC, cudaErrorMemoryAllocation,
                                 cudaMalloc (&ws.emu.base[s], bytes[s])),
                "cudaMalloc(emulated workspace, %zu bytes)", bytes[s]);
      ws.emu.bytes[s] = bytes[s];
    }
  return TILEMM_OK;
}

void emu_arena_free (tilemm_emu_cuda_arena *arena)
{
  for (int s = 0; s < 4; s++)
    {
      if (arena->base[s])
        cudaFree (arena->base[s]);
      arena->base[s] = nullptr;
      arena->bytes[s] = 0;
    }
}

/* k = 0: C is zeros (all-bits-zero is +0 in every element type); no GPU work needed. */
void zero_columns (const tilemm_view *c)
{
  const size_t es = tilemm_type_size (c->type);
  for (int64_t j = 0; j < c->cols; j++)
    memset ((char *) c->data + (size_t) (j * c->stride) * es, 0, (size_t) c->rows * es);
}


/* What every product's entry asks first: a usable GPU, a kernel variant the plan may name; and
 * an empty product or k = 0 (C zeros) needs no GPU work: *done. */
tilemm_status entry_checks (const tilemm_plan *plan, const tilemm_view *c, bool *done,
                            tilemm_error *err)
{
  *done = true;
  tilemm_status status = probe (err);
  if (status != TILEMM_OK)
    return status;
  int rows, cols, depth, pad, threads;
  if (!tilemm_cuda_kernel_shape (plan->variant, plan->type, &rows, &cols, &depth, &pad, &threads))
    return tilemm_error_set (err, TILEMM_EINVAL, "no CUDA kernel variant %d for %s",
                             plan->variant, tilemm_type_name (plan->type));
  if (plan->m == 0 || plan->n == 0)
    return tilemm_error_set (err, TILEMM_OK, NULL);
  if (plan->k == 0)
    {
      zero_columns (c);
      return tilemm_error_set (err, TILEMM_OK, NULL);
    }
  *done = false;
  return TILEMM_OK;
}

/* Frees worker w's workspace on its own device, from the calling thread, and comes back to the
 * thread's device.  Errors ignored, as in workspace_free. */
void pool_free (int w)
{
  workspace &ws = ws_pool[w];
  if (ws.device >= 0)
    {
      int current = -1;
      const bool known = cudaGetDevice (&current) == cudaSuccess;
      if (current == ws.device || cudaSetDevice (ws.device) == cudaSuccess)
        workspace_free (ws);
      if (known && current >= 0)
        cudaSetDevice (current);
    }
  cudaGetLastError ();
}

void pool_free_all (void)
{
  for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
    pool_free (w);
}

} /* namespace tilemm_cuda */

namespace tilemm_cuda {


void release_all (void)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  pool_free_all ();
  /* The host side too: no thread of tilemm's may outlive the code it runs (the module's unload). */
  for (workspace &w : ws_pool)
    {
      tilemm_host_team_stop (w.team);
      w.team = nullptr;
      w.team_threads = 0;
    }
}

size_t bytes_held (void)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  size_t held = 0;
  for (const workspace &w : ws_pool) /* every worker's */
    held += workspace_bytes (w);
  return held;
}

size_t pinned_bytes_held (void)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  size_t held = 0;
  for (const workspace &w : ws_pool) /* every worker's */
    held += w.pinned_bytes;
  return held;
}

void copy_last_stats (tilemm_cuda_stats *stats)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  if (stats)
    *stats = last_stats;
}


} /* namespace tilemm_cuda */
