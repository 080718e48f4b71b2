/* status.c — status codes: one table of messages and error-id reasons.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdarg.h>
#include <stdio.h>

#include "tilemm.h"

static const struct {
  const char *reason;
  const char *message;
} status_table[TILEMM_NSTATUS] = {
  [TILEMM_OK] = { "ok", "success" },
  [TILEMM_EINVAL] = { "badarg", "invalid argument" },
  [TILEMM_ESHAPE] = { "badshape", "operand sizes do not agree" },
  [TILEMM_ETYPE] = { "badtype", "operands of different or unsupported element types" },
  [TILEMM_EOVERFLOW] = { "toolarge", "matrix too large: its size overflows the address space" },
  [TILEMM_ENOMEM] = { "outofmemory", "out of host memory" },
  [TILEMM_ENOGPU] = { "nogpu", "no usable GPU" },
  [TILEMM_EDEVMEM] = { "outofmemory", "out of GPU memory" },
  [TILEMM_ECUDA] = { "cuda", "a CUDA call failed" },
  [TILEMM_EBACKEND] = { "nobackend", "this build of tilemm does not have the requested backend" },
  [TILEMM_EOPTION] = { "badoption", "bad option" },
  [TILEMM_EINTERRUPTED] = { "interrupted", "interrupted" },
  [TILEMM_ELIMIT] = { "badoption",
                      "\"max_device_bytes\" is too small for one panel of this product on the cpu "
                      "backend, which uses it only to cut the product into panels of at most that "
                      "many bytes, as on a GPU (0, the default, is no limit)" },
};

static int status_valid (tilemm_status status)
{
  return (int) status >= 0 && status < TILEMM_NSTATUS;
}

const char *tilemm_strerror (tilemm_status status)
{
  return status_valid (status) ? status_table[status].message : "unknown tilemm status";
}

const char *tilemm_status_reason (tilemm_status status)
{
  return status_valid (status) ? status_table[status].reason : "unknown";
}

tilemm_status tilemm_error_set (tilemm_error *err, tilemm_status status, const char *fmt, ...)
{
  if (err)
    {
      err->status = status;
      err->detail[0] = '\0';
      if (fmt)
        {
          va_list ap;
          va_start (ap, fmt);
          vsnprintf (err->detail, sizeof err->detail, fmt, ap);
          va_end (ap);
        }
    }
  return status;
}
