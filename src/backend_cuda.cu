/* backend_cuda.cu — the CUDA backend: is there a GPU, what is it, and C = A·B on it for host views.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Replaces backend_nocuda.c in builds with CUDA (same functions, see backend.h).
 *
 * One product, on the untouched column-major buffers, is the row-major product Cᵀ = Bᵀ·Aᵀ
 * (tilemm.h).  The plan cuts Cᵀ into panels; a panel needs a row-block of Bᵀ (columns of B), a
 * column-block of Aᵀ (rows of A) and gives a block of Cᵀ.  Each piece is uploaded PACKED
 * (cudaMemcpy2DAsync with the host stride as source pitch and the width as destination pitch:
 * the same bytes in the same order, the gaps between columns left behind), the plan's kernel
 * variant runs, and the block of Cᵀ comes back into C at C's own stride, never touching the
 * elements between C's rows and its stride.  Operand panels already on the device are reused.
 *
 * State kept between calls: the probe's answer, one stream and three device buffers (B's panel,
 * A's panel, C's panel), created on first use and grown only, so repeated products allocate
 * nothing.  On ANY failure everything is freed, the error cleared, and a broken context (a
 * "sticky" error such as an illegal address) reset, so the next call starts clean.  A mutex makes
 * concurrent calls safe (they take turns).
 *
 * Not yet: pinned staging and copy/compute overlap (a later issue).
 */
#include <cuda_runtime_api.h>

#include <mutex>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "kernels.h"
#include "tilemm.h"

/* The oldest GPU the build's kernels can run on: sm_75 (CUDA 13 dropped sm_70). */
#ifndef TILEMM_CUDA_MIN_CC
#define TILEMM_CUDA_MIN_CC 75
#endif

namespace {

/* ---------------------------------------------------------------- errors */

/* Records a failed CUDA call: "<what>: <CUDA's message>", TILEMM_EDEVMEM for an allocation
 * failure and TILEMM_ECUDA for anything else. */
tilemm_status cuda_failure (tilemm_error *err, cudaError_t e, const char *what_fmt, ...)
{
  char what[256];
  va_list ap;
  va_start (ap, what_fmt);
  vsnprintf (what, sizeof what, what_fmt, ap);
  va_end (ap);
  const tilemm_status status = e == cudaErrorMemoryAllocation ? TILEMM_EDEVMEM : TILEMM_ECUDA;
  return tilemm_error_set (err, status, "%s: %s", what, cudaGetErrorString (e));
}

/* Every CUDA call goes through this: on failure, record it and return from the function. */
#define CUDA_TRY(call, ...)                                                                 \
  do                                                                                        \
    {                                                                                       \
      const cudaError_t cuda_try_e_ = (call);                                               \
      if (cuda_try_e_ != cudaSuccess)                                                       \
        return cuda_failure (err, cuda_try_e_, __VA_ARGS__);                                \
    }                                                                                       \
  while (0)

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

/* ---------------------------------------------------------------- the workspace */

enum { BUF_X, BUF_Y, BUF_C, NBUF };
const char *const buffer_name[NBUF] = { "dX (panel of B)", "dY (panel of A)", "dC (panel of C)" };

/* The stream and buffers kept between calls, on device `device`. */
struct workspace
{
  int device;
  cudaStream_t stream;
  void *buffer[NBUF];
  size_t capacity[NBUF];
};

workspace ws = { -1, nullptr, { nullptr, nullptr, nullptr }, { 0, 0, 0 } };
std::mutex ws_mutex;

/* Frees everything, ignoring errors (a broken context refuses to free; the reset reclaims it). */
void workspace_free (void)
{
  for (int i = 0; i < NBUF; i++)
    {
      if (ws.buffer[i])
        cudaFree (ws.buffer[i]);
      ws.buffer[i] = nullptr;
      ws.capacity[i] = 0;
    }
  if (ws.stream)
    cudaStreamDestroy (ws.stream);
  ws.stream = nullptr;
  ws.device = -1;
  cudaGetLastError ();
}

/* After any failure: free everything, clear the error, and when the context is broken for good
 * (every call answers the same sticky error) reset the device so the next call works. */
void workspace_recover (void)
{
  workspace_free ();
  if (cudaDeviceSynchronize () != cudaSuccess)
    {
      cudaDeviceReset ();
      cudaGetLastError ();
    }
}

/* Makes sure the stream exists on the current device and buffer i holds at least bytes[i]. */
tilemm_status workspace_reserve (const size_t bytes[NBUF], tilemm_error *err)
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
  if (!ws.stream)
    CUDA_TRY (cudaStreamCreateWithFlags (&ws.stream, cudaStreamNonBlocking), "cudaStreamCreate");
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
      CUDA_TRY (cudaMalloc (&ws.buffer[i], bytes[i]), "cudaMalloc(%s, %zu bytes)", buffer_name[i],
                bytes[i]);
      ws.capacity[i] = bytes[i];
    }
  return TILEMM_OK;
}

/* ---------------------------------------------------------------- one product */

/* Host view -> packed device copy of its row-major reading (pitch = width). */
tilemm_status upload (void *device, const tilemm_view *host, const char *name, size_t elem,
                      tilemm_error *err)
{
  const tilemm_matrix r = tilemm_row_major_reading (host);
  CUDA_TRY (cudaMemcpy2DAsync (device, (size_t) r.width * elem, r.elements,
                               (size_t) r.stride * elem, (size_t) r.width * elem,
                               (size_t) r.height, cudaMemcpyHostToDevice, ws.stream),
            "cudaMemcpy2DAsync(%s, %lld rows of %zu bytes, host to device)", name,
            (long long) r.height, (size_t) r.width * elem);
  return TILEMM_OK;
}

/* Packed device block of Cᵀ -> host view of C at its own stride (gaps untouched). */
tilemm_status download (const tilemm_view *host, const void *device, size_t elem, tilemm_error *err)
{
  const tilemm_matrix r = tilemm_row_major_reading (host);
  CUDA_TRY (cudaMemcpy2DAsync (r.elements, (size_t) r.stride * elem, device,
                               (size_t) r.width * elem, (size_t) r.width * elem,
                               (size_t) r.height, cudaMemcpyDeviceToHost, ws.stream),
            "cudaMemcpy2DAsync(C, %lld rows of %zu bytes, device to host)", (long long) r.height,
            (size_t) r.width * elem);
  return TILEMM_OK;
}

tilemm_matrix device_matrix (void *elements, int64_t height, int64_t width)
{
  tilemm_matrix m = { height, width, width > 0 ? width : 1, elements };
  return m;
}

tilemm_status multiply_panels (const tilemm_plan *plan, const tilemm_view *a, const tilemm_view *b,
                               const tilemm_view *c, tilemm_error *err)
{
  const size_t es = tilemm_type_size (plan->type);
  const int64_t k = plan->k;
  const int64_t prow = plan->panel_rows < plan->n ? plan->panel_rows : plan->n;
  const int64_t pcol = plan->panel_cols < plan->m ? plan->panel_cols : plan->m;
  const size_t bytes[NBUF] = { (size_t) (prow * k) * es, (size_t) (k * pcol) * es,
                               (size_t) (prow * pcol) * es };
  tilemm_status status = workspace_reserve (bytes, err);
  if (status != TILEMM_OK)
    return status;

  /* Panels go row by row over Cᵀ: B's panel changes once per row of panels, A's per panel
   * (unless there is one column of panels); a piece already on the device is not sent again. */
  int64_t x_on_device = -1, y_on_device = -1;
  const int64_t count = tilemm_plan_panel_count (plan);
  for (int64_t index = 0; index < count; index++)
    {
      tilemm_panel p;
      tilemm_plan_panel (plan, index, &p);
      if (p.row != x_on_device)
        {
          const tilemm_view bp = tilemm_view_sub (b, 0, p.row, k, p.rows); /* Bᵀ rows */
          if ((status = upload (ws.buffer[BUF_X], &bp, "dX", es, err)) != TILEMM_OK)
            return status;
          x_on_device = p.row;
        }
      if (p.col != y_on_device)
        {
          const tilemm_view ap = tilemm_view_sub (a, p.col, 0, p.cols, k); /* Aᵀ columns */
          if ((status = upload (ws.buffer[BUF_Y], &ap, "dY", es, err)) != TILEMM_OK)
            return status;
          y_on_device = p.col;
        }
      status = tilemm_cuda_launch (plan->variant, plan->type,
                                   device_matrix (ws.buffer[BUF_C], p.rows, p.cols),
                                   device_matrix (ws.buffer[BUF_X], p.rows, k),
                                   device_matrix (ws.buffer[BUF_Y], k, p.cols), ws.stream, err);
      if (status != TILEMM_OK)
        return status;
      const tilemm_view cp = tilemm_view_sub (c, p.col, p.row, p.cols, p.rows);
      if ((status = download (&cp, ws.buffer[BUF_C], es, err)) != TILEMM_OK)
        return status;
    }
  /* Errors inside a kernel show here at the latest. */
  CUDA_TRY (cudaStreamSynchronize (ws.stream), "running CUDA kernel variant %d for %s",
            plan->variant, tilemm_type_name (plan->type));
  return TILEMM_OK;
}

/* k = 0: C is zeros (all-bits-zero is +0 in every element type); no GPU work needed. */
void zero_columns (const tilemm_view *c)
{
  const size_t es = tilemm_type_size (c->type);
  for (int64_t j = 0; j < c->cols; j++)
    memset ((char *) c->data + (size_t) (j * c->stride) * es, 0, (size_t) c->rows * es);
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
                                    const tilemm_view *b, const tilemm_view *c, tilemm_error *err)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  tilemm_status status = probe (err);
  if (status != TILEMM_OK)
    return status;
  if (!plan || !a || !b || !c)
    return tilemm_error_set (err, TILEMM_EINVAL, "tilemm_cuda_multiply: null argument");
  int rows, cols, depth, pad, threads;
  if (!tilemm_cuda_kernel_shape (plan->variant, plan->type, &rows, &cols, &depth, &pad, &threads))
    return tilemm_error_set (err, TILEMM_EINVAL, "no CUDA kernel variant %d for %s",
                             plan->variant, tilemm_type_name (plan->type));
  if (plan->panel_rows < 1 || plan->panel_cols < 1)
    return tilemm_error_set (err, TILEMM_EINVAL, "plan with empty panels (%lld x %lld)",
                             (long long) plan->panel_rows, (long long) plan->panel_cols);
  if (plan->m == 0 || plan->n == 0)
    return tilemm_error_set (err, TILEMM_OK, NULL);
  if (plan->k == 0)
    {
      zero_columns (c);
      return tilemm_error_set (err, TILEMM_OK, NULL);
    }
  status = multiply_panels (plan, a, b, c, err);
  if (status != TILEMM_OK)
    workspace_recover ();
  return status;
}

void tilemm_cuda_release (void)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  workspace_free ();
}

size_t tilemm_cuda_bytes_held (void)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  size_t held = 0;
  for (int i = 0; i < NBUF; i++)
    held += ws.capacity[i];
  return held;
}

} /* extern "C" */
