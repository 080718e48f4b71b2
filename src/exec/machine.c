/* machine.c — the process's machine facts (front.h: tilemm_machine_facts_for): what they depend
 * on (the key), the store that keeps them per user (one small file per key), and the copy this
 * process reads, measured once (calibrate.c) where the store has none for this key.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The facts a call reads live as long as the process: a plan holds a pointer to them, so a newer
 * set (measured again, or read again after another process stored one) is a new allocation and
 * the old one is kept.  The key is made again, and the store checked for a newer file (another
 * process, or another module of this one such as tilemm_info's mex file, measured again), at
 * most once a second.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "front.h"
#include "host_cpus.h"
#include "machine_facts.h"

#ifndef TILEMM_VERSION
#define TILEMM_VERSION "unknown"
#endif
#define TILEMM_STRINGIFY_(x) #x
#define TILEMM_STRINGIFY(x) TILEMM_STRINGIFY_ (x)

/* ---------------------------------------------------------------- the key */

/* The first line of `path` that starts with `field` (its rest, trimmed of ": " and the newline)
 * into out; 0 where there is none. */
static int read_field (const char *path, const char *field, char *out, size_t size)
{
  FILE *f = fopen (path, "r");
  if (!f)
    return 0;
  char line[512];
  int found = 0;
  const size_t flen = strlen (field);
  while (!found && fgets (line, sizeof line, f))
    if (strncmp (line, field, flen) == 0)
      {
        const char *v = line + flen;
        while (*v == ' ' || *v == '\t' || *v == ':')
          v++;
        snprintf (out, size, "%s", v);
        out[strcspn (out, "\n")] = '\0';
        found = 1;
      }
  fclose (f);
  return found;
}

/* The NVIDIA GPUs and driver as the driver's own files describe them: no CUDA call, so that a
 * product too small for any GPU starts no CUDA context to find its facts. */
static void gpu_key (char *out, size_t size)
{
  char driver[256] = "";
  if (!read_field ("/proc/driver/nvidia/version", "NVRM version", driver, sizeof driver))
    {
      snprintf (out, size, "none");
      return;
    }
  size_t used = (size_t) snprintf (out, size, "%s", driver);
  DIR *d = opendir ("/proc/driver/nvidia/gpus");
  if (!d)
    return;
  /* The GPUs' bus ids, sorted, each with its model. */
  char ids[TILEMM_MAX_WORKERS * 4][256];
  int count = 0;
  for (struct dirent *e; (e = readdir (d)) != NULL && count < (int) (sizeof ids / sizeof ids[0]);)
    if (e->d_name[0] != '.')
      snprintf (ids[count++], sizeof ids[0], "%s", e->d_name);
  closedir (d);
  for (int i = 1; i < count; i++)
    for (int j = i; j > 0 && strcmp (ids[j - 1], ids[j]) > 0; j--)
      {
        char t[256];
        memcpy (t, ids[j], sizeof t);
        memcpy (ids[j], ids[j - 1], sizeof t);
        memcpy (ids[j - 1], t, sizeof t);
      }
  for (int i = 0; i < count && used < size; i++)
    {
      char path[320], model[160] = "?";
      snprintf (path, sizeof path, "/proc/driver/nvidia/gpus/%.200s/information", ids[i]);
      read_field (path, "Model", model, sizeof model);
      used += (size_t) snprintf (out + used, size - used, "; %s %s", ids[i], model);
    }
}

static void cpu_key (char *out, size_t size)
{
  char model[256] = "unknown";
  if (!read_field ("/proc/cpuinfo", "model name", model, sizeof model))
    read_field ("/proc/cpuinfo", "Model", model, sizeof model);
  const long online = sysconf (_SC_NPROCESSORS_ONLN);
  snprintf (out, size, "%s x%ld", model, online);
}

static int host_threads (void)
{
  tilemm_host_facts host;
  tilemm_host_facts_gather (&host);
  return host.threads;
}

void tilemm_machine_key (const tilemm_host_product *host, char *key, size_t size)
{
  char cpu[320], gpus[1024], env[512];
  cpu_key (cpu, sizeof cpu);
  gpu_key (gpus, sizeof gpus);
  tilemm_host_threads_setting (env, sizeof env);
  snprintf (key, size,
            "tilemm=%s\nbuild=%s\ncpu=%s\nthreads=%d\nenv=%s\ngpus=%s\nhost_product=%s\n",
            TILEMM_STRINGIFY (TILEMM_VERSION),
            tilemm_backend_find (TILEMM_BACKEND_CUDA) ? "cuda" : "cpu", cpu, host_threads (),
            env, gpus, host && host->library[0] ? host->library : "none");
}

/* ---------------------------------------------------------------- the store */

/* FNV-1a: the file's name from the key (the key itself is inside, compared whole). */
static uint64_t key_hash (const char *key)
{
  uint64_t h = 1469598103934665603ull;
  for (const unsigned char *p = (const unsigned char *) key; *p; p++)
    h = (h ^ *p) * 1099511628211ull;
  return h;
}

static void store_path (const char *dir, const char *key, char *path, size_t size)
{
  snprintf (path, size, "%s/facts-%016llx.txt", dir, (unsigned long long) key_hash (key));
}

/* Makes `dir` and its parents (mode 0700: a user's own). */
static int make_dirs (const char *dir)
{
  char path[512];
  snprintf (path, sizeof path, "%s", dir);
  for (char *p = path + 1; *p; p++)
    if (*p == '/')
      {
        *p = '\0';
        if (mkdir (path, 0700) != 0 && errno != EEXIST)
          return 0;
        *p = '/';
      }
  return mkdir (path, 0700) == 0 || errno == EEXIST;
}

/* The facts in `path` if they are for `key`; 0 otherwise (no file, another key, not facts). */
static int store_read (const char *path, const char *key, tilemm_machine_facts *facts)
{
  FILE *f = fopen (path, "r");
  if (!f)
    return 0;
  static const size_t MOST = 64 * 1024;
  char *text = malloc (MOST);
  int ok = 0;
  if (text)
    {
      const size_t n = fread (text, 1, MOST - 1, f);
      text[n] = '\0';
      ok = n < MOST - 1 && tilemm_facts_parse (text, facts) == TILEMM_OK
           && strcmp (facts->key, key) == 0;
      free (text);
    }
  fclose (f);
  if (ok)
    {
      facts->origin = TILEMM_FACTS_STORED;
      snprintf (facts->where, sizeof facts->where, "%.500s", path);
    }
  return ok;
}

/* Writes the facts to `path` through a file beside it renamed over it (a reader never sees half
 * a file; processes measuring at once leave one whole file).  0 with the reason in *err. */
static int store_write (const char *dir, const char *path, const tilemm_machine_facts *facts,
                        tilemm_error *err)
{
  if (!make_dirs (dir))
    {
      tilemm_error_set (err, TILEMM_EINVAL, "cannot make the folder %s: %s", dir,
                        strerror (errno));
      return 0;
    }
  const size_t need = tilemm_facts_print (facts, NULL, 0) + 1;
  char *text = malloc (need);
  if (!text)
    {
      tilemm_error_set (err, TILEMM_ENOMEM, "out of memory");
      return 0;
    }
  tilemm_facts_print (facts, text, need);
  char tmp[640];
  snprintf (tmp, sizeof tmp, "%.580s.%ld.tmp", path, (long) getpid ());
  FILE *f = fopen (tmp, "w");
  int ok = f && fputs (text, f) >= 0;
  if (f && fclose (f) != 0)
    ok = 0;
  free (text);
  if (ok && rename (tmp, path) != 0)
    ok = 0;
  if (!ok)
    {
      tilemm_error_set (err, TILEMM_EINVAL, "cannot write %s: %s", path, strerror (errno));
      remove (tmp);
    }
  return ok;
}

/* ---------------------------------------------------------------- the process's copy */

typedef struct {
  pthread_mutex_t lock;
  const tilemm_machine_facts *facts;  /* the copy calls read (NULL: none yet)            */
  char key[1024];                     /* its key (the built-in model's: the key it serves) */
  char dir[512];                      /* the store's folder when it was made               */
  char path[600];                     /* its store ("" where it has none)                */
  struct timespec stored_at;          /* the store's modification time when it was read  */
  double checked_s;                   /* when key and store were last checked            */
  int warned;                         /* the one warning of a calibration that failed     */
  unsigned failed;                    /* parts whose measurement failed for this key: the
                                         model's, not measured again by this process      */
} process_facts;

static process_facts cache = { PTHREAD_MUTEX_INITIALIZER, NULL, "", "", "", { 0, 0 }, -1e9, 0, 0 };

/* Every set of facts the process made, each kept for the rest of it (a plan may point to any):
 * listed, so that none is ever lost (they are few: one a measurement or a change of key). */
static tilemm_machine_facts **kept;
static size_t kept_count, kept_room;

/* A new copy of *facts, kept for the rest of the process (see the top of this file). */
static const tilemm_machine_facts *keep (const tilemm_machine_facts *facts)
{
  if (kept_count == kept_room)
    {
      const size_t room = kept_room ? 2 * kept_room : 8;
      tilemm_machine_facts **grown = realloc (kept, room * sizeof *grown);
      if (!grown)
        return tilemm_facts_builtin ();
      kept = grown;
      kept_room = room;
    }
  tilemm_machine_facts *copy = malloc (sizeof *copy);
  if (!copy)
    return tilemm_facts_builtin ();
  *copy = *facts;
  kept[kept_count++] = copy;
  return copy;
}

static int same_time (const struct timespec *a, const struct timespec *b)
{
  return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* The built-in model for `key`, saying why it serves; warns once where `why` is a failure. */
static void serve_model (const tilemm_options *options, const char *key, const char *why,
                         int failure)
{
  tilemm_machine_facts model;
  tilemm_facts_model (&model, why);
  snprintf (model.key, sizeof model.key, "%s", key);
  cache.facts = keep (&model);
  snprintf (cache.key, sizeof cache.key, "%s", key);
  cache.path[0] = '\0';
  if (failure && !cache.warned)
    {
      cache.warned = 1;
      if (options->notice && !options->notice->raised)
        {
          options->notice->raised = 1;
          snprintf (options->notice->id, sizeof options->notice->id, "tilemm:calibration");
          snprintf (options->notice->text, sizeof options->notice->text,
                    "tilemm: the machine's facts could not be measured or kept (%s); the "
                    "built-in model decides instead", why);
        }
      else
        fprintf (stderr,
                 "tilemm: the machine's facts could not be measured or kept (%s); the built-in "
                 "model decides instead\n", why);
    }
}

/* Facts measured while other processes took more than this share of the CPUs' time describe
 * that moment's machine, not this one: used by the process that measured them, not kept. */
static const double BUSY_SHARE = 0.25;

/* The parts' names for the notice ("copies, double, one GPU"), into buf. */
static void parts_named (unsigned parts, char *buf, size_t size)
{
  static const char *const types[TILEMM_NTYPES] = { "single", "double", "complex single",
                                                    "complex double" };
  size_t used = 0;
  buf[0] = '\0';
#define NAME(cond, text)                                                                    \
  if ((cond) && used < size)                                                                \
    used += (size_t) snprintf (buf + used, size - used, "%s%s", used ? ", " : "", text)
  for (int t = 0; t < TILEMM_NTYPES; t++)
    NAME (parts & TILEMM_FACTS_WAYS (t), types[t]);
  NAME (parts & TILEMM_FACTS_PAGES, "pages");
  NAME (parts & TILEMM_FACTS_COPIES, "host copies");
  NAME (parts & TILEMM_FACTS_GPU, "a GPU call");
  NAME (parts & TILEMM_FACTS_GPUS, "every GPU");
  NAME (parts & TILEMM_FACTS_INT8, "the int8 GEMM");
#undef NAME
}

/* Measures the `parts` of the facts for `key` on top of `base` (NULL, or facts of another key:
 * the built-in model), keeps them in this process and, where it can (and the machine was quiet
 * enough), in the store. */
static void measure (const tilemm_options *options, int keep_busy, const char *key,
                     const char *dir, const char *path, const tilemm_machine_facts *base,
                     unsigned parts)
{
  tilemm_machine_facts facts;
  tilemm_error err = { TILEMM_OK, "" };
  if (base && strcmp (base->key, key) == 0)
    facts = *base;
  else
    {
      tilemm_facts_model (&facts, NULL);
      facts.parts = 0;
      facts.measured_s = 0;
      facts.others_cpu_share = -1;
    }
  snprintf (facts.key, sizeof facts.key, "%s", key);
  char named[160];
  parts_named (parts, named, sizeof named);
  /* One line, once a part: the call waits for it (about a second) and no later call will. */
  fprintf (stderr, "tilemm: measuring this machine once for the decisions of \"auto\" (%s)\n",
           named);
  const double started = tilemm_now_s ();
  if (tilemm_calibrate_parts (options->host, parts, &facts, &err) != TILEMM_OK)
    {
      cache.failed |= parts;
      if (base && strcmp (base->key, key) == 0)
        {
          /* The parts measured before stay; these are the model's. */
          if (!cache.warned)
            {
              cache.warned = 1;
              fprintf (stderr, "tilemm: part of the machine's facts could not be measured (%s); "
                               "the built-in model stands in for it\n",
                       err.detail[0] ? err.detail : "the calibration failed");
            }
          return;
        }
      serve_model (options, key, err.detail[0] ? err.detail : "the calibration failed", 1);
      return;
    }
  struct stat st;
  const int busy = facts.others_cpu_share > BUSY_SHARE && !keep_busy;
  if (busy)
    tilemm_error_set (&err, TILEMM_EINVAL,
                      "the machine was busy while they were measured (other processes took %.0f%% "
                      "of its CPUs' time; measured again by the next process)",
                      100 * facts.others_cpu_share);
  if (!busy && dir[0] && store_write (dir, path, &facts, &err) && stat (path, &st) == 0)
    {
      snprintf (facts.where, sizeof facts.where, "%.500s", path);
      snprintf (cache.path, sizeof cache.path, "%s", path);
      cache.stored_at = st.st_mtim;
    }
  else
    {
      /* Measured but not kept: used by this process, measured again by the next. */
      snprintf (facts.where, sizeof facts.where, "not kept: %s",
                busy || dir[0] ? err.detail
                               : "no folder to keep them in (set TILEMM_CALIBRATION_DIR)");
      cache.path[0] = '\0';
      if (!cache.warned)
        {
          cache.warned = 1;
          fprintf (stderr, "tilemm: the machine's facts were measured but %s\n", facts.where);
        }
    }
  facts.origin = TILEMM_FACTS_MEASURED;
  cache.facts = keep (&facts);
  snprintf (cache.key, sizeof cache.key, "%s", key);
  fprintf (stderr, "tilemm: measured in %.2f s (host copies %.2f, a GPU call %.2f, the ways %.2f "
                   "%.2f %.2f %.2f, pages %.2f, every GPU %.2f, the int8 GEMM %.2f)\n",
           tilemm_now_s () - started, facts.part_s[0], facts.part_s[6], facts.part_s[1],
           facts.part_s[2], facts.part_s[3], facts.part_s[4], facts.part_s[5], facts.part_s[7],
           facts.part_s[8]);
}

/* The parts of `needs` neither the process's copy holds nor failed for its key. */
static unsigned missing (unsigned needs)
{
  const unsigned held = cache.facts ? cache.facts->parts : 0;
  return needs & ~held & ~cache.failed;
}

/* Brings the process's copy up to date: the key made again and, where it changed or the store
 * holds a newer file, the facts read again; then the parts of `needs` that are still missing
 * measured (all of them where `force`). */
static void refresh (const tilemm_options *options, const tilemm_calibration_setting *calibration,
                     int force, unsigned needs)
{
  char key[1024], path[600];
  const char *const dir = calibration->dir;
  const int keep_busy = calibration->mode == TILEMM_CALIBRATION_KEEP;
  tilemm_machine_key (options->host, key, sizeof key);
  if (calibration->mode == TILEMM_CALIBRATION_OFF)
    {
      if (!cache.facts || cache.facts->origin != TILEMM_FACTS_MODEL || strcmp (cache.key, key))
        serve_model (options, key, "calibration off (TILEMM_CALIBRATION)", 0);
      return;
    }
  if (strcmp (cache.key, key) != 0)
    cache.failed = 0;
  path[0] = '\0';
  if (dir[0])
    store_path (dir, key, path, sizeof path);
  struct stat st;
  const int stored = path[0] && stat (path, &st) == 0;
  const int same = cache.facts && strcmp (cache.key, key) == 0 && strcmp (cache.dir, dir) == 0;
  /* The same key and store: read again only a newer file (another process or module measured
   * again); facts that could not be kept are used until the store has some. */
  const int newer = stored && !(same && strcmp (cache.path, path) == 0
                                && same_time (&cache.stored_at, &st.st_mtim));
  snprintf (cache.dir, sizeof cache.dir, "%s", dir);
  tilemm_machine_facts facts;
  if (!force && newer && store_read (path, key, &facts))
    {
      cache.facts = keep (&facts);
      snprintf (cache.key, sizeof cache.key, "%s", key);
      snprintf (cache.path, sizeof cache.path, "%s", path);
      cache.stored_at = st.st_mtim;
    }
  if (force)
    {
      cache.failed = 0;
      measure (options, keep_busy, key, dir, path, NULL, TILEMM_FACTS_ALL);
      return;
    }
  const int current = cache.facts && strcmp (cache.key, key) == 0;
  const unsigned parts = current ? missing (needs) : needs;
  if (parts)
    measure (options, keep_busy, key, dir, path, current ? cache.facts : NULL, parts);
}

/* The built-in model where calibration is off (TILEMM_CALIBRATION, read at the start of every
 * call, so that turning it off takes effect at the next). */
static tilemm_machine_facts off_facts;
static void make_off (void)
{
  tilemm_facts_model (&off_facts, "calibration off (TILEMM_CALIBRATION)");
}

static const tilemm_machine_facts *facts_when_off (void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once (&once, make_off);
  return &off_facts;
}

/* What calls read without the lock while the copy is fresh (made again under the lock at most
 * once a second): a small product's call, from any thread, pays two atomic loads. */
static _Atomic (const tilemm_machine_facts *) fresh_facts;
static atomic_llong fresh_until_ns;
static atomic_uint fresh_failed;   /* cache.failed as published with fresh_facts */

static long long ns_of (double s)
{
  return (long long) (s * 1e9);
}

const tilemm_machine_facts *tilemm_machine_facts_with (const tilemm_options *options,
                                                       unsigned parts)
{
  if (options->facts)
    return options->facts;
  /* The calibration's setting the call's start read into its options (exec/prepare.c), else
   * (a caller that asks for the facts first thing: tilemm_info, the tests) the environment's
   * now: read once here, then handed on. */
  tilemm_calibration_setting calibration;
  tilemm_calibration_in_effect (options, &calibration);
  if (calibration.mode == TILEMM_CALIBRATION_OFF)
    return facts_when_off ();
  const tilemm_machine_facts *facts = atomic_load_explicit (&fresh_facts, memory_order_acquire);
  const unsigned failed = atomic_load_explicit (&fresh_failed, memory_order_relaxed);
  if (facts && ((facts->parts | failed) & parts) == parts
      && ns_of (tilemm_now_s ()) < atomic_load_explicit (&fresh_until_ns, memory_order_relaxed))
    return facts;
  pthread_mutex_lock (&cache.lock);
  const double now = tilemm_now_s ();
  if (!cache.facts || now - cache.checked_s >= 1.0 || missing (parts))
    {
      refresh (options, &calibration, 0, parts);
      cache.checked_s = tilemm_now_s ();
    }
  facts = cache.facts;
  atomic_store_explicit (&fresh_facts, facts, memory_order_release);
  /* Facts that lack a part another call needs send that call here (a part that failed stays
   * the model's: missing () leaves it out). */
  atomic_store_explicit (&fresh_failed, cache.failed, memory_order_relaxed);
  atomic_store_explicit (&fresh_until_ns, ns_of (cache.checked_s + 1.0), memory_order_relaxed);
  pthread_mutex_unlock (&cache.lock);
  return facts;
}

const tilemm_machine_facts *tilemm_machine_facts_for (const tilemm_options *options)
{
  return tilemm_machine_facts_with (options, TILEMM_FACTS_ALL);
}

const tilemm_machine_facts *tilemm_machine_facts_measure (const tilemm_options *options)
{
  if (options->facts)
    return options->facts;
  tilemm_calibration_setting calibration;
  tilemm_calibration_in_effect (options, &calibration);   /* as tilemm_machine_facts_with */
  if (calibration.mode == TILEMM_CALIBRATION_OFF)
    return facts_when_off ();
  pthread_mutex_lock (&cache.lock);
  refresh (options, &calibration, 1, TILEMM_FACTS_ALL);
  cache.checked_s = tilemm_now_s ();
  const tilemm_machine_facts *facts = cache.facts;
  atomic_store_explicit (&fresh_facts, facts, memory_order_release);
  atomic_store_explicit (&fresh_until_ns, ns_of (cache.checked_s + 1.0), memory_order_relaxed);
  pthread_mutex_unlock (&cache.lock);
  return facts;
}
