/* device_model.h — the one model of what a product costs on a GPU and in Octave's `*`, which
 * every decision of the plan that weighs time reads: whether the GPU pays ("auto", plan.c),
 * the panels under a device limit (plan.c), and whether a product gains from several workers
 * (tilemm_plan_workers, plan.c).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The rates were measured from Octave on the GPU machine (bench/RESULTS.md, "End to end, with
 * staging" and its crossover sweep; H100, 16 cores, OpenBLAS).  Decisions read the model's
 * times, so only their ratios matter to the panels and the workers; the crossover compares the
 * GPU's time with `*`'s and needs the absolute rates.  One set of numbers: a change of device is
 * one edit here, remeasured with bench/e2e.sh.
 */
#ifndef TILEMM_DEVICE_MODEL_H
#define TILEMM_DEVICE_MODEL_H

#include <stdint.h>

#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  double call_s;             /* a GPU call's fixed cost: launches, events, the staging's start */
  double first_bytes;        /* the first bytes of a call cross the bus slowly ...             */
  double first_bytes_per_s;  /* ... at this rate (latency of small copies)                     */
  double bus_bytes_per_s;    /* the rest, through the pinned staging, host copies included     */
  double step_s;             /* one pipeline step (events, a launch)                          */
  double panel_s;            /* one worker's panel: its own copies started, its pipeline drained */
  double panel_worth;        /* a worker's panel pays when its kernels take this many panel_s  */
  double kernel_flops_per_s[2]; /* our kernels: real single, real double                      */
  double host_flops_per_s[2];   /* Octave's `*` near the crossover, where it is far from peak  */
  double host_page_s;        /* one `*` of a small page called from the oct-file: the call, the
                                page's views, the host BLAS's own start (its threads)           */
  double host_page_flops_per_s[2]; /* `*` on pages of up to a few hundred rows                  */
} tilemm_device_model;

/* The model (one, constant). */
const tilemm_device_model *tilemm_device_model_get (void);

/* The flops of C (m×n) = A (m×k) · B (k×n) of `type`: 2mnk, four times that for a complex type
 * (four real multiply-adds an element). */
double tilemm_model_flops (tilemm_type type, double m, double n, double k);

/* The flops of one triangle of C (n×n) = X·op(X) (X n×k) of `type`, as BLAS ?syrk and ?herk
 * compute it: n(n+1)k multiply-adds, two flops each (four times that for a complex type), about
 * half of tilemm_model_flops (type, n, n, k). */
double tilemm_model_rank_k_flops (tilemm_type type, double n, double k);

/* Seconds our kernels take for `flops` of `type`, with the GPU filled. */
double tilemm_model_kernel_s (tilemm_type type, double flops);

/* Seconds `bytes` take through the staging to or from the GPU (after the call's first bytes). */
double tilemm_model_bus_s (double bytes);

/* Seconds a whole GPU call of `type` moving `bytes` and computing `flops` takes: the fixed cost,
 * the first bytes at latency, the rest at the bus rate, the flops at the kernels' rate. */
double tilemm_model_gpu_call_s (tilemm_type type, double bytes, double flops);

/* Seconds Octave's `*` takes for `flops` of `type` near the crossover. */
double tilemm_model_host_s (tilemm_type type, double flops);

/* Seconds Octave's `*` takes for one page of `flops` of `type` called from the oct-file (the
 * loop of `*` over pages without the interpreter's own cost). */
double tilemm_model_host_page_s (tilemm_type type, double flops);

/* The fewest flops a worker's panel of `type` should have to be worth its fixed cost. */
double tilemm_model_min_panel_flops (tilemm_type type);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_DEVICE_MODEL_H */
