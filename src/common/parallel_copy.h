/* parallel_copy.h — host copies spread over a team of threads, for staging data between Octave's
 * pageable memory and pinned buffers: one thread copies 2.5 GB/s on the GPU machine, 16 about
 * 32 GB/s.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_PARALLEL_COPY_H
#define TILEMM_PARALLEL_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "host_team.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copies `cols` columns of `row_bytes` bytes each, column j from src + j*src_pitch to
 * dst + j*dst_pitch (a 2-D block, like cudaMemcpy2D), on up to `threads` members of `team` (the
 * calling thread is one of them; a NULL team, or threads 1: the calling thread alone; threads 0:
 * the team's size).  The copy goes in pieces of about 1 MiB (of a contiguous block, or whole
 * columns) that the members claim one at a time; under 1 MiB the calling thread copies alone,
 * and no more members than the copy pays for (tilemm_team_size).  Regions must not overlap. */
void tilemm_parallel_copy_2d (tilemm_host_team *team, int threads, void *dst, size_t dst_pitch,
                              const void *src, size_t src_pitch, size_t row_bytes, size_t cols);

/* The same into a destination whose pages the copy faults in as huge pages (a result's, asked
 * as huge pages by the staging): from 4 MiB up its pieces are the destination's huge pages, so
 * that no two members fault one (the second would wait while the first clears it). */
void tilemm_parallel_copy_into_huge (tilemm_host_team *team, int threads, void *dst,
                                     size_t dst_pitch, const void *src, size_t src_pitch,
                                     size_t row_bytes, size_t cols);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_PARALLEL_COPY_H */
