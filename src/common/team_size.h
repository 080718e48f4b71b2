/* team_size.h — how many host threads a piece of work pays for: the one rule every host team is
 * sized by (the CPU backend's tiles, a CPU batch, the emulated scheme's loops, the executor's
 * parts apart and back, the staging copies, the BLAS library's memset).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Why a rule and not every core: each thread of a team is woken, and its end waited for; where
 * another library's threads hold the cores (a BLAS whose idle threads spin after each call) a
 * woken thread waits for a core, and a team of every core waits for the slowest.  A thread is
 * worth it only for work that keeps it busy well beyond that: here, TILEMM_TEAM_MIN_SHARE_S of
 * work each at a per-thread rate on the fast side (so a thread too many is rarer than one too
 * few), and no more threads than pieces of work that can run at once.
 */
#ifndef TILEMM_TEAM_SIZE_H
#define TILEMM_TEAM_SIZE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The least work one thread of a team is given, in seconds. */
#define TILEMM_TEAM_MIN_SHARE_S 1.0e-4
/* Per-thread rates on the fast side of what the host's threads reach: flops of the CPU
 * backend's kernels (a measured rate, where faster, takes its place: tilemm_plan), and bytes
 * copied or set.  The bytes' rate is a thread's into fresh pages (each faulted in by the copy:
 * a result's copy into the array the host has just made for it), not into resident ones: a
 * team sized at the resident rate left a result's copy on a few threads at a few GB/s. */
#define TILEMM_TEAM_THREAD_FLOPS_PER_S 8.0e9
#define TILEMM_TEAM_THREAD_BYTES_PER_S 1.0e9

/* The threads for work of `pieces` pieces that take `one_thread_s` seconds on one thread, on a
 * host of `threads` usable threads (the plan's figure; < 1: one): at most `threads`, at most
 * `pieces`, and no more than give each thread TILEMM_TEAM_MIN_SHARE_S of the work (INFINITY: no
 * bound from the work).  At least 1. */
int tilemm_team_size (int threads, int64_t pieces, double one_thread_s);

/* The host threads a team of tilemm's host work may take at once, of `threads` (the host's:
 * tilemm_host_facts.threads; < 1: one): less the share no team takes (tilemm_copy_reserved_cpus:
 * the caller's other threads, the CUDA driver's).  Never every core from four up; at least 1.
 * Pure: the plan's figure, from the facts the plan holds (never from the host at run time); the
 * call plan's host_threads, a CPU batch's team, the decision's for host work with no product;
 * each job then takes no more of them than its work pays for (tilemm_team_size).
 * The host BLAS's pool (host_blas.h) is not subtracted: its idle threads spin only a while after
 * each `*` and yield their cores, and a team shrunk for them ran the CPU backend far slower after
 * a `*` than a team of the cores left (bench/RESULTS.md, 2026-11-28); a team's jobs are dynamic
 * (host_team.h), so a late member holds back one index, not the job. */
int tilemm_team_threads_left (int threads);

/* A rows×cols matrix of `element_bytes` elements copied column by column (a BLAS call's strided
 * operand packed, exec/blas_request.c): in pieces of whole columns, about
 * TILEMM_PARTS_PIECE_BYTES of the matrix each (tilemm_pack_cols_per_piece), and the team that
 * copy pays for of `threads` (tilemm_pack_team: its pieces, its bytes read and written at
 * TILEMM_TEAM_THREAD_BYTES_PER_S).  The plan's: the call plan's pack_team and pack_columns. */
#define TILEMM_PARTS_PIECE_BYTES ((size_t) 256 << 10)
int64_t tilemm_pack_cols_per_piece (size_t element_bytes, int64_t rows, int64_t cols);
int tilemm_pack_team (int threads, size_t element_bytes, int64_t rows, int64_t cols);

/* A complex matrix's parts copied apart or back (exec/parts.c: a split operand's, a product's):
 * the same rule as a pack (tilemm_pack_*) on the rows×cols complex matrix (of single or
 * double).  The plan's: the call plan's split_team and join_team. */
/* The bytes of a rows×cols complex matrix of single or double. */
double tilemm_parts_bytes (int single, int64_t rows, int64_t cols);
int64_t tilemm_parts_cols_per_piece (int single, int64_t rows, int64_t cols);
int tilemm_parts_team (int threads, int single, int64_t rows, int64_t cols);

/* A BLAS call's update of C (exec/blas_request.c: C := alpha·P + beta·C over C's m×n block of
 * `element_bytes` elements) in pieces of TILEMM_UPDATE_COLUMNS columns, and the team it pays
 * for of `threads` (P read, C read and written at TILEMM_TEAM_THREAD_BYTES_PER_S).  The plan's:
 * the call plan's update_team and update_columns, or the decision's with no product
 * (tilemm_decide_update). */
#define TILEMM_UPDATE_COLUMNS 8
int tilemm_update_team (int threads, size_t element_bytes, int64_t m, int64_t n);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_TEAM_SIZE_H */
