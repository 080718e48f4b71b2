/* copy_team.c — the plan's host copy teams (see copy_team.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <string.h>

#include "copy_team.h"
#include "parallel_copy.h"
#include "team_size.h"
#include "tilemm_settings.h"

/* The CPUs near device ordinal `device` in the facts (empty where unknown). */
static tilemm_cpu_set local_cpus (const tilemm_device_facts *gpu, int device)
{
  tilemm_cpu_set none;
  tilemm_cpu_set_clear (&none);
  if (!gpu)
    return none;
  for (int i = 0; i < gpu->count && i < TILEMM_MAX_WORKERS; i++)
    if (gpu->device[i] == device)
      return gpu->local_cpus[i];
  return none;
}

/* Where worker w would copy: the host's CPUs near its GPU, else the host's. */
static tilemm_cpu_set candidate (const tilemm_host_facts *host, const tilemm_device_facts *gpu,
                                 const tilemm_workers *workers, int w)
{
  tilemm_cpu_set near = local_cpus (gpu, workers->device[w]);
  tilemm_cpu_set_and (&near, &host->cpus, &near);
  return tilemm_cpu_set_count (&near) > 0 ? near : host->cpus;
}

/* The first `count` CPUs of `from`. */
static tilemm_cpu_set first_cpus (const tilemm_cpu_set *from, int count)
{
  tilemm_cpu_set out;
  tilemm_cpu_set_clear (&out);
  for (int cpu = 0; cpu < TILEMM_MAX_CPUS && count > 0; cpu++)
    if (tilemm_cpu_set_has (from, cpu))
      {
        tilemm_cpu_set_add (&out, cpu);
        count--;
      }
  return out;
}

static int at_most (int x, int cap)
{
  return cap > 0 && x > cap ? cap : x;
}

int tilemm_copy_reserved_cpus (int cpus)
{
  return cpus >= 4 ? (cpus + 15) / 16 : 0;
}

/* The host less what the teams leave to the process's other threads: the reserved count off its
 * threads, and as many of its CPUs off the end of its mask (the teams are pinned to the others,
 * so the CUDA driver's threads and the host's own find a core free). */
static tilemm_host_facts left_to_teams (const tilemm_host_facts *host)
{
  tilemm_host_facts left = *host;
  const int threads = host->threads > 0 ? host->threads : 1;
  const int cpus = tilemm_cpu_set_count (&host->cpus);
  if (cpus == 0)
    {
      left.threads = threads - tilemm_copy_reserved_cpus (threads);
      return left;
    }
  /* Threads asked below the CPUs (OMP_NUM_THREADS) leave them free already. */
  const int keep = cpus - tilemm_copy_reserved_cpus (cpus);
  left.cpus = first_cpus (&host->cpus, keep);
  left.threads = threads < keep ? threads : keep;
  return left;
}

void tilemm_plan_copy_teams (const tilemm_host_facts *whole_host, const tilemm_device_facts *gpu,
                             const tilemm_workers *workers, int setting, int saturating,
                             tilemm_copy_team *teams)
{
  const tilemm_host_facts usable = left_to_teams (whole_host);
  const tilemm_host_facts *host = &usable;
  const int count = workers->count < 1 ? 1 : workers->count;
  const int host_threads = host->threads > 0 ? host->threads : 1;
  /* The host's threads shared among the workers: together never more than it has. */
  const int share = host_threads / count > 0 ? host_threads / count : 1;
  const int known = tilemm_cpu_set_count (&host->cpus) > 0;
  tilemm_cpu_set taken;
  tilemm_cpu_set_clear (&taken);
  for (int w = 0; w < count; w++)
    {
      tilemm_copy_team *t = &teams[w];
      tilemm_cpu_set_clear (&t->cpus);
      if (!known)
        {
          t->threads = at_most (at_most (share, setting), saturating);
          continue;
        }
      const tilemm_cpu_set mine = candidate (host, gpu, workers, w);
      /* The workers from this one on that copy from the same CPUs share what is left of them. */
      int sharing = 0;
      for (int v = w; v < count; v++)
        {
          const tilemm_cpu_set theirs = candidate (host, gpu, workers, v);
          sharing += tilemm_cpu_set_equal (&theirs, &mine);
        }
      tilemm_cpu_set left;
      tilemm_cpu_set_minus (&mine, &taken, &left);
      if (tilemm_cpu_set_count (&left) == 0)
        {
          /* Its node's CPUs are all taken: what is left of the host's, shared alike. */
          tilemm_cpu_set_minus (&host->cpus, &taken, &left);
          sharing = count - w;
        }
      if (tilemm_cpu_set_count (&left) == 0)
        {
          /* More workers than CPUs: one CPU, shared with another worker's team. */
          tilemm_cpu_set_add (&t->cpus,
                              tilemm_cpu_set_nth (&host->cpus,
                                                  w % tilemm_cpu_set_count (&host->cpus)));
          t->threads = 1;
          continue;
        }
      int slice = tilemm_cpu_set_count (&left) / (sharing > 0 ? sharing : 1);
      if (slice < 1)
        slice = 1;
      t->cpus = first_cpus (&left, slice);
      for (int w2 = 0; w2 < TILEMM_MAX_CPUS / 64; w2++)
        taken.bits[w2] |= t->cpus.bits[w2];
      t->threads = at_most (at_most (at_most (slice, share), setting), saturating);
      if (t->threads < 1)
        t->threads = 1;
    }
}

/* Results smaller than this are left to the ordinary page faults: preparing their pages costs
 * more than the faults it saves. */
static const size_t PREPARE_RESULT_BYTES = (size_t) 8 << 20;

/* The units a product's views travel in through the staging: about 16 a view, so that a small
 * product's copies overlap its transfers too, none under 256 KiB (each unit's copy and transfer
 * have a fixed cost) and none over a chunk. */
enum { STAGING_UNITS_PER_VIEW = 16 };
static const size_t STAGING_LEAST_UNIT_BYTES = (size_t) 256 << 10;
/* Below this many bytes one thread copies faster than it wakes a team. */
static const size_t STAGING_COPY_ALONE_BYTES = (size_t) 1 << 20;

void tilemm_plan_staging (const struct tilemm_call_settings_s *settings, tilemm_staging_plan *plan)
{
  const int chunks = settings->staging_chunks;
  plan->chunk_bytes = settings->staging_chunk_bytes > 0 ? settings->staging_chunk_bytes : 1;
  plan->chunks = chunks < 2 ? 2 : chunks > TILEMM_STAGING_MAX_CHUNKS ? TILEMM_STAGING_MAX_CHUNKS
                                                                      : chunks;
  plan->prepare_result_bytes = PREPARE_RESULT_BYTES;
  plan->huge_pages = settings->huge_pages;
  plan->prefault_threads = settings->prefault_threads;
  plan->units_per_view = STAGING_UNITS_PER_VIEW;
  plan->least_unit_bytes = STAGING_LEAST_UNIT_BYTES;
  plan->copy_alone_bytes = STAGING_COPY_ALONE_BYTES;
}

int tilemm_staging_copy_members (const tilemm_staging_plan *staging, int team_threads,
                                 size_t bytes)
{
  if (bytes < staging->copy_alone_bytes)
    return 1;
  return tilemm_team_size (team_threads, (int64_t) (bytes / TILEMM_COPY_LEAST_PIECE_BYTES),
                           (double) bytes / TILEMM_TEAM_THREAD_BYTES_PER_S);
}
