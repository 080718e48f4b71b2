/* backend_cuda.cu — the CUDA backend: is there a GPU, what is it, and C = A·B on it for host views.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Replaces backend_nocuda.c in builds with CUDA (same functions, see backend.h).
 *
 * One product, on the untouched column-major buffers, is the row-major product Cᵀ = Bᵀ·Aᵀ
 * (tilemm.h).  The plan cuts Cᵀ into panels and each panel into steps: a panel's piece of Bᵀ
 * (columns of B) stays on the device while A's rows go through it, one step at a time: a step
 * uploads some rows of A (a block of Aᵀ's columns), runs the plan's kernel variant for the
 * matching block of Cᵀ and downloads it into C at C's own stride, never touching the elements
 * between C's rows and its stride.  Every piece travels PACKED (the same bytes in the same order,
 * the gaps between columns left behind).
 *
 * The bus.  Octave's memory is pageable: plain copies from it run at 7–12 GB/s.  So every byte
 * goes through a ring of pinned staging chunks, allocated once and bounded (TILEMM_STAGING_MB ×
 * 2·TILEMM_STAGING_CHUNKS): host threads (tilemm_parallel_copy_2d) fill an upload chunk while
 * the copy engine sends the previous ones, and empty a download chunk into C while the other
 * engine brings the next.  One host thread (the caller) drives it all without blocking: copies
 * out what has arrived, enqueues what can start (kernels on two streams, downloads), then
 * stages one more upload chunk, and again.  Streams and events order the GPU side:
 *   upload stream:   Bᵀ panel, A rows of step 0, 1, 2, …        (waits: a slot free again)
 *   compute streams: step j's kernel on stream j % 2            (waits: its data, its C slot)
 *   download stream: step j's piece of C, chunk by chunk        (waits: step j's kernel)
 * so step j computes while step j+1 uploads and step j−1 downloads.  With one panel every step
 * has its own slot (the whole product sits on the device, as before); under a limit the plan
 * gives two slots that the steps take in turn, and the device holds tilemm_plan_device_bytes.
 *
 * The result.  A fresh result array faults its pages in on first write: they are asked for as
 * huge pages (host_pages.h), one fault per 2 MiB, which the staging copies take in their stride
 * (background threads can fault them in instead, TILEMM_PREFAULT_THREADS; slower there).
 *
 * State kept between calls: the probe's answer, four streams, events, three device buffers
 * (Bᵀ's panel, A's slots, C's slots, grown only) and the pinned ring, created on first use, so
 * repeated products allocate nothing.  On ANY failure everything is freed, the error cleared,
 * and a broken context (a "sticky" error such as an illegal address) reset, so the next call
 * starts clean.  A mutex makes concurrent calls safe (they take turns).
 *
 * Settings (environment, read once; the manual, Performance > Settings): TILEMM_STAGING_MB (chunk size, 16),
 * TILEMM_STAGING_CHUNKS (chunks each way, 4), TILEMM_COPY_THREADS (host copy threads, 0 = the
 * OpenMP default), TILEMM_HUGEPAGES (1: ask huge pages for the result), TILEMM_PREFAULT_THREADS
 * (threads faulting the result in, 0: none), TILEMM_STEP_COLS and TILEMM_STEP_ROWS (rows of A
 * and columns of B per step of a one-panel product, 0: the plan's).
 */
#include <cuda_runtime_api.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cuda_try.h"
#include "emulated_cuda.h"
#include "emulated_panels.h"
#include "fault.h"
#include "host_pages.h"
#include "kernels.h"
#include "multi.h"
#include "parallel_copy.h"
#include "transpose.h"
#include "tilemm.h"

/* The oldest GPU the build's kernels can run on: sm_75 (CUDA 13 dropped sm_70). */
#ifndef TILEMM_CUDA_MIN_CC
#define TILEMM_CUDA_MIN_CC 75
#endif

namespace {

/* ---------------------------------------------------------------- probe */

struct probe_answer
{
  bool done;
  tilemm_status status;
  char detail[384];
};

probe_answer probe_state;

void probe_fail (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (probe_state.detail, sizeof probe_state.detail, fmt, ap);
  va_end (ap);
  probe_state.status = TILEMM_ENOGPU;
  cudaGetLastError (); /* none of these failures may linger into a later call */
}

void probe_run (void)
{
  probe_state.status = TILEMM_OK;
  probe_state.detail[0] = '\0';
  int driver = 0, runtime = 0, count = 0, device = 0;
  cudaError_t e = cudaDriverGetVersion (&driver);
  if (e != cudaSuccess || driver == 0)
    return probe_fail ("no NVIDIA driver found%s%s; install the NVIDIA driver to use the GPU",
                       e != cudaSuccess ? ": " : "", e != cudaSuccess ? cudaGetErrorString (e) : "");
  cudaRuntimeGetVersion (&runtime);
  if (driver < runtime)
    return probe_fail ("the NVIDIA driver supports CUDA %d.%d but tilemm was built with CUDA %d.%d; "
                       "update the driver",
                       driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
  e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess)
    return probe_fail ("cudaGetDeviceCount: %s", cudaGetErrorString (e));
  if (count == 0)
    return probe_fail ("no CUDA device found");
  cudaDeviceProp prop;
  if ((e = cudaGetDevice (&device)) != cudaSuccess
      || (e = cudaGetDeviceProperties (&prop, device)) != cudaSuccess)
    return probe_fail ("cannot query CUDA device %d: %s", device, cudaGetErrorString (e));
  if (prop.major * 10 + prop.minor < TILEMM_CUDA_MIN_CC)
    return probe_fail ("GPU %d (%s) has compute capability %d.%d; tilemm's kernels need %d.%d or "
                       "newer",
                       device, prop.name, prop.major, prop.minor, TILEMM_CUDA_MIN_CC / 10,
                       TILEMM_CUDA_MIN_CC % 10);
}

tilemm_status probe (tilemm_error *err)
{
  if (!probe_state.done)
    {
      probe_run ();
      probe_state.done = true;
    }
  if (probe_state.status != TILEMM_OK)
    return tilemm_error_set (err, probe_state.status, "%s", probe_state.detail);
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

/* ---------------------------------------------------------------- settings */

long env_long (const char *name, long fallback, long lo, long hi)
{
  const char *v = getenv (name);
  if (!v || !*v)
    return fallback;
  char *end = nullptr;
  const long x = strtol (v, &end, 10);
  return *end || x < lo || x > hi ? fallback : x;
}

struct settings
{
  size_t chunk_bytes;    /* one pinned staging chunk                               */
  int chunks;            /* chunks for uploads, and as many for downloads          */
  int copy_threads;      /* host threads per staging copy (0: OpenMP's default)    */
  int huge_pages;        /* ask huge pages for a large result                      */
  int prefault_threads;  /* threads faulting a large result's pages in (0: none)   */
  int64_t step_cols;     /* rows of A per step of a one-panel product (0: plan's)  */
  int64_t step_rows;     /* columns of B per step of a one-panel product (0: plan's) */
};

const settings &config (void)
{
  static const settings s = {
    /* TILEMM_STAGING_KB, finer, wins over TILEMM_STAGING_MB (tests use tiny chunks). */
    getenv ("TILEMM_STAGING_KB")
      ? (size_t) env_long ("TILEMM_STAGING_KB", 16384, 1, 1L << 20) << 10
      : (size_t) env_long ("TILEMM_STAGING_MB", 16, 1, 1024) << 20,
    (int) env_long ("TILEMM_STAGING_CHUNKS", 4, 2, 16),
    (int) env_long ("TILEMM_COPY_THREADS", 0, 0, 1024),
    (int) env_long ("TILEMM_HUGEPAGES", 1, 0, 1),
    (int) env_long ("TILEMM_PREFAULT_THREADS", 0, 0, 64),
    (int64_t) env_long ("TILEMM_STEP_COLS", 0, 0, 1L << 40),
    (int64_t) env_long ("TILEMM_STEP_ROWS", 0, 0, 1L << 40),
  };
  return s;
}

/* Results smaller than this are left to the ordinary page faults. */
const size_t PREPARE_RESULT_BYTES = (size_t) 8 << 20;

/* ---------------------------------------------------------------- the workspace */

enum { BUF_X, BUF_Y, BUF_C, BUF_XT, BUF_YT, NBUF };
const char *const buffer_name[NBUF] = { "dX (panel of B)", "dY (slots of A's rows)",
                                        "dC (slots of C)", "dXT (op(B))", "dYT (op(A))" };
enum { NCOMP = 2, MAX_CHUNKS = 16 };
enum { EV_Y, EV_COMP, EV_CFREE, EV_X, NRING };

/* The streams, events and buffers kept between calls, on device `device`. */
struct workspace
{
  int device;
  cudaStream_t up, down, comp[NCOMP];
  bool events;                       /* the fixed events below exist              */
  cudaEvent_t up_ev[MAX_CHUNKS];     /* an upload chunk's copy to the device done  */
  cudaEvent_t down_ev[MAX_CHUNKS];   /* a download chunk's copy from the device done */
  cudaEvent_t t_begin, t_first, t_last; /* timing: entry, first kernel, last kernel */
  cudaEvent_t *ring[NRING];          /* per step, modulo their length: A's rows up,
                                        kernel done, C's slot downloaded; per part of
                                        Bᵀ: up                                        */
  size_t ring_size;                  /* plain data, like all of ws: nothing here has a
                                        destructor that could run before the release
                                        at unload                                     */
  void *buffer[NBUF];
  size_t capacity[NBUF];
  unsigned char *pinned;             /* 2·chunks staging chunks: uploads, then downloads */
  size_t pinned_bytes;
  tilemm_emu_cuda_arena emu;         /* the emulated precision's residues and statistics */
};

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
 * The code below was written for a single workspace named ws: ws now means the calling thread's
 * (ws_now), so that code runs unchanged in every worker. */
workspace ws_pool[TILEMM_MAX_WORKERS];
thread_local workspace *ws_now = &ws_pool[0];
#define ws (*ws_now)
[[maybe_unused]] const bool ws_pool_ready = [] {
  for (workspace &w : ws_pool)
    w.device = -1;   /* bound to no device yet; everything else zero (null, false) */
  return true;
} ();
std::mutex ws_mutex;

tilemm_cuda_stats last_stats;        /* of the last product; `calls` counts them all */

/* Frees everything, ignoring errors (a broken context refuses to free; the reset reclaims it).
 * Nothing may be in flight into the pinned chunks when they go: wait for the device first. */
void workspace_free (void)
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
  tilemm_emu_cuda_arena_free (&ws.emu);
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
      ws.events = false;
    }
  cudaStream_t *streams[] = { &ws.up, &ws.down, &ws.comp[0], &ws.comp[1] };
  for (cudaStream_t *s : streams)
    {
      if (*s)
        cudaStreamDestroy (*s);
      *s = nullptr;
    }
  ws.device = -1;
  cudaGetLastError ();
}

void pool_free_all (void); /* below, with the other workers' code */

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
void workspace_drain (void)
{
  cudaStream_t *streams[] = { &ws.up, &ws.down, &ws.comp[0], &ws.comp[1] };
  for (cudaStream_t *s : streams)
    if (*s && cudaStreamSynchronize (*s) != cudaSuccess)
      {
        workspace_recover ();
        return;
      }
}

/* Creates the fixed events; on failure destroys those made and leaves ws.events false. */
tilemm_status create_events (tilemm_error *err)
{
  cudaEvent_t made[2 * MAX_CHUNKS + 3];
  int count = 0;
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < 2 * MAX_CHUNKS && e == cudaSuccess; i++)
    if ((e = cudaEventCreateWithFlags (&made[count], cudaEventDisableTiming)) == cudaSuccess)
      count++;
  for (int i = 0; i < 3 && e == cudaSuccess; i++)
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
  ws.t_begin = made[2 * MAX_CHUNKS];
  ws.t_first = made[2 * MAX_CHUNKS + 1];
  ws.t_last = made[2 * MAX_CHUNKS + 2];
  ws.events = true;
  return TILEMM_OK;
}

/* Makes sure the streams, events and pinned chunks exist on the current device, buffer i holds
 * at least bytes[i] and each event ring has `ring` events. */
tilemm_status workspace_reserve (const size_t bytes[NBUF], size_t ring, tilemm_error *err)
{
  int device = 0;
  CUDA_TRY (cudaGetDevice (&device), "cudaGetDevice");
  if (ws.device != device) /* first use, or the caller moved to another GPU */
    {
      if (ws.device >= 0) /* free the old GPU's workspace there, then come back */
        {
          CUDA_TRY (cudaSetDevice (ws.device), "cudaSetDevice(%d)", ws.device);
          workspace_free ();
          CUDA_TRY (cudaSetDevice (device), "cudaSetDevice(%d)", device);
        }
      ws.device = device;
    }
  cudaStream_t *streams[] = { &ws.up, &ws.down, &ws.comp[0], &ws.comp[1] };
  for (cudaStream_t *s : streams)
    if (!*s)
      CUDA_TRY (cudaStreamCreateWithFlags (s, cudaStreamNonBlocking), "cudaStreamCreate");
  if (!ws.events)
    {
      const tilemm_status status = create_events (err);
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
  for (int i = 0; i < NBUF; i++)
    {
      if (ws.capacity[i] >= bytes[i])
        continue;
      if (ws.buffer[i]) /* free first: growing needs the old bytes no more */
        {
          void *old = ws.buffer[i];
          ws.buffer[i] = nullptr;
          ws.capacity[i] = 0;
          CUDA_TRY (cudaFree (old), "cudaFree(%s)", buffer_name[i]);
        }
      CUDA_TRY (TILEMM_FAULT_OR (TILEMM_FAULT_MALLOC, cudaErrorMemoryAllocation,
                                 cudaMalloc (&ws.buffer[i], bytes[i])),
                "cudaMalloc(%s, %zu bytes)", buffer_name[i], bytes[i]);
      ws.capacity[i] = bytes[i];
    }
  if (!ws.pinned)
    {
      const size_t pinned = 2 * (size_t) config ().chunks * config ().chunk_bytes;
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

/* ---------------------------------------------------------------- pieces and units */

/* A block that travels: `lines` lines of `width` bytes, `pitch` apart on the host, packed
 * (width apart) on the device. */
struct piece
{
  char *host;
  size_t pitch;
  char *dev;
  size_t width;
  int64_t lines;
};

/* What one staging chunk carries: whole lines, or a segment of one line when a line is longer
 * than the chunk.  Packed in the chunk, and contiguous on the device either way. */
struct unit
{
  int64_t line, lines;
  size_t off, len;
  size_t bytes () const { return (size_t) lines * len; }
};

struct cursor
{
  int64_t line;
  size_t off;
  bool started;
};

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

/* One unit of a piece through upload chunk `stage` (chunk number `chunk`): host threads copy it
 * in, the copy engine takes it to the device on ws.up, and the chunk's event says when the chunk
 * is free again.  What every upload does, the pipeline's and stage_up's. */
tilemm_status send_unit (const piece &p, const unit &u, int chunk, unsigned char *stage,
                         const char *what, tilemm_cuda_stats *st, tilemm_error *err)
{
  const auto t0 = std::chrono::steady_clock::now ();
  tilemm_parallel_copy_2d (stage, u.len, p.host + (size_t) u.line * p.pitch + u.off, p.pitch, u.len,
                           (size_t) u.lines, config ().copy_threads);
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
tilemm_status fetch_unit (const piece &p, const unit &u, int chunk, unsigned char *stage,
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

/* Waits for the result's page preparation threads however the product ends. */
struct prefault_guard
{
  tilemm_prefault *p = nullptr;
  ~prefault_guard () { tilemm_prefault_finish (p); }
};

/* Asks for the result's pages as huge pages (and has `threads` threads fault them in) before any
 * copy into it; tilemm_prefault_finish (prefault_guard) waits for those threads. */
tilemm_prefault *prepare_result (const tilemm_view *c, tilemm_cuda_stats *st, int threads)
{
  const settings &cfg = config ();
  if (c->rows == 0 || c->cols == 0)
    return nullptr;
  const auto t0 = std::chrono::steady_clock::now ();
  const size_t extent = (size_t) ((c->cols - 1) * c->stride + c->rows) * tilemm_type_size (c->type);
  tilemm_prefault *p = extent >= PREPARE_RESULT_BYTES
                         ? tilemm_prefault_start (c->data, extent, cfg.huge_pages, threads)
                         : nullptr;
  st->result_prep_ms += ms_since (t0);
  return p;
}

/* Threads that fault the result's pages in while the device computes a product whose host
 * thread would only wait (the emulated scheme, a transposed product): copies out of the staging
 * then meet faulted pages.  TILEMM_PREFAULT_THREADS, when set, is the count. */
int idle_prefault_threads (void)
{
  if (config ().prefault_threads > 0)
    return config ().prefault_threads;
  const unsigned cores = std::thread::hardware_concurrency ();
  return cores >= 4 ? (int) (cores / 2 < 16 ? cores / 2 : 16) : 1;
}

/* One step of the pipeline: the block rows × cols of Cᵀ at (row, col): part `part` of the
 * panel's Bᵀ times step `y` of A's rows (its slot: y % slots). */
struct step
{
  int64_t row, rows, col, cols;
  int64_t y, part;
  bool x_new;   /* the part's Bᵀ is uploaded here (its first use in this panel row)   */
  bool x_reuse; /* ... over an earlier panel row's, which earlier kernels still read    */
  bool y_first; /* the first step of A's rows y: they are uploaded here                 */
  bool y_last;  /* the last step of A's rows y: slot y % slots is free once it is done  */
};

/* ---------------------------------------------------------------- one product */

tilemm_status run_pipeline (const tilemm_plan *plan, const tilemm_view *a, const tilemm_view *b,
                            const tilemm_view *c, const tilemm_stop *stop, tilemm_cuda_stats *st,
                            tilemm_error *err)
{
  const settings &cfg = config ();
  const size_t es = tilemm_type_size (plan->type);
  const int64_t k = plan->k, m = plan->m, n = plan->n;
  const int64_t panel_rows = plan->panel_rows < n ? plan->panel_rows : n;
  const int64_t panel_cols = plan->panel_cols < m ? plan->panel_cols : m;
  const bool one_panel = panel_rows >= n && panel_cols >= m;
  int64_t sc = plan->step_cols >= 1 && plan->step_cols < panel_cols ? plan->step_cols : panel_cols;
  int64_t sr = plan->step_rows >= 1 && plan->step_rows < panel_rows ? plan->step_rows : panel_rows;
  if (one_panel && cfg.step_cols > 0)
    sc = cfg.step_cols < m ? cfg.step_cols : m;
  if (one_panel && cfg.step_rows > 0)
    sr = cfg.step_rows < n ? cfg.step_rows : n;
  /* One panel: every step of A's rows its own slot.  Panels: the plan's slots, in turn. */
  const int64_t slots = one_panel ? (m + sc - 1) / sc : (plan->slots >= 1 ? plan->slots : 1);
  const int64_t rows_held = one_panel ? m : slots * sc;
  const int64_t parts = (panel_rows + sr - 1) / sr;

  std::vector<step> steps;
  int64_t ysteps = 0;
  {
    const int64_t count = tilemm_plan_panel_count (plan);
    int64_t prev_row = -1, panel_row = -1;
    std::vector<bool> part_up;
    for (int64_t i = 0; i < count; i++)
      {
        tilemm_panel p;
        tilemm_plan_panel (plan, i, &p);
        if (p.row != prev_row)
          {
            panel_row++;
            part_up.assign ((size_t) parts, false);
            prev_row = p.row;
          }
        for (int64_t c0 = p.col; c0 < p.col + p.cols; c0 += sc, ysteps++)
          for (int64_t r0 = p.row; r0 < p.row + p.rows; r0 += sr)
            {
              step s;
              s.row = r0;
              s.rows = p.row + p.rows - r0 < sr ? p.row + p.rows - r0 : sr;
              s.col = c0;
              s.cols = p.col + p.cols - c0 < sc ? p.col + p.cols - c0 : sc;
              s.y = ysteps;
              s.part = (r0 - p.row) / sr;
              s.x_new = !part_up[(size_t) s.part];
              s.x_reuse = s.x_new && panel_row > 0;
              part_up[(size_t) s.part] = true;
              s.y_first = r0 == p.row;
              s.y_last = r0 + sr >= p.row + p.rows;
              steps.push_back (s);
            }
        st->panels++;
      }
  }
  const int64_t N = (int64_t) steps.size (), S = slots;
  /* Event rings: per step of A's rows (uploaded, slot downloaded) and per step (kernel done),
   * long enough that no event is recorded again before every wait on its last record is
   * enqueued (see the gates below). */
  const int64_t RY = S + 2, RC = one_panel ? N + 2 : S * parts + 2;
  st->steps = N;
  /* The first step of each step of A's rows, and one past the last. */
  std::vector<int64_t> y_begin ((size_t) ysteps + 1, N);
  for (int64_t j = N - 1; j >= 0; j--)
    y_begin[(size_t) steps[j].y] = j;

  const size_t bytes[NBUF] = { (size_t) (panel_rows * k) * es, (size_t) (k * rows_held) * es,
                               (size_t) (panel_rows * rows_held) * es, 0, 0 };
  const int64_t ring = RY > RC ? RY : RC;
  tilemm_status status = workspace_reserve (bytes, (size_t) (ring > parts ? ring : parts), err);
  if (status != TILEMM_OK)
    return status;

  /* The result's pages: huge, faulted in by the copies into them (or, if asked for, by other
   * threads while the operands go up: slower on the GPU machine, as those faults compete with
   * the staging copies). */
  prefault_guard prefault;
  prefault.p = prepare_result (c, st, cfg.prefault_threads);

  char *const dX = (char *) ws.buffer[BUF_X], *const dY = (char *) ws.buffer[BUF_Y],
             *const dC = (char *) ws.buffer[BUF_C];
  unsigned char *const up_stage = ws.pinned;
  unsigned char *const down_stage = ws.pinned + (size_t) cfg.chunks * cfg.chunk_bytes;
  const int nup = cfg.chunks, ndown = cfg.chunks;
  const int threads = cfg.copy_threads;
  /* Units: about 16 per operand, so small products pipeline too; at most a chunk. */
  auto unit_size = [&] (double total) {
    double u = total / 16;
    if (u < (double) (256u << 10))
      u = (double) (256u << 10);
    return u > (double) cfg.chunk_bytes ? cfg.chunk_bytes : (size_t) u;
  };
  const size_t up_unit = unit_size ((double) es * (double) k * (double) (m + n));
  const size_t down_unit = unit_size ((double) es * (double) m * (double) n);

  /* Where step j's pieces live on the device. */
  auto dev_y = [&] (int64_t j) { return dY + (size_t) ((steps[j].y % S) * sc * k) * es; };
  auto dev_x = [&] (int64_t j) { return dX + (size_t) (steps[j].part * sr * k) * es; };
  auto dev_c = [&] (int64_t j) {
    return dC + (size_t) ((steps[j].y % S) * sc * panel_rows + steps[j].part * sr * steps[j].cols)
                  * es;
  };
  auto y_piece = [&] (int64_t j) {
    const tilemm_view v = tilemm_view_sub (a, steps[j].col, 0, steps[j].cols, k); /* Aᵀ cols */
    return piece_of (v, dev_y (j), es);
  };
  auto x_piece = [&] (int64_t j) {
    const tilemm_view v = tilemm_view_sub (b, 0, steps[j].row, k, steps[j].rows); /* Bᵀ rows */
    return piece_of (v, dev_x (j), es);
  };
  auto c_piece = [&] (int64_t j) {
    const tilemm_view v = tilemm_view_sub (c, steps[j].col, steps[j].row, steps[j].cols,
                                           steps[j].rows);
    return piece_of (v, dev_c (j), es);
  };
  cudaEvent_t *const ev_y = ws.ring[EV_Y], *const ev_comp = ws.ring[EV_COMP],
                     *const ev_cfree = ws.ring[EV_CFREE], *const ev_x = ws.ring[EV_X];

  CUDA_TRY (cudaEventRecord (ws.t_begin, ws.up), "cudaEventRecord");

  /* Upload state: step uj's part of Bᵀ (phase 0, when new) then its rows of A (phase 1, when
   * first); every upload of the steps before uj is enqueued. */
  int64_t uj = 0;
  int uphase = steps[0].x_new ? 0 : 1;
  cursor ucur = { 0, 0, false };
  unsigned long long up_count = 0, down_count = 0;
  auto next_upload_phase = [&] () {
    /* From (uj, uphase) to the next upload that exists: X if new, else Y if first, else on. */
    for (;;)
      {
        if (uphase == 0)
          uphase = 1;
        else
          {
            uj++;
            uphase = 0;
          }
        if (uj >= N)
          return;
        if ((uphase == 0 && steps[uj].x_new) || (uphase == 1 && steps[uj].y_first))
          return;
      }
  };
  if (!steps[0].x_new && !steps[0].y_first)
    next_upload_phase ();
  /* Compute state. */
  int64_t comp_next = 0;
  /* Download state: step dj's piece of C; the steps of A's rows whose pieces of C are all
   * enqueued; the chunks in flight, oldest first. */
  int64_t dj = 0, dy_done = 0;
  cursor dcur = { 0, 0, false };
  struct in_flight
  {
    int chunk;
    char *host;
    size_t pitch;
    unit u;
  } fifo[MAX_CHUNKS];
  int fifo_head = 0, fifo_count = 0;

  while (dj < N || fifo_count > 0)
    {
      bool progress = false;

      /* 1. Copy out every chunk that has arrived, in order. */
      while (fifo_count > 0)
        {
          const in_flight &f = fifo[fifo_head];
          const cudaError_t q = cudaEventQuery (ws.down_ev[f.chunk]);
          if (q == cudaErrorNotReady)
            break;
          CUDA_TRY (q, "copying C to the host (step %lld)", (long long) dj);
          const auto t0 = std::chrono::steady_clock::now ();
          tilemm_parallel_copy_2d (f.host, f.pitch, down_stage + (size_t) f.chunk * cfg.chunk_bytes,
                                   f.u.len, f.u.len, (size_t) f.u.lines, threads);
          st->copy_out_ms += ms_since (t0);
          fifo_head = (fifo_head + 1) % MAX_CHUNKS;
          fifo_count--;
          progress = true;
        }

      /* 2. Enqueue every kernel whose data is enqueued and whose C slot is free again. */
      while (comp_next < N && uj > comp_next
             && (steps[comp_next].y < S || dy_done > steps[comp_next].y - S))
        {
          const int64_t j = comp_next;
          if (j > 0 && tilemm_stop_requested (stop)) /* between steps; the caller drains */
            return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted before step %lld of %lld",
                                     (long long) j + 1, (long long) N);
          const step &sp = steps[j];
          cudaStream_t s = ws.comp[j % NCOMP];
          CUDA_TRY (cudaStreamWaitEvent (s, ev_x[sp.part], 0), "cudaStreamWaitEvent");
          CUDA_TRY (cudaStreamWaitEvent (s, ev_y[sp.y % RY], 0), "cudaStreamWaitEvent");
          if (sp.y >= S)
            CUDA_TRY (cudaStreamWaitEvent (s, ev_cfree[(sp.y - S) % RY], 0),
                      "cudaStreamWaitEvent");
          if (j == 0)
            CUDA_TRY (cudaEventRecord (ws.t_first, s), "cudaEventRecord");
          status = tilemm_cuda_launch (plan->variant, plan->type,
                                       device_matrix (dev_c (j), sp.rows, sp.cols),
                                       device_matrix (dev_x (j), sp.rows, k),
                                       device_matrix (dev_y (j), k, sp.cols), s, err);
          if (status != TILEMM_OK)
            return status;
          CUDA_TRY (cudaEventRecord (ev_comp[j % RC], s), "cudaEventRecord");
          comp_next++;
          if (comp_next == N) /* the last kernel's end, on stream 0 */
            {
              CUDA_TRY (cudaStreamWaitEvent (ws.comp[0], ev_comp[(N - 1) % RC], 0),
                        "cudaStreamWaitEvent");
              if (N >= 2)
                CUDA_TRY (cudaStreamWaitEvent (ws.comp[0], ev_comp[(N - 2) % RC], 0),
                          "cudaStreamWaitEvent");
              CUDA_TRY (cudaEventRecord (ws.t_last, ws.comp[0]), "cudaEventRecord");
            }
          progress = true;
        }

      /* 3. Enqueue downloads of computed steps into free download chunks. */
      while (dj < N && comp_next > dj && fifo_count < ndown)
        {
          const piece p = c_piece (dj);
          if (!dcur.started)
            {
              CUDA_TRY (cudaStreamWaitEvent (ws.down, ev_comp[dj % RC], 0), "cudaStreamWaitEvent");
              dcur.started = true;
            }
          const int chunk = (int) (down_count % (unsigned long long) ndown);
          const unit u = next_unit (p, dcur, down_unit);
          status = fetch_unit (p, u, chunk, down_stage + (size_t) chunk * cfg.chunk_bytes, st, err);
          if (status != TILEMM_OK)
            return status;
          down_count++;
          fifo[(fifo_head + fifo_count) % MAX_CHUNKS]
            = { chunk, p.host + (size_t) u.line * p.pitch + u.off, p.pitch, u };
          fifo_count++;
          if (dcur.line >= p.lines)
            {
              if (steps[dj].y_last)
                {
                  CUDA_TRY (cudaEventRecord (ev_cfree[steps[dj].y % RY], ws.down),
                            "cudaEventRecord");
                  dy_done = steps[dj].y + 1;
                }
              dj++;
              dcur = { 0, 0, false };
            }
          progress = true;
        }

      /* 4. Stage one more upload chunk, if one is free and its place may be overwritten. */
      if (uj < N)
        {
          const int chunk = (int) (up_count % (unsigned long long) nup);
          const cudaError_t q = cudaEventQuery (ws.up_ev[chunk]);
          if (q != cudaErrorNotReady)
            CUDA_TRY (q, "copying A and B to the device");
          bool go = q == cudaSuccess;
          if (go && !ucur.started)
            {
              /* A part of Bᵀ replaces an earlier panel row's once every kernel reading it is
               * enqueued (the last one on each stream); A's rows y go into slot y % S once
               * every kernel of rows y − S is. */
              if (uphase == 0 && steps[uj].x_reuse)
                {
                  go = comp_next >= uj;
                  if (go)
                    {
                      CUDA_TRY (cudaStreamWaitEvent (ws.up, ev_comp[(uj - 1) % RC], 0),
                                "cudaStreamWaitEvent");
                      if (uj >= 2)
                        CUDA_TRY (cudaStreamWaitEvent (ws.up, ev_comp[(uj - 2) % RC], 0),
                                  "cudaStreamWaitEvent");
                    }
                }
              else if (uphase == 1 && steps[uj].y >= S)
                {
                  const int64_t last = y_begin[(size_t) (steps[uj].y - S + 1)] - 1;
                  go = comp_next > last;
                  if (go)
                    {
                      CUDA_TRY (cudaStreamWaitEvent (ws.up, ev_comp[last % RC], 0),
                                "cudaStreamWaitEvent");
                      if (last - 1 >= y_begin[(size_t) (steps[uj].y - S)])
                        CUDA_TRY (cudaStreamWaitEvent (ws.up, ev_comp[(last - 1) % RC], 0),
                                  "cudaStreamWaitEvent");
                    }
                }
              ucur.started = go;
            }
          if (go)
            {
              const piece p = uphase == 0 ? x_piece (uj) : y_piece (uj);
              const unit u = next_unit (p, ucur, up_unit);
              status = send_unit (p, u, chunk, up_stage + (size_t) chunk * cfg.chunk_bytes,
                                  uphase == 0 ? "B" : "A", st, err);
              if (status != TILEMM_OK)
                return status;
              up_count++;
              if (ucur.line >= p.lines) /* the piece is up: the next one */
                {
                  if (uphase == 0)
                    CUDA_TRY (cudaEventRecord (ev_x[steps[uj].part], ws.up), "cudaEventRecord");
                  else
                    CUDA_TRY (cudaEventRecord (ev_y[steps[uj].y % RY], ws.up), "cudaEventRecord");
                  next_upload_phase ();
                  ucur = { 0, 0, false };
                }
              progress = true;
            }
        }

      if (!progress)
        std::this_thread::yield ();
    }

  /* Every piece of C is in place; errors inside a kernel show here at the latest. */
  CUDA_TRY (cudaEventSynchronize (ws.t_last), "running CUDA kernel variant %d for %s",
            plan->variant, tilemm_type_name (plan->type));
  cudaStream_t *streams[] = { &ws.up, &ws.down, &ws.comp[0], &ws.comp[1] };
  for (cudaStream_t *s : streams)
    CUDA_TRY (cudaStreamSynchronize (*s), "cudaStreamSynchronize");
  float up_ms = 0, comp_ms = 0;
  CUDA_TRY (cudaEventElapsedTime (&up_ms, ws.t_begin, ws.t_first), "cudaEventElapsedTime");
  CUDA_TRY (cudaEventElapsedTime (&comp_ms, ws.t_first, ws.t_last), "cudaEventElapsedTime");
  st->upload_ms = up_ms;
  st->compute_ms = comp_ms;
  {
    const auto t0 = std::chrono::steady_clock::now ();
    tilemm_prefault_finish (prefault.p);
    prefault.p = nullptr;
    st->result_prep_ms += ms_since (t0);
  }
  return TILEMM_OK;
}

/* k = 0: C is zeros (all-bits-zero is +0 in every element type); no GPU work needed. */
void zero_columns (const tilemm_view *c)
{
  const size_t es = tilemm_type_size (c->type);
  for (int64_t j = 0; j < c->cols; j++)
    memset ((char *) c->data + (size_t) (j * c->stride) * es, 0, (size_t) c->rows * es);
}


/* ---------------------------------------------------------------- the emulated precision */

/* A whole view into packed device memory through the pinned upload chunks: host threads fill a
 * chunk while the copy engine sends the ones before it.  Enqueued on ws.up. */
tilemm_status stage_up (const tilemm_view &v, void *dev, tilemm_cuda_stats *st, tilemm_error *err)
{
  const settings &cfg = config ();
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
      const tilemm_status status = send_unit (p, u, chunk, stage, "an operand", st, err);
      if (status != TILEMM_OK)
        return status;
    }
  return TILEMM_OK;
}

/* Packed device memory into a whole view through the pinned download chunks, once `ready` has
 * happened: the copy engine brings the next chunks while host threads empty the oldest. */
tilemm_status stage_down (void *dev, const tilemm_view &v, cudaEvent_t ready, tilemm_cuda_stats *st,
                          tilemm_error *err)
{
  const settings &cfg = config ();
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
            = fetch_unit (p, u, chunk, stage + (size_t) chunk * cfg.chunk_bytes, st, err);
          if (status != TILEMM_OK)
            return status;
          fifo[(head + count++) % MAX_CHUNKS] = { chunk, u };
        }
      const in_flight f = fifo[head];
      head = (head + 1) % MAX_CHUNKS;
      count--;
      CUDA_TRY (cudaEventSynchronize (ws.down_ev[f.chunk]), "copying C to the host");
      const auto t0 = std::chrono::steady_clock::now ();
      tilemm_parallel_copy_2d (p.host + (size_t) f.u.line * p.pitch + f.u.off, p.pitch,
                               stage + (size_t) f.chunk * cfg.chunk_bytes, f.u.len, f.u.len,
                               (size_t) f.u.lines, cfg.copy_threads);
      st->copy_out_ms += ms_since (t0);
    }
  return TILEMM_OK;
}

/* One panel of an emulated product (emulated.h) on the calling thread's workspace: A and B go up
 * through the pinned staging into the workspace's buffers, the scheme runs on the device in the
 * workspace's arena, C comes back through the staging in column blocks, each as soon as the
 * device has finished it (tilemm_emu_result_block_cols), while the device computes the next.  pass NULL: the whole scheme (statistics,
 * the plan, the product; *used gets the plan); else pass->kind says: the statistics only, merged
 * into *stats, or the product under pass->plan. */
tilemm_status emu_panel (const tilemm_emu_options *options, const tilemm_emu_pass *pass,
                         const tilemm_view *a, const tilemm_view *b, const tilemm_view *c,
                         const tilemm_stop *stop, tilemm_emu_stats *stats, tilemm_emu_plan *used,
                         tilemm_cuda_stats *st, tilemm_error *err)
{
  const tilemm_type type = a->type;
  const size_t es = tilemm_type_size (type);
  const int64_t m = a->rows, k = a->cols, n = b->cols, ka = k > 0 ? k : 1;
  const bool stats_only = pass && pass->kind == TILEMM_EMU_PASS_STATS;
  memset (used, 0, sizeof *used);
  if (m == 0 || n == 0)
    return TILEMM_OK;
  const size_t bytes[NBUF] = { es * (size_t) ka * (size_t) n, es * (size_t) m * (size_t) ka,
                               stats_only ? 0 : es * (size_t) m * (size_t) n, 0, 0 };
  /* C's blocks: one event each, from the ring the pipeline's steps use. */
  const int64_t block_cols = tilemm_emu_result_block_cols (type, m, n, config ().chunk_bytes);
  const int blocks = (int) ((n + block_cols - 1) / block_cols);
  tilemm_status status = workspace_reserve (bytes, (size_t) blocks, err);
  if (status != TILEMM_OK)
    return status;
  void *const dB = ws.buffer[BUF_X], *const dA = ws.buffer[BUF_Y], *const dC = ws.buffer[BUF_C];
  const tilemm_emu_cuda_blocks c_blocks = { block_cols, (void *const *) ws.ring[EV_COMP],
                                            (int) ws.ring_size };
  st->panels++;
  /* The split of __tilemm_stats__, on the host clock: until the last upload is enqueued, the
   * scheme until its last block is enqueued (it waits for the tail of the uploads and for the
   * statistics), C coming back (while the device computes its later blocks). */
  auto t0 = std::chrono::steady_clock::now ();
  if (k > 0 && ((status = stage_up (*a, dA, st, err)) != TILEMM_OK
                || (status = stage_up (*b, dB, st, err)) != TILEMM_OK))
    return status;
  st->upload_ms += ms_since (t0);
  t0 = std::chrono::steady_clock::now ();
  /* The host waits from here until C's first block is done: C's pages are faulted in meanwhile. */
  prefault_guard prefault;
  if (!stats_only)
    prefault.p = prepare_result (c, st, idle_prefault_threads ());
  cudaStream_t s = ws.comp[0];
  CUDA_TRY (cudaEventRecord (ws.t_begin, ws.up), "cudaEventRecord");
  CUDA_TRY (cudaStreamWaitEvent (s, ws.t_begin, 0), "cudaStreamWaitEvent");
  const int64_t ld = m > 1 ? m : 1;
  if (!pass)
    status = tilemm_emu_cuda_run (options, type, m, n, k, dA, ld, dB, ka, dC, ld, s, stop, used,
                                  nullptr, nullptr, &ws.emu, &c_blocks, err);
  else if (stats_only)
    {
      tilemm_emu_stats mine;
      status = tilemm_emu_cuda_stats (&pass->options, type, m, n, k, dA, ld, dB, ka, s, &mine,
                                      &ws.emu, err);
      if (status == TILEMM_OK)
        tilemm_emu_stats_merge (stats, &mine);
    }
  else
    status = tilemm_emu_cuda_run_plan (&pass->plan, type, m, n, k, dA, ld, dB, ka, dC, ld, s, stop,
                                       used, nullptr, &ws.emu, &c_blocks, err);
  st->compute_ms += ms_since (t0);
  if (status != TILEMM_OK || stats_only || used->verdict != TILEMM_EMU_OK)
    return status;
  t0 = std::chrono::steady_clock::now ();
  tilemm_prefault_finish (prefault.p);
  prefault.p = nullptr;
  for (int j = 0; j < blocks && status == TILEMM_OK; j++)
    {
      if (j > 0 && tilemm_stop_requested (stop)) /* the device's work is drained by the caller */
        status = tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted");
      else
        {
          const int64_t j0 = j * block_cols, cols = n - j0 < block_cols ? n - j0 : block_cols;
          const tilemm_view cj = tilemm_view_sub (c, 0, j0, m, cols);
          status = stage_down ((char *) dC + (size_t) j0 * (size_t) ld * es, cj, ws.ring[EV_COMP][j],
                               st, err);
        }
    }
  st->download_ms += ms_since (t0);
  return status;
}

/* ---------------------------------------------------------------- transposed operands */

/* op(x), packed, of an operand uploaded as stored into buffer `stored`: that buffer itself, or its
 * transpose (conjugated for 'C') made in buffer `transposed` on stream s. */
tilemm_status operand_on_device (tilemm_op op, const tilemm_view *x, int stored, int transposed,
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

/* C = op_a(A)·op_b(B) for one panel on the calling thread's workspace.  The tiled kernels read
 * op(A) and op(B) in one layout only, so a transposed operand goes up exactly as stored (through
 * the pinned staging, as every operand) and is transposed, conjugated for 'C', on the device by
 * transpose.cu, an O(n²) pass beside the O(n³) product; the product is one launch of the plan's
 * variant, and C comes back through the staging.  No steps: the panel's A, B, their transposes
 * and C are on the device at once (the plan's panels, or the workers' queue, keep them small). */
tilemm_status op_panel (const tilemm_plan *plan, tilemm_op op_a, const tilemm_view *a,
                        tilemm_op op_b, const tilemm_view *b, const tilemm_view *c,
                        tilemm_cuda_stats *st, tilemm_error *err)
{
  const size_t es = tilemm_type_size (plan->type);
  const int64_t m = plan->m, n = plan->n, k = plan->k;
  const size_t a_bytes = es * (size_t) a->rows * (size_t) a->cols;
  const size_t b_bytes = es * (size_t) b->rows * (size_t) b->cols;
  const size_t bytes[NBUF] = { b_bytes, a_bytes, es * (size_t) m * (size_t) n,
                               op_b != TILEMM_OP_NONE ? b_bytes : 0,
                               op_a != TILEMM_OP_NONE ? a_bytes : 0 };
  tilemm_status status = workspace_reserve (bytes, 1, err);
  if (status != TILEMM_OK)
    return status;
  st->panels++;
  st->steps++;
  auto t0 = std::chrono::steady_clock::now ();
  if ((status = stage_up (*a, ws.buffer[BUF_Y], st, err)) != TILEMM_OK
      || (status = stage_up (*b, ws.buffer[BUF_X], st, err)) != TILEMM_OK)
    return status;
  st->upload_ms += ms_since (t0);
  t0 = std::chrono::steady_clock::now ();
  /* The host waits for the device from here: C's pages are faulted in meanwhile. */
  prefault_guard prefault;
  prefault.p = prepare_result (c, st, idle_prefault_threads ());
  cudaStream_t s = ws.comp[0];
  CUDA_TRY (cudaEventRecord (ws.t_begin, ws.up), "cudaEventRecord");
  CUDA_TRY (cudaStreamWaitEvent (s, ws.t_begin, 0), "cudaStreamWaitEvent");
  const void *a_ready, *b_ready;
  if ((status = operand_on_device (op_a, a, BUF_Y, BUF_YT, s, &a_ready, err)) != TILEMM_OK
      || (status = operand_on_device (op_b, b, BUF_X, BUF_XT, s, &b_ready, err)) != TILEMM_OK)
    return status;
  /* Cᵀ (n×m) = op(B)ᵀ (n×k) · op(A)ᵀ (k×m): the row-major readings of the packed buffers. */
  status = tilemm_cuda_launch (plan->variant, plan->type, device_matrix (ws.buffer[BUF_C], n, m),
                               device_matrix ((void *) b_ready, n, k),
                               device_matrix ((void *) a_ready, k, m), s, err);
  if (status != TILEMM_OK)
    return status;
  CUDA_TRY (cudaEventRecord (ws.t_last, s), "cudaEventRecord");
  tilemm_prefault_finish (prefault.p);
  prefault.p = nullptr;
  status = stage_down (ws.buffer[BUF_C], *c, ws.t_last, st, err);
  st->compute_ms += ms_since (t0);
  return status;
}

/* Runs one product on the calling thread's workspace (product: tilemm_status (tilemm_cuda_stats *))
 * and keeps its figures as the last product's (__tilemm_stats__).  After a stop the workspace
 * is drained and kept; after a failure it is freed (a broken context reset), so the next call
 * starts clean.  download_is_the_rest: the product times only its uploads and compute, and the
 * download is what is left of the total. */
template <typename Product>
tilemm_status recorded_product (Product product, bool download_is_the_rest)
{
  const auto t0 = std::chrono::steady_clock::now ();
  tilemm_cuda_stats st;
  memset (&st, 0, sizeof st);
  st.calls = last_stats.calls + 1;
  const tilemm_status status = product (&st);
  if (status == TILEMM_EINTERRUPTED)
    workspace_drain ();
  else if (status != TILEMM_OK)
    workspace_recover ();
  st.ok = status == TILEMM_OK;
  st.total_ms = ms_since (t0);
  if (download_is_the_rest)
    st.download_ms = st.ok ? st.total_ms - st.upload_ms - st.compute_ms : 0;
  last_stats = st;
  return status;
}

/* The host-view entry points' common frame: one device, in turn with every other product. */
tilemm_status emu_entry (const tilemm_emu_options *options, const tilemm_emu_pass *pass,
                         const tilemm_view *a, const tilemm_view *b, const tilemm_view *c,
                         const tilemm_stop *stop, tilemm_emu_stats *stats, tilemm_emu_plan *used,
                         tilemm_error *err)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  tilemm_fault_begin ();
  tilemm_status status = probe (err);
  if (status != TILEMM_OK)
    return status;
  if (!a || !b || (!c && !(pass && pass->kind == TILEMM_EMU_PASS_STATS)))
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: null argument");
  if (a->cols != b->rows || b->type != a->type
      || (c && (c->rows != a->rows || c->cols != b->cols || c->type != a->type)))
    return tilemm_error_set (err, TILEMM_ESHAPE, "emulated product: operands do not match");
  return recorded_product (
    [&] (tilemm_cuda_stats *st) {
      return emu_panel (options, pass, a, b, c, stop, stats, used, st, err);
    },
    false);
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

/* ---------------------------------------------------------------- several workers (multi.h) */

/* Frees worker w's workspace on its own device, from the calling thread, and comes back to the
 * thread's device and workspace.  Errors ignored, as in workspace_free. */
void pool_free (int w)
{
  workspace *const saved = ws_now;
  ws_now = &ws_pool[w];
  if (ws.device >= 0)
    {
      int current = -1;
      const bool known = cudaGetDevice (&current) == cudaSuccess;
      if (current == ws.device || cudaSetDevice (ws.device) == cudaSuccess)
        workspace_free ();
      if (known && current >= 0)
        cudaSetDevice (current);
    }
  ws_now = saved;
  cudaGetLastError ();
}

void pool_free_all (void)
{
  for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
    pool_free (w);
}

/* Device bytes one worker may use on `device` when `sharing` workers share it: the device's free
 * memory plus what tilemm's workspaces hold there, less the driver's margin (as
 * tilemm_cuda_memory_budget), split evenly.  0 when it cannot be asked. */
size_t worker_budget (int device, int sharing)
{
  int current = -1;
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaGetDevice (&current) != cudaSuccess || cudaSetDevice (device) != cudaSuccess
      || cudaMemGetInfo (&free_bytes, &total_bytes) != cudaSuccess)
    {
      cudaGetLastError ();
      if (current >= 0)
        cudaSetDevice (current);
      return 0;
    }
  cudaSetDevice (current);
  size_t usable = free_bytes;
  for (const workspace &w : ws_pool)
    if (w.device == device)
      usable += workspace_bytes (w);
  size_t margin = total_bytes / 20;
  if (margin < ((size_t) 256 << 20))
    margin = (size_t) 256 << 20;
  const size_t share = usable > margin ? (usable - margin) / (size_t) (sharing > 0 ? sharing : 1)
                                       : 1;
  return share > 0 ? share : 1;
}

/* What each worker's thread accumulates. */
struct workers_ctx
{
  tilemm_cuda_stats st[TILEMM_MAX_WORKERS];
  tilemm_emu_pass *emu; /* an emulated product's pass, or NULL for the native product */
};

/* On the worker's thread: its own workspace, its device. */
tilemm_status worker_start (void *, int worker, int device, tilemm_error *err)
{
  ws_now = &ws_pool[worker];
  CUDA_TRY (cudaSetDevice (device), "cudaSetDevice(%d)", device);
  return TILEMM_OK;
}

/* One panel: the one-device pipeline, on the worker's workspace and streams. */
tilemm_status worker_panel (void *p, int worker, int, const tilemm_plan *sub, tilemm_op op_a,
                            const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                            const tilemm_view *c, tilemm_error *err)
{
  workers_ctx *ctx = (workers_ctx *) p;
  if (op_a != TILEMM_OP_NONE || op_b != TILEMM_OP_NONE)
    return op_panel (sub, op_a, a, op_b, b, c, &ctx->st[worker], err);
  if (ctx->emu) /* the panel whole (its plan's own panels are the native product's) */
    {
      const tilemm_stop stopping = { tilemm_multi_stopping, NULL };
      tilemm_emu_plan used;
      return emu_panel (nullptr, ctx->emu, a, b, c, &stopping, &ctx->emu->stats[worker], &used,
                        &ctx->st[worker], err);
    }
  /* Not stoppable part way: a worker thread must not poll the host (its stop callback may read
   * the host's state, which is the calling thread's); a stop is seen after the product. */
  return run_pipeline (sub, a, b, c, NULL, &ctx->st[worker], err);
}

/* After all workers stopped: a failed product frees every worker's workspace (kept otherwise,
 * so the next product allocates nothing). */
void worker_finish (void *, int worker, int, int failed)
{
  if (failed)
    pool_free (worker);
}

} /* namespace */

/* ---------------------------------------------------------------- backend.h */

extern "C" {

int tilemm_cuda_built (void)
{
  return 1;
}

tilemm_status tilemm_cuda_probe (tilemm_error *err)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  return probe (err);
}

int tilemm_cuda_device_count (void)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  int count = 0;
  if (probe (NULL) != TILEMM_OK || cudaGetDeviceCount (&count) != cudaSuccess)
    {
      cudaGetLastError ();
      return 0;
    }
  return count;
}

int tilemm_cuda_current_device (void)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  int device = -1;
  if (probe (NULL) != TILEMM_OK || cudaGetDevice (&device) != cudaSuccess)
    {
      cudaGetLastError ();
      return -1;
    }
  return device;
}

tilemm_status tilemm_cuda_device_info (int index, tilemm_device_info *info, tilemm_error *err)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  tilemm_status status = probe (err);
  if (status != TILEMM_OK)
    return status;
  int count = 0, current = 0;
  cudaDeviceProp prop;
  auto query = [&] () -> tilemm_status {
    CUDA_TRY (cudaGetDeviceCount (&count), "cudaGetDeviceCount");
    if (!info || index < 0 || index >= count)
      return tilemm_error_set (err, TILEMM_EINVAL, "no CUDA device %d (there are %d)", index,
                               count);
    CUDA_TRY (cudaGetDeviceProperties (&prop, index), "cudaGetDeviceProperties(%d)", index);
    memset (info, 0, sizeof *info);
    info->index = index;
    memcpy (info->name, prop.name, sizeof info->name - 1); /* both 256 bytes */
    info->name[sizeof info->name - 1] = '\0';
    info->total_memory = prop.totalGlobalMem;
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->multiprocessors = prop.multiProcessorCount;
    /* Free memory is a per-device query: visit the device, then come back. */
    CUDA_TRY (cudaGetDevice (&current), "cudaGetDevice");
    if (current != index)
      CUDA_TRY (cudaSetDevice (index), "cudaSetDevice(%d)", index);
    size_t free_bytes = 0, total_bytes = 0;
    const cudaError_t e = cudaMemGetInfo (&free_bytes, &total_bytes);
    if (current != index)
      CUDA_TRY (cudaSetDevice (current), "cudaSetDevice(%d)", current);
    CUDA_TRY (e, "cudaMemGetInfo(device %d)", index);
    info->free_memory = free_bytes;
    return tilemm_error_set (err, TILEMM_OK, NULL);
  };
  status = query ();
  if (status != TILEMM_OK)
    cudaGetLastError ();
  return status;
}

tilemm_status tilemm_cuda_multiply (const tilemm_plan *plan, const tilemm_view *a,
                                    const tilemm_view *b, const tilemm_view *c,
                                    const tilemm_stop *stop, tilemm_error *err)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  tilemm_fault_begin (); /* TILEMM_FAULT, a test hook: read per product (fault.h) */
  tilemm_status status = probe (err);
  if (status != TILEMM_OK)
    return status;
  if (!plan || !a || !b || !c)
    return tilemm_error_set (err, TILEMM_EINVAL, "tilemm_cuda_multiply: null argument");
  if (plan->panel_rows < 1 || plan->panel_cols < 1)
    return tilemm_error_set (err, TILEMM_EINVAL, "plan with empty panels (%lld x %lld)",
                             (long long) plan->panel_rows, (long long) plan->panel_cols);
  bool done;
  status = entry_checks (plan, c, &done, err);
  if (done)
    return status;
  return recorded_product (
    [&] (tilemm_cuda_stats *st) { return run_pipeline (plan, a, b, c, stop, st, err); }, true);
}

void tilemm_cuda_release (void)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  pool_free_all ();
}

size_t tilemm_cuda_bytes_held (void)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  size_t held = 0;
  for (const workspace &w : ws_pool) /* every worker's */
    held += workspace_bytes (w);
  return held;
}

size_t tilemm_cuda_pinned_bytes_held (void)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  size_t held = 0;
  for (const workspace &w : ws_pool) /* every worker's */
    held += w.pinned_bytes;
  return held;
}

size_t tilemm_cuda_memory_budget (void)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  size_t free_bytes = 0, total_bytes = 0;
  if (probe (NULL) != TILEMM_OK || cudaMemGetInfo (&free_bytes, &total_bytes) != cudaSuccess)
    {
      cudaGetLastError ();
      return 0;
    }
  size_t usable = free_bytes + workspace_bytes (ws);
  /* Room for the driver, other libraries and fragmentation: 5% of the card, 256 MiB at least. */
  size_t margin = total_bytes / 20;
  if (margin < ((size_t) 256 << 20))
    margin = (size_t) 256 << 20;
  return usable > margin ? usable - margin : 1;
}

void tilemm_cuda_last_stats (tilemm_cuda_stats *stats)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  if (stats)
    *stats = last_stats;
}


/* ---------------------------------------------------------------- several workers (multi.h) */

int tilemm_cuda_usable_devices (tilemm_workers *workers)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  /* Asked once, like the probe (the devices a process sees do not change): every GPU product
   * asks, and a properties query costs far more than a small product may take. */
  static tilemm_workers usable;
  static bool asked = false;
  workers->count = 0;
  int count = 0;
  if (probe (NULL) != TILEMM_OK)
    return 0;
  if (!asked)
    {
      usable.count = 0;
      if (cudaGetDeviceCount (&count) != cudaSuccess)
        count = 0;
      for (int d = 0; d < count && usable.count < TILEMM_MAX_WORKERS; d++)
        {
          cudaDeviceProp prop;
          if (cudaGetDeviceProperties (&prop, d) == cudaSuccess
              && prop.major * 10 + prop.minor >= TILEMM_CUDA_MIN_CC)
            usable.device[usable.count++] = d;
        }
      cudaGetLastError ();
      asked = true;
    }
  *workers = usable;
  return workers->count;
}

static tilemm_status multiply_workers (const tilemm_plan *plan, const tilemm_limits *limits,
                                       const tilemm_workers *workers, int named,
                                       tilemm_emu_pass *emu, tilemm_op op_a, const tilemm_view *a,
                                       tilemm_op op_b, const tilemm_view *b, const tilemm_view *c,
                                       const tilemm_stop *stop, tilemm_multi_report *report,
                                       tilemm_error *err);

tilemm_status tilemm_cuda_multiply_workers (const tilemm_plan *plan, const tilemm_limits *limits,
                                            const tilemm_workers *workers, int named,
                                            const tilemm_view *a, const tilemm_view *b,
                                            const tilemm_view *c, const tilemm_stop *stop,
                                            tilemm_multi_report *report, tilemm_error *err)
{
  return multiply_workers (plan, limits, workers, named, nullptr, TILEMM_OP_NONE, a,
                           TILEMM_OP_NONE, b, c, stop, report, err);
}

tilemm_status tilemm_cuda_multiply_workers_op (const tilemm_plan *plan,
                                               const tilemm_limits *limits,
                                               const tilemm_workers *workers, int named,
                                               tilemm_op op_a, const tilemm_view *a,
                                               tilemm_op op_b, const tilemm_view *b,
                                               const tilemm_view *c, const tilemm_stop *stop,
                                               tilemm_multi_report *report, tilemm_error *err)
{
  return multiply_workers (plan, limits, workers, named, nullptr, op_a, a, op_b, b, c, stop,
                           report, err);
}

tilemm_status tilemm_cuda_multiply_op (const tilemm_plan *plan, tilemm_op op_a,
                                       const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                                       const tilemm_view *c, tilemm_error *err)
{
  if (!plan || !a || !b || !c)
    return tilemm_error_set (err, TILEMM_EINVAL, "tilemm_cuda_multiply_op: null argument");
  if (op_a == TILEMM_OP_NONE && op_b == TILEMM_OP_NONE)
    return tilemm_cuda_multiply (plan, a, b, c, NULL, err);
  std::lock_guard<std::mutex> lock (ws_mutex);
  tilemm_fault_begin ();
  bool done;
  tilemm_status status = entry_checks (plan, c, &done, err);
  if (done)
    return status;
  return recorded_product (
    [&] (tilemm_cuda_stats *st) { return op_panel (plan, op_a, a, op_b, b, c, st, err); }, false);
}

tilemm_status tilemm_cuda_emu_workers (const tilemm_plan *queue, const tilemm_limits *limits,
                                       const tilemm_workers *workers, tilemm_emu_pass *pass,
                                       const tilemm_view *a, const tilemm_view *b,
                                       const tilemm_view *c, const tilemm_stop *stop,
                                       tilemm_multi_report *report, tilemm_error *err)
{
  if (!pass)
    return tilemm_error_set (err, TILEMM_EINVAL, "tilemm_cuda_emu_workers: no pass");
  return multiply_workers (queue, limits, workers, 1, pass, TILEMM_OP_NONE, a, TILEMM_OP_NONE, b,
                           c, stop, report, err);
}

tilemm_status tilemm_cuda_multiply_emulated (const tilemm_plan *plan,
                                             const tilemm_emu_options *options,
                                             const tilemm_view *a, const tilemm_view *b,
                                             const tilemm_view *c, const tilemm_stop *stop,
                                             tilemm_emu_plan *used, tilemm_error *err)
{
  (void) plan; /* one panel, whole: the plan's panels are the native product's */
  tilemm_emu_plan local;
  return emu_entry (options, nullptr, a, b, c, stop, nullptr, used ? used : &local, err);
}

tilemm_status tilemm_cuda_emu_panel (tilemm_emu_pass *pass, const tilemm_view *a,
                                     const tilemm_view *b, const tilemm_view *c,
                                     const tilemm_stop *stop, tilemm_emu_plan *used,
                                     tilemm_error *err)
{
  if (!pass)
    return tilemm_error_set (err, TILEMM_EINVAL, "tilemm_cuda_emu_panel: no pass");
  tilemm_emu_plan local;
  return emu_entry (nullptr, pass, a, b, c, stop, &pass->stats[0], used ? used : &local, err);
}

static tilemm_status multiply_workers (const tilemm_plan *plan, const tilemm_limits *limits,
                                       const tilemm_workers *workers, int named,
                                       tilemm_emu_pass *emu, tilemm_op op_a, const tilemm_view *a,
                                       tilemm_op op_b, const tilemm_view *b, const tilemm_view *c,
                                       const tilemm_stop *stop, tilemm_multi_report *report,
                                       tilemm_error *err)
{
  if (report)
    {
      memset (report, 0, sizeof *report);
      report->workers = 1;
      report->failed_worker = -1;
    }
  if (!plan || !workers || workers->count < 1 || workers->count > TILEMM_MAX_WORKERS)
    return tilemm_error_set (err, TILEMM_EINVAL, "tilemm_cuda_multiply_workers: bad arguments");
  tilemm_plan queue = *plan;
  tilemm_workers use = *workers;
  if (!emu) /* an emulated pass comes with its queue (emulated_panels.c) */
    {
      use.count = tilemm_plan_workers (&queue, plan, workers->count, named);
      /* One worker on the caller's device (or any, when none was named): the one-device path. */
      if (use.count <= 1 && (!named || workers->device[0] == tilemm_cuda_current_device ()))
        return op_a == TILEMM_OP_NONE && op_b == TILEMM_OP_NONE
                 ? tilemm_cuda_multiply (plan, a, b, c, stop, err)
                 : tilemm_cuda_multiply_op (plan, op_a, a, op_b, b, c, err);
    }

  std::lock_guard<std::mutex> lock (ws_mutex);
  bool done;
  tilemm_status status = entry_checks (plan, c, &done, err);
  if (done)
    return status;
  int caller_device = 0;
  CUDA_TRY (cudaGetDevice (&caller_device), "cudaGetDevice");
  /* Each panel's plan fits its worker's share of its device (and the caller's limit). */
  tilemm_limits panel_limits = { limits ? limits->max_device_bytes : 0 };
  for (int w = 0; w < use.count; w++)
    {
      int sharing = 0;
      for (int v = 0; v < use.count; v++)
        sharing += use.device[v] == use.device[w];
      const size_t share = worker_budget (use.device[w], sharing);
      if (share > 0 && (panel_limits.max_device_bytes == 0 || share < panel_limits.max_device_bytes))
        panel_limits.max_device_bytes = share;
    }
  const auto t0 = std::chrono::steady_clock::now ();
  workers_ctx *ctx = (workers_ctx *) calloc (1, sizeof (workers_ctx));
  if (!ctx)
    return tilemm_error_set (err, TILEMM_ENOMEM, "no memory for the workers' statistics");
  ctx->emu = emu;
  const tilemm_device_ops ops = { "GPU", worker_start, worker_panel, worker_finish };
  status = tilemm_multi_run (&queue, &panel_limits, &use, &ops, ctx, op_a, a, op_b, b, c, report,
                             err);
  if (status != TILEMM_OK)
    {
      /* Every workspace is freed (worker_finish; and those of earlier products' workers, which
       * a reset would orphan); a context broken for good is reset. */
      pool_free_all ();
      for (int w = 0; w < use.count; w++)
        if (cudaSetDevice (use.device[w]) == cudaSuccess && cudaDeviceSynchronize () != cudaSuccess)
          cudaDeviceReset ();
      cudaGetLastError ();
    }
  cudaSetDevice (caller_device);
  cudaGetLastError ();
  /* The statistics of the whole product: the workers' sums.  Their copies and kernels overlap
   * across devices, so the split into upload/compute/download is not kept (zero). */
  tilemm_cuda_stats st;
  memset (&st, 0, sizeof st);
  st.calls = last_stats.calls + 1;
  for (int w = 0; w < use.count; w++)
    {
      st.copy_in_ms += ctx->st[w].copy_in_ms;
      st.copy_out_ms += ctx->st[w].copy_out_ms;
      st.result_prep_ms += ctx->st[w].result_prep_ms;
      st.bytes_up += ctx->st[w].bytes_up;
      st.bytes_down += ctx->st[w].bytes_down;
      st.panels += ctx->st[w].panels;
      st.steps += ctx->st[w].steps;
    }
  free (ctx);
  st.ok = status == TILEMM_OK;
  st.total_ms = ms_since (t0);
  last_stats = st;
  return status;
}

} /* extern "C" */
