/* host_pages.h — preparing a fresh result array's pages while the GPU works.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Octave allocates a large result with mmap and never touches it (tilemm asks for it without a
 * fill), so the first write to each 4 KiB page faults, and on the GPU machine those faults cost
 * more than the whole product (128 MiB: ≈ 75 ms with 16 threads).  Two things help, both local to
 * the result's own pages: asking for transparent huge pages (one fault per 2 MiB, as Octave started
 * with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 would do for every allocation), and faulting the
 * pages in from background threads (MADV_POPULATE_WRITE, Linux >= 5.14) while the operands are
 * still on their way to the GPU, so the copies of the result find them present.  Neither changes
 * a byte of the data.  Elsewhere than Linux both are no-ops.
 */
#ifndef TILEMM_HOST_PAGES_H
#define TILEMM_HOST_PAGES_H

#include <stddef.h>

#include "host_cpus.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tilemm_prefault tilemm_prefault;

/* Advises huge pages for the whole 2 MiB-aligned part of [data, data + bytes) when `huge` is set,
 * then starts `threads` threads (0: none) that fault the range's pages in, each its own slice,
 * on `cpus` (NULL or empty: anywhere).  Returns a handle to pass to tilemm_prefault_finish (NULL
 * when no thread was started). */
tilemm_prefault *tilemm_prefault_start (void *data, size_t bytes, int huge, int threads,
                                        const tilemm_cpu_set *cpus);

/* Waits for the threads of tilemm_prefault_start and frees the handle; NULL is fine. */
void tilemm_prefault_finish (tilemm_prefault *prefault);

/* The C library's malloc (glibc) keeps the large blocks the process frees and gives them to its
 * next large blocks, their pages still in memory: no mapping of its own for a large block
 * (M_MMAP_MAX 0) and nothing given back from the heap's top (M_TRIM_THRESHOLD -1).  A result
 * then reuses the pages a freed one had, and its copy out of the staging skips the faults that
 * new memory costs (on the GPU machines, virtual machines whose freed pages go back to the host,
 * most of the copy).  The process keeps the memory it has freed until it exits: a setting for the
 * user to choose (TILEMM_KEEP_FREED_MEMORY), never the default.  Returns 1 where made, 0 where
 * the C library has no such settings. */
int tilemm_keep_freed_memory (void);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_HOST_PAGES_H */
