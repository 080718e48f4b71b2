/* batch_plan.c — the shape of a batch of pages (pagemtimes' rules of implicit expansion) and its
 * plan: which backend, and panels of pages under a device limit (see batch.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "device_model.h"
#include "devices.h"
#include "gpus_model.h"
#include "team_size.h"

/* The CPU's batched path is costed by the model (device_model.h): a page's fixed cost on one
 * thread (a small real page, computed directly, has almost none) and the tiled C backend's rate
 * on one thread while every thread works (below its rate on one thread alone: the threads share
 * the caches and the memory bus), from the machine's facts.  "auto" reads them to weigh the whole
 * batch on the GPU against the pages on the host threads, and the plan to keep a tiny batch on
 * one thread and to choose how many pages run between two polls of the host's stop. */


static void dims_text (char *out, size_t size, int ndims, const int64_t *dims)
{
  size_t used = 0;
  out[0] = '\0';
  for (int d = 0; d < ndims && used < size; d++)
    used += (size_t) snprintf (out + used, size - used, d ? "x%lld" : "%lld",
                               (long long) dims[d]);
}

tilemm_status tilemm_batch_shape_make (int x_ndims, const int64_t *x_dims, tilemm_op op_a,
                                       int y_ndims, const int64_t *y_dims, tilemm_op op_b,
                                       tilemm_batch_shape *shape, tilemm_error *err)
{
  if (x_ndims < 2 || y_ndims < 2)
    return tilemm_error_set (err, TILEMM_EINVAL, "pagemtimes: arrays have two dimensions or more");
  const int most = x_ndims > y_ndims ? x_ndims : y_ndims;
  if (most - 2 > TILEMM_BATCH_MAX_DIMS)
    return tilemm_error_set (err, TILEMM_EINVAL,
                             "pagemtimes: at most %d dimensions past the second (here %d)",
                             TILEMM_BATCH_MAX_DIMS, most - 2);
  for (int d = 0; d < x_ndims; d++)
    if (x_dims[d] < 0)
      return tilemm_error_set (err, TILEMM_EINVAL, "pagemtimes: negative size");
  for (int d = 0; d < y_ndims; d++)
    if (y_dims[d] < 0)
      return tilemm_error_set (err, TILEMM_EINVAL, "pagemtimes: negative size");
  shape->x_rows = x_dims[0], shape->x_cols = x_dims[1];
  shape->y_rows = y_dims[0], shape->y_cols = y_dims[1];
  const int ta = op_a != TILEMM_OP_NONE, tb = op_b != TILEMM_OP_NONE;
  shape->m = ta ? x_dims[1] : x_dims[0];
  shape->k = ta ? x_dims[0] : x_dims[1];
  shape->n = tb ? y_dims[0] : y_dims[1];
  const int64_t y_inner = tb ? y_dims[1] : y_dims[0];
  shape->bad_dim = 0;
  if (shape->k != y_inner)
    shape->bad_dim = 2;
  if (shape->k != y_inner)
    return tilemm_error_set (err, TILEMM_ESHAPE,
                             "pagemtimes: the columns of each page of op(X) (%lld) must equal "
                             "the rows of each page of op(Y) (%lld)",
                             (long long) shape->k, (long long) y_inner);
  shape->page_ndims = most - 2;
  int64_t x_pages = 1, y_pages = 1, z_pages = 1;
  /* Strides in pages along each dimension of Z: X's and Y's own page strides, 0 where expanded. */
  for (int d = 0; d < shape->page_ndims; d++)
    {
      const int64_t xd = d + 2 < x_ndims ? x_dims[d + 2] : 1;
      const int64_t yd = d + 2 < y_ndims ? y_dims[d + 2] : 1;
      if (xd != yd && xd != 1 && yd != 1)
        {
          char xt[256], yt[256];
          shape->bad_dim = d + 3;
          dims_text (xt, sizeof xt, x_ndims, x_dims);
          dims_text (yt, sizeof yt, y_ndims, y_dims);
          return tilemm_error_set (err, TILEMM_ESHAPE,
                                   "pagemtimes: dimension %d of X (%s) and of Y (%s) differ: "
                                   "past the second, sizes must be equal or 1",
                                   d + 3, xt, yt);
        }
      shape->x_dims[d] = xd;
      shape->y_dims[d] = yd;
      shape->z_dims[d] = xd == 1 ? yd : xd;
      shape->x_step[d] = xd == 1 ? 0 : x_pages;
      shape->y_step[d] = yd == 1 ? 0 : y_pages;
      x_pages *= xd;
      y_pages *= yd;
      if (shape->z_dims[d] > 0 && z_pages > INT64_MAX / shape->z_dims[d])
        return tilemm_error_set (err, TILEMM_EOVERFLOW, "pagemtimes: too many pages");
      z_pages *= shape->z_dims[d];
    }
  shape->x_pages = x_pages, shape->y_pages = y_pages, shape->z_pages = z_pages;
  const double elements = (double) shape->m * (double) shape->n * (double) z_pages;
  if (elements > (double) (PTRDIFF_MAX / 16))
    return tilemm_error_set (err, TILEMM_EOVERFLOW, "pagemtimes: the result is too large");
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

void tilemm_batch_sources (const tilemm_batch_shape *shape, int64_t z_page, int64_t *x_page,
                           int64_t *y_page)
{
  int64_t xp = 0, yp = 0, rest = z_page;
  for (int d = 0; d < shape->page_ndims && rest > 0; d++)
    {
      const int64_t size = shape->z_dims[d];
      const int64_t at = rest % size;
      rest /= size;
      xp += at * shape->x_step[d];
      yp += at * shape->y_step[d];
    }
  *x_page = xp;
  *y_page = yp;
}

/* The rows of the real (or complex) product one page's kernels see: a complex page read as
 * pairs or split has twice the rows (A) or columns (B). */
static double route_rows (const tilemm_route *r)
{
  return (r->a_as_pairs || r->a_split) ? 2.0 * (double) r->m : (double) r->m;
}
static double route_cols (const tilemm_route *r)
{
  return r->b_split ? 2.0 * (double) r->n : (double) r->n;
}

double tilemm_batch_page_bytes (const tilemm_route *route)
{
  const double es = (double) tilemm_type_size (route->compute_type);
  const double m = route_rows (route), n = route_cols (route), k = (double) route->k;
  return es * (m * k + k * n + m * n);
}

/* One page of the result, as the kernels write it. */
static double result_page_bytes (const tilemm_route *route)
{
  return (double) tilemm_type_size (route->compute_type) * route_rows (route) * route_cols (route);
}

static double batch_flops (const tilemm_route *route, int64_t pages)
{
  return (double) pages
         * tilemm_model_flops (route->compute_type, route_rows (route), route_cols (route),
                               (double) route->k);
}

/* Pages run alone (one plain product each) where a page's own GPU call, in the cost model, takes
 * little more than its share of a batched call (tilemm_model_page_alone_allowance).  A page's
 * own call pays a fixed part that a batch pays once (the call itself, its first bytes at the
 * bus's latency), and gains the plain product's tiled kernels (tensor cores), its pipeline
 * (copies beside compute), panels under the device limit and several GPUs.  On the CPU the same
 * pages run alone too: each page is then large enough to keep every thread busy by itself. */
int tilemm_batch_page_alone (const tilemm_route *route, int64_t pages,
                             const tilemm_machine_facts *facts)
{
  if (pages == 1)
    return 1;
  const double flops = batch_flops (route, 1);
  const double bytes = tilemm_batch_page_bytes (route);
  const double alone_s = tilemm_model_gpu_call_s (facts, route->compute_type, bytes, flops);
  /* Its share of a batch: its bytes over the bus and its flops on the batched kernels. */
  const double in_batch_s = tilemm_model_bus_s (facts, bytes)
                            + tilemm_model_gpu_batch_kernel_s (facts, route->compute_type, flops);
  return alone_s <= tilemm_model_page_alone_allowance (facts) * in_batch_s;
}

/* Seconds one page of `type`, m×k·k×n, takes on one thread of the CPU's batched path while every
 * thread works. */
double tilemm_batch_cpu_page_s (const tilemm_machine_facts *facts, tilemm_type type, double m,
                                double n, double k)
{
  const int small
    = !tilemm_type_is_complex (type) && m * n * k <= TILEMM_BATCH_SMALL_PAGE_WORK;
  return tilemm_model_cpu_page_s (facts, small)
         + tilemm_model_flops (type, m, n, k)
             / (small ? tilemm_model_cpu_small_flops_per_s (facts)
                      : tilemm_model_cpu_thread_flops_per_s (facts));
}

/* Seconds the batch takes on the CPU on one thread. */
static double cpu_one_thread_s (const tilemm_route *route, int64_t pages,
                                const tilemm_machine_facts *facts)
{
  return (double) pages
         * tilemm_batch_cpu_page_s (facts, route->compute_type, route_rows (route),
                                    route_cols (route), (double) route->k);
}

/* The threads the batch pays for on a host of `threads` threads (the host's facts; 0, unknown:
 * the threads the machine's facts were measured with, else one): the one rule of team_size.h on
 * the batch's seconds on one thread.  (How many of them its pages or tiles keep busy at once is
 * the page plan's and the run's: each job has no more members than pieces.) */
static int batch_threads (const tilemm_route *route, int64_t pages, int threads,
                          const tilemm_machine_facts *facts)
{
  if (threads < 1 && facts)
    threads = facts->threads;
  const double one_thread_s = cpu_one_thread_s (route, pages, facts);
  return tilemm_team_size (tilemm_team_threads_left (threads), INT64_MAX, one_thread_s);
}

/* Seconds the CPU's batched path takes on the threads it pays for: one thread's time where that
 * is one, else that time shared plus a job's start and end on the pool
 * (tilemm_model_cpu_region_s). */
static double cpu_batch_s (const tilemm_route *route, int64_t pages, int threads,
                           const tilemm_machine_facts *facts)
{
  const double one = cpu_one_thread_s (route, pages, facts);
  const int team = batch_threads (route, pages, threads, facts);
  const double compute = team <= 1 ? one : one / (double) team + tilemm_model_cpu_region_s (facts);
  /* A large result's pages faulted in by the team as it writes them (the calibration's batches
   * are smaller: their results reuse freed memory). */
  const double result = (double) pages * result_page_bytes (route);
  const double fresh
    = facts ? tilemm_model_copy_rate (facts, facts->copy_fresh_bytes_per_s, (double) team) : 0;
  return compute + (result >= TILEMM_BATCH_FRESH_RESULT_BYTES && fresh > 0 ? result / fresh : 0);
}

/* Seconds the batch takes on the GPU: pages run alone pay one call each; a batch, one call. */
static double gpu_batch_s (const tilemm_route *route, int64_t pages,
                           const tilemm_machine_facts *facts)
{
  const double flops = batch_flops (route, pages);
  const double bytes = (double) pages * tilemm_batch_page_bytes (route);
  return tilemm_batch_page_alone (route, pages, facts)
           ? (double) pages * tilemm_model_gpu_call_s (facts, route->compute_type,
                                                       bytes / (double) pages,
                                                       flops / (double) pages)
           : tilemm_model_gpu_batch_s (facts, route->compute_type, bytes,
                                       (double) pages * result_page_bytes (route), flops);
}

int tilemm_batch_gpu_pays (const tilemm_route *route, int64_t pages, int threads,
                           const tilemm_machine_facts *facts)
{
  if (pages <= 0)
    return 0;
  return gpu_batch_s (route, pages, facts)
         < cpu_batch_s (route, pages, threads, facts);
}

int tilemm_batch_host_pays (const tilemm_route *route, int64_t pages, int threads, int gpu_usable,
                            const tilemm_machine_facts *facts)
{
  if (pages <= 0)
    return 0;
  const double host_s
    = (double) pages
      * tilemm_model_host_page_s (facts, route->compute_type, batch_flops (route, 1));
  if (host_s >= cpu_batch_s (route, pages, threads, facts))
    return 0;
  return !gpu_usable || host_s < gpu_batch_s (route, pages, facts);
}

void tilemm_batch_ways (const tilemm_route *route, int64_t pages, int threads, int gpu_usable,
                        const tilemm_machine_facts *facts, double *seconds)
{
  seconds[TILEMM_WAY_HOST]
    = (double) pages * tilemm_model_host_page_s (facts, route->compute_type, batch_flops (route, 1));
  seconds[TILEMM_WAY_CPU] = cpu_batch_s (route, pages, threads, facts);
  seconds[TILEMM_WAY_GPU] = gpu_usable ? gpu_batch_s (route, pages, facts) : INFINITY;
}

/* Pages between two polls of the host's stop on the CPU: about 20 ms of work on every thread
 * (each group is a job of the host pool: its start and end cost wake-ups, and threads that wait
 * by spinning, which on a busy machine take the cores from the threads that work), and at least
 * a few pages a thread. */
static int64_t pages_per_poll (const tilemm_route *route, int threads,
                               const tilemm_machine_facts *facts)
{
  const double page_s = tilemm_batch_cpu_page_s (facts, route->compute_type, route_rows (route),
                                                 route_cols (route), (double) route->k);
  const double per_thread = 2.0e-2 / (page_s > 0 ? page_s : 1e-9);
  const int64_t pages = (int64_t) (per_thread < 4.0 ? 4.0 : per_thread > 1.0e6 ? 1.0e6 : per_thread);
  return pages * (threads > 0 ? threads : 1);
}

/* Each thread claims at least this many indices of a group of pages, where the group has the
 * pages for it: the pages spread over every thread, and a thread the system delays holds back
 * a fraction of its share, not all of it. */
enum { BATCH_INDICES_PER_THREAD = 4 };

/* The pages one claim of the host pool takes, where the pages spread over the threads (the
 * plan's threads, pages_per_poll and pages_per_chunk set): as many as make a claim worth its
 * cost (TILEMM_BATCH_DIRECT_PER_INDEX direct pages, TILEMM_BATCH_TILED_PER_INDEX tiled ones), no
 * more than leave BATCH_INDICES_PER_THREAD claims a thread in each group, and at least one.  A
 * fixed count left threads idle where a batch had few claims for its threads (a few large pages
 * ran on one thread), and calibration's per-thread rate, measured so, priced a few large pages
 * slow (bench/RESULTS.md). */
static int64_t pages_per_index (const tilemm_batch_plan *plan)
{
  const int64_t most
    = plan->direct_pages ? TILEMM_BATCH_DIRECT_PER_INDEX : TILEMM_BATCH_TILED_PER_INDEX;
  const int64_t pages = plan->pages_per_chunk > 0 ? plan->pages_per_chunk : 1;
  const int64_t group
    = plan->pages_per_poll > 0 && plan->pages_per_poll < pages ? plan->pages_per_poll : pages;
  const int64_t threads = plan->threads > 1 ? plan->threads : 1;
  const int64_t per = group / (BATCH_INDICES_PER_THREAD * threads);
  return per < 1 ? 1 : per > most ? most : per;
}

/* A batch on the CPU whose pages run as one batch: the tiled backend's plan of one page as the
 * batch runs it (its real pages: a complex page read as pairs or split counts twice, under the
 * limit), on the batch's threads, or on one where the pages spread over them (exec/batch.c runs
 * it as it is). */
static tilemm_status cpu_page_plan (const tilemm_route *route, size_t max_device_bytes,
                                    tilemm_cpu_isa cpu_isa, tilemm_batch_plan *plan,
                                    tilemm_error *err)
{
  if (plan->per_page)
    return tilemm_error_set (err, TILEMM_OK, NULL);
  /* No multiprocessors: a CPU page's plan has no CUDA variant, and its panels' fill model is
   * the built-in one's as before (the GPU's pages run the batched kernels, chosen by the page's
   * size, or each page's own call plan, whose limits carry the devices' count). */
  const tilemm_limits limits = { max_device_bytes, NULL, 0 };
  const tilemm_status status
    = tilemm_plan_make (&plan->page, TILEMM_BACKEND_CPU, route->compute_type,
                        route->a_as_pairs || route->a_split ? 2 * route->m : route->m,
                        route->b_split ? 2 * route->n : route->n, route->k, &limits);
  if (status != TILEMM_OK)
    return tilemm_error_set (err, status, "%s", tilemm_strerror (status));
  /* A page on the batch's threads, as many as its tiles and flops pay for, or on one where the
   * pages spread over them. */
  plan->page.threads
    = plan->parallel_pages ? 1 : tilemm_plan_cpu_threads (&plan->page, NULL, plan->threads);
  plan->page.cpu_isa = cpu_isa;
  plan->direct_pages = !tilemm_type_is_complex (plan->page.type)
                       && (double) plan->page.m * (double) plan->page.n * (double) plan->page.k
                            <= TILEMM_BATCH_SMALL_PAGE_WORK;
  plan->pages_per_index = plan->parallel_pages ? pages_per_index (plan) : 0;
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

/* The plan's pages, backend and page plan (tilemm_batch_plan_make without the host jobs). */
static tilemm_status batch_plan_pages (const tilemm_route *route, int64_t pages, int threads,
                                       tilemm_cpu_isa cpu_isa, tilemm_backend_choice choice,
                                       int gpu_usable, size_t max_device_bytes,
                                       size_t device_bytes, int pages_alone,
                                       const tilemm_machine_facts *facts, tilemm_batch_plan *plan,
                                       tilemm_error *err)
{
  /* On the CPU (the backend may yet be the GPU: "auto" weighs the CPU on the threads it would
   * take). */
  plan->threads = batch_threads (route, pages, threads, facts);
  threads = plan->threads;
  plan->pages_per_poll = pages_per_poll (route, plan->threads, facts);
  plan->pages_per_panel = pages;
  plan->backend = TILEMM_BACKEND_CPU;
  plan->copy_threads = 0;
  plan->gpu_kernel = route_rows (route) * route_cols (route) <= TILEMM_BATCHED_SMALL_PAGE
                       ? TILEMM_BATCHED_SMALL : TILEMM_BATCHED_TILED;
  memset (&plan->workers, 0, sizeof plan->workers);
  plan->workers.count = 1;
  plan->devices_named = 0;
  plan->pages_per_chunk = pages;
  plan->pages_over_devices = 0;
  memset (plan->teams, 0, sizeof plan->teams);
  memset (plan->chunk_pages, 0, sizeof plan->chunk_pages);
  plan->direct_pages = 0;
  plan->pages_per_index = 0;
  memset (&plan->split_parts, 0, sizeof plan->split_parts);
  memset (&plan->join_parts, 0, sizeof plan->join_parts);
  plan->mirror_team = 1;
  plan->fault.kind = -1;   /* none: the caller arms the call's (tilemm_decide_batch) */
  plan->fault.nth = 0;
  /* TILEMM_PAGES_ALONE=1 (0) runs every batch's pages alone (none), for tests and to measure
   * both routes: the call's settings. */
  plan->per_page = pages_alone == 0 || pages_alone == 1 ? pages_alone
                                                        : tilemm_batch_page_alone (route, pages, facts);
  /* Pages over the threads when there are enough of them to keep every thread busy; else page
   * after page, each one cut into tiles over the threads (a few large pages). */
  plan->parallel_pages
    = !plan->per_page && (pages >= 2 * (int64_t) (threads > 0 ? threads : 1) || pages >= 64);
  switch (choice)
    {
    case TILEMM_CHOOSE_CPU:
      return cpu_page_plan (route, max_device_bytes, cpu_isa, plan, err);
    case TILEMM_CHOOSE_GPU:
      if (!gpu_usable)
        return tilemm_error_set (err, TILEMM_ENOGPU, "backend \"gpu\": no usable GPU");
      break;
    case TILEMM_CHOOSE_AUTO:
    default:
      if (!gpu_usable || !tilemm_batch_gpu_pays (route, pages, threads, facts))
        return cpu_page_plan (route, max_device_bytes, cpu_isa, plan, err);
      break;
    }
  plan->backend = TILEMM_BACKEND_CUDA;
  plan->parallel_pages = 0;
  plan->copy_threads
    = (double) pages * tilemm_batch_page_bytes (route) < TILEMM_BATCH_COPY_TEAM_MIN_BYTES ? 1 : 0;
  if (plan->per_page)
    {
      /* Each page is a plain product: its call plan cuts it into panels under the limit. */
      plan->pages_per_panel = 1;
      return tilemm_error_set (err, TILEMM_OK, NULL);
    }
  size_t limit = max_device_bytes;
  if (device_bytes > 0 && (limit == 0 || device_bytes < limit))
    limit = device_bytes;
  const double page_bytes = tilemm_batch_page_bytes (route);
  if (limit > 0 && pages > 0)
    {
      if (page_bytes > (double) limit)
        return tilemm_error_set (err, TILEMM_EDEVMEM,
                                 "one page takes %.0f bytes on the device, more than the %zu "
                                 "bytes it may hold (max_device_bytes, or the device's memory)",
                                 page_bytes, limit);
      double fit = page_bytes > 0 ? (double) limit / page_bytes : (double) pages;
      if (fit < 1.0)
        fit = 1.0;
      plan->pages_per_panel = fit >= (double) pages ? pages : (int64_t) fit;
    }
  if (plan->pages_per_panel < 1)
    plan->pages_per_panel = 1;
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

/* ---------------------------------------------------------------- host jobs around the pages */

/* `pages` pages of a rows×cols complex matrix (of single or double) each, copied apart or
 * joined (every page's bytes read and written): a page an index where the pages keep the
 * threads busy (as many pages as threads) or one thread is all the copy pays for; else page
 * after page, each over the team its parts pay for (tilemm_parts_team). */
static tilemm_batch_parts pages_parts (int threads, int single, int64_t pages, int64_t rows,
                                       int64_t cols)
{
  tilemm_batch_parts parts;
  const double one_thread_s = 2.0 * tilemm_parts_bytes (single, rows, cols) * (double) pages
                              / TILEMM_TEAM_THREAD_BYTES_PER_S;
  parts.team = tilemm_team_size (threads, pages, one_thread_s);
  parts.over_pages = pages >= (int64_t) (threads > 1 ? threads : 1) || parts.team <= 1;
  parts.page_team = parts.over_pages ? 1 : tilemm_parts_team (threads, single, rows, cols);
  return parts;
}

/* The teams of the executor's host jobs around the pages (split_parts, join_parts,
 * mirror_team) on the plan's `threads`: the one rule of team_size.h on each job's pieces (pages,
 * a page's columns) and bytes. */
static void batch_plan_host_jobs (tilemm_batch_plan *plan, const tilemm_route *route,
                                  const tilemm_batch_shape *shape)
{
  const int threads = plan->threads;
  const int single = route->compute_type == TILEMM_SINGLE
                     || route->compute_type == TILEMM_COMPLEX_SINGLE;
  memset (&plan->split_parts, 0, sizeof plan->split_parts);
  memset (&plan->join_parts, 0, sizeof plan->join_parts);
  if (route->b_split || route->a_split)
    {
      /* The complex operand's pages as stored, and Z's (m×n). */
      const int split_y = route->b_split;
      plan->split_parts
        = pages_parts (threads, single, split_y ? shape->y_pages : shape->x_pages,
                       split_y ? shape->y_rows : shape->x_rows,
                       split_y ? shape->y_cols : shape->x_cols);
      plan->join_parts = pages_parts (threads, single, shape->z_pages, route->m, route->n);
    }
  /* Each page's triangle mirrored: Z's bytes, once each, in Z's element type. */
  const size_t es = (route->result_complex ? 2 : 1) * (single ? sizeof (float) : sizeof (double));
  const double bytes = (double) shape->z_pages * (double) route->m * (double) route->m * (double) es;
  plan->mirror_team = route->mirror != TILEMM_MIRROR_NONE
                        ? tilemm_team_size (threads, shape->z_pages,
                                            bytes / TILEMM_TEAM_THREAD_BYTES_PER_S)
                        : 1;
}

/* The whole plan in one call: no caller gets a batch plan without its host jobs. */
tilemm_status tilemm_batch_plan_make (const tilemm_route *route, const tilemm_batch_shape *shape,
                                      int threads, tilemm_cpu_isa cpu_isa,
                                      tilemm_backend_choice choice, int gpu_usable,
                                      size_t max_device_bytes, size_t device_bytes,
                                      int pages_alone, const tilemm_machine_facts *facts,
                                      tilemm_batch_plan *plan, tilemm_error *err)
{
  const tilemm_status status
    = batch_plan_pages (route, shape->z_pages, threads, cpu_isa, choice, gpu_usable,
                        max_device_bytes, device_bytes, pages_alone, facts, plan, err);
  if (status == TILEMM_OK)
    batch_plan_host_jobs (plan, route, shape);
  return status;
}

/* ---------------------------------------------------------------- several GPUs, panels */

/* A batch this large (operands and results) is cut into several panels even where it fits the
 * device whole, so that a panel's pages travel while the one before it computes; into at least
 * BATCH_PIPELINE_PANELS of them. */
static const double BATCH_PIPELINE_BYTES = 8.0 * 1024 * 1024;
enum { BATCH_PIPELINE_PANELS = 4 };

/* Seconds the batch's pages take on one GPU in the cost model, without the call's fixed cost
 * (pages run alone: each page's own call). */
static double gpu_pages_s (const tilemm_route *route, int64_t pages,
                           const tilemm_machine_facts *facts)
{
  const double flops = batch_flops (route, pages);
  const double bytes = (double) pages * tilemm_batch_page_bytes (route);
  return tilemm_batch_page_alone (route, pages, facts)
           ? gpu_batch_s (route, pages, facts)
           : tilemm_model_bus_s (facts, bytes)
               + tilemm_model_gpu_batch_kernel_s (facts, route->compute_type, flops);
}

/* How many of `count` GPUs an unnamed batch is spread over: the count the cost model finds
 * fastest, by the rule of a product's (gpus_model.h: several only where the machine's facts
 * measured them beating one), its pages split among them. */
static int batch_gpus_that_pay (const tilemm_route *route, int64_t pages, int count,
                                const tilemm_machine_facts *facts)
{
  const tilemm_gpus_product p = { route->compute_type, route_rows (route), route_cols (route),
                                  (double) route->k, 0, 0, (double) pages };
  return tilemm_model_gpus_that_pay (facts, &p, gpu_batch_s (route, pages, facts), count, NULL);
}

/* The GPU's panels of a chunk of `count` pages: its pages a panel (*per_panel) and whether two
 * panels are in flight (*pipelined: each then within half the plan's pages_per_panel), for
 * pages of page_bytes (X, Y and Z) each. */
static void chunk_panels (const tilemm_batch_plan *plan, double page_bytes, int64_t count,
                          int64_t *per_panel, int *pipelined)
{
  const int64_t most = plan->pages_per_panel > 0 ? plan->pages_per_panel : 1;
  *pipelined = count >= 2 * BATCH_PIPELINE_PANELS
               && (double) count * page_bytes > BATCH_PIPELINE_BYTES && most >= 2;
  *per_panel = most;
  if (*pipelined)
    {
      /* Two panels on the device at once: each within half the limit. */
      const int64_t quarter = (count + BATCH_PIPELINE_PANELS - 1) / BATCH_PIPELINE_PANELS;
      *per_panel = most / 2 < quarter ? most / 2 : quarter;
    }
}

/* The panels of the queue's chunks: a whole chunk's and the last one's (the pages left). */
static void plan_chunk_cuts (tilemm_batch_plan *plan, const tilemm_route *route, int64_t pages)
{
  const double page_bytes = tilemm_batch_page_bytes (route);
  const int64_t per = plan->per_page ? 1 : (plan->pages_per_chunk > 0 ? plan->pages_per_chunk : 1);
  plan->chunk_pages[0] = per;
  plan->chunk_pages[1] = pages % per ? pages % per : per;
  for (int i = 0; i < 2; i++)
    chunk_panels (plan, page_bytes, plan->chunk_pages[i], &plan->chunk_per_panel[i],
                  &plan->chunk_pipelined[i]);
}

void tilemm_batch_plan_devices (tilemm_batch_plan *plan, const tilemm_route *route,
                                int64_t pages, const tilemm_workers *available, int named,
                                const tilemm_host_facts *host, const tilemm_device_facts *gpu,
                                const tilemm_machine_facts *facts)
{
  plan->workers = *available;
  plan->devices_named = named;
  plan->pages_per_chunk = pages;
  plan->pages_over_devices = 0;
  int count = available->count > TILEMM_MAX_WORKERS ? TILEMM_MAX_WORKERS : available->count;
  if (!named && count > 1)
    count = batch_gpus_that_pay (route, pages, count, facts);
  /* The chunks the batch can give: a page each where the devices are named, else each worth a
   * worker's fixed cost (the seconds of a panel of tilemm_model_min_panel_flops). */
  const double worth_s
    = tilemm_model_kernel_s (facts, route->compute_type,
                             tilemm_model_min_panel_flops (facts, route->compute_type));
  double most = (double) pages;
  if (!named && worth_s > 0)
    {
      const double by_time = floor (gpu_pages_s (route, pages, facts) / worth_s);
      most = by_time < most ? by_time : most;
    }
  const int per_worker = named ? 1 : TILEMM_MULTI_MIN_PANELS;
  while (count > 1 && (double) count * per_worker > most)
    count--;
  if (count < 1)
    count = 1;
  if (count > 1)
    {
      /* About TILEMM_MULTI_PANELS_PER_WORKER chunks a worker, so a slower device ends at most
       * about a chunk late. */
      double chunks = (double) count * TILEMM_MULTI_PANELS_PER_WORKER;
      chunks = chunks > most ? most : chunks;
      chunks = chunks < count ? count : chunks;
      plan->pages_per_chunk = (int64_t) ceil ((double) pages / chunks);
      if (plan->pages_per_chunk < 1)
        plan->pages_per_chunk = 1;
      if ((pages + plan->pages_per_chunk - 1) / plan->pages_per_chunk < count)
        count = (int) ((pages + plan->pages_per_chunk - 1) / plan->pages_per_chunk);
      /* Pages that run alone, one device each, where every device gets two, or as many each:
       * else a page's own plan spreads it over the devices, which keeps them even. */
      plan->pages_over_devices
        = plan->per_page && count > 1 && (pages >= 2 * (int64_t) count || pages % count == 0);
      if (plan->per_page && !plan->pages_over_devices)
        {
          count = 1;
          plan->pages_per_chunk = pages;
        }
      if (plan->pages_over_devices)
        plan->pages_per_chunk = 1;
    }
  if (count <= 1)
    {
      count = 1;
      plan->pages_per_chunk = pages;
      if (!named)
        plan->workers.device[0] = gpu && gpu->current >= 0 ? gpu->current : available->device[0];
    }
  plan->workers.count = count;
  tilemm_plan_copy_teams (host, gpu, &plan->workers, gpu ? gpu->copy_threads : 0,
                          tilemm_model_copy_saturating_threads (facts), plan->teams);
  /* A small batch copies on one thread (TILEMM_BATCH_COPY_TEAM_MIN_BYTES). */
  if (plan->copy_threads == 1)
    for (int w = 0; w < count; w++)
      plan->teams[w].threads = 1;
  plan_chunk_cuts (plan, route, pages);
}

int tilemm_batch_chunk_cut (const tilemm_batch_plan *plan, int64_t count, int64_t *per_panel,
                            int *pipelined)
{
  for (int i = 0; i < 2; i++)
    if (plan->chunk_pages[i] == count && count > 0)
      {
        *per_panel = plan->chunk_per_panel[i];
        *pipelined = plan->chunk_pipelined[i];
        return 1;
      }
  return 0;
}

int64_t tilemm_batch_panel_at (const tilemm_batch_shape *shape, int64_t first, int64_t end,
                               int64_t most, double x_page, double y_page, double z_page,
                               double budget, int64_t *x_lo, int64_t *x_hi, int64_t *y_lo,
                               int64_t *y_hi)
{
  int64_t count = end - first < most ? end - first : most;
  if (count < 1)
    count = 1;
  for (;;)
    {
      *x_lo = *y_lo = INT64_MAX;
      *x_hi = *y_hi = -1;
      for (int64_t p = first; p < first + count; p++)
        {
          int64_t xp, yp;
          tilemm_batch_sources (shape, p, &xp, &yp);
          *x_lo = xp < *x_lo ? xp : *x_lo;
          *x_hi = xp > *x_hi ? xp : *x_hi;
          *y_lo = yp < *y_lo ? yp : *y_lo;
          *y_hi = yp > *y_hi ? yp : *y_hi;
        }
      const double bytes = (double) (*x_hi - *x_lo + 1) * x_page
                           + (double) (*y_hi - *y_lo + 1) * y_page + (double) count * z_page;
      if (count == 1 || bytes <= budget)
        return count;
      count /= 2;
    }
}
