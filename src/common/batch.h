/* batch.h — a batch of pages: Z(:,:,i) = op_a(X(:,:,i)) · op_b(Y(:,:,i)) over the dimensions
 * past the second, which expand implicitly (pagemtimes).  The shape of a batch, which page of X
 * and of Y each page of Z reads, and its plan (batch_plan.c: which backend, how many pages a
 * panel holds); its run is src/exec/batch.c.  Plain C11, no host, no CUDA.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_BATCH_H
#define TILEMM_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "device_model.h"
#include "copy_team.h"
#include "devices.h"
#include "front.h"
#include "machine_facts.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most dimensions past the second a batch may have (Octave's arrays have no fixed limit; a
 * larger count is TILEMM_EINVAL with a message). */
#define TILEMM_BATCH_MAX_DIMS 30

/* The shape of a batch: one page's product and the page dimensions of X, Y and Z. */
typedef struct {
  int64_t m, n, k;                   /* one page: op_a(X) is m×k, op_b(Y) is k×n, Z's is m×n   */
  int64_t x_rows, x_cols;            /* X's pages as stored (k×m when op_a transposes)         */
  int64_t y_rows, y_cols;            /* Y's pages as stored                                    */
  int page_ndims;                    /* dimensions past the second of Z (0: one page)          */
  int64_t x_dims[TILEMM_BATCH_MAX_DIMS], y_dims[TILEMM_BATCH_MAX_DIMS];
  int64_t z_dims[TILEMM_BATCH_MAX_DIMS];   /* past the second; 1 where an array has fewer     */
  int64_t x_step[TILEMM_BATCH_MAX_DIMS], y_step[TILEMM_BATCH_MAX_DIMS];
                                     /* pages of X (Y) between neighbours along a dimension of
                                        Z: 0 where X's size is 1 there (expanded)              */
  int64_t x_pages, y_pages, z_pages;
  int bad_dim;                       /* after TILEMM_ESHAPE: 2 when the inner dimensions
                                        differ, else the (1-based) page dimension that does   */
} tilemm_batch_shape;

/* The shape of pagemtimes (X, op_a, Y, op_b) from the arrays' sizes (x_dims[0..x_ndims-1],
 * x_ndims >= 2, likewise y): TILEMM_ESHAPE, with a message in err that says which, when op_a(X)'s
 * columns are not op_b(Y)'s rows or a page dimension differs where neither size is 1;
 * TILEMM_EOVERFLOW when Z's element count does not fit; TILEMM_EINVAL for too many dimensions. */
tilemm_status tilemm_batch_shape_make (int x_ndims, const int64_t *x_dims, tilemm_op op_a,
                                       int y_ndims, const int64_t *y_dims, tilemm_op op_b,
                                       tilemm_batch_shape *shape, tilemm_error *err);

/* The pages of X and Y (numbered in storage order) that page `z_page` of Z reads. */
void tilemm_batch_sources (const tilemm_batch_shape *shape, int64_t z_page, int64_t *x_page,
                           int64_t *y_page);

/* Real pages of at most this many multiply-adds run on the CPU without the tiled backend's
 * entry (exec/batch.c), whose fixed cost is many times such a page's work; the plan's cost of a
 * page on the CPU knows it. */
#define TILEMM_BATCH_SMALL_PAGE_WORK 4096

/* A batch's result of at least this many bytes is new memory from the system at each call (the C
 * library maps an allocation beyond its largest threshold, 32 MiB for glibc's malloc, and gives
 * it back when freed), each page faulted in as the batch first writes it: the CPU's batch pays
 * that at the host's rate into fresh pages.  A smaller result reuses memory the process freed. */
#define TILEMM_BATCH_FRESH_RESULT_BYTES ((double) (32 << 20))

/* The batched kernel a GPU batch's pages run (kernels/batched.h), named by the plan: a thread an
 * element of Z across pages for pages of at most TILEMM_BATCHED_SMALL_PAGE elements (one page is
 * too little work for a block), else a block a 32×32 tile of a page through shared memory.
 * Either computes every page (each element summed in increasing k); the launcher runs the one
 * named, and chooses none. */
typedef enum {
  TILEMM_BATCHED_TILED = 0,
  TILEMM_BATCHED_SMALL,
  TILEMM_BATCHED_NKERNELS
} tilemm_batched_kernel;
#define TILEMM_BATCHED_SMALL_PAGE 32

/* A split batch's pages of parts (exec/batch.c: a complex operand's pages copied apart, or the
 * product's pages joined back, parts.h), as the plan cut them (tilemm_batch_plan_make):
 * a page an index of the pool over `team` threads, or page after page, each over `page_team`
 * (a few large pages: fewer pages than threads). */
typedef struct {
  int over_pages;   /* 1: the pages over the team, each on one thread; 0: page after page     */
  int team;         /* over_pages: the pool's team over the pages                             */
  int page_team;    /* page after page: each page's parts over this many threads              */
} tilemm_batch_parts;

/* How a batch runs. */
typedef struct tilemm_batch_plan_s {
  tilemm_backend backend;
  int per_page;              /* pages one by one, each a plain product (tilemm_run) with the
                                page's call plan, which the batch's decision holds: pages
                                large enough to run alone (tilemm_batch_page_alone)          */
  int64_t pages_per_panel;   /* GPU: pages whose operands and results the device holds at
                                once (under max_device_bytes and the device's memory); the
                                CPU: every page; per_page: 1                                  */
  int parallel_pages;        /* CPU: pages spread over the threads, each page on one thread;
                                0: page after page, each spread over the threads            */
  int threads;               /* CPU: the threads the batch pays for on the host's threads
                                (team_size.h; 1 for a batch too small to gain from more)      */
  int64_t pages_per_poll;    /* CPU: pages between two polls of the host's stop (each group a
                                job of the host pool, about 20 ms of work a thread)           */
  tilemm_batched_kernel gpu_kernel;  /* GPU, pages as one batch: the batched kernel they run,
                                from one page as the kernels see it (pairs and splits counted) */
  int copy_threads;          /* GPU: the host threads that copy pages into and out of the
                                staging: 1 for a batch under 64 MiB (a team's wake-up can cost
                                more than its copies: milliseconds where another library's
                                threads hold the cores), 0 for each GPU's share of the host
                                (its copy team, teams below)                                  */
  /* The GPU's devices (tilemm_batch_plan_devices; one: the caller's). */
  tilemm_workers workers;    /* the GPUs the pages are spread over                            */
  int devices_named;         /* the user named them                                           */
  int64_t pages_per_chunk;   /* the queue's item, several GPUs: a worker takes this many pages
                                at a time (its own panels of pages_per_panel within them, two
                                in flight); one GPU: every page                               */
  int pages_over_devices;    /* per_page on several GPUs: each page a plain product on one GPU,
                                the pages from one queue (else each page over the devices its
                                own call plan takes, one page after another)                  */
  tilemm_copy_team teams[TILEMM_MAX_WORKERS];   /* each GPU worker's host copy team           */
  /* GPU: the panels of the queue's chunks (tilemm_batch_plan_devices, from one page's bytes as
   * the kernels see it, tilemm_batch_page_bytes): [0] a chunk of pages_per_chunk pages (per_page:
   * one), [1] the queue's last chunk, the pages left; read with tilemm_batch_chunk_cut. */
  int64_t chunk_pages[2];    /* the chunk's pages                                             */
  int64_t chunk_per_panel[2];   /* its pages a panel                                          */
  int chunk_pipelined[2];    /* two of its panels in flight (each within half pages_per_panel) */
  tilemm_fault_spec fault;   /* GPU: the fault hook its product arms (TILEMM_FAULT, fault.h; the
                                call's settings)                                              */
  tilemm_staging_plan staging;  /* GPU: the pinned staging its workers copy through (the
                                call's settings, tilemm_plan_staging)                         */
  tilemm_plan page;          /* CPU, pages as one batch: the tiled backend's plan of one page as
                                the kernels see it (pairs and splits counted), on `threads`
                                threads, or one where the pages spread over the threads       */
  int direct_pages;          /* CPU, pages as one batch: real pages of at most
                                TILEMM_BATCH_SMALL_PAGE_WORK multiply-adds, computed directly
                                (without the tiled backend's entry, whose fixed cost is many
                                times theirs)                                                 */
  int64_t pages_per_index;   /* CPU, pages spread over the threads: the pages one claim of the
                                pool takes (up to TILEMM_BATCH_DIRECT_PER_INDEX direct pages:
                                one is too little work to hand out alone; else up to
                                TILEMM_BATCH_TILED_PER_INDEX), few enough that each thread has
                                several claims of a group; 0 elsewhere                        */
  /* The executor's host jobs around the pages (exec/batch.c), each team the plan's
   * (tilemm_batch_plan_make, team_size.h): a split operand's pages apart and the product's
   * pages back (route a_split, b_split), the mirror of X'·X pages (route.mirror). */
  tilemm_batch_parts split_parts, join_parts;
  int mirror_team;
} tilemm_batch_plan;

#define TILEMM_BATCH_DIRECT_PER_INDEX 64
#define TILEMM_BATCH_TILED_PER_INDEX 16

/* The plan of a batch of shape->z_pages products of one page's route (m, n, k in the route's
 * terms: a complex page read as pairs or split counts twice), on a host of `threads` threads
 * whose CPU runs the CPU backend's variant `cpu_isa` (the host's facts, tilemm_host_facts:
 * threads 0, the machine's facts' count, else one; the page's plan names cpu_isa).  choice:
 * "cpu", "gpu" or "auto" (the GPU where the device model says that it pays for the whole batch,
 * tilemm_batch_gpu_pays, and gpu_usable); max_device_bytes: 0 for no limit, else the device
 * bytes a panel of pages may hold (device_bytes: the GPU's memory budget, 0 when unknown).
 * Pages that run alone (per_page: tilemm_batch_page_alone; pages_alone 1 for every batch, 0 for
 * none, -1 the rule: TILEMM_PAGES_ALONE, from the call's settings) leave the limit to the page's
 * call plan, which the caller makes (tilemm_decide_batch).  A batch on the CPU gets its page's
 * plan (`page`: tilemm_plan_make's errors under the limit).  The plan holds the teams of the
 * executor's host jobs around the pages too (split_parts, join_parts, mirror_team: the one rule
 * of team_size.h on each job's pieces, from the shape's pages and page sizes, on the plan's
 * threads), so no caller has a second step to remember.  TILEMM_EDEVMEM when one page of a
 * batched GPU product does not fit the limit; TILEMM_ENOGPU when "gpu" and !gpu_usable. */
tilemm_status tilemm_batch_plan_make (const tilemm_route *route, const tilemm_batch_shape *shape,
                                      int threads, tilemm_cpu_isa cpu_isa,
                                      tilemm_backend_choice choice, int gpu_usable,
                                      size_t max_device_bytes, size_t device_bytes,
                                      int pages_alone, const tilemm_machine_facts *facts,
                                      tilemm_batch_plan *plan, tilemm_error *err);

/* The GPU's devices of a batch planned for the GPU (backend CUDA): how many of `available`
 * (named: the user named them) it is spread over, its queue's chunks of pages, whether pages
 * that run alone go to one device each, and the workers' copy teams (copy_team.h: 1 thread
 * each where the plan copies on one, copy_threads).  Every device gets at least
 * TILEMM_MULTI_MIN_PANELS chunks (named: one) worth a worker's fixed cost in the device model.
 * Pure. */
void tilemm_batch_plan_devices (tilemm_batch_plan *plan, const tilemm_route *route,
                                int64_t pages, const tilemm_workers *available, int named,
                                const tilemm_host_facts *host, const tilemm_device_facts *gpu,
                                const tilemm_machine_facts *facts);

/* The GPU's panels of a chunk of `count` pages of the plan's queue, as the plan cut them
 * (tilemm_batch_plan_devices): its pages a panel (*per_panel) and whether two panels are in
 * flight (*pipelined).  0 where the plan holds no chunk of `count` pages.  Pure. */
int tilemm_batch_chunk_cut (const tilemm_batch_plan *plan, int64_t count, int64_t *per_panel,
                            int *pipelined);

/* The panel of pages from Z's page `first` of a chunk ending before page `end`: at most `most`
 * pages, fewer where expansion makes the stored pages of X and Y it reads (*x_lo..*x_hi,
 * *y_lo..*y_hi) wider than its own, down to one, so that its bytes (x_page, y_page, z_page a
 * page) stay within `budget`.  Returns its pages.  Pure. */
int64_t tilemm_batch_panel_at (const tilemm_batch_shape *shape, int64_t first, int64_t end,
                               int64_t most, double x_page, double y_page, double z_page,
                               double budget, int64_t *x_lo, int64_t *x_hi, int64_t *y_lo,
                               int64_t *y_hi);

/* Whether a batch of `pages` pages of this route runs them alone, one plain product each (on
 * either backend): a batch of one page always (it is one product: the plain call's tiled kernels,
 * pipeline and GPUs, and its price is the plain call's, which calibration times at every size),
 * else where a page's own GPU call costs, in the device model, little more than its share of a
 * batched one.  Pure. */
int tilemm_batch_page_alone (const tilemm_route *route, int64_t pages,
                             const tilemm_machine_facts *facts);

/* Seconds one page of `type`, m×k·k×n (in the kernels' terms), takes on one thread of the CPU's
 * batched path while every thread works: the model's page cost and thread rate.  Pure. */
double tilemm_batch_cpu_page_s (const tilemm_machine_facts *facts, tilemm_type type, double m,
                                double n, double k);

/* Device bytes one page takes on the GPU: its X, Y and Z pages in the route's compute type
 * (read as pairs or split: the real pages the kernels see). */
double tilemm_batch_page_bytes (const tilemm_route *route);

/* Whether a batch of `pages` such products pays on the GPU against the CPU's batched path:
 * the device model's call (fixed cost, bus, kernels) and panels, against the pages on a host of
 * `threads` threads (as tilemm_batch_plan_make).  Pure. */
int tilemm_batch_gpu_pays (const tilemm_route *route, int64_t pages, int threads,
                           const tilemm_machine_facts *facts);

/* Whether the loop of the host's own `*` over the pages (one call a page, from the oct-file:
 * tilemm_model_host_page_s) beats the CPU's batched path on a host of `threads` threads (as
 * tilemm_batch_plan_make) and, where `gpu_usable`, the GPU's: pages of a few hundred rows, few of them, where
 * the host BLAS is faster than our CPU kernels and the GPU's call costs more than the pages.
 * "auto" then hands the pages to `*` (TILEMM_BATCH_HOST).  Pure. */
int tilemm_batch_host_pays (const tilemm_route *route, int64_t pages, int threads, int gpu_usable,
                            const tilemm_machine_facts *facts);

/* The seconds the model gives each way of running the batch (indexed by tilemm_way: the host's
 * loop of `*`, the CPU's batched path, the GPU's where gpu_usable, else INFINITY), for the
 * batch's description.  Pure. */
void tilemm_batch_ways (const tilemm_route *route, int64_t pages, int threads, int gpu_usable,
                        const tilemm_machine_facts *facts, double *seconds);

/* One batch of native products as the kernels see it, for a backend: every page of Z is
 * op_a(X page)·op_b(Y page) in `type`, the pages of X and Y that Z's page reads given by
 * tilemm_batch_sources (shape).  x, y, z hold their pages one after another, x_page, y_page,
 * z_page elements of `type` apart; a stored page of X is k×m when op_a transposes, else m×k
 * (likewise Y), a page of Z is m×n (column-major, contiguous). */
typedef struct tilemm_batch_job_s {
  tilemm_type type;
  tilemm_op op_a, op_b;
  int64_t m, n, k;
  const void *x, *y;
  void *z;
  int64_t x_page, y_page, z_page;
  const tilemm_batch_shape *shape;
  tilemm_fault_spec fault;   /* the fault hook its product arms (the plan's fault)           */
  const tilemm_batch_plan *plan;   /* its plan: the GPU's panels of pages
                                      (tilemm_batch_chunk_cut), the CPU's threads, page plan,
                                      pages spread or not, direct pages and poll groups       */
} tilemm_batch_job;

/* The CPU's batch (src/cpu/batch_cpu.c, its table's `batch`): pages first .. first + count - 1
 * of the job as its plan says (job->plan: threads, page plan, pages spread over the threads,
 * direct pages), in groups of the plan's pages_per_poll pages between two polls of `stop` (may
 * be NULL).  state and worker as the table's (unused: the CPU's batch runs on the caller). */
tilemm_status tilemm_cpu_multiply_batch (void *state, int worker, const tilemm_batch_job *job,
                                         int64_t first, int64_t count, const tilemm_stop *stop,
                                         tilemm_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_BATCH_H */
