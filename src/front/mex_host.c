/* mex_host.c — the host's `*` as the machine's facts measure it from a mex file (front.h:
 * tilemm_host_product): mtimes called through mexCallMATLAB, as a delegated call runs it, on
 * random operands made before the timed runs.  MATLAB or Octave alike.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#define _GNU_SOURCE   /* dladdr, RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"
#include "mex_common.h"
#include "uniform_fill.h"

/* A random m×n array of `type` (uniform in [-1, 1), never zeros). */
static mxArray *random_array (tilemm_type type, int64_t m, int64_t n, uint64_t seed)
{
  const int is_single = type == TILEMM_SINGLE || type == TILEMM_COMPLEX_SINGLE;
  const int cplx = tilemm_type_is_complex (type);
  mxArray *a = tilemm_mex_create_uninit (m, n, is_single ? mxSINGLE_CLASS : mxDOUBLE_CLASS, cplx);
  if (!a)
    return NULL;
  /* Octave 7.3's interleaved arrays: the data of a complex one through mxGetData, two reals an
   * element (the gateway reads them so too: tilemm.c). */
  void *data = mxGetData (a);
  const size_t reals = (size_t) (m * n) * (cplx ? 2 : 1);
  if (data)
    tilemm_uniform_fill (data, reals, is_single, seed);
  return a;
}

static double mtimes_seconds (void *ctx, tilemm_type type, int64_t m, int64_t n, int64_t k,
                              int runs)
{
  (void) ctx;
  mxArray *in[2] = { random_array (type, m, k, 1), random_array (type, k, n, 2) };
  double best = -1;
  if (in[0] && in[1])
    for (int r = -1; r < runs; r++)
      {
        mxArray *out[1] = { NULL };
        const double t0 = tilemm_now_s ();
        const int failed = mexCallMATLAB (1, out, 2, in, "mtimes");
        const double t = tilemm_now_s () - t0;
        if (out[0])
          mxDestroyArray (out[0]);
        if (failed)
          {
            best = -1;
            break;
          }
        if (r >= 0 && (best < 0 || t < best))
          best = t;
      }
  if (in[0])
    mxDestroyArray (in[0]);
  if (in[1])
    mxDestroyArray (in[1]);
  return best;
}

const tilemm_host_product *tilemm_mex_host_product (void)
{
  /* A mex file's functions run on the host's one thread: made once, on its first call. */
  static tilemm_host_product host;
  static int made;
  if (!made)
    {
      memset (&host, 0, sizeof host);
      host.seconds = mtimes_seconds;
      host.pages_seconds = NULL;
      void *sym = dlsym (RTLD_DEFAULT, "dgemm_");
      Dl_info info;
      if (sym && dladdr (sym, &info) && info.dli_fname)
        {
          char *real = realpath (info.dli_fname, NULL);
          snprintf (host.library, sizeof host.library, "%s", real ? real : info.dli_fname);
          free (real);
        }
      made = 1;
    }
  return &host;
}
