/* host_cpus.c — the host's CPUs: sets of them, the process's mask, the instruction sets the CPU
 * backend's variants need, a GPU's NUMA node, pinning (see host_cpus.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#if defined(__linux__)
#define _GNU_SOURCE
#endif

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_cpus.h"
#include "tilemm_settings.h"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

enum { WORDS = TILEMM_MAX_CPUS / 64 };

void tilemm_cpu_set_clear (tilemm_cpu_set *set)
{
  memset (set, 0, sizeof *set);
}

void tilemm_cpu_set_add (tilemm_cpu_set *set, int cpu)
{
  if (cpu >= 0 && cpu < TILEMM_MAX_CPUS)
    set->bits[cpu / 64] |= (uint64_t) 1 << (cpu % 64);
}

int tilemm_cpu_set_has (const tilemm_cpu_set *set, int cpu)
{
  return cpu >= 0 && cpu < TILEMM_MAX_CPUS && (set->bits[cpu / 64] >> (cpu % 64) & 1);
}

int tilemm_cpu_set_count (const tilemm_cpu_set *set)
{
  int n = 0;
  for (int w = 0; w < WORDS; w++)
    for (uint64_t b = set->bits[w]; b; b &= b - 1)
      n++;
  return n;
}

int tilemm_cpu_set_equal (const tilemm_cpu_set *a, const tilemm_cpu_set *b)
{
  return memcmp (a->bits, b->bits, sizeof a->bits) == 0;
}

void tilemm_cpu_set_and (const tilemm_cpu_set *a, const tilemm_cpu_set *b, tilemm_cpu_set *out)
{
  for (int w = 0; w < WORDS; w++)
    out->bits[w] = a->bits[w] & b->bits[w];
}

void tilemm_cpu_set_minus (const tilemm_cpu_set *a, const tilemm_cpu_set *b, tilemm_cpu_set *out)
{
  for (int w = 0; w < WORDS; w++)
    out->bits[w] = a->bits[w] & ~b->bits[w];
}

int tilemm_cpu_set_meet (const tilemm_cpu_set *a, const tilemm_cpu_set *b)
{
  for (int w = 0; w < WORDS; w++)
    if (a->bits[w] & b->bits[w])
      return 1;
  return 0;
}

int tilemm_cpu_set_nth (const tilemm_cpu_set *set, int i)
{
  if (i < 0)
    return -1;
  for (int cpu = 0; cpu < TILEMM_MAX_CPUS; cpu++)
    if (tilemm_cpu_set_has (set, cpu) && i-- == 0)
      return cpu;
  return -1;
}

int tilemm_cpu_set_parse (const char *list, tilemm_cpu_set *set)
{
  tilemm_cpu_set_clear (set);
  const char *p = list;
  while (*p && isspace ((unsigned char) *p))
    p++;
  if (!*p)
    return 1;   /* an empty list: no CPU */
  for (;;)
    {
      char *end = NULL;
      if (!isdigit ((unsigned char) *p))
        break;
      const long lo = strtol (p, &end, 10);
      long hi = lo;
      p = end;
      if (*p == '-')
        {
          p++;
          if (!isdigit ((unsigned char) *p))
            break;
          hi = strtol (p, &end, 10);
          p = end;
        }
      if (hi < lo)
        break;
      for (long cpu = lo; cpu <= hi && cpu < TILEMM_MAX_CPUS; cpu++)
        tilemm_cpu_set_add (set, (int) cpu);
      if (*p == ',')
        {
          p++;
          continue;
        }
      while (*p && isspace ((unsigned char) *p))
        p++;
      if (!*p)
        return 1;
      break;
    }
  tilemm_cpu_set_clear (set);
  return 0;
}

void tilemm_cpu_set_format (const tilemm_cpu_set *set, char *buf, int size)
{
  if (size <= 0)
    return;
  buf[0] = '\0';
  int used = 0;
  for (int cpu = 0; cpu < TILEMM_MAX_CPUS && used < size; cpu++)
    {
      if (!tilemm_cpu_set_has (set, cpu))
        continue;
      int last = cpu;
      while (last + 1 < TILEMM_MAX_CPUS && tilemm_cpu_set_has (set, last + 1))
        last++;
      used += last > cpu ? snprintf (buf + used, (size_t) (size - used), "%s%d-%d",
                                     used ? "," : "", cpu, last)
                         : snprintf (buf + used, (size_t) (size - used), "%s%d",
                                     used ? "," : "", cpu);
      cpu = last;
    }
}

/* The process's affinity mask; 0 where it cannot be read. */
static int allowed_cpus (tilemm_cpu_set *set)
{
  tilemm_cpu_set_clear (set);
#if defined(__linux__)
  cpu_set_t mask;
  CPU_ZERO (&mask);
  if (sched_getaffinity (0, sizeof mask, &mask) != 0)
    return 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && cpu < TILEMM_MAX_CPUS; cpu++)
    if (CPU_ISSET (cpu, &mask))
      tilemm_cpu_set_add (set, cpu);
  return tilemm_cpu_set_count (set) > 0;
#else
  return 0;
#endif
}

/* ---------------------------------------------------------------- instruction sets */

const char *tilemm_cpu_isa_name (tilemm_cpu_isa isa)
{
  switch (isa)
    {
    case TILEMM_CPU_ISA_DEFAULT:
      return "default";
    case TILEMM_CPU_ISA_AVX2:
      return "avx2";
    case TILEMM_CPU_ISA_AVX512:
      return "avx512";
    default:
      return "unknown";
    }
}

/* __builtin_cpu_supports also asks whether the operating system saves the wider registers. */
int tilemm_cpu_isa_available (tilemm_cpu_isa isa)
{
  switch (isa)
    {
    case TILEMM_CPU_ISA_DEFAULT:
      return 1;
#if TILEMM_CPU_X86_VARIANTS
    case TILEMM_CPU_ISA_AVX2:
      return __builtin_cpu_supports ("avx2");
    case TILEMM_CPU_ISA_AVX512:
      return __builtin_cpu_supports ("avx512f");
#endif
    default:
      return 0;
    }
}

tilemm_cpu_isa tilemm_cpu_isa_best (void)
{
  for (int isa = TILEMM_CPU_NISAS - 1; isa > TILEMM_CPU_ISA_DEFAULT; isa--)
    if (tilemm_cpu_isa_available ((tilemm_cpu_isa) isa))
      return (tilemm_cpu_isa) isa;
  return TILEMM_CPU_ISA_DEFAULT;
}

/* ---------------------------------------------------------------- the host's facts */

void tilemm_host_facts_gather (tilemm_host_facts *host)
{
  host->cpu_isa = tilemm_cpu_isa_best ();
  allowed_cpus (&host->cpus);
  const int cpus = tilemm_cpu_set_count (&host->cpus);
  const int cap = tilemm_process_settings_get ()->host_threads;
  /* Without a mask (elsewhere than Linux): the CPUs online. */
  const long online = cpus > 0 ? cpus : sysconf (_SC_NPROCESSORS_ONLN);
  int threads = online > 0 ? (online < 1L << 16 ? (int) online : 1 << 16) : 1;
  if (cap > 0 && cap < threads)
    threads = cap;
  host->threads = threads;
}

/* The first line of a small file, or 0. */
static int read_line (const char *path, char *buf, size_t size)
{
  FILE *f = fopen (path, "r");
  if (!f)
    return 0;
  const int ok = fgets (buf, (int) size, f) != NULL;
  fclose (f);
  return ok;
}

int tilemm_pci_local_cpus (const char *sysfs, const char *bus_id, tilemm_cpu_set *cpus, int *node)
{
  tilemm_cpu_set_clear (cpus);
  *node = -1;
  if (!sysfs || !bus_id || !*bus_id)
    return 0;
  /* sysfs names PCI devices in lower case; CUDA writes the bus id in upper case. */
  char id[64];
  size_t i = 0;
  for (; bus_id[i] && i + 1 < sizeof id; i++)
    {
      const char c = (char) tolower ((unsigned char) bus_id[i]);
      if (!(isxdigit ((unsigned char) c) || c == ':' || c == '.'))
        return 0;   /* never a path of anything else */
      id[i] = c;
    }
  id[i] = '\0';
  char path[512], line[4096];
  snprintf (path, sizeof path, "%s/bus/pci/devices/%s/numa_node", sysfs, id);
  if (read_line (path, line, sizeof line))
    {
      char *end = NULL;
      const long n = strtol (line, &end, 10);
      if (end != line && n >= 0 && n < 4096)
        *node = (int) n;
    }
  snprintf (path, sizeof path, "%s/bus/pci/devices/%s/local_cpulist", sysfs, id);
  if (!read_line (path, line, sizeof line) || !tilemm_cpu_set_parse (line, cpus)
      || tilemm_cpu_set_count (cpus) == 0)
    {
      tilemm_cpu_set_clear (cpus);
      return 0;
    }
  return 1;
}

int tilemm_pin_thread (const tilemm_cpu_set *cpus)
{
  if (tilemm_cpu_set_count (cpus) == 0)
    return 1;
#if defined(__linux__)
  cpu_set_t mask;
  CPU_ZERO (&mask);
  for (int cpu = 0; cpu < CPU_SETSIZE && cpu < TILEMM_MAX_CPUS; cpu++)
    if (tilemm_cpu_set_has (cpus, cpu))
      CPU_SET (cpu, &mask);
  return pthread_setaffinity_np (pthread_self (), sizeof mask, &mask) == 0;
#else
  return 0;
#endif
}

int tilemm_current_cpu (void)
{
#if defined(__linux__)
  return sched_getcpu ();
#else
  return -1;
#endif
}

int tilemm_thread_cpus (tilemm_cpu_set *cpus)
{
  return allowed_cpus (cpus);
}

void tilemm_name_thread (const char *name)
{
#if defined(__linux__)
  char cut[16];
  snprintf (cut, sizeof cut, "%s", name);
  pthread_setname_np (pthread_self (), cut);
#else
  (void) name;
#endif
}
