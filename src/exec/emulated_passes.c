/* emulated_passes.c — the emulated precision (emulated.h) as the plan says: one pass on one
 * device, or two passes over panels and devices, so that a product too large for one device's
 * memory, or spread over several devices, keeps bitwise the result of the whole product.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The plan of an emulated product (its moduli and bit widths) is decided from statistics over
 * every (row of A, column of B) pair; everything else a panel computes depends on its own rows of
 * A and columns of B only (the exponents of a row or a column, its scaled integers and residues,
 * its entries of C).  So a product in panels runs two passes over them: the statistics of every
 * panel, merged (each a maximum, exact), give the whole product's plan; then every panel is
 * computed under that plan.  One panel on one device is one pass: its data go up once.  Either
 * way the moduli are the plan's branch the statistics select (tilemm_emu_select on the plan's
 * emu_branches): here between the passes, and in the backend between the statistics and the
 * product of its one pass.  No rule is applied here.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "emulated_passes.h"
#include "multi.h"

tilemm_status tilemm_exec_emulated (tilemm_backend backend, const tilemm_call_plan *p,
                                    const tilemm_emu_options *options, const tilemm_view *a,
                                    const tilemm_view *b, const tilemm_view *c,
                                    const tilemm_stop *stop, tilemm_emu_plan *used,
                                    tilemm_run_report *ran, tilemm_error *err)
{
  static const tilemm_stop no_stop = { NULL, NULL };
  if (!stop)
    stop = &no_stop;
  memset (used, 0, sizeof *used);
  tilemm_run_report none;
  if (!ran)
    ran = &none;
  ran->emu_passes = 0;
  ran->emu_workers = 0;
  /* The plan's table: the simulated devices' or the backend's (emu_on_simulated). */
  tilemm_job job;
  tilemm_status status = tilemm_exec_begin (backend, p->emu_on_simulated, p,
                                            TILEMM_JOB_EMU_STATS, a, b, c, &job, err);
  if (status != TILEMM_OK)
    return status;
  const tilemm_backend_ops *ops = job.ops;
  void *state = job.state;
  if (p->emu_one_pass || c->rows == 0 || c->cols == 0)
    {
      const int device = p->emu_devices.count > 0 ? p->emu_devices.device[0] : 0;
      status = ops->worker_start ? ops->worker_start (state, 0, device, &p->emu_teams[0], err)
                                 : TILEMM_OK;
      if (status == TILEMM_OK)
        status = ops->emu_whole (state, 0, options, &p->emu_branches, p->op_a, a,
                                 p->op_b, b, c, stop, used, err);
      ran->emu_passes = 1;
      ran->emu_workers = 1;
      if (ops->worker_finish)
        ops->worker_finish (state, 0, device, status != TILEMM_OK);
      ops->end (state, status);
      return status;
    }
  tilemm_workers devices = p->emu_devices;
  devices.count = p->emu_workers > 1 ? p->emu_workers : 1;
  job.queue = p->emu_workers > 1 ? &p->emu_queue : &p->emu_panels;
  /* Which worker took each panel in the pass of statistics: the pass of products gives it the
   * same panels, whose data its device still holds (the last of them at least). */
  const int64_t panels = tilemm_plan_panel_count (job.queue);
  tilemm_emu_stats *stats = calloc (TILEMM_MAX_WORKERS, sizeof *stats);
  int *took = malloc (sizeof (int) * (size_t) (panels > 0 ? panels : 1));
  if (!stats || !took)
    {
      free (stats);
      free (took);
      ops->end (state, TILEMM_ENOMEM);
      return tilemm_error_set (err, TILEMM_ENOMEM, "%s", tilemm_strerror (TILEMM_ENOMEM));
    }
  job.workers = &devices;
  job.teams = p->emu_teams;
  job.emu_options = options;
  job.emu_stats = stats;
  job.took = took;
  /* The operand every worker's strip holds whole, as the plan's exchange says: with peers,
   * each worker sends its share from the host (before its pass of statistics, which waits for
   * the others' from their GPUs); each runs the strips the plan gives it, if it gives them. */
  job.exchange = &p->emu_exchange;
  job.owner_first = p->emu_workers > 1 && p->emu_first[p->emu_workers] > 0 ? p->emu_first : NULL;
  tilemm_multi_report report;
  status = tilemm_job_run (&job, stop, &report, err);
  ran->emu_passes = 1;
  ran->emu_workers = report.workers;
  if (status == TILEMM_OK)
    {
      tilemm_emu_stats merged;
      memset (&merged, 0, sizeof merged);
      merged.inner = tilemm_type_is_complex (p->type) ? 2 * p->k : p->k;
      for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
        tilemm_emu_stats_merge (&merged, &stats[w]);
      tilemm_emu_select (&p->emu_branches, &merged, used);
      if (used->verdict == TILEMM_EMU_OK)
        {
          job.kind = TILEMM_JOB_EMU_PRODUCT;
          job.emu_plan = used;
          job.owner = took;
          job.owner_first = NULL;
          job.took = NULL;
          status = tilemm_job_run (&job, stop, &report, err);
          ran->emu_passes = 2;
          ran->emu_workers = report.workers;
        }
    }
  free (stats);
  free (took);
  ops->end (state, status);
  return status;
}
