/* batch.c — a batch of pages run (see batch_run.h): the native pages as one batch through the
 * backend's table (its `batch`: the CPU's pages over the host pool's threads, cpu/batch_cpu.c; the GPU's
 * batched product, cuda/batch_product.cu); real and complex pages that `*` takes as two real
 * products split once for the whole batch; pages that run alone (the plan's per_page, every
 * emulated batch's) one by one through tilemm_run with the page's call plan.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "batch_run.h"
#include "host_pool.h"
#include "multi.h"
#include "parts.h"

static tilemm_type real_of (tilemm_type type)
{
  return type == TILEMM_COMPLEX_SINGLE ? TILEMM_SINGLE
         : type == TILEMM_COMPLEX_DOUBLE ? TILEMM_DOUBLE : type;
}
static tilemm_type complex_of (tilemm_type type)
{
  return type == TILEMM_SINGLE ? TILEMM_COMPLEX_SINGLE
         : type == TILEMM_DOUBLE ? TILEMM_COMPLEX_DOUBLE : type;
}

/* ---------------------------------------------------------------- native pages as one batch */

/* The batch on the plan's GPUs: its queue of chunks (the batched kernels) or, for pages that
 * run alone spread over the devices, of pages (each a plain product under the page's plan),
 * drained by a worker a device, in one turn on the GPU's table. */
static tilemm_status gpu_batch (const tilemm_batch_job *job, const tilemm_batch *batch,
                                const tilemm_options *options, tilemm_error *err)
{
  const tilemm_batch_plan *plan = &batch->plan;
  if (job->shape->z_pages == 0 || job->m == 0 || job->n == 0)
    return tilemm_error_set (err, TILEMM_OK, NULL);
  const tilemm_backend_ops *gpu = tilemm_backend_find (TILEMM_BACKEND_CUDA);
  if (!gpu || !gpu->batch)
    return tilemm_exec_no_backend (TILEMM_BACKEND_CUDA, err);
  /* The turn's plan: a batch has no call plan of its own (its pages' plan is the batch plan's);
   * the table reads only the call's fault hook and the staging from it. */
  tilemm_call_plan turn;
  memset (&turn, 0, sizeof turn);
  turn.fault = plan->fault;
  turn.staging = plan->staging;
  tilemm_job j;
  memset (&j, 0, sizeof j);
  j.ops = gpu;
  tilemm_status status = gpu->begin (&turn, &j.state, err);
  if (status != TILEMM_OK)
    return status;
  j.kind = plan->per_page ? TILEMM_JOB_PAGES : TILEMM_JOB_BATCH;
  j.op_a = job->op_a;
  j.op_b = job->op_b;
  j.batch = job;
  j.workers = &plan->workers;
  j.teams = plan->teams;
  j.pages_per_item = plan->per_page ? 1 : (plan->pages_per_chunk > 0 ? plan->pages_per_chunk : 1);
  j.items = (job->shape->z_pages + j.pages_per_item - 1) / j.pages_per_item;
  j.page_plan = &batch->decision.plan.native;
  status = tilemm_job_run (&j, &options->stop, NULL, err);
  gpu->end (j.state, status);
  return status;
}

/* Native pages as one batch through the backend's table: the GPU's chunks of pages on its
 * workers (gpu_batch), the CPU's pages in the plan's groups between two polls of the host's stop
 * (cpu/batch_cpu.c). */
static tilemm_status native_batch (const tilemm_batch_job *job, const tilemm_batch *batch,
                                   const tilemm_options *options, tilemm_error *err)
{
  if (batch->plan.backend == TILEMM_BACKEND_CUDA)
    return gpu_batch (job, batch, options, err);
  const tilemm_backend_ops *cpu = tilemm_backend_find (TILEMM_BACKEND_CPU);
  if (!cpu || !cpu->batch)
    return tilemm_exec_no_backend (TILEMM_BACKEND_CPU, err);
  return cpu->batch (NULL, 0, job, 0, job->shape->z_pages, &options->stop, err);
}

/* ---------------------------------------------------------------- real and complex pages */


/* Each page of a split batch's complex operand apart, or of its product back together (parts.h),
 * over the host pool as the batch plan cut them (tilemm_batch_parts): a page an index, or page
 * after page, each over the plan's team. */
typedef struct {
  int single, join, stacked;
  double sign;
  const void *from;
  void *to;
  size_t from_page, to_page;   /* bytes */
  int64_t rows, cols;          /* the complex matrix of a page */
} page_parts;

static void page_parts_at (void *arg, int64_t page, int member)
{
  (void) member;
  const page_parts *j = (const page_parts *) arg;
  const unsigned char *from = (const unsigned char *) j->from + (size_t) page * j->from_page;
  unsigned char *to = (unsigned char *) j->to + (size_t) page * j->to_page;
  if (j->join)
    tilemm_join_parts_on (1, j->single, from, j->rows, j->cols, j->stacked, to);
  else
    tilemm_split_parts_on (1, j->single, from, j->rows, j->cols, j->stacked, j->sign, to);
}

static void page_parts_run (page_parts *j, int64_t pages, const tilemm_batch_parts *cut)
{
  if (cut->over_pages)
    {
      tilemm_host_pool_run (cut->team, pages, page_parts_at, j);
      return;
    }
  for (int64_t p = 0; p < pages; p++)
    {
      const unsigned char *from = (const unsigned char *) j->from + (size_t) p * j->from_page;
      unsigned char *to = (unsigned char *) j->to + (size_t) p * j->to_page;
      if (j->join)
        tilemm_join_parts_on (cut->page_team, j->single, from, j->rows, j->cols, j->stacked, to);
      else
        tilemm_split_parts_on (cut->page_team, j->single, from, j->rows, j->cols, j->stacked,
                               j->sign, to);
    }
}

/* A real and a complex operand where `*` takes two real products (route.b_split, a_split): the
 * complex operand's pages copied apart into real pages of twice the width (once for the
 * batch), one real batch of twice the width, its pages joined into Z.  Real X · complex Y:
 * op(Y) → [re  ±im] (k×2n); complex op(X) (transposed) · real Y: X → [re  ±im] stored k×2m,
 * read transposed as [re; ±im] (2m×k), each page's product stacked (2m×n). */
static tilemm_status split_batch (const tilemm_batch *batch, const tilemm_options *options,
                                  const void *x, const void *y, void *z, tilemm_error *err)
{
  const tilemm_route *r = &batch->decision.route;
  const tilemm_batch_shape *s = &batch->shape;
  const tilemm_type type = r->compute_type;   /* real */
  const size_t es = tilemm_type_size (type);
  const int single = type == TILEMM_SINGLE;
  const int split_y = r->b_split;
  const tilemm_op op = split_y ? batch->decision.op_b : batch->decision.op_a;
  const int negate = op == TILEMM_OP_CTRANSPOSE;
  const int64_t rows = split_y ? s->y_rows : s->x_rows, cols = split_y ? s->y_cols : s->x_cols;
  const int64_t stored_pages = split_y ? s->y_pages : s->x_pages;
  const size_t part_page = 2 * (size_t) rows * (size_t) cols;   /* reals */
  const size_t product_page = 2 * (size_t) r->m * (size_t) r->n;
  unsigned char *parts = malloc (part_page * (size_t) stored_pages * es + 1);
  unsigned char *product = malloc (product_page * (size_t) s->z_pages * es + 1);
  if (!parts || !product)
    {
      free (parts);
      free (product);
      return tilemm_error_set (err, TILEMM_ENOMEM, "%s", tilemm_strerror (TILEMM_ENOMEM));
    }
  /* Y untransposed: side by side; Y transposed: stacked (its transpose is side by side); X:
   * side by side, read transposed as stacked. */
  const int stacked_in = split_y && op != TILEMM_OP_NONE;
  const void *from = split_y ? y : x;
  page_parts split = { single, 0, stacked_in, negate ? -1.0 : 1.0, from, parts,
                       part_page * es, part_page * es, rows, cols };
  page_parts_run (&split, stored_pages, &batch->plan.split_parts);
  tilemm_batch_job job;
  job.type = type;
  job.shape = s;
  job.fault = batch->plan.fault;
  job.plan = &batch->plan;
  job.k = r->k;
  job.z = product;
  if (split_y)
    {
      job.op_a = batch->decision.op_a;
      job.op_b = op == TILEMM_OP_NONE ? TILEMM_OP_NONE : TILEMM_OP_TRANSPOSE;
      job.m = r->m, job.n = 2 * r->n;
      job.x = x, job.x_page = s->x_rows * s->x_cols;
      job.y = parts, job.y_page = (int64_t) part_page;
    }
  else
    {
      job.op_a = TILEMM_OP_TRANSPOSE;
      job.op_b = batch->decision.op_b;
      job.m = 2 * r->m, job.n = r->n;
      job.x = parts, job.x_page = (int64_t) part_page;
      job.y = y, job.y_page = s->y_rows * s->y_cols;
    }
  job.z_page = (int64_t) product_page;
  const tilemm_status status = native_batch (&job, batch, options, err);
  if (status == TILEMM_OK)
    {
      page_parts join = { single, 1, !split_y, 1.0, product, z, product_page * es,
                          product_page * es, r->m, r->n };
      page_parts_run (&join, s->z_pages, &batch->plan.join_parts);
    }
  free (parts);
  free (product);
  return status;
}

/* ---------------------------------------------------------------- the batch */

/* X'·X and the like of one array (route.mirror): each page's upper triangle mirrored onto its
 * lower one (conjugated, with a real diagonal, when Hermitian), as `*` leaves one such product. */
typedef struct {
  tilemm_type type;
  void *z;
  int64_t n;
  int hermitian;
} mirror_job;

static void mirror_page (void *arg, int64_t p, int member)
{
  (void) member;
  const mirror_job *m = (const mirror_job *) arg;
  const tilemm_type type = m->type;
  const int64_t n = m->n;
  const int hermitian = m->hermitian;
  const size_t es = tilemm_type_size (type);
  const int complex_type = tilemm_type_is_complex (type), single = type == TILEMM_COMPLEX_SINGLE;
  unsigned char *d = (unsigned char *) m->z + (size_t) p * (size_t) n * (size_t) n * es;
  for (int64_t j = 0; j < n; j++)
    {
      for (int64_t i = j + 1; i < n; i++)
        {
          unsigned char *low = d + ((size_t) i + (size_t) j * (size_t) n) * es;
          memcpy (low, d + ((size_t) j + (size_t) i * (size_t) n) * es, es);
          if (hermitian && complex_type)
            {
              if (single)
                ((float *) low)[1] = -((float *) low)[1];
              else
                ((double *) low)[1] = -((double *) low)[1];
            }
        }
      if (hermitian && complex_type)
        {
          unsigned char *diag = d + ((size_t) j + (size_t) j * (size_t) n) * es;
          if (single)
            ((float *) diag)[1] = 0.0f;
          else
            ((double *) diag)[1] = 0.0;
        }
    }
}

/* On the plan's team (mirror_team). */
static void mirror_pages (tilemm_type type, void *z, int64_t n, int64_t pages, int hermitian,
                          int team)
{
  const mirror_job m = { type, z, n, hermitian };
  tilemm_host_pool_run (team, pages, mirror_page, (void *) &m);
}

/* Pages one by one (emulated pages, and pages that run alone), each as tilemm (X page, op_a,
 * Y page, op_b) computes it: tilemm_run with the page's call plan, which the decision holds
 * (its splits, pairs and mirror included). */
static tilemm_status pages_alone (const tilemm_batch *batch, const tilemm_options *options,
                                  const void *x, const void *y, void *z, size_t x_bytes,
                                  size_t y_bytes, size_t z_bytes, tilemm_error *err)
{
  const tilemm_decision *d = &batch->decision;
  for (int64_t p = 0; p < batch->shape.z_pages; p++)
    {
      if (p > 0 && tilemm_stop_requested (&options->stop))
        return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted at page %lld of %lld",
                                 (long long) p + 1, (long long) batch->shape.z_pages);
      int64_t xp, yp;
      tilemm_batch_sources (&batch->shape, p, &xp, &yp);
      const tilemm_status status
        = tilemm_run (d, options, (const unsigned char *) x + (size_t) xp * x_bytes,
                      (const unsigned char *) y + (size_t) yp * y_bytes,
                      (unsigned char *) z + (size_t) p * z_bytes, err);
      if (status != TILEMM_OK)
        return status;
    }
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

tilemm_status tilemm_batch_run (const tilemm_batch *batch, const tilemm_options *options,
                                const void *x, const void *y, void *z, tilemm_error *err)
{
  const tilemm_route *r = &batch->decision.route;
  const tilemm_batch_shape *s = &batch->shape;
  if (r->action != TILEMM_ROUTE_COMPUTE)
    return tilemm_error_set (err, TILEMM_EINVAL, "batch: a route that computes expected");
  if (s->z_pages == 0)
    return tilemm_error_set (err, TILEMM_OK, NULL);
  const tilemm_type type = r->compute_type;
  const int complex_kernel = tilemm_type_is_complex (type);
  /* The element types of the operands as held: complex where the route reads them so. */
  const tilemm_type x_type = complex_kernel || r->a_as_pairs || r->a_split ? complex_of (type) : type;
  const tilemm_type y_type = complex_kernel || r->b_split ? complex_of (type) : type;
  const tilemm_type z_type = r->result_complex ? complex_of (type) : type;
  const size_t x_bytes = (size_t) s->x_rows * (size_t) s->x_cols * tilemm_type_size (x_type);
  const size_t y_bytes = (size_t) s->y_rows * (size_t) s->y_cols * tilemm_type_size (y_type);
  const size_t z_bytes = (size_t) r->m * (size_t) r->n * tilemm_type_size (z_type);
  /* (Pages that run alone spread over several GPUs take the batch's path below: their splits
   * and mirror once for the batch, each page a plain product on one device.) */
  if (batch->plan.per_page && !batch->plan.pages_over_devices)
    return pages_alone (batch, options, x, y, z, x_bytes, y_bytes, z_bytes, err);

  tilemm_status status;
  if (r->b_split || r->a_split)
    status = split_batch (batch, options, x, y, z, err);
  else
    {
      /* Complex X times real Y: X's (re, im) pairs read as a real (2m)×k page, Z's as (2m)×n. */
      const int pairs = r->a_as_pairs;
      tilemm_batch_job job;
      job.type = type;
      job.op_a = batch->decision.op_a;
      job.op_b = batch->decision.op_b;
      job.m = pairs ? 2 * r->m : r->m;
      job.n = r->n;
      job.k = r->k;
      job.x = x, job.y = y, job.z = z;
      job.x_page = (int64_t) (x_bytes / tilemm_type_size (type));
      job.y_page = (int64_t) (y_bytes / tilemm_type_size (type));
      job.z_page = (int64_t) (z_bytes / tilemm_type_size (type));
      job.shape = s;
      job.fault = batch->plan.fault;
      job.plan = &batch->plan;
      status = native_batch (&job, batch, options, err);
    }
  if (status == TILEMM_OK && r->mirror != TILEMM_MIRROR_NONE)
    mirror_pages (r->result_complex ? complex_of (type) : real_of (type), z, r->m, s->z_pages,
                  r->mirror == TILEMM_MIRROR_HERMITIAN, batch->plan.mirror_team);
  return status;
}
