/* parallel_copy.h — host copies spread over a team of threads, for staging data between Octave's
 * pageable memory and pinned buffers, on as many members of a team as the caller names.
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

/* The least piece a copy is cut into: the staging plan's count of a unit's pieces
 * (tilemm_staging_copy_members) and the copy's own cut agree on it. */
#define TILEMM_COPY_LEAST_PIECE_BYTES ((size_t) 64 << 10)

/* Copies `cols` columns of `row_bytes` bytes each, column j from src + j*src_pitch to
 * dst + j*dst_pitch (a 2-D block, like cudaMemcpy2D), on exactly `members` members of `team`
 * (the calling thread is one of them; members < 1: 1; a NULL team, or members 1: the calling
 * thread alone; the team runs the job on no more members than it has).  The copy decides no
 * count of its own: the caller's plan names it (the staging: tilemm_staging_copy_members).  It
 * goes in pieces (of a contiguous block, or whole columns), PIECES_A_MEMBER a member and none
 * under TILEMM_COPY_LEAST_PIECE_BYTES, that the members claim one at a time, its stores past
 * the caches (for a destination no CPU reads next: the pinned ring).  Regions must not overlap.
 * Returns the members the job was handed to the team with. */
int tilemm_parallel_copy_2d (tilemm_host_team *team, int members, void *dst, size_t dst_pitch,
                             const void *src, size_t src_pitch, size_t row_bytes, size_t cols);

/* The same into a destination whose pages the copy faults in as huge pages (a result's, asked
 * as huge pages by the staging): from 4 MiB up its pieces are the destination's huge pages, so
 * that no two members fault one (the second would wait while the first clears it); its stores
 * through the caches (the host may read a result next). */
int tilemm_parallel_copy_into_huge (tilemm_host_team *team, int members, void *dst,
                                    size_t dst_pitch, const void *src, size_t src_pitch,
                                    size_t row_bytes, size_t cols);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_PARALLEL_COPY_H */
