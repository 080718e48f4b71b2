/* parallel_copy.h — host copies spread over threads, for staging data between Octave's pageable
 * memory and pinned buffers: one thread copies 2.5 GB/s on the GPU machine, 16 about 32 GB/s.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_PARALLEL_COPY_H
#define TILEMM_PARALLEL_COPY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Copies `cols` columns of `row_bytes` bytes each, column j from src + j*src_pitch to
 * dst + j*dst_pitch (a 2-D block, like cudaMemcpy2D), on up to `threads` threads (0: the
 * OpenMP default; 1, or a build without OpenMP: the calling thread).  Regions must not
 * overlap. */
void tilemm_parallel_copy_2d (void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
                              size_t row_bytes, size_t cols, int threads);

/* The team of host threads for `items` pieces of work: `threads` (0 or less: OpenMP's default),
 * never more than the pieces (at least 1).  A thread beyond them only wakes to wait at the
 * barrier, and where another library's threads hold the cores (a BLAS whose threads spin after
 * each call) the barrier then waits for it to be scheduled: milliseconds.  The copies here and
 * the CPU backend's tiles take their teams from it. */
int tilemm_team_size (int threads, int64_t items);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_PARALLEL_COPY_H */
