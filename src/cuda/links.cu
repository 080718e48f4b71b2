/* links.cu — each GPU's pinned copies timed, for the machine's facts (backend.h: the GPU table's
 * `links`): up and down on each GPU alone, then with every GPU of the list copying both ways at
 * once (what a product on several GPUs asks of the host's buses); and, where every pair of them
 * can reach the other (cudaDeviceCanAccessPeer), each GPU receiving a share from every other by
 * peer copies, all at once (what the exchange of a shared operand asks of the links between
 * them).  Device time from CUDA events, the best of a few rounds.  Everything it allocates is
 * freed on every path.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <chrono>
#include <mutex>

#include "executor.h"

using namespace tilemm_cuda;

namespace {

/* Bytes of one copy: large enough to run at the link's rate, small enough to be quick. */
const size_t LINK_BYTES = (size_t) 32 << 20;
const int LINK_ROUNDS = 3;

/* One GPU's buffers and streams: pinned up and down buffers on the host, two on the device. */
struct link_set
{
  int device = -1;
  void *host_up = nullptr, *host_down = nullptr, *dev_up = nullptr, *dev_down = nullptr;
  cudaStream_t up = nullptr, down = nullptr;
  cudaEvent_t ev[4] = { nullptr, nullptr, nullptr, nullptr };

  ~link_set ()
  {
    if (device < 0)
      return;
    cudaSetDevice (device);
    for (cudaEvent_t e : ev)
      if (e)
        cudaEventDestroy (e);
    if (up)
      cudaStreamDestroy (up);
    if (down)
      cudaStreamDestroy (down);
    if (dev_up)
      cudaFree (dev_up);
    if (dev_down)
      cudaFree (dev_down);
    if (host_up)
      cudaFreeHost (host_up);
    if (host_down)
      cudaFreeHost (host_down);
  }
};

tilemm_status link_make (link_set &s, int device, tilemm_error *err)
{
  CUDA_TRY (cudaSetDevice (device), "cudaSetDevice(%d)", device);
  s.device = device;
  CUDA_TRY (cudaHostAlloc (&s.host_up, LINK_BYTES, cudaHostAllocDefault), "cudaHostAlloc(%zu)",
            LINK_BYTES);
  CUDA_TRY (cudaHostAlloc (&s.host_down, LINK_BYTES, cudaHostAllocDefault), "cudaHostAlloc(%zu)",
            LINK_BYTES);
  CUDA_TRY (cudaMalloc (&s.dev_up, LINK_BYTES), "cudaMalloc(%zu)", LINK_BYTES);
  CUDA_TRY (cudaMalloc (&s.dev_down, LINK_BYTES), "cudaMalloc(%zu)", LINK_BYTES);
  /* Values in the buffers, so that no page is copied untouched. */
  memset (s.host_up, 1, LINK_BYTES);
  memset (s.host_down, 2, LINK_BYTES);
  CUDA_TRY (cudaStreamCreateWithFlags (&s.up, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  CUDA_TRY (cudaStreamCreateWithFlags (&s.down, cudaStreamNonBlocking),
            "cudaStreamCreateWithFlags");
  for (cudaEvent_t &e : s.ev)
    CUDA_TRY (cudaEventCreate (&e), "cudaEventCreate");
  return TILEMM_OK;
}

/* Enqueues the up copy (and the down one, where `both`) between their events. */
tilemm_status link_enqueue (link_set &s, bool up, bool down, tilemm_error *err)
{
  CUDA_TRY (cudaSetDevice (s.device), "cudaSetDevice(%d)", s.device);
  if (up)
    {
      CUDA_TRY (cudaEventRecord (s.ev[0], s.up), "cudaEventRecord");
      CUDA_TRY (cudaMemcpyAsync (s.dev_up, s.host_up, LINK_BYTES, cudaMemcpyHostToDevice, s.up),
                "cudaMemcpyAsync(%zu bytes, host to device %d)", LINK_BYTES, s.device);
      CUDA_TRY (cudaEventRecord (s.ev[1], s.up), "cudaEventRecord");
    }
  if (down)
    {
      CUDA_TRY (cudaEventRecord (s.ev[2], s.down), "cudaEventRecord");
      CUDA_TRY (cudaMemcpyAsync (s.host_down, s.dev_down, LINK_BYTES, cudaMemcpyDeviceToHost,
                                 s.down),
                "cudaMemcpyAsync(%zu bytes, device %d to host)", LINK_BYTES, s.device);
      CUDA_TRY (cudaEventRecord (s.ev[3], s.down), "cudaEventRecord");
    }
  return TILEMM_OK;
}

/* Waits for the copies enqueued and keeps the rate of each that ran if it is the best yet. */
tilemm_status link_collect (link_set &s, bool up, bool down, double *best_up, double *best_down,
                            tilemm_error *err)
{
  CUDA_TRY (cudaSetDevice (s.device), "cudaSetDevice(%d)", s.device);
  float ms = 0;
  if (up)
    {
      CUDA_TRY (cudaEventSynchronize (s.ev[1]), "cudaEventSynchronize");
      CUDA_TRY (cudaEventElapsedTime (&ms, s.ev[0], s.ev[1]), "cudaEventElapsedTime");
      if (ms > 0 && (double) LINK_BYTES / (ms * 1e-3) > *best_up)
        *best_up = (double) LINK_BYTES / (ms * 1e-3);
    }
  if (down)
    {
      CUDA_TRY (cudaEventSynchronize (s.ev[3]), "cudaEventSynchronize");
      CUDA_TRY (cudaEventElapsedTime (&ms, s.ev[2], s.ev[3]), "cudaEventElapsedTime");
      if (ms > 0 && (double) LINK_BYTES / (ms * 1e-3) > *best_down)
        *best_down = (double) LINK_BYTES / (ms * 1e-3);
    }
  return TILEMM_OK;
}

/* Whether every pair of the first `count` sets' devices can read the other's memory; where
 * they can, each device's access to every other enabled (as the exchange enables it). */
tilemm_status peers_reach (link_set *sets, int count, bool *reach, tilemm_error *err)
{
  *reach = count > 1;
  for (int i = 0; i < count && *reach; i++)
    for (int j = 0; j < count && *reach; j++)
      {
        int can = 0;
        if (i != j)
          {
            CUDA_TRY (cudaDeviceCanAccessPeer (&can, sets[i].device, sets[j].device),
                      "cudaDeviceCanAccessPeer(%d, %d)", sets[i].device, sets[j].device);
            *reach = can != 0;
          }
      }
  for (int i = 0; i < count && *reach; i++)
    {
      CUDA_TRY (cudaSetDevice (sets[i].device), "cudaSetDevice(%d)", sets[i].device);
      for (int j = 0; j < count; j++)
        if (j != i)
          {
            const cudaError_t e = cudaDeviceEnablePeerAccess (sets[j].device, 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled)
              cudaGetLastError ();   /* not an error: leave nothing for the next check */
            else
              CUDA_TRY (e, "cudaDeviceEnablePeerAccess(GPU %d reads GPU %d)", sets[i].device,
                        sets[j].device);
          }
    }
  return TILEMM_OK;
}

/* Every device receives LINK_BYTES into its down buffer, a share from each other device's up
 * buffer, on its up stream between its first two events; every device at once. */
tilemm_status peer_round (link_set *sets, int count, tilemm_link_rates *rates, tilemm_error *err)
{
  const size_t share = LINK_BYTES / (size_t) (count - 1);
  for (int i = 0; i < count; i++)
    {
      link_set &s = sets[i];
      CUDA_TRY (cudaSetDevice (s.device), "cudaSetDevice(%d)", s.device);
      CUDA_TRY (cudaEventRecord (s.ev[0], s.up), "cudaEventRecord");
      size_t at = 0;
      for (int j = 0; j < count; j++)
        if (j != i)
          {
            CUDA_TRY (cudaMemcpyPeerAsync ((char *) s.dev_down + at, s.device,
                                           (const char *) sets[j].dev_up + at, sets[j].device,
                                           share, s.up),
                      "cudaMemcpyPeerAsync(%zu bytes, GPU %d to GPU %d)", share, sets[j].device,
                      s.device);
            at += share;
          }
      CUDA_TRY (cudaEventRecord (s.ev[1], s.up), "cudaEventRecord");
    }
  for (int i = 0; i < count; i++)
    {
      link_set &s = sets[i];
      CUDA_TRY (cudaSetDevice (s.device), "cudaSetDevice(%d)", s.device);
      CUDA_TRY (cudaEventSynchronize (s.ev[1]), "cudaEventSynchronize");
      float ms = 0;
      CUDA_TRY (cudaEventElapsedTime (&ms, s.ev[0], s.ev[1]), "cudaEventElapsedTime");
      const double bytes = (double) (share * (size_t) (count - 1));
      if (ms > 0 && bytes / (ms * 1e-3) > rates[i].peer)
        rates[i].peer = bytes / (ms * 1e-3);
    }
  return TILEMM_OK;
}

tilemm_status measure (const tilemm_workers *devices, tilemm_link_rates *rates, tilemm_error *err)
{
  const int count = devices->count < TILEMM_MAX_WORKERS ? devices->count : TILEMM_MAX_WORKERS;
  link_set sets[TILEMM_MAX_WORKERS];
  tilemm_status status = TILEMM_OK;
  for (int i = 0; i < count && status == TILEMM_OK; i++)
    {
      memset (&rates[i], 0, sizeof rates[i]);
      status = link_make (sets[i], devices->device[i], err);
    }
  /* Each GPU alone: up, then down. */
  for (int i = 0; i < count && status == TILEMM_OK; i++)
    for (int r = 0; r < LINK_ROUNDS && status == TILEMM_OK; r++)
      for (int dir = 0; dir < 2 && status == TILEMM_OK; dir++)
        if ((status = link_enqueue (sets[i], dir == 0, dir == 1, err)) == TILEMM_OK)
          status = link_collect (sets[i], dir == 0, dir == 1, &rates[i].up, &rates[i].down, err);
  /* Every GPU both ways at once. */
  for (int r = 0; r < LINK_ROUNDS && status == TILEMM_OK; r++)
    {
      for (int i = 0; i < count && status == TILEMM_OK; i++)
        status = link_enqueue (sets[i], true, true, err);
      for (int i = 0; i < count && status == TILEMM_OK; i++)
        status = link_collect (sets[i], true, true, &rates[i].up_busy, &rates[i].down_busy, err);
    }
  /* Every GPU receiving from every other at once, where every pair reaches. */
  bool reach = false;
  if (status == TILEMM_OK)
    status = peers_reach (sets, count, &reach, err);
  for (int r = 0; r < LINK_ROUNDS && status == TILEMM_OK && reach; r++)
    status = peer_round (sets, count, rates, err);
  return status;
}

} // namespace

namespace tilemm_cuda {

tilemm_status cuda_links (const tilemm_workers *devices, tilemm_link_rates *rates,
                          tilemm_error *err)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  int caller = -1;
  cudaGetDevice (&caller);
  tilemm_status status = probe (err);
  if (status == TILEMM_OK)
    status = measure (devices, rates, err);
  if (caller >= 0)
    cudaSetDevice (caller);
  return status;
}

} // namespace tilemm_cuda
