/* test_multi.c — one product spread over several devices (multi.h), tested on simulated devices:
 * the crossover and the queue's panels, bitwise equality with one device for every type, the
 * queue's balance, a failure on one device stopping all and freeing all, the host's stop
 * (Ctrl-C) polled on the calling thread only and stopping all, the options, and the fault hook
 * counted from every worker's thread at once.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Equality is bitwise (memcmp of every column), not within a tolerance: each panel sums every
 * element in the same k order as the one-device product, so any difference is a bug.  C's gaps
 * between its rows and its stride hold a sentinel that must survive.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check.h"
#include "front.h"
#include "copy_team.h"
#include "device_model.h"
#include "fault.h"
#include "multi.h"
#include "tilemm.h"

#define SENTINEL_BYTE 0x5A

static uint64_t rng_state = 0x2545F4914F6CDD1Du;

static double rng_uniform (void)
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double) ((rng_state * 0x2545F4914F6CDD1Du) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* A column-major matrix with `gap` spare elements after each column. */
typedef struct {
  tilemm_view v;
  size_t bytes;
} matrix;

static int matrix_make (matrix *x, tilemm_type type, int64_t rows, int64_t cols, int64_t gap,
                        int fill)
{
  const size_t es = tilemm_type_size (type);
  const int64_t stride = (rows > 0 ? rows : 1) + gap;
  x->bytes = (size_t) (stride * (cols > 0 ? cols : 1)) * es;
  void *data = malloc (x->bytes);
  if (!data)
    return 0;
  memset (data, SENTINEL_BYTE, x->bytes);
  tilemm_view_init (&x->v, type, rows, cols, stride, data);
  const int reals = tilemm_type_is_complex (type) ? 2 : 1;
  const int single = type == TILEMM_SINGLE || type == TILEMM_COMPLEX_SINGLE;
  if (fill)
    for (int64_t j = 0; j < cols; j++)
      for (int64_t i = 0; i < rows * reals; i++)
        {
          const double r = rng_uniform ();
          if (single)
            ((float *) data)[j * stride * reals + i] = (float) r;
          else
            ((double *) data)[j * stride * reals + i] = r;
        }
  return 1;
}

static void matrix_free (matrix *x)
{
  free (x->v.data);
  x->v.data = NULL;
}

/* The product on one device (the ordinary CPU path): the reference, bit for bit. */
static int one_device (const tilemm_plan *plan, const matrix *a, const matrix *b, matrix *c)
{
  tilemm_error err;
  return tilemm_multiply (plan, &a->v, &b->v, &c->v, &err) == TILEMM_OK;
}

static int same_bytes (const matrix *x, const matrix *y)
{
  return x->bytes == y->bytes && memcmp (x->v.data, y->v.data, x->bytes) == 0;
}

/* ---------------------------------------------------------------- the split */

static void test_crossover (void)
{
  tilemm_plan plan, queue;
  CHECK_CASE ("crossover: one available worker, or a small product, stays on one device");
  tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, 4096, 4096, 4096, NULL);
  CHECK (tilemm_plan_workers (&queue, &plan, 1, 0, NULL) == 1, "one worker");
  CHECK (memcmp (&queue, &plan, sizeof plan) == 0, "the queue is the plan");
  tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, 1000, 1000, 1000, NULL);
  CHECK (tilemm_plan_workers (&queue, &plan, 2, 0, NULL) == 1, "2e9 flops: too little to gain");

  const double min_flops = tilemm_model_min_panel_flops (NULL, TILEMM_DOUBLE);
  CHECK_CASE ("crossover: each worker gets at least %d panels of %.0e flops",
              TILEMM_MULTI_MIN_PANELS, min_flops);
  const int64_t sizes[] = { 2048, 4096, 8192, 16384 };
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (int avail = 2; avail <= 8; avail *= 2)
      {
        const int64_t n = sizes[i];
        tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, n, n, n, NULL);
        const int w = tilemm_plan_workers (&queue, &plan, avail, 0, NULL);
        const double flops = 2.0 * (double) n * (double) n * (double) n;
        const int64_t panels = tilemm_plan_panel_count (&queue);
        CHECK (w >= 1 && w <= avail, "n %lld: %d workers of %d", (long long) n, w, avail);
        if (w > 1)
          {
            CHECK (panels >= (int64_t) w * TILEMM_MULTI_MIN_PANELS, "n %lld: %lld panels for %d",
                   (long long) n, (long long) panels, w);
            CHECK (flops / (double) panels >= 0.5 * min_flops,
                   "n %lld: panels of %.2e flops", (long long) n, flops / (double) panels);
            CHECK (queue.panel_rows % plan.tile_rows == 0 || queue.panel_rows == n,
                   "panel rows %lld in whole tiles", (long long) queue.panel_rows);
            CHECK (queue.panel_cols % plan.tile_cols == 0 || queue.panel_cols == n,
                   "panel cols %lld in whole tiles", (long long) queue.panel_cols);
            CHECK (queue.variant == plan.variant, "the same variant");
          }
        /* Every worker gains: a worker more is used only when it gets its panels. */
        const int most = (int) floor (flops / min_flops / TILEMM_MULTI_MIN_PANELS);
        CHECK (w == (avail < most ? avail : (most < 2 ? 1 : most)), "n %lld, %d available: %d",
               (long long) n, avail, w);
      }
  tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, 16384, 16384, 16384, NULL);
  CHECK (tilemm_plan_workers (&queue, &plan, 2, 0, NULL) == 2, "n = 16384 uses both GPUs");

  CHECK_CASE ("crossover: named devices are all used while each gets a panel of one tile");
  tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 100, 100, 10, NULL);
  CHECK (tilemm_plan_workers (&queue, &plan, 4, 1, NULL) == 4, "2x2 tiles: 4 workers");
  CHECK (tilemm_plan_panel_count (&queue) == 4, "4 panels");
  CHECK (tilemm_plan_workers (&queue, &plan, 16, 1, NULL) == 4, "no more workers than panels");
  tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 10, 10, 10, NULL);
  CHECK (tilemm_plan_workers (&queue, &plan, 4, 1, NULL) == 1, "one tile: one worker");

  CHECK_CASE ("crossover: the split-k variant (sums by the launch's shape) is never split");
  tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, 64, 64, 8192, NULL);
  CHECK (tilemm_plan_workers (&queue, &plan, 4, 1, NULL) == 1, "variant %d stays whole", plan.variant);

  CHECK_CASE ("plan of a panel: the parent's variant and tiles, its own size and limits");
  tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, TILEMM_SINGLE, 8192, 8192, 8192, NULL);
  tilemm_plan sub;
  CHECK (tilemm_plan_for_panel (&sub, &plan, 1000, 3000, NULL) == TILEMM_OK, "made");
  CHECK (sub.variant == plan.variant && sub.tile_rows == plan.tile_rows
         && sub.tile_cols == plan.tile_cols && sub.tile_depth == plan.tile_depth,
         "same kernel");
  CHECK (sub.n == 1000 && sub.m == 3000 && sub.k == 8192, "its size");
  CHECK (tilemm_plan_panel_count (&sub) == 1, "one panel without a limit");
  const tilemm_limits small = { (size_t) 64 << 20, NULL, 0 };
  CHECK (tilemm_plan_for_panel (&sub, &plan, 4000, 4000, &small) == TILEMM_OK, "under a limit");
  CHECK (tilemm_plan_panel_count (&sub) > 1 && tilemm_plan_device_bytes (&sub) <= small.max_device_bytes,
         "%lld panels in %zu bytes", (long long) tilemm_plan_panel_count (&sub),
         tilemm_plan_device_bytes (&sub));
  CHECK (tilemm_plan_for_panel (&sub, &plan, 0, 10, NULL) == TILEMM_EINVAL, "empty panel");
}

/* ---------------------------------------------------------------- copy teams */

/* Host facts of `cpus` ("0-31") and `threads`. */
static tilemm_host_facts host_of (const char *cpus, int threads)
{
  tilemm_host_facts h;
  tilemm_cpu_set_parse (cpus, &h.cpus);
  h.threads = threads;
  h.cpu_isa = TILEMM_CPU_ISA_DEFAULT;
  return h;
}

/* GPU facts of `count` devices, device i near CPUs near[i] (NULL: unknown). */
static tilemm_device_facts gpus_near (int count, const char *const *near)
{
  tilemm_device_facts g;
  memset (&g, 0, sizeof g);
  g.usable = 1;
  g.count = g.total = count;
  for (int i = 0; i < count; i++)
    {
      g.device[i] = i;
      g.numa_node[i] = near && near[i] ? i : -1;
      if (near && near[i])
        tilemm_cpu_set_parse (near[i], &g.local_cpus[i]);
    }
  return g;
}

/* The teams of `w` together: no CPU in two teams, every team inside `within`, no more threads in
 * all than the host's, none larger than its CPUs; *sum gets the threads. */
static int teams_fit (const tilemm_copy_team *t, const tilemm_workers *w,
                      const tilemm_host_facts *h, int *sum)
{
  int ok = 1;
  *sum = 0;
  for (int i = 0; i < w->count; i++)
    {
      *sum += t[i].threads;
      const int cpus = tilemm_cpu_set_count (&t[i].cpus);
      ok = ok && t[i].threads >= 1 && (cpus == 0 || t[i].threads <= cpus);
      tilemm_cpu_set outside;
      tilemm_cpu_set_minus (&t[i].cpus, &h->cpus, &outside);
      ok = ok && tilemm_cpu_set_count (&outside) == 0;
      for (int j = 0; j < i; j++)
        ok = ok && (!tilemm_cpu_set_meet (&t[i].cpus, &t[j].cpus)
                    || tilemm_cpu_set_count (&h->cpus) < w->count);
    }
  return ok && *sum <= (h->threads > w->count ? h->threads : w->count);
}

static void test_copy_teams (void)
{
  tilemm_copy_team t[TILEMM_MAX_WORKERS];
  int sum;
  const tilemm_workers one = { 1, { 0 } }, two = { 2, { 0, 1 } }, three = { 3, { 0, 1, 2 } },
                       same = { 2, { 0, 0 } };

  CHECK_CASE ("copy teams: never every core: one in sixteen CPUs left to the process's others");
  CHECK (tilemm_copy_reserved_cpus (1) == 0 && tilemm_copy_reserved_cpus (2) == 0
           && tilemm_copy_reserved_cpus (4) == 1 && tilemm_copy_reserved_cpus (16) == 1
           && tilemm_copy_reserved_cpus (32) == 2 && tilemm_copy_reserved_cpus (64) == 4,
         "reserved of 1, 2, 4, 16, 32, 64: %d %d %d %d %d %d", tilemm_copy_reserved_cpus (1),
         tilemm_copy_reserved_cpus (2), tilemm_copy_reserved_cpus (4),
         tilemm_copy_reserved_cpus (16), tilemm_copy_reserved_cpus (32),
         tilemm_copy_reserved_cpus (64));
  tilemm_host_facts h = host_of ("0-31", 32);
  tilemm_device_facts g = gpus_near (2, NULL);
  tilemm_cpu_set first30;
  tilemm_cpu_set_parse ("0-29", &first30);
  tilemm_plan_copy_teams (&h, &g, &one, 0, 0, t);
  CHECK (t[0].threads == 30 && tilemm_cpu_set_equal (&t[0].cpus, &first30),
         "32 CPUs, one GPU: %d threads", t[0].threads);
  h = host_of ("0-15", 16);
  tilemm_plan_copy_teams (&h, &g, &one, 0, 0, t);
  CHECK (t[0].threads == 15 && !tilemm_cpu_set_has (&t[0].cpus, 15),
         "16 CPUs, one GPU: %d threads", t[0].threads);
  h = host_of ("0-1", 2);
  tilemm_plan_copy_teams (&h, &g, &one, 0, 0, t);
  CHECK (t[0].threads == 2, "2 CPUs: both (%d): nothing to leave", t[0].threads);
  h = host_of ("0-31", 32);

  CHECK_CASE ("copy teams: two GPUs of one node share the host in halves, disjoint");
  tilemm_plan_copy_teams (&h, &g, &two, 0, 0, t);
  CHECK (teams_fit (t, &two, &h, &sum) && sum == 30, "%d threads in all", sum);
  CHECK (t[0].threads == 15 && t[1].threads == 15 && tilemm_cpu_set_has (&t[0].cpus, 0)
           && tilemm_cpu_set_has (&t[1].cpus, 29) && !tilemm_cpu_set_has (&t[1].cpus, 30),
         "%d and %d threads", t[0].threads, t[1].threads);
  tilemm_plan_copy_teams (&h, &g, &same, 0, 0, t);
  CHECK (teams_fit (t, &same, &h, &sum) && t[0].threads == 15, "two workers on GPU 0: %d, %d",
         t[0].threads, t[1].threads);
  tilemm_plan_copy_teams (&h, &g, &three, 0, 0, t);
  CHECK (teams_fit (t, &three, &h, &sum) && sum <= 32 && t[2].threads == 10,
         "three: %d %d %d", t[0].threads, t[1].threads, t[2].threads);

  CHECK_CASE ("copy teams: a restricted mask (taskset) and OMP_NUM_THREADS are kept");
  h = host_of ("4-11", 8);
  tilemm_plan_copy_teams (&h, &g, &two, 0, 0, t);
  CHECK (teams_fit (t, &two, &h, &sum) && t[0].threads == 3 && t[1].threads == 3
           && tilemm_cpu_set_nth (&t[0].cpus, 0) == 4 && !tilemm_cpu_set_has (&t[1].cpus, 11),
         "%d, %d threads", t[0].threads, t[1].threads);
  h = host_of ("0-31", 6);
  tilemm_plan_copy_teams (&h, &g, &two, 0, 0, t);
  CHECK (teams_fit (t, &two, &h, &sum) && sum == 6, "6 threads asked: %d in all", sum);
  h = host_of ("0-31", 32);
  tilemm_plan_copy_teams (&h, &g, &two, 4, 0, t);
  CHECK (t[0].threads == 4 && t[1].threads == 4, "TILEMM_COPY_THREADS=4: %d, %d", t[0].threads,
         t[1].threads);
  tilemm_plan_copy_teams (&h, &g, &two, 0, 6, t);
  CHECK (t[0].threads == 6 && t[1].threads == 6, "saturating at 6: %d, %d", t[0].threads,
         t[1].threads);
  h = host_of ("3", 1);
  tilemm_plan_copy_teams (&h, &g, &three, 0, 0, t);
  CHECK (teams_fit (t, &three, &h, &sum) && t[0].threads == 1 && t[2].threads == 1
           && tilemm_cpu_set_has (&t[2].cpus, 3),
         "one CPU, three workers: %d %d %d", t[0].threads, t[1].threads, t[2].threads);

  CHECK_CASE ("copy teams: with NUMA nodes, each GPU's team on its node");
  static const char *const crossed[] = { "16-31", "0-15" };
  h = host_of ("0-31", 32);
  g = gpus_near (2, crossed);
  tilemm_plan_copy_teams (&h, &g, &two, 0, 0, t);
  tilemm_cpu_set node1, node0, node1_left;
  tilemm_cpu_set_parse ("16-31", &node1);
  /* (The reserved CPUs come off the mask's end: node 1 keeps 16-29.) */
  tilemm_cpu_set_parse ("16-29", &node1_left);
  tilemm_cpu_set_parse ("0-15", &node0);
  CHECK (tilemm_cpu_set_equal (&t[0].cpus, &node1_left) && tilemm_cpu_set_equal (&t[1].cpus, &node0)
           && t[0].threads == 14 && t[1].threads == 15,
         "GPU 0's team not on node 1: %d, %d", t[0].threads, t[1].threads);
  tilemm_plan_copy_teams (&h, &g, &one, 0, 0, t);
  CHECK (tilemm_cpu_set_equal (&t[0].cpus, &node1_left), "one GPU: not on its node");
  static const char *const both_on_1[] = { "16-31", "16-31" };
  g = gpus_near (2, both_on_1);
  tilemm_plan_copy_teams (&h, &g, &two, 0, 0, t);
  CHECK (teams_fit (t, &two, &h, &sum) && t[0].threads == 7 && t[1].threads == 7
           && tilemm_cpu_set_nth (&t[1].cpus, 0) == 23,
         "two GPUs of node 1: %d, %d", t[0].threads, t[1].threads);
  h = host_of ("0-7", 8);   /* the node's CPUs outside the mask: the mask's */
  tilemm_plan_copy_teams (&h, &g, &two, 0, 0, t);
  CHECK (teams_fit (t, &two, &h, &sum) && t[0].threads == 3, "mask outside the node: %d",
         t[0].threads);

  CHECK_CASE ("copy teams: unknown CPUs: unpinned, the host's threads shared");
  h = host_of ("", 16);
  g = gpus_near (2, NULL);
  tilemm_plan_copy_teams (&h, &g, &two, 0, 0, t);
  CHECK (t[0].threads == 7 && t[1].threads == 7 && tilemm_cpu_set_count (&t[0].cpus) == 0,
         "%d, %d", t[0].threads, t[1].threads);

  CHECK_CASE ("host CPUs: lists, sysfs and the process's mask");
  tilemm_cpu_set set;
  char text[64];
  CHECK (tilemm_cpu_set_parse ("0-3,8,10-11\n", &set) && tilemm_cpu_set_count (&set) == 7,
         "parse");
  tilemm_cpu_set_format (&set, text, sizeof text);
  CHECK (strcmp (text, "0-3,8,10-11") == 0, "format: %s", text);
  CHECK (!tilemm_cpu_set_parse ("0-", &set) && !tilemm_cpu_set_parse ("x", &set)
           && !tilemm_cpu_set_parse ("3-1", &set) && tilemm_cpu_set_count (&set) == 0,
         "malformed lists");
  char root[] = "/tmp/tilemm-sysfs-XXXXXX";
  if (mkdtemp (root))
    {
      char path[256];
      snprintf (path, sizeof path, "mkdir -p %s/bus/pci/devices/0000:41:00.0 && "
                "echo 1 > %s/bus/pci/devices/0000:41:00.0/numa_node && "
                "echo 16-31 > %s/bus/pci/devices/0000:41:00.0/local_cpulist", root, root, root);
      CHECK (system (path) == 0, "making a sysfs tree");
      int node = -2;
      CHECK (tilemm_pci_local_cpus (root, "0000:41:00.0", &set, &node) && node == 1
               && tilemm_cpu_set_equal (&set, &node1),
             "sysfs: node %d", node);
      CHECK (tilemm_pci_local_cpus (root, "0000:41:00.0", &set, &node), "upper case as CUDA");
      CHECK (!tilemm_pci_local_cpus (root, "0000:42:00.0", &set, &node) && node == -1
               && tilemm_cpu_set_count (&set) == 0,
             "a device sysfs does not list");
      CHECK (!tilemm_pci_local_cpus (root, "../../etc", &set, &node), "a path, not a bus id");
      snprintf (path, sizeof path, "rm -rf %s", root);
      CHECK (system (path) == 0, "removing the sysfs tree");
    }
  tilemm_host_facts mine;
  tilemm_host_facts_gather (&mine);
  CHECK (mine.threads >= 1
           && (tilemm_cpu_set_count (&mine.cpus) == 0
               || mine.threads <= tilemm_cpu_set_count (&mine.cpus)),
         "this process: %d threads on %d CPUs", mine.threads, tilemm_cpu_set_count (&mine.cpus));
  CHECK (tilemm_pin_thread (&mine.cpus), "pinning to the process's own mask");
}

/* ---------------------------------------------------------------- simulated devices */

static void sim_config (tilemm_sim_config *cfg, int devices)
{
  unsetenv ("TILEMM_SIMULATE_FAIL");
  unsetenv ("TILEMM_SIMULATE_SLOW");
  tilemm_sim_config_init (cfg, devices);
}

static void test_bitwise (void)
{
  static const tilemm_type types[] = { TILEMM_SINGLE, TILEMM_DOUBLE, TILEMM_COMPLEX_SINGLE,
                                       TILEMM_COMPLEX_DOUBLE };
  static const int64_t shapes[][3] = { { 1, 1, 1 },     { 65, 1, 3 },     { 1, 130, 7 },
                                       { 129, 200, 33 }, { 300, 70, 1 },  { 257, 255, 129 },
                                       { 64, 64, 64 },   { 0, 5, 5 },     { 77, 130, 0 } };
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
      {
        const int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        CHECK_CASE ("simulated: %s %lldx%lldx%lld on 1..6 devices is bitwise one device",
                    tilemm_type_name (types[t]), (long long) m, (long long) n, (long long) k);
        matrix a, b, c1, cn;
        if (!matrix_make (&a, types[t], m, k, 3, 1) || !matrix_make (&b, types[t], k, n, 1, 1)
            || !matrix_make (&c1, types[t], m, n, 2, 0) || !matrix_make (&cn, types[t], m, n, 2, 0))
          {
            CHECK (0, "out of memory");
            continue;
          }
        tilemm_plan plan;
        tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, types[t], m, n, k, NULL);
        CHECK (one_device (&plan, &a, &b, &c1), "one device");
        for (int d = 1; d <= 6; d++)
          {
            memset (cn.v.data, SENTINEL_BYTE, cn.bytes);
            tilemm_sim_config cfg;
            sim_config (&cfg, d);
            tilemm_multi_report rep;
            tilemm_error err;
            const tilemm_status st = tilemm_sim_multiply (&plan, &cfg, &a.v, &b.v, &cn.v, &rep, &err);
            CHECK (st == TILEMM_OK, "%d devices: %s", d, err.detail);
            CHECK (same_bytes (&c1, &cn), "%d devices: C (and its gaps) differ", d);
            int64_t total = 0;
            for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
              total += rep.done[w];
            CHECK (total == rep.panels, "%d devices: %lld of %lld panels", d, (long long) total,
                   (long long) rep.panels);
            CHECK (tilemm_sim_bytes_held () == 0, "%zu bytes held", tilemm_sim_bytes_held ());
          }
        matrix_free (&a);
        matrix_free (&b);
        matrix_free (&c1);
        matrix_free (&cn);
      }
}

/* Transposed operands over simulated devices: each device gets its panel's stored rows or
 * columns of A and B and transposes them itself (multi.c); bitwise the one-device product. */
static void test_bitwise_op (void)
{
  const tilemm_type types[] = { TILEMM_DOUBLE, TILEMM_COMPLEX_SINGLE };
  const tilemm_op ops[] = { TILEMM_OP_NONE, TILEMM_OP_TRANSPOSE, TILEMM_OP_CTRANSPOSE };
  const int64_t m = 150, n = 131, k = 77;
  for (int t = 0; t < 2; t++)
    for (int oa = 0; oa < 3; oa++)
      for (int ob = 0; ob < 3; ob++)
        {
          if (oa == 0 && ob == 0)
            continue;
          CHECK_CASE ("simulated: %s op %d·op %d on 3 devices is bitwise one device",
                      tilemm_type_name (types[t]), oa, ob);
          matrix a, b, c1, cn;
          const int ta = ops[oa] != TILEMM_OP_NONE, tb = ops[ob] != TILEMM_OP_NONE;
          if (!matrix_make (&a, types[t], ta ? k : m, ta ? m : k, 3, 1)
              || !matrix_make (&b, types[t], tb ? n : k, tb ? k : n, 1, 1)
              || !matrix_make (&c1, types[t], m, n, 2, 0) || !matrix_make (&cn, types[t], m, n, 2, 0))
            {
              CHECK (0, "out of memory");
              continue;
            }
          tilemm_plan plan;
          tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, types[t], m, n, k, NULL);
          tilemm_error err;
          CHECK (tilemm_multiply_op (&plan, ops[oa], &a.v, ops[ob], &b.v, &c1.v, &err) == TILEMM_OK,
                 "one device: %s", err.detail);
          tilemm_sim_config cfg;
          sim_config (&cfg, 3);
          tilemm_multi_report rep;
          const tilemm_status st
            = tilemm_sim_multiply_op (&plan, &cfg, ops[oa], &a.v, ops[ob], &b.v, &cn.v, &rep, &err);
          CHECK (st == TILEMM_OK, "3 devices: %s", err.detail);
          CHECK (rep.workers == 3 && rep.panels >= 3, "%d workers, %lld panels", rep.workers,
                 (long long) rep.panels);
          CHECK (same_bytes (&c1, &cn), "3 devices: C (and its gaps) differ");
          matrix_free (&a);
          matrix_free (&b);
          matrix_free (&c1);
          matrix_free (&cn);
        }
}

static void test_balance (void)
{
  CHECK_CASE ("queue: a slow device takes fewer panels, the product is still bitwise");
  matrix a, b, c1, cn;
  if (!matrix_make (&a, TILEMM_DOUBLE, 512, 64, 0, 1) || !matrix_make (&b, TILEMM_DOUBLE, 64, 512, 0, 1)
      || !matrix_make (&c1, TILEMM_DOUBLE, 512, 512, 0, 0)
      || !matrix_make (&cn, TILEMM_DOUBLE, 512, 512, 0, 0))
    {
      CHECK (0, "out of memory");
      return;
    }
  tilemm_plan plan;
  tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 512, 512, 64, NULL);
  plan.threads = 1;
  one_device (&plan, &a, &b, &c1);
  tilemm_sim_config cfg;
  sim_config (&cfg, 2);
  cfg.slow_device = 0;
  cfg.slow_ms = 30;
  tilemm_multi_report rep;
  tilemm_error err;
  CHECK (tilemm_sim_multiply (&plan, &cfg, &a.v, &b.v, &cn.v, &rep, &err) == TILEMM_OK, "%s",
         err.detail);
  CHECK (same_bytes (&c1, &cn), "bitwise");
  CHECK (rep.workers == 2 && rep.panels >= 8, "%d workers, %lld panels", rep.workers,
         (long long) rep.panels);
  CHECK (rep.done[0] < rep.done[1], "slow device %lld panels, fast one %lld",
         (long long) rep.done[0], (long long) rep.done[1]);
  CHECK (rep.done[0] + rep.done[1] == rep.panels, "all panels done");
  matrix_free (&a);
  matrix_free (&b);
  matrix_free (&c1);
  matrix_free (&cn);
}

static void test_failure (void)
{
  matrix a, b, c1, cn;
  if (!matrix_make (&a, TILEMM_SINGLE, 512, 40, 0, 1) || !matrix_make (&b, TILEMM_SINGLE, 40, 512, 0, 1)
      || !matrix_make (&c1, TILEMM_SINGLE, 512, 512, 0, 0)
      || !matrix_make (&cn, TILEMM_SINGLE, 512, 512, 0, 0))
    {
      CHECK (0, "out of memory");
      return;
    }
  tilemm_plan plan;
  tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_SINGLE, 512, 512, 40, NULL);
  plan.threads = 1;
  one_device (&plan, &a, &b, &c1);
  tilemm_multi_report rep;
  tilemm_error err;

  CHECK_CASE ("failure: one device fails, the others stop after their panel, all is freed");
  tilemm_sim_config cfg;
  sim_config (&cfg, 2);
  cfg.fail_device = 1;
  cfg.fail_after = 0;
  cfg.slow_device = 0; /* device 0 is busy with its first panel when device 1 fails */
  cfg.slow_ms = 50;
  tilemm_status st = tilemm_sim_multiply (&plan, &cfg, &a.v, &b.v, &cn.v, &rep, &err);
  CHECK (st == TILEMM_ECUDA && err.status == TILEMM_ECUDA, "status %d", (int) st);
  CHECK (strstr (err.detail, "simulated device 1 (worker 1)") != NULL, "detail \"%s\"", err.detail);
  CHECK (rep.failed_worker == 1, "failed worker %d", rep.failed_worker);
  CHECK (rep.done[1] == 0, "the failing device finished %lld panels", (long long) rep.done[1]);
  CHECK (rep.done[0] <= 2 && rep.done[0] < rep.panels - 1, "the other stopped after %lld of %lld",
         (long long) rep.done[0], (long long) rep.panels);
  CHECK (tilemm_sim_bytes_held () == 0, "%zu bytes held after the failure", tilemm_sim_bytes_held ());

  CHECK_CASE ("failure: a failure after some panels, on any of 4 devices, frees all");
  for (int dev = 0; dev < 4; dev++)
    {
      sim_config (&cfg, 4);
      cfg.fail_device = dev;
      cfg.fail_after = 1;
      cfg.slow_device = dev == 0 ? 1 : 0; /* the failing device is never the slow one */
      cfg.slow_ms = 5;
      st = tilemm_sim_multiply (&plan, &cfg, &a.v, &b.v, &cn.v, &rep, &err);
      /* The failing device may find the queue empty before its second panel: then no failure. */
      if (st != TILEMM_OK)
        {
          CHECK (st == TILEMM_ECUDA, "device %d: status %d", dev, (int) st);
          char want[64];
          snprintf (want, sizeof want, "simulated device %d ", dev);
          CHECK (strstr (err.detail, want) != NULL, "device %d: detail \"%s\"", dev, err.detail);
        }
      else
        CHECK (rep.done[dev] <= 1, "device %d did %lld panels without failing", dev,
               (long long) rep.done[dev]);
      CHECK (tilemm_sim_bytes_held () == 0, "device %d: %zu bytes held", dev,
             tilemm_sim_bytes_held ());
    }

  CHECK_CASE ("failure: the next product after a failure is right (no state survives)");
  memset (cn.v.data, 0, cn.bytes);
  sim_config (&cfg, 3);
  CHECK (tilemm_sim_multiply (&plan, &cfg, &a.v, &b.v, &cn.v, &rep, &err) == TILEMM_OK, "%s",
         err.detail);
  CHECK (same_bytes (&c1, &cn), "bitwise");

  CHECK_CASE ("failure: TILEMM_SIMULATE_FAIL and TILEMM_SIMULATE_SLOW from the environment");
  setenv ("TILEMM_SIMULATE_FAIL", "2:3", 1);
  setenv ("TILEMM_SIMULATE_SLOW", "1:7", 1);
  tilemm_sim_config_init (&cfg, 4);
  CHECK (cfg.fail_device == 2 && cfg.fail_after == 3, "fail %d after %d", cfg.fail_device,
         cfg.fail_after);
  CHECK (cfg.slow_device == 1 && cfg.slow_ms == 7, "slow %d by %d", cfg.slow_device, cfg.slow_ms);
  setenv ("TILEMM_SIMULATE_FAIL", "x", 1);
  setenv ("TILEMM_SIMULATE_SLOW", "1:", 1);
  tilemm_sim_config_init (&cfg, 4);
  CHECK (cfg.fail_device == -1 && cfg.slow_device == -1, "malformed: ignored");
  unsetenv ("TILEMM_SIMULATE_FAIL");
  unsetenv ("TILEMM_SIMULATE_SLOW");

  matrix_free (&a);
  matrix_free (&b);
  matrix_free (&c1);
  matrix_free (&cn);
}

/* ---------------------------------------------------------------- options and the front */

static tilemm_status set_opt (tilemm_options *o, const char *name, tilemm_value v,
                              tilemm_error *err)
{
  return tilemm_options_set (o, name, &v, err);
}

static void test_options (void)
{
  tilemm_options o;
  tilemm_error err;
  const double two[] = { 0, 1 }, twice[] = { 0, 0 }, bad[] = { 0.5 }, neg[] = { -1 };
  double many[TILEMM_MAX_WORKERS + 1] = { 0 };

  CHECK_CASE ("options: \"devices\" takes ordinals as a vector or a string");
  tilemm_options_init (&o);
  CHECK (o.devices.count == 0 && o.simulate_devices == -1, "defaults");
  CHECK (set_opt (&o, "devices", (tilemm_value) { TILEMM_VALUE_REAL_VECTOR, "", 0, two, 2 }, &err)
           == TILEMM_OK && o.devices.count == 2 && o.devices.device[1] == 1, "[0 1]");
  CHECK (set_opt (&o, "Devices", (tilemm_value) { TILEMM_VALUE_REAL_VECTOR, "", 0, twice, 2 }, &err)
           == TILEMM_OK && o.devices.count == 2 && o.devices.device[1] == 0, "[0 0]");
  CHECK (set_opt (&o, "devices", (tilemm_value) { TILEMM_VALUE_REAL_SCALAR, "", 3, NULL, 0 }, &err)
           == TILEMM_OK && o.devices.count == 1 && o.devices.device[0] == 3, "3");
  CHECK (set_opt (&o, "devices", (tilemm_value) { TILEMM_VALUE_STRING, " 2, 0 ,1", 0, NULL, 0 }, &err)
           == TILEMM_OK && o.devices.count == 3 && o.devices.device[0] == 2
           && o.devices.device[2] == 1, "\" 2, 0 ,1\"");
  CHECK (set_opt (&o, "devices", (tilemm_value) { TILEMM_VALUE_REAL_VECTOR, "", 0, NULL, 0 }, &err)
           == TILEMM_OK && o.devices.count == 0, "[]: not named");

  CHECK_CASE ("options: bad \"devices\" and \"simulate_devices\" are TILEMM_EOPTION");
  CHECK (set_opt (&o, "devices", (tilemm_value) { TILEMM_VALUE_REAL_VECTOR, "", 0, bad, 1 }, &err)
           == TILEMM_EOPTION && strstr (err.detail, "devices") != NULL, "0.5");
  CHECK (set_opt (&o, "devices", (tilemm_value) { TILEMM_VALUE_REAL_VECTOR, "", 0, neg, 1 }, &err)
           == TILEMM_EOPTION, "-1");
  CHECK (set_opt (&o, "devices",
                  (tilemm_value) { TILEMM_VALUE_REAL_VECTOR, "", 0, many, TILEMM_MAX_WORKERS + 1 },
                  &err) == TILEMM_EOPTION, "too many");
  CHECK (set_opt (&o, "devices", (tilemm_value) { TILEMM_VALUE_STRING, "0;1", 0, NULL, 0 }, &err)
           == TILEMM_EOPTION, "\"0;1\"");
  CHECK (set_opt (&o, "devices", (tilemm_value) { TILEMM_VALUE_STRING, "gpu", 0, NULL, 0 }, &err)
           == TILEMM_EOPTION, "\"gpu\"");
  CHECK (set_opt (&o, "devices", (tilemm_value) { TILEMM_VALUE_OTHER, "", 0, NULL, 0 }, &err)
           == TILEMM_EOPTION, "other");
  CHECK (set_opt (&o, "simulate_devices", (tilemm_value) { TILEMM_VALUE_REAL_SCALAR, "", 2.5, NULL, 0 },
                  &err) == TILEMM_EOPTION, "2.5");
  CHECK (set_opt (&o, "simulate_devices", (tilemm_value) { TILEMM_VALUE_REAL_SCALAR, "", 17, NULL, 0 },
                  &err) == TILEMM_EOPTION, "17");
  CHECK (set_opt (&o, "simulate_devices", (tilemm_value) { TILEMM_VALUE_REAL_SCALAR, "", 4, NULL, 0 },
                  &err) == TILEMM_OK && o.simulate_devices == 4, "4");
  CHECK (set_opt (&o, "colour", (tilemm_value) { TILEMM_VALUE_STRING, "red", 0, NULL, 0 }, &err)
           == TILEMM_EOPTION && strstr (err.detail, "\"devices\"") != NULL,
         "unknown names the new options: %s", err.detail);
}

/* tilemm_run as the front ends call it: cpu backend, simulated devices by option and by env. */
static void test_front (void)
{
  const int64_t m = 200, n = 150, k = 70;
  matrix a, b, c1, cn;
  if (!matrix_make (&a, TILEMM_DOUBLE, m, k, 0, 1) || !matrix_make (&b, TILEMM_DOUBLE, k, n, 0, 1)
      || !matrix_make (&c1, TILEMM_DOUBLE, m, n, 0, 0) || !matrix_make (&cn, TILEMM_DOUBLE, m, n, 0, 0))
    {
      CHECK (0, "out of memory");
      return;
    }
  tilemm_operand oa = { TILEMM_CLASS_DOUBLE, 0, 0, 2, m, k, 0, NULL, 0 },
                 ob = { TILEMM_CLASS_DOUBLE, 0, 0, 2, k, n, 0, NULL, 0 };
  tilemm_options o;
  tilemm_options_init (&o);
  o.backend = TILEMM_CHOOSE_CPU;
  tilemm_decision d;
  tilemm_error err;
  unsetenv ("TILEMM_SIMULATE_DEVICES");
  unsetenv ("TILEMM_SIMULATE_FAIL");
  unsetenv ("TILEMM_SIMULATE_SLOW");

  /* Every call decides (and plans) anew: the options and the environment are read into its
   * plan then, and the run follows that plan. */
  CHECK_CASE ("front: \"simulate_devices\" and TILEMM_SIMULATE_DEVICES are bitwise one device");
  CHECK (tilemm_decide (&oa, &ob, &o, &d, &err) == TILEMM_OK && d.action == TILEMM_DO_COMPUTE
           && d.backend == TILEMM_BACKEND_CPU && d.plan.simulated == 0, "decision");
  CHECK (tilemm_run (&d, &o, a.v.data, b.v.data, c1.v.data, &err) == TILEMM_OK, "one: %s", err.detail);
  o.simulate_devices = 3;
  CHECK (tilemm_decide (&oa, &ob, &o, &d, &err) == TILEMM_OK && d.plan.simulated == 3
           && d.plan.workers.count == 3, "three: %d devices, %d workers", d.plan.simulated,
         d.plan.workers.count);
  CHECK (tilemm_run (&d, &o, a.v.data, b.v.data, cn.v.data, &err) == TILEMM_OK, "three: %s",
         err.detail);
  CHECK (same_bytes (&c1, &cn), "option: bitwise");
  o.simulate_devices = -1;
  memset (cn.v.data, 0, cn.bytes);
  setenv ("TILEMM_SIMULATE_DEVICES", "4", 1);
  CHECK (tilemm_decide (&oa, &ob, &o, &d, &err) == TILEMM_OK && d.plan.simulated == 4, "env");
  CHECK (tilemm_run (&d, &o, a.v.data, b.v.data, cn.v.data, &err) == TILEMM_OK, "env: %s", err.detail);
  CHECK (same_bytes (&c1, &cn), "env: bitwise");

  CHECK_CASE ("front: a simulated failure is an error naming the device; nothing is held");
  setenv ("TILEMM_SIMULATE_FAIL", "0", 1);
  CHECK (tilemm_decide (&oa, &ob, &o, &d, &err) == TILEMM_OK && d.plan.sim_faults.fail_device == 0,
         "the plan holds the fault");
  CHECK (tilemm_run (&d, &o, a.v.data, b.v.data, cn.v.data, &err) == TILEMM_ECUDA, "status %d",
         (int) err.status);
  CHECK (strstr (err.detail, "simulated device 0") != NULL, "detail \"%s\"", err.detail);
  CHECK (tilemm_sim_bytes_held () == 0, "held %zu", tilemm_sim_bytes_held ());
  unsetenv ("TILEMM_SIMULATE_FAIL");
  o.simulate_devices = 0; /* the option wins over the environment */
  CHECK (tilemm_decide (&oa, &ob, &o, &d, &err) == TILEMM_OK && d.plan.simulated == 0, "option 0");
  CHECK (tilemm_run (&d, &o, a.v.data, b.v.data, cn.v.data, &err) == TILEMM_OK, "option 0: %s",
         err.detail);
  CHECK (same_bytes (&c1, &cn), "option 0: bitwise");
  unsetenv ("TILEMM_SIMULATE_DEVICES");

  if (!tilemm_cuda_built ())
    {
      CHECK_CASE ("front: without CUDA, no GPU is usable and none is listed");
      tilemm_workers w;
      CHECK (tilemm_cuda_usable_devices (&w) == 0 && w.count == 0, "count %d", w.count);
    }
  matrix_free (&a);
  matrix_free (&b);
  matrix_free (&c1);
  matrix_free (&cn);
}

/* ---------------------------------------------------------------- the host's stop */

/* A host's stop callback: answers "stop" from its `at`-th poll on (never when at is 0), and
 * counts polls made off the thread that started the product (the host's state is that
 * thread's: a worker must never call it). */
typedef struct {
  pthread_t caller;
  int polls, at, off_thread;
} host_stop;

static int host_should_stop (void *p)
{
  host_stop *h = (host_stop *) p;
  if (!pthread_equal (pthread_self (), h->caller))
    h->off_thread++;
  h->polls++;
  return h->at > 0 && h->polls >= h->at;
}

static void test_stop (void)
{
  matrix a, b, c1, cn;
  const int64_t m = 1536, n = 1536, k = 512;
  if (!matrix_make (&a, TILEMM_DOUBLE, m, k, 0, 1) || !matrix_make (&b, TILEMM_DOUBLE, k, n, 0, 1)
      || !matrix_make (&c1, TILEMM_DOUBLE, m, n, 0, 0)
      || !matrix_make (&cn, TILEMM_DOUBLE, m, n, 0, 0))
    {
      CHECK (0, "out of memory");
      return;
    }
  tilemm_plan plan;
  tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, m, n, k, NULL);
  one_device (&plan, &a, &b, &c1);
  tilemm_sim_config cfg;
  tilemm_multi_report rep;
  tilemm_error err;

  CHECK_CASE ("stop: the host's stop ends a product on 3 simulated devices, all is freed");
  host_stop h = { pthread_self (), 0, 1, 0 };
  sim_config (&cfg, 3);
  cfg.stop.should_stop = host_should_stop;
  cfg.stop.arg = &h;
  tilemm_status st = tilemm_sim_multiply (&plan, &cfg, &a.v, &b.v, &cn.v, &rep, &err);
  int64_t done = 0;
  for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
    done += rep.done[w];
  CHECK (st == TILEMM_EINTERRUPTED && err.status == TILEMM_EINTERRUPTED, "status %d (%s)",
         (int) st, err.detail);
  CHECK (rep.workers == 3 && done < rep.panels, "%lld of %lld panels done by %d workers",
         (long long) done, (long long) rep.panels, rep.workers);
  CHECK (h.polls >= 1 && h.off_thread == 0, "%d polls, %d off the calling thread", h.polls,
         h.off_thread);
  CHECK (tilemm_sim_bytes_held () == 0, "%zu bytes held after the stop", tilemm_sim_bytes_held ());

  CHECK_CASE ("stop: polled on the calling thread only; a stop never asked for changes nothing");
  host_stop never = { pthread_self (), 0, 0, 0 };
  sim_config (&cfg, 3);
  cfg.stop.should_stop = host_should_stop;
  cfg.stop.arg = &never;
  memset (cn.v.data, 0, cn.bytes);
  st = tilemm_sim_multiply (&plan, &cfg, &a.v, &b.v, &cn.v, &rep, &err);
  CHECK (st == TILEMM_OK, "%s", err.detail);
  CHECK (same_bytes (&c1, &cn), "bitwise after an earlier stop");
  CHECK (never.polls >= 1 && never.off_thread == 0, "%d polls, %d off the calling thread",
         never.polls, never.off_thread);

  CHECK_CASE ("stop: through the front end's options (\"simulate_devices\" with a stop)");
  tilemm_options o;
  tilemm_options_init (&o);
  const tilemm_value cpu = { TILEMM_VALUE_STRING, "cpu", 0, NULL, 0 };
  const tilemm_value three = { TILEMM_VALUE_REAL_SCALAR, NULL, 3, NULL, 0 };
  CHECK (tilemm_options_set (&o, "backend", &cpu, &err) == TILEMM_OK, "%s", err.detail);
  CHECK (tilemm_options_set (&o, "simulate_devices", &three, &err) == TILEMM_OK, "%s", err.detail);
  host_stop f = { pthread_self (), 0, 1, 0 };
  o.stop.should_stop = host_should_stop;
  o.stop.arg = &f;
  const tilemm_operand da = { TILEMM_CLASS_DOUBLE, 0, 0, 2, m, k, 0, NULL, 0 };
  const tilemm_operand db = { TILEMM_CLASS_DOUBLE, 0, 0, 2, k, n, 0, NULL, 0 };
  tilemm_decision d;
  CHECK (tilemm_decide (&da, &db, &o, &d, &err) == TILEMM_OK, "%s", err.detail);
  st = tilemm_run (&d, &o, a.v.data, b.v.data, cn.v.data, &err);
  CHECK (st == TILEMM_EINTERRUPTED, "status %d (%s)", (int) st, err.detail);
  CHECK (f.polls >= 1 && f.off_thread == 0, "%d polls, %d off the calling thread", f.polls,
         f.off_thread);
  CHECK (tilemm_sim_bytes_held () == 0, "%zu bytes held", tilemm_sim_bytes_held ());

  matrix_free (&a);
  matrix_free (&b);
  matrix_free (&c1);
  matrix_free (&cn);
}

/* ---------------------------------------------------------------- the fault hook's counts */

enum { FAULT_THREADS = 4, FAULT_HITS = 10000000 };

static pthread_barrier_t fault_start;   /* the threads count at once, not one after another */

static void *count_faults (void *hits)
{
  pthread_barrier_wait (&fault_start);
  for (int i = 0; i < FAULT_HITS; i++)
    if (tilemm_fault_hit (TILEMM_FAULT_MEMCPY))
      (*(int *) hits)++;
  return NULL;
}

/* The workers of one product count the hook's operations from their own threads at once (a
 * product's copies run on every worker): no count is lost and exactly one operation, the nth,
 * fails. */
static void test_fault_counts (void)
{
  CHECK_CASE ("fault hook: %d threads counting at once lose no count, one hit", FAULT_THREADS);
  tilemm_fault_spec spec;
  tilemm_fault_spec_parse ("memcpy:30000000", &spec);
  tilemm_fault_begin (&spec);
  pthread_t threads[FAULT_THREADS];
  int hits[FAULT_THREADS] = { 0 };
  pthread_barrier_init (&fault_start, NULL, FAULT_THREADS);
  for (int t = 0; t < FAULT_THREADS; t++)
    pthread_create (&threads[t], NULL, count_faults, &hits[t]);
  int total = 0;
  for (int t = 0; t < FAULT_THREADS; t++)
    {
      pthread_join (threads[t], NULL);
      total += hits[t];
    }
  pthread_barrier_destroy (&fault_start);
  CHECK (tilemm_fault_count (TILEMM_FAULT_MEMCPY) == (long) FAULT_THREADS * FAULT_HITS,
         "%ld operations counted of %ld", tilemm_fault_count (TILEMM_FAULT_MEMCPY),
         (long) FAULT_THREADS * FAULT_HITS);
  CHECK (total == 1, "%d operations failed, not the 30000000th alone", total);
  tilemm_fault_begin (NULL);
}

int main (void)
{
  test_fault_counts ();
  test_crossover ();
  test_copy_teams ();
  test_bitwise ();
  test_bitwise_op ();
  test_balance ();
  test_failure ();
  test_stop ();
  test_options ();
  test_front ();
  return check_summary ("test_multi");
}
