/* mex_common.c — error translation and clean-up registration shared by the mex gateways.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdio.h>

#include "front.h"
#include "mex_common.h"

void tilemm_mex_fail (tilemm_status status, const tilemm_error *err)
{
  char id[64];
  snprintf (id, sizeof id, "tilemm:%s", tilemm_status_reason (status));
  const char *detail = (err && err->detail[0]) ? err->detail : tilemm_strerror (status);
  mexErrMsgIdAndTxt (id, "%s. %s", detail, tilemm_advice (status));
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

mxArray *tilemm_mex_create_uninit (int64_t m, int64_t n, mxClassID cls, int is_complex)
{
#ifndef MATLAB_MEX_FILE
  if (is_complex)
    {
      mxArray *c = mxCreateUninitNumericMatrix ((mwSize) m, (mwSize) (2 * n), cls, mxCOMPLEX);
      mxSetN (c, (mwSize) n);
      return c;
    }
#endif
  return mxCreateUninitNumericMatrix ((mwSize) m, (mwSize) n, cls, is_complex ? mxCOMPLEX : mxREAL);
}
