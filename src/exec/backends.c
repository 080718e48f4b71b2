/* backends.c — the backends this build has: the CPU's table always, the GPU's where src/cuda/ was
 * linked in.  A build without CUDA has no table for it and nothing standing in for it: the
 * reference below is weak, so it is simply NULL there.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "tilemm_settings.h"

extern const tilemm_backend_ops tilemm_cpu_backend_ops;
/* Defined by src/cuda/backend_ops.cu in a build with CUDA.  Hidden: the reference is resolved
 * when this module is linked, never by the dynamic linker, so a build without CUDA (a CPU-only
 * mex file) does not pick up the table of another tilemm module loaded in the same process
 * (tilemm.oct with CUDA, seen under Octave), whose workspace and figures are not its own. */
extern const tilemm_backend_ops tilemm_cuda_backend_ops
  __attribute__ ((weak, visibility ("hidden")));

const tilemm_backend_ops *tilemm_backend_find (tilemm_backend backend)
{
  switch (backend)
    {
    case TILEMM_BACKEND_CPU:
      return &tilemm_cpu_backend_ops;
    case TILEMM_BACKEND_CUDA:
      return &tilemm_cuda_backend_ops ? &tilemm_cuda_backend_ops : NULL;
    default:
      return NULL;
    }
}

static const char not_built[] =
  "this tilemm was built without CUDA; reinstall it where the CUDA toolkit is found "
  "(nvcc on PATH, in /usr/local/cuda, or named by CUDA_HOME or NVCC)";

void tilemm_backend_facts (tilemm_backend backend, int with_budgets, tilemm_device_facts *facts)
{
  const tilemm_backend_ops *ops = tilemm_backend_find (backend);
  if (ops)
    {
      ops->facts (with_budgets, facts);
      /* The staging's settings a GPU plan is made with (its chunk, its copy threads): the
       * process's, beside the device's facts (the backend reads no setting). */
      if (backend == TILEMM_BACKEND_CUDA && facts->usable)
        {
          const tilemm_process_settings *settings = tilemm_process_settings_get ();
          facts->staging_chunk_bytes = settings->staging_chunk_bytes;
          facts->copy_threads = settings->copy_threads;
        }
      return;
    }
  memset (facts, 0, sizeof *facts);
  facts->current = -1;
  facts->why_status = TILEMM_ENOGPU;
  snprintf (facts->why, sizeof facts->why, "%s", not_built);
}

tilemm_status tilemm_exec_no_backend (tilemm_backend backend, tilemm_error *err)
{
  if (backend != TILEMM_BACKEND_CUDA)
    return tilemm_error_set (err, TILEMM_EBACKEND, "no backend %d in this build", (int) backend);
  tilemm_device_facts facts;
  tilemm_backend_facts (TILEMM_BACKEND_CUDA, 0, &facts);
  return tilemm_error_set (err, TILEMM_ENOGPU, "%s", facts.why);
}
