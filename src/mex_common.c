/* mex_common.c — error translation and clean-up registration shared by the mex gateways.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdio.h>

#include "mex_common.h"

/* What a user can do about each failure, appended to the message. */
static const char *advice (tilemm_status status)
{
  switch (status)
    {
    case TILEMM_ENOGPU:
      return "Use the \"cpu\" or \"auto\" backend, or check the driver with nvidia-smi.";
    case TILEMM_EDEVMEM:
      return "Free GPU memory, or set \"max_device_bytes\" so tilemm works in smaller panels.";
    case TILEMM_ENOMEM:
      return "Free memory, or multiply smaller pieces.";
    case TILEMM_ECUDA:
      return "tilemm released its GPU buffers; the next call starts afresh.";
    case TILEMM_EOVERFLOW:
      return "Multiply smaller pieces.";
    default:
      return "";
    }
}

void tilemm_mex_fail (tilemm_status status, const tilemm_error *err)
{
  char id[64];
  snprintf (id, sizeof id, "tilemm:%s", tilemm_status_reason (status));
  const char *detail = (err && err->detail[0]) ? err->detail : tilemm_strerror (status);
  mexErrMsgIdAndTxt (id, "%s. %s", detail, advice (status));
}

static void release_at_exit (void)
{
  tilemm_cuda_release ();
}

void tilemm_mex_register_cleanup (void)
{
  static int registered;
  if (!registered)
    {
      mexAtExit (release_at_exit);
      registered = 1;
    }
}
