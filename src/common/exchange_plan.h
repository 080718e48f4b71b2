/* exchange_plan.h — the transfer path of the operand every GPU worker holds whole: who reads
 * which share of it from the host, and whether the others get it from their peers.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * A product on several GPUs cut into strips (call_plan.h, queue_keeps) has every worker hold one
 * operand whole: all of op(B) for strips of C's rows, all of op(A) for strips of its columns.
 * Sent from the host to each GPU, the host reads it once per GPU and every byte crosses one bus
 * per GPU.  Where the GPUs can read each other's memory (peer access: NVLink, PCIe P2P), each
 * worker uploads only its share (1/N of the operand, contiguous as the pipeline keeps it: a run
 * of op(B)'s columns, or a run of op(A)'s columns (its inner dimension: A's stored columns) in
 * each step of its rows) and copies the others' shares from their devices: the host reads the
 * operand once.  Where
 * a pair of them cannot, every worker uploads all of it (the host staging path) and the plan
 * says why.  Decided once, here, from the devices' facts; the executor and the backend run it.
 */
#ifndef TILEMM_EXCHANGE_PLAN_H
#define TILEMM_EXCHANGE_PLAN_H

#include <stdint.h>

#include "devices.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a GPU worker keeps on its device from one of its queue's panels to the next: the queue
 * cut into strips (every panel all of op(A)'s rows, or all of op(B)'s columns) whose panels each
 * run whole on a device, so that operand goes up once per worker, not once per panel. */
typedef enum { TILEMM_KEEP_NONE = 0, TILEMM_KEEP_A, TILEMM_KEEP_B } tilemm_keep;

typedef enum {
  TILEMM_EXCHANGE_NONE = 0,  /* nothing held whole by every worker (one worker, or panels that
                                are no strips): each worker's operands from the host          */
  TILEMM_EXCHANGE_PEER,      /* each worker uploads its share from the host and copies every
                                other share from its owner's device (a peer copy)             */
  TILEMM_EXCHANGE_HOST       /* a pair of the workers' devices cannot reach each other: every
                                worker uploads the whole operand from the host                */
} tilemm_exchange_path;

typedef struct {
  tilemm_exchange_path path;
  tilemm_keep which;        /* the shared operand (the one the workers keep)                    */
  int shares;               /* one per worker (PEER); worker w owns share w                    */
  int64_t step;             /* the shared operand's step in the pipeline: rows of op(A), or
                               columns of op(B) (the same in every panel's plan)              */
  int64_t extent;           /* what the shares cut: op(B)'s columns (n), or op(A)'s columns,
                               the inner dimension (k), the same run in each step of its rows
                               (where the pipeline keeps op(A)ᵀ a step at a time, k lines of
                               the step's rows: a run of lines is contiguous there)          */
  int64_t first[TILEMM_MAX_WORKERS + 1];  /* share w: first[w] .. first[w + 1] - 1 of them (none
                                             where there are fewer than workers)          */
  int apart_from, apart_to; /* HOST: the devices of a pair that cannot reach each other (-1)  */
} tilemm_exchange_plan;

/* The path of the operand `keeps` (TILEMM_KEEP_NONE: nothing shared), in the pipeline's steps
 * of `step`, cut in shares of its `extent` columns (op(B): n; op(A): k), over `workers`, from the
 * GPUs' facts (their peer access).  Pure. */
void tilemm_exchange_plan_make (tilemm_exchange_plan *x, tilemm_keep keeps, int64_t step,
                                int64_t extent, const tilemm_workers *workers,
                                const tilemm_device_facts *gpu);

/* The shares that hold any of columns [begin, end) of what they cut: *first .. *last (none:
 * *first > *last). */
void tilemm_exchange_shares_of (const tilemm_exchange_plan *x, int64_t begin, int64_t end,
                                int *first, int *last);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_EXCHANGE_PLAN_H */
