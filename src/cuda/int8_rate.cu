/* int8_rate.cu — the emulated precision's int8 GEMM timed on one GPU, for the machine's facts
 * (backend.h: the GPU table's `int8_rate`; calibration's TILEMM_FACTS_INT8): the N modular GEMMs
 * of a square product on residues in an arena of its own, device time from CUDA events
 * (tilemm_emu_cuda_time_gemm), the best of a few rounds.  Everything it allocates is freed on
 * every path, and the caller's current device is restored.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <mutex>

#include "executor.h"

using namespace tilemm_cuda;

namespace {

const int RATE_ROUNDS = 3;
/* Moduli of the timed launch: the certified rule's count for double at a few thousand. */
const int RATE_MODULI = 16;

/* The arena, the stream and the device to restore, released however the timing ends. */
struct rate_set
{
  int previous = -1;
  cudaStream_t stream = nullptr;
  tilemm_emu_cuda_arena arena = {};
  ~rate_set ()
  {
    emu_arena_free (&arena);
    if (stream)
      cudaStreamDestroy (stream);
    if (previous >= 0)
      cudaSetDevice (previous);
  }
};

} /* namespace */

namespace tilemm_cuda {

tilemm_status cuda_int8_rate (int device, int64_t n, int gemm, double *ops_per_s,
                              tilemm_error *err)
{
  *ops_per_s = 0;
  tilemm_status status = locked_probe (err);   /* takes ws_mutex itself */
  if (status != TILEMM_OK)
    return status;
  std::lock_guard<std::mutex> lock (ws_mutex);
  rate_set r;
  CUDA_TRY (cudaGetDevice (&r.previous), "cudaGetDevice");
  CUDA_TRY (cudaSetDevice (device), "cudaSetDevice(%d)", device);
  CUDA_TRY (cudaStreamCreateWithFlags (&r.stream, cudaStreamNonBlocking),
            "cudaStreamCreateWithFlags");
  tilemm_emu_options options;
  tilemm_emu_default_options (&options, TILEMM_DOUBLE);
  options.moduli = RATE_MODULI;
  size_t bytes[4];
  tilemm_emu_cuda_arena_need (TILEMM_DOUBLE, n, n, n, &options, RATE_MODULI,
                              TILEMM_EMU_RUN_GIVEN, 0, bytes);
  /* The GEMMs use the product's slot only. */
  CUDA_TRY (TILEMM_FAULT_OR (TILEMM_FAULT_MALLOC, cudaErrorMemoryAllocation,
                             cudaMalloc (&r.arena.base[1], bytes[1])),
            "cudaMalloc(int8 GEMM timing, %zu bytes)", bytes[1]);
  r.arena.bytes[1] = bytes[1];
  /* The GEMMs only (no statistics: their GEMM is never launched); the wgmma GEMM's grid one
   * block a multiprocessor, and the moduli a launch for the device's multiprocessors, as the
   * facts gather them and the call plan holds them (emu_multiprocessors, its grid
   * tilemm_emu_gemm_grid). */
  const int multiprocessors = device_multiprocessors (device);
  const tilemm_emu_cuda_setup setup = { (tilemm_emu_gemm) gemm, 0, nullptr, nullptr,
                                        (tilemm_emu_gemm) gemm,
                                        tilemm_emu_gemm_grid (multiprocessors), multiprocessors };
  double best = 0;
  for (int round = 0; round < RATE_ROUNDS; round++)
    {
      double ms = 0;
      if ((status = tilemm_emu_cuda_time_gemm (&setup, n, n, n, RATE_MODULI, r.stream, &r.arena,
                                               &ms, err))
          != TILEMM_OK)
        return status;
      if (ms > 0 && (best == 0 || ms < best))
        best = ms;
    }
  if (best > 0)
    *ops_per_s = 2.0 * (double) n * (double) n * (double) n * RATE_MODULI / (best * 1e-3);
  return TILEMM_OK;
}

} /* namespace tilemm_cuda */
