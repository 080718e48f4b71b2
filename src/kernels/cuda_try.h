/* cuda_try.h — how tilemm's CUDA host code checks every CUDA call: a failure is recorded in the
 * caller's `err` ("<what>: <CUDA's message>"; TILEMM_EDEVMEM for an allocation failure,
 * TILEMM_ECUDA for anything else) and the function returns that status.  Also the kernel-launch
 * spellings that the host emulation of CUDA (tests/emu) replaces with its own.  In kernels/, the
 * lowest layer that calls CUDA: the launchers check their launches with it, and cuda/ above.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_CUDA_TRY_H
#define TILEMM_CUDA_TRY_H

#include <stdarg.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "tilemm.h"

/* Records a failed CUDA call and returns the status to return.  The runtime's last error is
 * cleared, so that a failure (an allocation above all) does not linger into the next call. */
static inline tilemm_status tilemm_cuda_failure (tilemm_error *err, cudaError_t e,
                                                 const char *what_fmt, ...)
{
  char what[256];
  va_list ap;
  va_start (ap, what_fmt);
  vsnprintf (what, sizeof what, what_fmt, ap);
  va_end (ap);
  cudaGetLastError ();
  const tilemm_status status = e == cudaErrorMemoryAllocation ? TILEMM_EDEVMEM : TILEMM_ECUDA;
  return tilemm_error_set (err, status, "%s: %s", what, cudaGetErrorString (e));
}

/* Every CUDA call goes through this (the enclosing function has a tilemm_error *err): on
 * failure, record it and return from the function.  The arguments after the call say what it
 * was, printf-style. */
#define CUDA_TRY(call, ...)                                                                 \
  do                                                                                        \
    {                                                                                       \
      const cudaError_t cuda_try_e_ = (call);                                               \
      if (cuda_try_e_ != cudaSuccess)                                                       \
        return tilemm_cuda_failure (err, cuda_try_e_, __VA_ARGS__);                         \
    }                                                                                       \
  while (0)

#ifndef TILEMM_LAUNCH
#define TILEMM_LAUNCH(kernel, grid, block, stream, ...) kernel<<<grid, block, 0, stream>>> (__VA_ARGS__)
#endif
#ifndef TILEMM_LAUNCH_SMEM
#define TILEMM_LAUNCH_SMEM(kernel, grid, block, smem, stream, ...)                          \
  kernel<<<grid, block, smem, stream>>> (__VA_ARGS__)
#endif

#endif
