/* tilemm_info.c — the mex gateway of tilemm_info (): what this build has and which GPU it uses.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Its Octave tests are in tilemm_info.tst beside it; the build appends them to the help file
 * tilemm_info.m.
 */
#define _GNU_SOURCE   /* dladdr */
#include <dlfcn.h>
#include <math.h>
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
static mxArray *precision_struct (int gpu_usable, const tilemm_machine_facts *facts)
{
  static const char *fields[] = { "in_effect", "auto", "native_backends", "emulated_backends",
                                  "emulated_accuracy_double", "emulated_accuracy_single",
                                  "emulated_guard_bits", "emulated_max_moduli", "moduli_limit" };
  mxArray *s = mxCreateStructMatrix (1, 1, (int) (sizeof fields / sizeof fields[0]), fields);
  tilemm_options none;
  tilemm_options_init (&none);
  tilemm_precision p;
  const int ok = tilemm_precision_in_effect (&none, &p, NULL) == TILEMM_OK;
  mxSetField (s, 0, "in_effect",
              mxCreateString (!ok ? "" : p == TILEMM_PRECISION_EMULATED ? "emulated"
                                         : p == TILEMM_PRECISION_AUTO ? "auto" : "native"));
  /* What "auto" takes for square double products on this machine's facts, and why. */
  char line[256];
  const int64_t from = tilemm_plan_precision_auto_from (facts, TILEMM_DOUBLE,
                                                        gpu_usable ? facts->gpus : 0);
  if (from > 0)
    snprintf (line, sizeof line, "square double products: emulated from n = %lld (\"accuracy\", "
              "\"elementwise\": native BLAS's own bound; the model prices it faster on the GPU), "
              "native below",
              (long long) from);
  else
    snprintf (line, sizeof line, "square double products: native (%s)",
              gpu_usable ? "the model never prices the emulated product faster on this GPU"
                         : "the emulated product runs fast on a GPU only, and none is usable");
  mxSetField (s, 0, "auto", mxCreateString (line));
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

/* ---------------------------------------------------------------- the machine's facts */

static mxArray *row (const double *x, int count, double scale)
{
  mxArray *a = mxCreateDoubleMatrix (1, (mwSize) (count > 0 ? count : 0), mxREAL);
  for (int i = 0; i < count; i++)
    ((double *) mxGetData (a))[i] = x[i] * scale;
  return a;
}

/* A curve of the facts by type: its products' flops, their seconds and rates (GFLOP/s). */
static mxArray *curves_struct (const tilemm_curve *curves)
{
  static const char *fields[] = { "type", "flops", "seconds", "gflops", "episodes" };
  mxArray *s = mxCreateStructMatrix (1, TILEMM_NTYPES, 5, fields);
  for (int t = 0; t < TILEMM_NTYPES; t++)
    {
      const tilemm_curve *c = &curves[t];
      double rate[TILEMM_CURVE_POINTS];
      for (int i = 0; i < c->points; i++)
        rate[i] = c->flops[i] / c->seconds[i] * 1e-9;
      mxSetField (s, (mwIndex) t, "type", mxCreateString (tilemm_type_name ((tilemm_type) t)));
      mxSetField (s, (mwIndex) t, "flops", row (c->flops, c->points, 1));
      mxSetField (s, (mwIndex) t, "seconds", row (c->seconds, c->points, 1));
      mxSetField (s, (mwIndex) t, "gflops", row (rate, c->points, 1));
      mxSetField (s, (mwIndex) t, "episodes", row (c->episodes, c->points, 1));
    }
  return s;
}

/* The key's "name=value" lines as a struct of strings. */
static mxArray *key_struct (const char *key)
{
  const char *names[16];
  char copy[sizeof ((tilemm_machine_facts *) 0)->key];
  char *values[16];
  int count = 0;
  snprintf (copy, sizeof copy, "%s", key);
  for (char *line = strtok (copy, "\n"); line && count < 16; line = strtok (NULL, "\n"))
    {
      char *eq = strchr (line, '=');
      if (!eq)
        continue;
      *eq = '\0';
      names[count] = line;
      values[count++] = eq + 1;
    }
  mxArray *s = mxCreateStructMatrix (1, 1, count, names);
  for (int i = 0; i < count; i++)
    mxSetField (s, 0, names[i], mxCreateString (values[i]));
  return s;
}

static mxArray *gpu_struct (const tilemm_machine_facts *f)
{
  static const char *fields[] = { "measured", "count", "call_seconds", "bus_gbytes_per_s",
                                  "kernel_tflops", "all_count", "all_call_seconds", "all_speedup",
                                  "batch_call_seconds", "batch_gbytes_per_s", "batch_tflops",
                                  "int8_tops", "calls", "devices" };
  mxArray *s = mxCreateStructMatrix (1, 1, (int) (sizeof fields / sizeof fields[0]), fields);
  mxSetField (s, 0, "measured", logical (f->gpu_measured));
  mxSetField (s, 0, "count", mxCreateDoubleScalar (f->gpus));
  mxSetField (s, 0, "call_seconds", mxCreateDoubleScalar (f->gpu_call_s));
  mxSetField (s, 0, "bus_gbytes_per_s", mxCreateDoubleScalar (f->gpu_bus_bytes_per_s * 1e-9));
  mxSetField (s, 0, "kernel_tflops", row (f->gpu_kernel_flops_per_s, TILEMM_NTYPES, 1e-12));
  mxSetField (s, 0, "all_count", mxCreateDoubleScalar (f->gpu_all_count));
  mxSetField (s, 0, "all_call_seconds", mxCreateDoubleScalar (f->gpu_all_call_s));
  mxSetField (s, 0, "all_speedup", mxCreateDoubleScalar (f->gpu_all_speedup));
  mxSetField (s, 0, "batch_call_seconds", mxCreateDoubleScalar (f->gpu_batch_call_s));
  mxSetField (s, 0, "batch_gbytes_per_s", mxCreateDoubleScalar (f->gpu_batch_bus_bytes_per_s * 1e-9));
  mxSetField (s, 0, "batch_tflops", row (f->gpu_batch_flops_per_s, TILEMM_NTYPES, 1e-12));
  /* the emulated precision's int8 GEMM (measured where "precision", "auto" was weighed) */
  mxSetField (s, 0, "int8_tops", mxCreateDoubleScalar (f->gpu_int8_ops_per_s * 1e-12));
  mxSetField (s, 0, "calls", curves_struct (f->gpu_curve));
  static const char *dev_fields[] = { "ordinal", "name", "kernel_tflops", "up_gbytes_per_s",
                                      "down_gbytes_per_s", "up_busy_gbytes_per_s",
                                      "down_busy_gbytes_per_s" };
  const int count = f->gpu_measured ? f->gpus : 0;
  mxArray *d = mxCreateStructMatrix (1, (mwSize) count, 7, dev_fields);
  for (int i = 0; i < count; i++)
    {
      const tilemm_gpu_facts *g = &f->gpu[i];
      mxSetField (d, (mwIndex) i, "ordinal", mxCreateDoubleScalar (g->ordinal));
      mxSetField (d, (mwIndex) i, "name", mxCreateString (g->name));
      mxSetField (d, (mwIndex) i, "kernel_tflops", row (g->kernel_flops_per_s, TILEMM_NTYPES, 1e-12));
      mxSetField (d, (mwIndex) i, "up_gbytes_per_s", mxCreateDoubleScalar (g->up_bytes_per_s * 1e-9));
      mxSetField (d, (mwIndex) i, "down_gbytes_per_s",
                  mxCreateDoubleScalar (g->down_bytes_per_s * 1e-9));
      mxSetField (d, (mwIndex) i, "up_busy_gbytes_per_s",
                  mxCreateDoubleScalar (g->up_busy_bytes_per_s * 1e-9));
      mxSetField (d, (mwIndex) i, "down_busy_gbytes_per_s",
                  mxCreateDoubleScalar (g->down_busy_bytes_per_s * 1e-9));
    }
  mxSetField (s, 0, "devices", d);
  return s;
}

/* What the machine's facts are, where they came from and what they depend on. */
static mxArray *calibration_struct (const tilemm_machine_facts *f)
{
  static const char *fields[] = { "origin", "where", "key", "measured_seconds",
                                  "others_cpu_share", "host_measured",
                                  "host", "host_page", "cpu_measured", "cpu", "cpu_batch",
                                  "threads", "copy", "gpu", "host_blas", "parts" };
  mxArray *s = mxCreateStructMatrix (1, 1, (int) (sizeof fields / sizeof fields[0]), fields);
  mxSetField (s, 0, "origin", mxCreateString (tilemm_facts_origin_name (f->origin)));
  mxSetField (s, 0, "where", mxCreateString (f->where));
  mxSetField (s, 0, "key", key_struct (f->key));
  mxSetField (s, 0, "measured_seconds", mxCreateDoubleScalar (f->measured_s));
  mxSetField (s, 0, "others_cpu_share",
              mxCreateDoubleScalar (f->others_cpu_share >= 0 ? f->others_cpu_share : NAN));
  mxSetField (s, 0, "host_measured", logical (f->host_measured));
  mxSetField (s, 0, "host", curves_struct (f->host));
  mxSetField (s, 0, "host_page", curves_struct (f->host_page));
  mxSetField (s, 0, "cpu_measured", logical (f->cpu_measured));
  mxSetField (s, 0, "cpu", curves_struct (f->cpu));
  static const char *batch_fields[] = { "small_page_seconds", "page_seconds", "thread_gflops",
                                        "small_thread_gflops", "region_seconds" };
  mxArray *b = mxCreateStructMatrix (1, 1, 5, batch_fields);
  mxSetField (b, 0, "small_page_seconds", mxCreateDoubleScalar (f->cpu_small_page_s));
  mxSetField (b, 0, "page_seconds", mxCreateDoubleScalar (f->cpu_page_s));
  mxSetField (b, 0, "thread_gflops", mxCreateDoubleScalar (f->cpu_thread_flops_per_s * 1e-9));
  mxSetField (b, 0, "small_thread_gflops", mxCreateDoubleScalar (f->cpu_small_flops_per_s * 1e-9));
  mxSetField (b, 0, "region_seconds", mxCreateDoubleScalar (f->cpu_region_s));
  mxSetField (s, 0, "cpu_batch", b);
  mxSetField (s, 0, "threads", mxCreateDoubleScalar (f->threads));
  static const char *copy_fields[] = { "threads", "gbytes_per_s", "fresh_gbytes_per_s" };
  mxArray *c = mxCreateStructMatrix (1, 1, 3, copy_fields);
  double threads[TILEMM_COPY_POINTS];
  for (int i = 0; i < f->copy_points; i++)
    threads[i] = f->copy_threads[i];
  mxSetField (c, 0, "threads", row (threads, f->copy_points, 1));
  mxSetField (c, 0, "gbytes_per_s", row (f->copy_bytes_per_s, f->copy_points, 1e-9));
  mxSetField (c, 0, "fresh_gbytes_per_s", row (f->copy_fresh_bytes_per_s, f->copy_points, 1e-9));
  mxSetField (s, 0, "copy", c);
  mxSetField (s, 0, "gpu", gpu_struct (f));
  static const char *blas_fields[] = { "name", "threads", "spins" };
  mxArray *blas = mxCreateStructMatrix (1, 1, 3, blas_fields);
  mxSetField (blas, 0, "name", mxCreateString (f->host_blas.name));
  mxSetField (blas, 0, "threads", mxCreateDoubleScalar (f->host_blas.threads));
  mxSetField (blas, 0, "spins", logical (f->host_blas.spins));
  mxSetField (s, 0, "host_blas", blas);
  mxSetField (s, 0, "parts", mxCreateDoubleScalar ((double) f->parts));
  return s;
}

/* The text of argument 0 when it is a char row ("" otherwise), in `out`. */
static const char *command_of (int nrhs, const mxArray *prhs[], char *out, size_t size)
{
  out[0] = '\0';
  if (nrhs >= 1 && mxIsChar (prhs[0]) && mxGetM (prhs[0]) <= 1)
    mxGetString (prhs[0], out, (mwSize) size);
  return out;
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  tilemm_mex_register_cleanup ();
  char command[32];
  command_of (nrhs, prhs, command, sizeof command);
  const int calibrate = nrhs == 1 && strcmp (command, "calibrate") == 0;
  if (nrhs != 0 && !calibrate)
    mexErrMsgIdAndTxt ("tilemm:nargin",
                       "usage: s = tilemm_info () or tilemm_info (\"calibrate\") (measure the "
                       "machine's facts again now)");
  if (nlhs > 1)
    mexErrMsgIdAndTxt ("tilemm:nargout", "one output only");
  static const char *fields[] = { "version", "cuda_built", "openmp", "cpu_variant", "gpu_usable",
                                  "gpu_reason",
                                  "devices", "device_in_use", "devices_in_use", "plans",
                                  "precision", "blas_library", "calibration" };
  tilemm_options options;
  tilemm_options_init (&options);
  options.host = tilemm_mex_host_product ();
  const tilemm_machine_facts *facts = calibrate ? tilemm_machine_facts_measure (&options)
                                                : tilemm_machine_facts_for (&options);
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
  /* The CPU backend's variant a call's plan names: the host's facts' (host_cpus.h). */
  tilemm_host_facts host;
  tilemm_host_facts_gather (&host);
  mxSetField (s, 0, "cpu_variant", mxCreateString (tilemm_cpu_isa_name (host.cpu_isa)));
  mxSetField (s, 0, "gpu_usable", logical (usable));
  mxSetField (s, 0, "gpu_reason", mxCreateString (usable ? "" : err.detail));
  mxSetField (s, 0, "devices", devices_struct (&in_use));
  mxSetField (s, 0, "device_in_use",
              usable ? mxCreateDoubleScalar (tilemm_cuda_current_device ())
                     : mxCreateDoubleMatrix (0, 0, mxREAL));
  mxSetField (s, 0, "devices_in_use", ordinals);
  mxSetField (s, 0, "plans", plans_struct ());
  mxSetField (s, 0, "precision", precision_struct (usable, facts));
  mxSetField (s, 0, "blas_library", blas_library_path ());
  mxSetField (s, 0, "calibration", calibration_struct (facts));
  plhs[0] = s;
}
