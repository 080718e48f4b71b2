/* batch_cpu.c — a batch of pages (pagemtimes, batch.h) on the CPU: the CPU table's `batch`, as
 * cuda/batch_product.cu is the GPU's.  The batch plan says how (tilemm_batch_plan: its threads,
 * pages spread over them or one after another each spread over them, the tiled backend's plan of
 * one page, small real pages computed directly, the pages between two polls of the host's stop).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "batch.h"
#include "host_pool.h"

/* One page of a job on the CPU: views of its pages (a transposed page as stored), the tiled
 * backend on `plan`. */
static tilemm_status cpu_page (const tilemm_batch_job *job, const tilemm_plan *plan, int64_t page,
                               tilemm_error *err)
{
  const size_t es = tilemm_type_size (job->type);
  int64_t xp, yp;
  tilemm_batch_sources (job->shape, page, &xp, &yp);
  const int ta = job->op_a != TILEMM_OP_NONE, tb = job->op_b != TILEMM_OP_NONE;
  tilemm_view a = { ta ? job->k : job->m, ta ? job->m : job->k, 0, job->type,
                    (unsigned char *) job->x + (size_t) xp * (size_t) job->x_page * es };
  tilemm_view b = { tb ? job->n : job->k, tb ? job->k : job->n, 0, job->type,
                    (unsigned char *) job->y + (size_t) yp * (size_t) job->y_page * es };
  tilemm_view c = { job->m, job->n, job->m, job->type,
                    (unsigned char *) job->z + (size_t) page * (size_t) job->z_page * es };
  a.stride = a.rows > 0 ? a.rows : 1;
  b.stride = b.rows > 0 ? b.rows : 1;
  return tilemm_cpu_multiply_op (plan, job->op_a, &a, job->op_b, &b, &c, NULL, err);
}

/* Small real pages (TILEMM_BATCH_SMALL_PAGE_WORK multiply-adds or fewer) directly, without the
 * tiled backend's entry, whose fixed cost (its panel, its tile buffers, a parallel region of one
 * thread) is many times such a page's work.  The same sums as the backend's: each element from
 * zero, one multiply-add per k in increasing k, in the element's type (no fused multiply-add:
 * the core is compiled as ISO C, without contraction).  Where X's columns are contiguous, a
 * column of Z is summed SMALL_ROWS rows at a time, k outermost: each element's sum is still its
 * own, in the same order, but the rows' sums are independent, so they run side by side in vector
 * lanes instead of as one chain of dependent additions per element; the rows left over (and a
 * transposed X) one element at a time. */
enum { SMALL_ROWS = 16 };
#define SMALL_PAGES(NAME, REAL)                                                               \
  static void NAME (const tilemm_batch_job *job, int64_t first, int64_t last)                \
  {                                                                                           \
    const int64_t m = job->m, n = job->n, k = job->k;                                         \
    /* op(X)(i, l) at i·xi + l·xl of a page; op(Y)(l, j) at l·yl + j·yj */                     \
    const int64_t xi = job->op_a == TILEMM_OP_NONE ? 1 : k;                                   \
    const int64_t xl = job->op_a == TILEMM_OP_NONE ? m : 1;                                   \
    const int64_t yl = job->op_b == TILEMM_OP_NONE ? 1 : n;                                   \
    const int64_t yj = job->op_b == TILEMM_OP_NONE ? k : 1;                                   \
    for (int64_t p = first; p < last; p++)                                                    \
      {                                                                                       \
        int64_t xp, yp;                                                                       \
        tilemm_batch_sources (job->shape, p, &xp, &yp);                                       \
        const REAL *x = (const REAL *) job->x + xp * job->x_page;                             \
        const REAL *y = (const REAL *) job->y + yp * job->y_page;                             \
        REAL *z = (REAL *) job->z + p * job->z_page;                                          \
        for (int64_t j = 0; j < n; j++)                                                       \
          {                                                                                   \
            int64_t i = 0;                                                                    \
            for (; xi == 1 && i + SMALL_ROWS <= m; i += SMALL_ROWS)                           \
              {                                                                               \
                REAL acc[SMALL_ROWS];                                                         \
                for (int r = 0; r < SMALL_ROWS; r++)                                          \
                  acc[r] = 0;                                                                 \
                for (int64_t l = 0; l < k; l++)                                               \
                  {                                                                           \
                    const REAL b = y[l * yl + j * yj];                                        \
                    const REAL *a = x + i + l * xl;                                           \
                    for (int r = 0; r < SMALL_ROWS; r++)                                      \
                      acc[r] += a[r] * b;                                                     \
                  }                                                                           \
                for (int r = 0; r < SMALL_ROWS; r++)                                          \
                  z[i + r + j * m] = acc[r];                                                  \
              }                                                                               \
            for (; i < m; i++)                                                                \
              {                                                                               \
                REAL acc = 0;                                                                 \
                for (int64_t l = 0; l < k; l++)                                               \
                  acc += x[i * xi + l * xl] * y[l * yl + j * yj];                             \
                z[i + j * m] = acc;                                                           \
              }                                                                               \
          }                                                                                   \
      }                                                                                       \
  }
SMALL_PAGES (small_pages_s, float)
SMALL_PAGES (small_pages_d, double)

/* Pages [first, last) of a job spread over the host pool, the plan's pages_per_index a claim:
 * small real pages directly, others through the tiled backend on one thread each (the page
 * plan's threads are 1); the first failure kept. */
typedef struct {
  const tilemm_batch_job *job;
  const tilemm_plan *plan;
  int64_t first;            /* the group's first page: a range's pages are counted from it */
  atomic_int failed;        /* 0, then 1 once the first failure below is written */
  tilemm_status status;
  tilemm_error error;
} pages_job;

static void pages_range (void *ctx, int64_t from, int64_t to)
{
  pages_job *j = (pages_job *) ctx;
  const int64_t b = j->first + from, end = j->first + to;
  if (j->job->plan->direct_pages)
    {
      if (j->job->type == TILEMM_SINGLE)
        small_pages_s (j->job, b, end);
      else
        small_pages_d (j->job, b, end);
      return;
    }
  for (int64_t p = b; p < end; p++)
    {
      tilemm_error page_err = { TILEMM_OK, "" };
      const tilemm_status s = cpu_page (j->job, j->plan, p, &page_err);
      int none = 0;
      if (s != TILEMM_OK && atomic_compare_exchange_strong (&j->failed, &none, 1))
        {
          /* (Read by the caller once the pool's job has returned: the job's end orders it.) */
          j->status = s;
          j->error = page_err;
        }
    }
}

tilemm_status tilemm_cpu_multiply_batch (void *state, int worker, const tilemm_batch_job *job,
                                         int64_t first_page, int64_t count, const tilemm_stop *stop,
                                         tilemm_error *err)
{
  (void) state;
  (void) worker;
  if (!job || !job->shape || !job->plan)
    return tilemm_error_set (err, TILEMM_EINVAL, "tilemm_cpu_multiply_batch: null argument");
  const tilemm_batch_plan *bplan = job->plan;
  const int64_t pages = first_page + count;
  const int64_t pages_per_group = bplan->pages_per_poll;
  const tilemm_plan *plan = &bplan->page;   /* the batch plan's, for one page of the job */
  if (plan->type != job->type || plan->m != job->m || plan->n != job->n || plan->k != job->k)
    return tilemm_error_set (err, TILEMM_EINVAL, "batch: the plan's page is not the job's");
  tilemm_status status;
  const int threads = bplan->threads > 0 ? bplan->threads : 1;
  if (!bplan->parallel_pages)
    {
      /* A few pages, each large enough to spread over the threads itself (plan->threads). */
      for (int64_t p = first_page; p < pages; p++)
        {
          if (p > first_page && tilemm_stop_requested (stop))
            return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted at page %lld of %lld",
                                     (long long) p + 1, (long long) pages);
          if ((status = cpu_page (job, plan, p, err)) != TILEMM_OK)
            return status;
        }
      return tilemm_error_set (err, TILEMM_OK, NULL);
    }
  /* Many pages: each on one thread (the backend's own tile loop runs on that thread alone:
   * plan->threads is 1). */
  const int64_t group = pages_per_group > 0 ? pages_per_group : pages;
  for (int64_t first = first_page; first < pages; first += group)
    {
      if (first > first_page && tilemm_stop_requested (stop))
        return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted at page %lld of %lld",
                                 (long long) first + 1, (long long) pages);
      pages_job j;
      j.job = job;
      j.plan = plan;
      j.first = first;
      const int64_t last = pages - first < group ? pages : first + group;
      atomic_init (&j.failed, 0);
      j.status = TILEMM_OK;
      j.error.status = TILEMM_OK;
      j.error.detail[0] = '\0';
      tilemm_host_pool_run_ranges (threads, last - first, bplan->pages_per_index, pages_range, &j);
      if (atomic_load (&j.failed))
        {
          if (err)
            *err = j.error;
          return j.status;
        }
    }
  return tilemm_error_set (err, TILEMM_OK, NULL);
}
