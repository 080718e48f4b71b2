/* tilemm_info.c — the mex gateway of tilemm_info (): what this build has and which GPU it uses.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Its Octave tests are in tilemm_info.tst beside it; the build appends them to the help file
 * tilemm_info.m.
 */
#define _GNU_SOURCE   /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "front.h"
#include "mex_common.h"

static mxArray *logical (int value)
{
  return mxCreateLogicalScalar (value ? true : false);
}

/* Every device, and how many of tilemm's workers a large product puts on it (0: not in use). */
static mxArray *devices_struct (const tilemm_workers *in_use)
{
  static const char *fields[] = { "index", "name", "total_memory", "free_memory",
                                  "compute_capability", "multiprocessors", "in_use", "workers" };
  const int count = tilemm_cuda_device_count ();
  mxArray *s = mxCreateStructMatrix (count > 0 ? 1 : 0, count > 0 ? (mwSize) count : 0,
                                     (int) (sizeof fields / sizeof fields[0]), fields);
  for (int i = 0; i < count; i++)
    {
      tilemm_device_info info;
      tilemm_error err = { TILEMM_OK, "" };
      if (tilemm_cuda_device_info (i, &info, &err) != TILEMM_OK)
        tilemm_mex_fail (err.status, &err);
      char cc[16];
      snprintf (cc, sizeof cc, "%d.%d", info.cc_major, info.cc_minor);
      mxSetField (s, (mwIndex) i, "index", mxCreateDoubleScalar (info.index));
      mxSetField (s, (mwIndex) i, "name", mxCreateString (info.name));
      mxSetField (s, (mwIndex) i, "total_memory", mxCreateDoubleScalar ((double) info.total_memory));
      mxSetField (s, (mwIndex) i, "free_memory", mxCreateDoubleScalar ((double) info.free_memory));
      mxSetField (s, (mwIndex) i, "compute_capability", mxCreateString (cc));
      mxSetField (s, (mwIndex) i, "multiprocessors", mxCreateDoubleScalar (info.multiprocessors));
      int workers = 0;
      for (int w = 0; w < in_use->count; w++)
        workers += in_use->device[w] == i;
      mxSetField (s, (mwIndex) i, "in_use", logical (workers > 0));
      mxSetField (s, (mwIndex) i, "workers", mxCreateDoubleScalar (workers));
    }
  return s;
}

/* The plan each backend would use for a large square product of each type. */
static mxArray *plans_struct (void)
{
  static const char *fields[] = { "backend", "type", "variant", "tile_rows", "tile_cols",
                                  "tile_depth", "pad" };
  const int backends = tilemm_cuda_built () ? 2 : 1;
  mxArray *s = mxCreateStructMatrix (1, (mwSize) (backends * TILEMM_NTYPES),
                                     (int) (sizeof fields / sizeof fields[0]), fields);
  mwIndex i = 0;
  for (int b = 0; b < backends; b++)
    for (int t = 0; t < TILEMM_NTYPES; t++, i++)
      {
        tilemm_plan plan;
        tilemm_status status =
          tilemm_plan_make (&plan, (tilemm_backend) b, (tilemm_type) t, 4096, 4096, 4096, NULL);
        if (status != TILEMM_OK)
          tilemm_mex_fail (status, NULL);
        mxSetField (s, i, "backend", mxCreateString (tilemm_backend_name (plan.backend)));
        mxSetField (s, i, "type", mxCreateString (tilemm_type_name (plan.type)));
        mxSetField (s, i, "variant", mxCreateDoubleScalar (plan.variant));
        mxSetField (s, i, "tile_rows", mxCreateDoubleScalar (plan.tile_rows));
        mxSetField (s, i, "tile_cols", mxCreateDoubleScalar (plan.tile_cols));
        mxSetField (s, i, "tile_depth", mxCreateDoubleScalar (plan.tile_depth));
        mxSetField (s, i, "pad", mxCreateDoubleScalar (plan.pad));
      }
  return s;
}

/* What each precision would use: the one in effect (TILEMM_PRECISION, else native; "" when the
 * variable is malformed, which tilemm then reports), and the emulated precision's settings. */
static mxArray *precision_struct (int gpu_usable)
{
  static const char *fields[] = { "in_effect", "native_backends", "emulated_backends",
                                  "emulated_accuracy_double", "emulated_accuracy_single",
                                  "emulated_guard_bits", "emulated_max_moduli", "moduli_limit" };
  mxArray *s = mxCreateStructMatrix (1, 1, (int) (sizeof fields / sizeof fields[0]), fields);
  tilemm_options none;
  tilemm_options_init (&none);
  tilemm_precision p;
  const int ok = tilemm_precision_in_effect (&none, &p, NULL) == TILEMM_OK;
  mxSetField (s, 0, "in_effect",
              mxCreateString (!ok ? "" : p == TILEMM_PRECISION_EMULATED ? "emulated" : "native"));
  const char *backends = gpu_usable ? "cpu gpu" : "cpu";
  mxSetField (s, 0, "native_backends", mxCreateString (backends));
  mxSetField (s, 0, "emulated_backends", mxCreateString (backends));
  tilemm_emu_options d, f;
  tilemm_emu_default_options (&d, TILEMM_DOUBLE);
  tilemm_emu_default_options (&f, TILEMM_SINGLE);
  mxSetField (s, 0, "emulated_accuracy_double", mxCreateDoubleScalar (d.target_bits));
  mxSetField (s, 0, "emulated_accuracy_single", mxCreateDoubleScalar (f.target_bits));
  mxSetField (s, 0, "emulated_guard_bits", mxCreateDoubleScalar (d.guard_bits));
  mxSetField (s, 0, "emulated_max_moduli", mxCreateDoubleScalar (d.max_moduli));
  mxSetField (s, 0, "moduli_limit", mxCreateDoubleScalar (TILEMM_EMU_MAX_MODULI));
  return s;
}

/* libtilemm_blas.so beside this mex file (pkg installs both into the package's architecture
 * folder; the build tree has both in src/), or "" where it is not there (configure
 * --disable-blas-library, or a build that never made it). */
static mxArray *blas_library_path (void)
{
  Dl_info info;
  char path[4096] = "";
  if (dladdr ((void *) &blas_library_path, &info) && info.dli_fname)
    {
      const char *slash = strrchr (info.dli_fname, '/');
      const int dir_len = slash ? (int) (slash - info.dli_fname) : 1;
      snprintf (path, sizeof path, "%.*s/libtilemm_blas.so", dir_len, slash ? info.dli_fname : ".");
      /* An absolute path, so the line LD_PRELOAD=<path> octave works from any folder. */
      if (path[0] != '/')
        {
          char cwd[2048], relative[2048];
          snprintf (relative, sizeof relative, "%s", path);
          if (getcwd (cwd, sizeof cwd))
            snprintf (path, sizeof path, "%s/%s", cwd, relative);
        }
      if (access (path, R_OK) != 0)
        path[0] = '\0';
    }
  return mxCreateString (path);
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  (void) prhs;
  tilemm_mex_register_cleanup ();
  if (nrhs != 0)
    mexErrMsgIdAndTxt ("tilemm:nargin", "no arguments; usage: s = tilemm_info ()");
  if (nlhs > 1)
    mexErrMsgIdAndTxt ("tilemm:nargout", "one output only");
  static const char *fields[] = { "version", "cuda_built", "openmp", "cpu_variant", "gpu_usable",
                                  "gpu_reason",
                                  "devices", "device_in_use", "devices_in_use", "plans",
                                  "precision", "blas_library" };
  tilemm_error err = { TILEMM_OK, "" };
  const int usable = tilemm_cuda_probe (&err) == TILEMM_OK;
  /* The GPUs a large product uses (TILEMM_DEVICES, else every usable one), one entry a worker. */
  tilemm_workers in_use = { 0, { 0 } };
  int named = 0;
  tilemm_error use_err = { TILEMM_OK, "" };
  if (usable && tilemm_devices_in_use (&in_use, &named, &use_err) != TILEMM_OK)
    tilemm_mex_fail (use_err.status, &use_err);
  mxArray *ordinals = mxCreateDoubleMatrix (1, (mwSize) in_use.count, mxREAL);
  for (int w = 0; w < in_use.count; w++)
    ((double *) mxGetData (ordinals))[w] = in_use.device[w];
  mxArray *s = mxCreateStructMatrix (1, 1, (int) (sizeof fields / sizeof fields[0]), fields);
  mxSetField (s, 0, "version", mxCreateString (tilemm_version ()));
  mxSetField (s, 0, "cuda_built", logical (tilemm_cuda_built ()));
  mxSetField (s, 0, "openmp", logical (tilemm_openmp_built ()));
  const tilemm_backend_ops *cpu = tilemm_backend_find (TILEMM_BACKEND_CPU);
  mxSetField (s, 0, "cpu_variant",
              mxCreateString (cpu && cpu->code_variant ? cpu->code_variant () : "default"));
  mxSetField (s, 0, "gpu_usable", logical (usable));
  mxSetField (s, 0, "gpu_reason", mxCreateString (usable ? "" : err.detail));
  mxSetField (s, 0, "devices", devices_struct (&in_use));
  mxSetField (s, 0, "device_in_use",
              usable ? mxCreateDoubleScalar (tilemm_cuda_current_device ())
                     : mxCreateDoubleMatrix (0, 0, mxREAL));
  mxSetField (s, 0, "devices_in_use", ordinals);
  mxSetField (s, 0, "plans", plans_struct ());
  mxSetField (s, 0, "precision", precision_struct (usable));
  mxSetField (s, 0, "blas_library", blas_library_path ());
  plhs[0] = s;
}
