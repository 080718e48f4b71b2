/* host_cpus.h — the host's CPUs as facts a plan is made from: the CPUs this process may run on
 * (its affinity mask: taskset, cgroups), the threads it uses, the widest instruction set of the
 * CPU backend's variants it runs, the CPUs near a GPU (its PCI device's NUMA node in sysfs), and
 * pinning a thread to a set of them.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Every query answers "unknown" (an empty set, -1) rather than failing: a plan made without these
 * facts keeps its threads unpinned, as before.  Elsewhere than Linux every set is unknown.
 */
#ifndef TILEMM_HOST_CPUS_H
#define TILEMM_HOST_CPUS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most CPUs a set holds (a CPU numbered beyond is left out: the set is then partial). */
#define TILEMM_MAX_CPUS 1024

/* A set of CPUs by number (as the kernel numbers them).  Empty: unknown, or none. */
typedef struct {
  uint64_t bits[TILEMM_MAX_CPUS / 64];
} tilemm_cpu_set;

void tilemm_cpu_set_clear (tilemm_cpu_set *set);
void tilemm_cpu_set_add (tilemm_cpu_set *set, int cpu);
int tilemm_cpu_set_has (const tilemm_cpu_set *set, int cpu);
int tilemm_cpu_set_count (const tilemm_cpu_set *set);
int tilemm_cpu_set_equal (const tilemm_cpu_set *a, const tilemm_cpu_set *b);
/* The CPUs of both (*out may be a or b). */
void tilemm_cpu_set_and (const tilemm_cpu_set *a, const tilemm_cpu_set *b, tilemm_cpu_set *out);
/* The CPUs of a not in b (*out may be a or b). */
void tilemm_cpu_set_minus (const tilemm_cpu_set *a, const tilemm_cpu_set *b, tilemm_cpu_set *out);
/* Whether a and b share a CPU. */
int tilemm_cpu_set_meet (const tilemm_cpu_set *a, const tilemm_cpu_set *b);
/* The i-th CPU of the set in increasing order (0-based), or -1. */
int tilemm_cpu_set_nth (const tilemm_cpu_set *set, int i);
/* A kernel CPU list ("0-3,8,10-11\n", as sysfs' local_cpulist and /proc's Cpus_allowed_list
 * write it) into *set; 0 when it is malformed (then *set is empty). */
int tilemm_cpu_set_parse (const char *list, tilemm_cpu_set *set);
/* The set as such a list, into buf (truncated to size). */
void tilemm_cpu_set_format (const tilemm_cpu_set *set, char *buf, int size);

/* ---------------------------------------------------------------- instruction sets */

/* The CPU backend's variants (cpu/cpu_isa.h): its one tiled kernel compiled for several vector
 * instruction sets.  The package is compiled for the build machine's baseline (x86-64: SSE2
 * only), so that it runs on any machine sharing the build; the wider variants are compiled beside
 * it with function attributes.  Which one a product runs is the plan's (tilemm_plan.cpu_isa),
 * from the host's facts (cpu_isa below): detected here, once a gathering, never below the plan.
 * Elsewhere than x86-64 with GCC or clang there is the default only. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TILEMM_CPU_X86_VARIANTS 1
#else
#define TILEMM_CPU_X86_VARIANTS 0
#endif

typedef enum {
  TILEMM_CPU_ISA_DEFAULT,   /* the build's baseline instruction set                     */
  TILEMM_CPU_ISA_AVX2,      /* x86-64: 32-byte vectors (AVX2, the x86-64-v3 level)      */
  TILEMM_CPU_ISA_AVX512,    /* x86-64: 64-byte vectors (AVX-512F, of the x86-64-v4 level) */
  TILEMM_CPU_NISAS
} tilemm_cpu_isa;

/* "default", "avx2", "avx512" ("unknown" outside the enum). */
const char *tilemm_cpu_isa_name (tilemm_cpu_isa isa);

/* Whether the variant is built into this library (TILEMM_CPU_X86_VARIANTS) and this CPU (and its
 * operating system, which must save the wider registers) runs it. */
int tilemm_cpu_isa_available (tilemm_cpu_isa isa);

/* The widest available variant: the host's facts' (tilemm_host_facts_gather). */
tilemm_cpu_isa tilemm_cpu_isa_best (void);

/* ---------------------------------------------------------------- the host's facts */

/* What the plan knows of the host's CPUs. */
typedef struct {
  tilemm_cpu_set cpus;   /* the CPUs this process may run on (its affinity mask); empty: unknown */
  int threads;           /* the host threads tilemm's teams may use at once: the CPUs of the
                            mask (unknown: the CPUs online), no more than OMP_NUM_THREADS where
                            the user set it (tilemm_settings.h)                                */
  tilemm_cpu_isa cpu_isa;  /* the CPU backend's variant a plan names (tilemm_plan.cpu_isa): the
                            widest this CPU runs (tilemm_cpu_isa_best)                         */
} tilemm_host_facts;

/* The host's facts now (one system call: the mask may change between calls; the instruction
 * set is the CPU's, read from the C runtime's copy of cpuid). */
void tilemm_host_facts_gather (tilemm_host_facts *host);

/* The CPUs near a PCI device (a GPU: its bus id as cudaDeviceGetPCIBusId writes it, e.g.
 * "0000:41:00.0") from sysfs under `sysfs` ("/sys" on a real machine; tests name a tree of their
 * own): its local_cpulist and numa_node.  Returns 1 and fills *cpus and *node (-1 where sysfs
 * says none) when the local CPUs were read; 0, with *cpus empty and *node -1, otherwise. */
int tilemm_pci_local_cpus (const char *sysfs, const char *bus_id, tilemm_cpu_set *cpus, int *node);

/* Pins the calling thread to `cpus` (empty: leaves it as it is).  0 when the system refused (a
 * CPU outside the process's mask): the thread is then left as it was. */
int tilemm_pin_thread (const tilemm_cpu_set *cpus);

/* The CPU the calling thread runs on now (it may move right after); -1 where the system does not
 * say. */
int tilemm_current_cpu (void);

/* The CPUs the calling thread may run on (its affinity mask): 1 and *cpus filled; 0 and *cpus
 * empty where the system does not say. */
int tilemm_thread_cpus (tilemm_cpu_set *cpus);

/* Names the calling thread (at most 15 characters; longer names are cut), so that a look at the
 * process's threads (top -H, /proc/PID/task) tells tilemm's apart from the host BLAS's. */
void tilemm_name_thread (const char *name);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_HOST_CPUS_H */
