/* options.c — what a front end builds a request from: the options of a call and their checks,
 * the names of the transposes, the devices a product may use, the values' helpers and the
 * advice that goes with an error (see front.h); and the environment's settings, read here and
 * nowhere else (tilemm_settings.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"
#include "host_pages.h"
#include "tilemm_settings.h"

const char tilemm_usage[] = "usage: C = tilemm (A, B), tilemm (A, tA, B, tB) or "
                            "tilemm (..., \"backend\", NAME, ...)";
const char tilemm_badtranspose_id[] = "tilemm:badtranspose";

void tilemm_options_init (tilemm_options *options)
{
  options->backend = TILEMM_CHOOSE_AUTO;
  options->precision = TILEMM_PRECISION_UNSET;
  options->moduli = 0;
  options->accuracy = 0;
  options->max_device_bytes = 0;
  options->stop.should_stop = NULL;
  options->stop.arg = NULL;
  options->devices.count = 0;
  options->simulate_devices = -1;
  options->notice = NULL;
  options->report = NULL;
  options->one_triangle = 0;
  options->host = NULL;
  options->facts = NULL;
  options->precision_entry = NULL;
  /* Read by the call that reads the machine's facts, at its start (tilemm_calibration_in_effect):
   * options made once and kept across calls follow the environment of each. */
  options->calibration.mode = TILEMM_CALIBRATION_UNSET;
  options->calibration.dir[0] = '\0';
}

static int same_ignoring_case (const char *a, const char *b)
{
  for (; *a && *b; a++, b++)
    if (tolower ((unsigned char) *a) != tolower ((unsigned char) *b))
      return 0;
  return *a == *b;
}

int tilemm_op_from_name (const char *text, tilemm_op *op)
{
  static const struct {
    const char *name;
    tilemm_op op;
  } names[] = { { "none", TILEMM_OP_NONE }, { "transpose", TILEMM_OP_TRANSPOSE },
                { "ctranspose", TILEMM_OP_CTRANSPOSE } };
  if (text)
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if (same_ignoring_case (text, names[i].name))
        {
          *op = names[i].op;
          return 1;
        }
  return 0;
}

int tilemm_is_op_form (int nargin, const char *second, const char *fourth)
{
  tilemm_op op;
  return nargin >= 4 && (tilemm_op_from_name (second, &op) || tilemm_op_from_name (fourth, &op));
}

tilemm_status tilemm_ops_parse (const char *ta, const char *tb, tilemm_op *op_a, tilemm_op *op_b,
                                tilemm_error *err)
{
  if (!tilemm_op_from_name (ta, op_a))
    return tilemm_error_set (err, TILEMM_EOPTION,
                             "tA (the second argument) must be \"none\", \"transpose\" or "
                             "\"ctranspose\"; %s", tilemm_usage);
  if (!tilemm_op_from_name (tb, op_b))
    return tilemm_error_set (err, TILEMM_EOPTION,
                             "tB (the fourth argument) must be \"none\", \"transpose\" or "
                             "\"ctranspose\"; %s", tilemm_usage);
  return TILEMM_OK;
}

int tilemm_backend_choice_from_name (const char *name, tilemm_backend_choice *choice)
{
  static const struct {
    const char *name;
    tilemm_backend_choice choice;
  } names[] = { { "auto", TILEMM_CHOOSE_AUTO }, { "cpu", TILEMM_CHOOSE_CPU },
                { "gpu", TILEMM_CHOOSE_GPU } };
  for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
    if (same_ignoring_case (name, names[i].name))
      {
        *choice = names[i].choice;
        return 1;
      }
  return 0;
}

static tilemm_status set_backend (tilemm_options *options, const tilemm_value *value,
                                  tilemm_error *err)
{
  if (value->kind == TILEMM_VALUE_STRING
      && tilemm_backend_choice_from_name (value->string, &options->backend))
    return TILEMM_OK;
  return tilemm_error_set (err, TILEMM_EOPTION,
                           "option \"backend\" must be \"auto\", \"cpu\" or \"gpu\"");
}

static tilemm_status set_byte_count (size_t *bytes, const char *name, const tilemm_value *value,
                                     tilemm_error *err)
{
  const double x = value->number;
  if (value->kind != TILEMM_VALUE_REAL_SCALAR || !(x >= 0) || x > 9.0e18 || x != floor (x))
    return tilemm_error_set (err, TILEMM_EOPTION,
                             "option \"%s\" must be a whole number of bytes >= 0 (0: no limit)",
                             name);
  *bytes = (size_t) x;
  return TILEMM_OK;
}

/* ---------------------------------------------------------------- precision */

/* "native", "emulated" or "auto" (any case) into *precision; 0 when text names none. */
static int precision_from_name (const char *text, tilemm_precision *precision)
{
  if (text && same_ignoring_case (text, "native"))
    *precision = TILEMM_PRECISION_NATIVE;
  else if (text && same_ignoring_case (text, "emulated"))
    *precision = TILEMM_PRECISION_EMULATED;
  else if (text && same_ignoring_case (text, "auto"))
    *precision = TILEMM_PRECISION_AUTO;
  else
    return 0;
  return 1;
}

static tilemm_status set_precision (tilemm_options *options, const tilemm_value *value,
                                    tilemm_error *err)
{
  if (value->kind == TILEMM_VALUE_STRING && precision_from_name (value->string, &options->precision))
    return TILEMM_OK;
  return tilemm_error_set (err, TILEMM_EOPTION,
                           "option \"precision\" must be \"native\" (the default), "
                           "\"emulated\" or \"auto\"");
}

/* A whole number from low to high into *x; else TILEMM_EOPTION saying so, and what it means. */
static tilemm_status set_whole (int *x, const char *name, int low, int high, const char *meaning,
                                const tilemm_value *value, tilemm_error *err)
{
  const double v = value->number;
  if (value->kind != TILEMM_VALUE_REAL_SCALAR || !(v >= low) || v > high || v != floor (v))
    return tilemm_error_set (err, TILEMM_EOPTION,
                             "option \"%s\" must be a whole number from %d to %d (%s)", name, low,
                             high, meaning);
  *x = (int) v;
  return TILEMM_OK;
}

tilemm_status tilemm_precision_in_effect (const tilemm_options *options,
                                          tilemm_precision *precision, tilemm_error *err)
{
  *precision = options->precision;
  if (*precision != TILEMM_PRECISION_UNSET)
    return TILEMM_OK;
  *precision = TILEMM_PRECISION_NATIVE;
  const char *env = getenv ("TILEMM_PRECISION");
  if (env && *env && !precision_from_name (env, precision))
    return tilemm_error_set (err, TILEMM_EOPTION,
                             "TILEMM_PRECISION=\"%s\" must be \"native\", \"emulated\" or "
                             "\"auto\" (or unset: native)",
                             env);
  return TILEMM_OK;
}

/* "accuracy": target bits 1..53 (the certified rule at fewer bits), "native" (any case: the
 * native-matching rule at the type's bits, emulated.h step 3') or "elementwise" (native BLAS's
 * elementwise bound, step 3''). */
static tilemm_status set_accuracy (tilemm_options *options, const tilemm_value *value,
                                   tilemm_error *err)
{
  if (value->kind == TILEMM_VALUE_STRING)
    {
      if (value->string && same_ignoring_case (value->string, "native"))
        {
          options->accuracy = TILEMM_ACCURACY_NATIVE;
          return TILEMM_OK;
        }
      if (value->string && same_ignoring_case (value->string, "elementwise"))
        {
          options->accuracy = TILEMM_ACCURACY_ELEMENTWISE;
          return TILEMM_OK;
        }
      return tilemm_error_set (err, TILEMM_EOPTION,
                               "option \"accuracy\" must be \"elementwise\" (native BLAS's "
                               "bound, entry by entry), \"native\" (that bound through the "
                               "norms) or a whole number from 1 to 53 (the bits the emulated "
                               "precision targets: 53 double, 24 single)");
    }
  return set_whole (&options->accuracy, "accuracy", 1, 53,
                    "the bits the emulated precision targets: 53 double, 24 single; or "
                    "\"native\" or \"elementwise\"",
                    value, err);
}

/* ---------------------------------------------------------------- several devices */

/* The most a device ordinal may be (CUDA's own limit is far lower). */
#define FRONT_MAX_ORDINAL 63

/* "0,1" or "0 1" (or "" for none) into *w; 0 when malformed or longer than TILEMM_MAX_WORKERS. */
static int parse_device_list (const char *text, tilemm_workers *w)
{
  w->count = 0;
  const char *p = text;
  for (;;)
    {
      while (*p == ' ' || *p == '\t')
        p++;
      if (!*p)
        return 1;
      if (!isdigit ((unsigned char) *p))
        return 0;
      char *end = NULL;
      const long d = strtol (p, &end, 10);
      if (d > FRONT_MAX_ORDINAL || w->count >= TILEMM_MAX_WORKERS)
        return 0;
      w->device[w->count++] = (int) d;
      p = end;
      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == ',')
        p++;
      else if (*p && !isdigit ((unsigned char) *p))
        return 0;
    }
}

static tilemm_status set_devices (tilemm_options *options, const tilemm_value *value,
                                  tilemm_error *err)
{
  tilemm_workers w = { 0, { 0 } };
  int ok = 0;
  if (value->kind == TILEMM_VALUE_STRING)
    ok = parse_device_list (value->string, &w);
  else if (value->kind == TILEMM_VALUE_REAL_SCALAR || value->kind == TILEMM_VALUE_REAL_VECTOR)
    {
      const double *x = value->kind == TILEMM_VALUE_REAL_SCALAR ? &value->number : value->numbers;
      const size_t count = value->kind == TILEMM_VALUE_REAL_SCALAR ? 1 : value->count;
      ok = count <= TILEMM_MAX_WORKERS;
      for (size_t i = 0; ok && i < count; i++)
        {
          ok = x[i] >= 0 && x[i] <= FRONT_MAX_ORDINAL && x[i] == floor (x[i]);
          w.device[w.count++] = ok ? (int) x[i] : 0;
        }
    }
  if (!ok)
    return tilemm_error_set (err, TILEMM_EOPTION,
                             "option \"devices\" must list at most %d CUDA device ordinals "
                             "(0-based, such as [0 1] or \"0,1\"; a device listed twice runs two "
                             "workers on it)",
                             TILEMM_MAX_WORKERS);
  options->devices = w;
  return TILEMM_OK;
}

static tilemm_status set_simulate_devices (tilemm_options *options, const tilemm_value *value,
                                           tilemm_error *err)
{
  const double x = value->number;
  if (value->kind != TILEMM_VALUE_REAL_SCALAR || !(x >= 0) || x > TILEMM_MAX_WORKERS
      || x != floor (x))
    return tilemm_error_set (err, TILEMM_EOPTION,
                             "option \"simulate_devices\" must be a whole number from 0 to %d",
                             TILEMM_MAX_WORKERS);
  options->simulate_devices = (int) x;
  return TILEMM_OK;
}

/* The GPUs a product may use: the option's, else TILEMM_DEVICES' (both named: used as listed,
 * each checked against the devices there are), else every usable GPU (the crossover decides how
 * many, devices.h).  The variable comes with the call's settings, read once per call, so
 * changing it takes effect at the next product; the devices themselves come from the facts the
 * executor gathered. */
tilemm_status tilemm_devices_of_call (const tilemm_options *options,
                                      const tilemm_call_settings *settings,
                                      const tilemm_device_facts *facts, tilemm_workers *w,
                                      int *named, tilemm_error *err)
{
  *w = options->devices;
  *named = w->count > 0;
  if (!*named && settings->devices_given)
    {
      if (settings->devices_bad)
        return tilemm_error_set (err, TILEMM_EOPTION,
                                 "TILEMM_DEVICES=\"%s\" must list at most %d CUDA device ordinals "
                                 "such as \"0,1\"",
                                 settings->devices_text, TILEMM_MAX_WORKERS);
      *w = settings->devices;
      *named = w->count > 0;
    }
  if (!*named)
    {
      w->count = facts->usable ? facts->count : 0;
      for (int i = 0; i < w->count; i++)
        w->device[i] = facts->device[i];
      return TILEMM_OK;
    }
  const int count = facts->usable ? facts->total : 0;
  for (int i = 0; i < w->count; i++)
    if (w->device[i] >= count)
      return tilemm_error_set (err, TILEMM_EOPTION,
                               "%s names CUDA device %d, but there %s %d (ordinals 0 to %d)",
                               options->devices.count > 0 ? "option \"devices\"" : "TILEMM_DEVICES",
                               w->device[i], count == 1 ? "is" : "are", count, count - 1);
  return TILEMM_OK;
}

/* ---------------------------------------------------------------- the machine's facts */

void tilemm_calibration_in_effect (const tilemm_options *options,
                                   tilemm_calibration_setting *setting)
{
  if (options && options->calibration.mode != TILEMM_CALIBRATION_UNSET)
    {
      *setting = options->calibration;
      return;
    }
  const char *on = getenv ("TILEMM_CALIBRATION");
  setting->mode = !on ? TILEMM_CALIBRATION_ON
                  : same_ignoring_case (on, "off") || same_ignoring_case (on, "0")
                        || same_ignoring_case (on, "no")
                      ? TILEMM_CALIBRATION_OFF
                  : same_ignoring_case (on, "keep") ? TILEMM_CALIBRATION_KEEP
                                                    : TILEMM_CALIBRATION_ON;
  const size_t size = sizeof setting->dir;
  char *dir = setting->dir;
  dir[0] = '\0';
  const char *own = getenv ("TILEMM_CALIBRATION_DIR");
  const char *cache = getenv ("XDG_CACHE_HOME");
  const char *home = getenv ("HOME");
  if (own && *own)
    snprintf (dir, size, "%s", own);
  else if (cache && cache[0] == '/')
    snprintf (dir, size, "%s/tilemm", cache);
  else if (home && home[0] == '/')
    snprintf (dir, size, "%s/.cache/tilemm", home);
}

void tilemm_host_threads_setting (char *text, size_t size)
{
  static const char *const names[] = { "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                       "MKL_NUM_THREADS", "GOTO_NUM_THREADS",
                                       "CUDA_VISIBLE_DEVICES" };
  size_t used = 0;
  if (size > 0)
    text[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof names[0] && used < size; i++)
    {
      const char *v = getenv (names[i]);
      used += (size_t) snprintf (text + used, size - used, "%s%s=%s", i ? " " : "", names[i],
                                 v ? v : "");
    }
}

int tilemm_simulated_of_call (const tilemm_options *options, const tilemm_call_settings *settings)
{
  if (options->simulate_devices >= 0)
    return options->simulate_devices;
  return settings->simulate_devices > 0 ? settings->simulate_devices : 0;
}

/* ---------------------------------------------------------------- the environment */

/* A whole number from the environment, or `fallback` when unset or not one in [lo, hi]. */
static long env_long (const char *name, long fallback, long lo, long hi)
{
  const char *v = getenv (name);
  if (!v || !*v)
    return fallback;
  char *end = NULL;
  const long x = strtol (v, &end, 10);
  return *end || x < lo || x > hi ? fallback : x;
}

/* "DEV" or "DEV:NUM" from the environment into *first, *second; untouched when unset or
 * malformed. */
static void env_pair (const char *name, int *first, int *second)
{
  const char *v = getenv (name);
  if (!v || !*v)
    return;
  char *end = NULL;
  const long x = strtol (v, &end, 10);
  long y = *second;
  if (end == v || x < 0 || x >= TILEMM_MAX_WORKERS)
    return;
  if (*end == ':')
    {
      const char *rest = end + 1;
      y = strtol (rest, &end, 10);
      if (end == rest || y < 0 || y > 1000000)
        return;
    }
  if (*end)
    return;
  *first = (int) x;
  *second = (int) y;
}

/* The variable's text into out (size bytes, cut to fit); returns whether it is set, not empty. */
static int env_text (const char *name, char *out, size_t size)
{
  const char *v = getenv (name);
  snprintf (out, size, "%s", v ? v : "");
  return v && *v;
}

/* OMP_NUM_THREADS, as the user's cap on the host's threads (the name every threaded library of
 * the process reads): its first number (a list names the threads of nested levels), 0 when unset
 * or malformed. */
static int host_threads_cap (void)
{
  const char *v = getenv ("OMP_NUM_THREADS");
  if (!v)
    return 0;
  char *end = NULL;
  const long x = strtol (v, &end, 10);
  return end != v && (*end == '\0' || *end == ',') && x > 0 && x <= 1L << 16 ? (int) x : 0;
}

static tilemm_process_settings process_settings;
static pthread_once_t process_settings_once = PTHREAD_ONCE_INIT;

static void read_process_settings (void)
{
  tilemm_process_settings *s = &process_settings;
  s->staging_chunk_bytes = getenv ("TILEMM_STAGING_KB")
                             ? (size_t) env_long ("TILEMM_STAGING_KB", 16384, 1, 1L << 20) << 10
                             : (size_t) env_long ("TILEMM_STAGING_MB", 16, 1, 1024) << 20;
  s->staging_chunks = (int) env_long ("TILEMM_STAGING_CHUNKS", 4, 2, 16);
  s->copy_threads = (int) env_long ("TILEMM_COPY_THREADS", 0, 0, 1024);
  s->host_threads = host_threads_cap ();
  s->huge_pages = (int) env_long ("TILEMM_HUGEPAGES", 1, 0, 1);
  s->prefault_threads = (int) env_long ("TILEMM_PREFAULT_THREADS", 0, 0, 64);
  s->keep_freed_memory = (int) env_long ("TILEMM_KEEP_FREED_MEMORY", 0, 0, 1);
  /* A setting of the whole process's allocator: made here, where the process's settings are
   * read once, before the call that read them allocates its result. */
  if (s->keep_freed_memory)
    tilemm_keep_freed_memory ();
  const char *memset_value = getenv ("TILEMM_BLAS_MEMSET");
  s->blas_memset = memset_value && strcmp (memset_value, "0") == 0 ? TILEMM_BLAS_MEMSET_OFF
                   : memset_value && strcmp (memset_value, "huge") == 0 ? TILEMM_BLAS_MEMSET_HUGE
                                                                       : TILEMM_BLAS_MEMSET_THREADS;
  env_text ("TILEMM_BLAS_TRACE", s->blas_trace, sizeof s->blas_trace);
}

const tilemm_process_settings *tilemm_process_settings_get (void)
{
  pthread_once (&process_settings_once, read_process_settings);
  return &process_settings;
}

void tilemm_sim_faults_none (tilemm_sim_faults *faults)
{
  faults->fail_device = -1;
  faults->fail_after = 0;
  faults->slow_device = -1;
  faults->slow_ms = 0;
}

void tilemm_call_settings_read (tilemm_call_settings *s)
{
  const tilemm_process_settings *process = tilemm_process_settings_get ();
  s->staging_chunk_bytes = process->staging_chunk_bytes;
  s->staging_chunks = process->staging_chunks;
  s->huge_pages = process->huge_pages;
  s->prefault_threads = process->prefault_threads;
  const char *devices = getenv ("TILEMM_DEVICES");
  s->devices_given = devices && *devices;
  snprintf (s->devices_text, sizeof s->devices_text, "%s", devices ? devices : "");
  s->devices.count = 0;
  s->devices_bad = s->devices_given && !parse_device_list (devices, &s->devices);
  s->simulate_devices = (int) env_long ("TILEMM_SIMULATE_DEVICES", -1, 0, TILEMM_MAX_WORKERS);
  tilemm_sim_faults_none (&s->sim_faults);
  env_pair ("TILEMM_SIMULATE_FAIL", &s->sim_faults.fail_device, &s->sim_faults.fail_after);
  env_pair ("TILEMM_SIMULATE_SLOW", &s->sim_faults.slow_device, &s->sim_faults.slow_ms);
  s->step_cols = env_long ("TILEMM_STEP_COLS", 0, 0, 1L << 40);
  s->step_rows = env_long ("TILEMM_STEP_ROWS", 0, 0, 1L << 40);
  env_text ("TILEMM_EMU_IMMA", s->emu_gemm, sizeof s->emu_gemm);
  s->emu_pipe_cols = env_long ("TILEMM_EMU_PIPE_COLS", 0, -1, 1L << 40);
  s->emu_pipe_first = env_long ("TILEMM_EMU_PIPE_FIRST", 0, 0, 1L << 40);
  const char *alone = getenv ("TILEMM_PAGES_ALONE");
  s->pages_alone = alone && (alone[0] == '0' || alone[0] == '1') && alone[1] == '\0'
                     ? alone[0] == '1'
                     : -1;
  tilemm_fault_spec_parse (getenv ("TILEMM_FAULT"), &s->fault);
}

void tilemm_blas_settings_read (tilemm_blas_settings *s)
{
  s->backend_given = env_text ("TILEMM_BLAS_BACKEND", s->backend, sizeof s->backend);
  const char *times = getenv ("TILEMM_BLAS_TIMES");
  s->times = times && *times && *times != '0';
}

tilemm_status tilemm_options_set (tilemm_options *options, const char *name,
                                  const tilemm_value *value, tilemm_error *err)
{
  if (same_ignoring_case (name, "backend"))
    return set_backend (options, value, err);
  if (same_ignoring_case (name, "max_device_bytes"))
    return set_byte_count (&options->max_device_bytes, "max_device_bytes", value, err);
  if (same_ignoring_case (name, "devices"))
    return set_devices (options, value, err);
  if (same_ignoring_case (name, "simulate_devices"))
    return set_simulate_devices (options, value, err);
  if (same_ignoring_case (name, "precision"))
    return set_precision (options, value, err);
  if (same_ignoring_case (name, "moduli"))
    return set_whole (&options->moduli, "moduli", 1, TILEMM_EMU_MAX_MODULI,
                      "the exact count of moduli of the emulated precision, no accuracy promise",
                      value, err);
  if (same_ignoring_case (name, "accuracy"))
    return set_accuracy (options, value, err);
  return tilemm_error_set (err, TILEMM_EOPTION,
                           "unknown option \"%s\"; known options: \"backend\", "
                           "\"max_device_bytes\", \"devices\", \"simulate_devices\", "
                           "\"precision\", \"moduli\", \"accuracy\"",
                           name);
}

int tilemm_imag_all_zero (tilemm_type complex_type, const void *data, size_t count)
{
  if (complex_type == TILEMM_COMPLEX_SINGLE)
    {
      const float *x = (const float *) data;
      for (size_t i = 0; i < count; i++)
        if (x[2 * i + 1] != 0.0f)
          return 0;
    }
  else
    {
      const double *x = (const double *) data;
      for (size_t i = 0; i < count; i++)
        if (x[2 * i + 1] != 0.0)
          return 0;
    }
  return 1;
}

void tilemm_copy_real_parts (tilemm_type complex_type, const void *data, size_t count, void *real)
{
  if (complex_type == TILEMM_COMPLEX_SINGLE)
    {
      const float *x = (const float *) data;
      float *y = (float *) real;
      for (size_t i = 0; i < count; i++)
        y[i] = x[2 * i];
    }
  else
    {
      const double *x = (const double *) data;
      double *y = (double *) real;
      for (size_t i = 0; i < count; i++)
        y[i] = x[2 * i];
    }
}

/* What a user can do about each failure, appended to the message. */
const char *tilemm_advice (tilemm_status status)
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
    case TILEMM_EINTERRUPTED:
      return "tilemm is ready for the next call.";
    default:
      return "";
    }
}

