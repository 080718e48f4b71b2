/* test_emulated_panels.c — the emulated precision in panels and over several devices
 * (src/exec/emulated_passes.c) gives bitwise the whole product: under a device limit of a quarter of
 * the data, over simulated devices, and on the GPU (when there is one) under a limit and over
 * several workers of one GPU.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The data are made so that one panel's own plan differs from the whole product's (the last
 * columns of B spread over many binades, the rows of A scaled apart): a backend that decided a
 * plan per panel would give other bits, and the test checks that it would.
 */
#define _POSIX_C_SOURCE 200809L   /* setenv (check.h) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check.h"
#include "emulated_passes.h"
#include "multi.h"
#include "test_random.h"
#include "tilemm.h"

typedef struct {
  tilemm_type type;
  int64_t m, n, k;
  void *a, *b;
  tilemm_view va, vb;
  size_t bytes;        /* of C, and one more                                        */
  void *whole, *other; /* C of the whole product, C of the way under test (poisoned) */
} problem;

static void put (tilemm_type type, void *data, size_t i, double x, double y)
{
  switch (type)
    {
    case TILEMM_SINGLE:
      ((float *) data)[i] = (float) x;
      break;
    case TILEMM_COMPLEX_SINGLE:
      ((float *) data)[2 * i] = (float) x;
      ((float *) data)[2 * i + 1] = (float) y;
      break;
    case TILEMM_COMPLEX_DOUBLE:
      ((double *) data)[2 * i] = x;
      ((double *) data)[2 * i + 1] = y;
      break;
    default:
      ((double *) data)[i] = x;
    }
}

static void make (problem *p, tilemm_type type, int64_t m, int64_t n, int64_t k)
{
  const size_t es = tilemm_type_size (type);
  p->type = type;
  p->m = m;
  p->n = n;
  p->k = k;
  p->a = malloc (es * (size_t) (m * k) + 1);
  p->b = malloc (es * (size_t) (k * n) + 1);
  for (int64_t j = 0; j < k; j++)
    for (int64_t i = 0; i < m; i++)
      {
        const double scale = (double) (1 << (i % 7)) / 8.0;
        put (type, p->a, (size_t) (i + j * m), scale * nrand (), scale * nrand ());
      }
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < k; i++)
      {
        /* The last quarter of B's columns spread over 2^-3 .. 2^3: their pairs need more bits
         * than the others', so the whole product's plan is not the first panel's. */
        const double spread = j >= n - n / 4 ? ldexp (1.0, (int) (rnd64 () % 7) - 3) : 1.0;
        put (type, p->b, (size_t) (i + j * k), spread * nrand (), spread * nrand ());
      }
  tilemm_view_init (&p->va, type, m, k, m > 0 ? m : 1, p->a);
  tilemm_view_init (&p->vb, type, k, n, k > 0 ? k : 1, p->b);
  p->bytes = es * (size_t) (m * n) + 1;
  p->whole = malloc (p->bytes);
  p->other = malloc (p->bytes);
  memset (p->whole, 0x7f, p->bytes);
  memset (p->other, 0x7f, p->bytes);
}

static void drop (problem *p)
{
  free (p->a);
  free (p->b);
  free (p->whole);
  free (p->other);
}

/* C = op_a(A)·op_b(B) emulated on `backend` from the operands as stored (va, vb), panels under
 * `limit` (0: one), over `workers` (NULL: one). */
static tilemm_status run_op (const problem *p, tilemm_backend backend, size_t limit,
                             const tilemm_workers *workers, tilemm_op op_a, const tilemm_view *va,
                             tilemm_op op_b, const tilemm_view *vb, void *c, int64_t *panels,
                             tilemm_emu_plan *used, tilemm_error *err)
{
  tilemm_view vc;
  tilemm_view_init (&vc, p->type, p->m, p->n, p->m > 0 ? p->m : 1, c);
  tilemm_emu_options opt;
  tilemm_emu_default_options (&opt, p->type);
  tilemm_plan plan;
  tilemm_status st = tilemm_plan_make (&plan, backend, p->type, p->m, p->n, p->k, NULL);
  if (st == TILEMM_OK)
    st = tilemm_emu_plan_panels (&plan, &opt, op_a, op_b, limit);
  if (st != TILEMM_OK)
    return tilemm_error_set (err, st, "%s", tilemm_strerror (st));
  *panels = tilemm_plan_panel_count (&plan);
  return tilemm_emu_multiply_panels (&plan, &opt, workers, 1, op_a, va, op_b, vb, &vc, NULL, used,
                                     err);
}

/* C = A·B emulated on `backend`, panels under `limit` (0: one), over `workers` (NULL: one). */
static tilemm_status run (const problem *p, tilemm_backend backend, size_t limit,
                          const tilemm_workers *workers, void *c, int64_t *panels,
                          tilemm_emu_plan *used, tilemm_error *err)
{
  return run_op (p, backend, limit, workers, TILEMM_OP_NONE, &p->va, TILEMM_OP_NONE, &p->vb, c,
                 panels, used, err);
}

static int same_plan (const tilemm_emu_plan *x, const tilemm_emu_plan *y)
{
  return x->verdict == y->verdict && x->moduli == y->moduli && x->pa == y->pa && x->pb == y->pb;
}

/* The first panel's own plan differs from the whole product's: the test can tell them apart. */
static void check_discriminates (const problem *p, int64_t rows, int64_t cols,
                                 const tilemm_emu_plan *whole, const char *name)
{
  const tilemm_view sa = tilemm_view_sub (&p->va, 0, 0, rows, p->k);
  const tilemm_view sb = tilemm_view_sub (&p->vb, 0, 0, p->k, cols);
  tilemm_emu_stats st;
  tilemm_error err;
  tilemm_emu_options opt;
  tilemm_emu_default_options (&opt, p->type);
  CHECK (tilemm_emu_stats_cpu (&sa, &sb, &st, &err) == TILEMM_OK, "%s: stats", name);
  tilemm_emu_plan own;
  tilemm_emu_decide (&opt, &st, &own);
  CHECK (!same_plan (&own, whole), "%s: the first panel's own plan is the whole's (%d moduli, "
                                   "pa %d, pb %d): the data cannot tell a per-panel plan apart",
         name, own.moduli, own.pa, own.pb);
}

static void one_case (tilemm_type type, int64_t m, int64_t n, int64_t k, int gpu)
{
  char name[96];
  snprintf (name, sizeof name, "%s %lldx%lldx%lld", tilemm_type_name (type), (long long) m,
            (long long) n, (long long) k);
  problem p;
  make (&p, type, m, n, k);
  const size_t es = tilemm_type_size (type), bytes = p.bytes;
  void *const whole = p.whole, *const other = p.other;
  tilemm_error err;
  tilemm_emu_plan used_whole, used;
  int64_t panels;
  CHECK_CASE ("%s: cpu, whole", name);
  CHECK (run (&p, TILEMM_BACKEND_CPU, 0, NULL, whole, &panels, &used_whole, &err) == TILEMM_OK
           && used_whole.verdict == TILEMM_EMU_OK && panels == 1,
         "%s (verdict %d, %lld panels)", err.detail, used_whole.verdict, (long long) panels);
  check_discriminates (&p, (m + 1) / 2, (n + 1) / 2, &used_whole, name);
  const size_t quarter = es * (size_t) (m * k + k * n + m * n) / 4;

  /* The CPU under a quarter of the data. */
  memset (other, 0x7f, bytes);
  CHECK_CASE ("%s: cpu, panels under a quarter of the data", name);
  CHECK (run (&p, TILEMM_BACKEND_CPU, quarter, NULL, other, &panels, &used, &err) == TILEMM_OK,
         "%s", err.detail);
  CHECK (panels > 1, "%s: a quarter of the data gives %lld panel", name, (long long) panels);
  CHECK (same_plan (&used, &used_whole), "%s: cpu panels: another plan", name);
  CHECK (memcmp (whole, other, bytes) == 0, "%s: cpu, %lld panels: not bitwise the whole product",
         name, (long long) panels);

  /* Three simulated devices. */
  tilemm_workers three = { 3, { 0, 1, 2 } };
  memset (other, 0x7f, bytes);
  CHECK_CASE ("%s: 3 simulated devices", name);
  CHECK (run (&p, TILEMM_BACKEND_CPU, 0, &three, other, &panels, &used, &err) == TILEMM_OK, "%s",
         err.detail);
  CHECK (memcmp (whole, other, bytes) == 0, "%s: 3 simulated devices: not bitwise the whole",
         name);


  if (gpu)
    {
      memset (other, 0x7f, bytes);
      CHECK_CASE ("%s: gpu, whole", name);
      CHECK (run (&p, TILEMM_BACKEND_CUDA, 0, NULL, other, &panels, &used, &err) == TILEMM_OK,
             "%s", err.detail);
      CHECK (memcmp (whole, other, bytes) == 0, "%s: gpu whole: not bitwise the cpu's", name);
      memset (other, 0x7f, bytes);
      CHECK_CASE ("%s: gpu, panels under a quarter of the data", name);
      CHECK (run (&p, TILEMM_BACKEND_CUDA, quarter, NULL, other, &panels, &used, &err) == TILEMM_OK,
             "%s", err.detail);
      CHECK (panels > 1 && memcmp (whole, other, bytes) == 0,
             "%s: gpu, %lld panels: not bitwise the whole", name, (long long) panels);
      tilemm_workers two = { 2, { 0, 0 } };
      memset (other, 0x7f, bytes);
      CHECK_CASE ("%s: gpu, 2 workers on device 0", name);
      CHECK (run (&p, TILEMM_BACKEND_CUDA, 0, &two, other, &panels, &used, &err) == TILEMM_OK,
             "%s", err.detail);
      CHECK (memcmp (whole, other, bytes) == 0, "%s: 2 workers on the gpu: not bitwise the whole",
             name);
    }
  drop (&p);
}

/* The table the emulated passes run on is the plan's (emu_on_simulated), the simulated devices'
 * where its native product runs on them (on_simulated), one device's too, unless the passes are
 * one.  Device 0 set to fail as its worker starts tells the tables apart: only the simulated
 * devices' table fails. */
static void simulated_table (void)
{
  problem p;
  make (&p, TILEMM_DOUBLE, 97, 83, 130);
  tilemm_error err;
  tilemm_emu_plan used;
  int64_t panels;
  CHECK_CASE ("simulated table: cpu, whole");
  CHECK (run (&p, TILEMM_BACKEND_CPU, 0, NULL, p.whole, &panels, &used, &err) == TILEMM_OK,
         "%s", err.detail);
  const size_t quarter = sizeof (double) * (size_t) (97 * 130 + 130 * 83 + 97 * 83) / 4;
  tilemm_emu_options opt;
  tilemm_emu_default_options (&opt, TILEMM_DOUBLE);
  tilemm_call_settings settings;
  tilemm_call_settings_read (&settings);
  tilemm_call_facts facts;
  memset (&facts, 0, sizeof facts);
  tilemm_sim_faults fail;
  tilemm_sim_faults_none (&fail);
  fail.fail_device = 0;
  fail.fail_after = 0;
  tilemm_view vc;
  tilemm_view_init (&vc, p.type, p.m, p.n, p.m, p.other);
  for (int whole = 0; whole < 2; whole++)
    {
      tilemm_plan plan;
      CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, p.type, p.m, p.n, p.k, NULL)
               == TILEMM_OK
               && tilemm_emu_plan_panels (&plan, &opt, TILEMM_OP_NONE, TILEMM_OP_NONE,
                                          whole ? 0 : quarter)
                    == TILEMM_OK,
             "simulated table: plan");
      tilemm_call_plan cp;
      CHECK (tilemm_call_plan_emulated_around (&cp, &plan, TILEMM_OP_NONE, TILEMM_OP_NONE, NULL,
                                               0, &facts, &settings)
               == TILEMM_OK,
             "simulated table: tilemm_call_plan_emulated_around");
      tilemm_call_plan_simulated (&cp, 1, &fail);
      tilemm_emu_branches_make (&opt, &cp.emu_branches);
      cp.emu_branches.threads = cp.host_threads;
      CHECK_CASE ("simulated table: one simulated device, %s", whole ? "one pass" : "panels");
      CHECK (cp.on_simulated == 1 && cp.emu_one_pass == whole && cp.emu_on_simulated == !whole,
             "on_simulated %d, emu_one_pass %d: emu_on_simulated %d", cp.on_simulated,
             cp.emu_one_pass, cp.emu_on_simulated);
      /* The plan's table: the simulated devices' fails (its device 0 does), the CPU's runs. */
      for (int on = 0; on < 2 - whole; on++)
        {
          cp.emu_on_simulated = whole ? 0 : !on;
          memset (p.other, 0x7f, p.bytes);
          const tilemm_status st = tilemm_exec_emulated (TILEMM_BACKEND_CPU, &cp, &opt, &p.va,
                                                         &p.vb, &vc, NULL, &used, NULL, &err);
          CHECK (cp.emu_on_simulated ? st == TILEMM_ECUDA
                                     : st == TILEMM_OK && memcmp (p.whole, p.other, p.bytes) == 0,
                 "%s, emu_on_simulated %d: status %d (%s)", whole ? "one pass" : "panels",
                 cp.emu_on_simulated, (int) st, st == TILEMM_OK ? "" : err.detail);
        }
    }
  drop (&p);
}

/* The native product with transposed operands on two workers of one GPU against one device:
 * each worker transposes its panels' stored rows or columns on its own (src/cuda/transposed_product.cu). */
static void gpu_transposed_workers (void)
{
  const tilemm_op ops[] = { TILEMM_OP_NONE, TILEMM_OP_TRANSPOSE, TILEMM_OP_CTRANSPOSE };
  const tilemm_type types[] = { TILEMM_DOUBLE, TILEMM_SINGLE, TILEMM_COMPLEX_DOUBLE };
  const int64_t m = 1100, n = 900, k = 300;
  for (int t = 0; t < 3; t++)
    for (int oa = 0; oa < 3; oa++)
      for (int ob = 0; ob < 3; ob++)
        {
          if (oa == 0 && ob == 0)
            continue;
          CHECK_CASE ("gpu: %s op %d·op %d on 2 workers of device 0 is bitwise one device",
                      tilemm_type_name (types[t]), oa, ob);
          printf ("  %s\n", check_case_name);
          const int ta = oa > 0, tb = ob > 0;
          problem p;
          make (&p, types[t], m, n, k);
          /* A's m·k and B's k·n elements, read as the stored operands (k×m, n×k when transposed). */
          tilemm_view va, vb, vc;
          tilemm_view_init (&va, types[t], ta ? k : m, ta ? m : k, ta ? k : m, p.a);
          tilemm_view_init (&vb, types[t], tb ? n : k, tb ? k : n, tb ? n : k, p.b);
          const size_t bytes = tilemm_type_size (types[t]) * (size_t) (m * n);
          void *one = malloc (bytes), *two = malloc (bytes);
          memset (one, 0x7f, bytes);
          memset (two, 0x7e, bytes);
          tilemm_plan plan;
          tilemm_error err;
          CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, types[t], m, n, k, NULL) == TILEMM_OK,
                 "plan");
          tilemm_view_init (&vc, types[t], m, n, m, one);
          CHECK (tilemm_multiply_op (&plan, ops[oa], &va, ops[ob], &vb, &vc, &err) == TILEMM_OK,
                 "one device: %s", err.detail);
          tilemm_view_init (&vc, types[t], m, n, m, two);
          tilemm_workers w = { 2, { 0, 0 } };
          tilemm_multi_report rep;
          CHECK (tilemm_cuda_multiply_workers_op (&plan, NULL, &w, 1, ops[oa], &va, ops[ob], &vb, &vc,
                                                  NULL, &rep, &err) == TILEMM_OK,
                 "2 workers: %s", err.detail);
          CHECK (rep.workers == 2, "%d workers ran", rep.workers);
          CHECK (memcmp (one, two, bytes) == 0, "2 workers: not bitwise one device");
          free (one);
          free (two);
          drop (&p);
        }
}

/* x (rows×cols, column-major) stored for op: itself, or its transpose (conjugated for 'C', so
 * that op of the stored copy is x again).  Malloc'ed. */
static void *stored_for (tilemm_op op, tilemm_type type, const void *x, int64_t rows, int64_t cols)
{
  const size_t es = tilemm_type_size (type);
  unsigned char *out = malloc (es * (size_t) (rows * cols) + 1);
  for (int64_t j = 0; j < cols; j++)
    for (int64_t i = 0; i < rows; i++)
      {
        const size_t from = (size_t) (i + j * rows), to = op == TILEMM_OP_NONE ? from : (size_t) (j + i * cols);
        memcpy (out + to * es, (const unsigned char *) x + from * es, es);
        if (op == TILEMM_OP_CTRANSPOSE && type == TILEMM_COMPLEX_DOUBLE)
          ((double *) (out + to * es))[1] = -((double *) (out + to * es))[1];
        else if (op == TILEMM_OP_CTRANSPOSE && type == TILEMM_COMPLEX_SINGLE)
          ((float *) (out + to * es))[1] = -((float *) (out + to * es))[1];
      }
  return out;
}

/* Transposed operands in the emulated precision (issue: transposed three ways): A and B stored
 * transposed (conjugated for 'C') go in as stored with their ops, are read the other way round
 * on the CPU, cut by their stored rows or columns into panels and over devices, transposed on
 * the device by the GPU; every way gives bitwise the untransposed whole product. */
static void transposed_case (tilemm_type type, int64_t m, int64_t n, int64_t k, int gpu)
{
  const tilemm_op ops[] = { TILEMM_OP_NONE, TILEMM_OP_TRANSPOSE, TILEMM_OP_CTRANSPOSE };
  problem p;
  make (&p, type, m, n, k);
  const size_t es = tilemm_type_size (type);
  tilemm_error err;
  tilemm_emu_plan used_whole, used;
  int64_t panels;
  CHECK_CASE ("%s %lldx%lldx%lld: the untransposed whole product", tilemm_type_name (type),
              (long long) m, (long long) n, (long long) k);
  CHECK (run (&p, TILEMM_BACKEND_CPU, 0, NULL, p.whole, &panels, &used_whole, &err) == TILEMM_OK
           && used_whole.verdict == TILEMM_EMU_OK, "%s", err.detail);
  const size_t quarter = es * (size_t) (m * k + k * n + m * n) / 4;
  const tilemm_workers three = { 3, { 0, 1, 2 } }, two = { 2, { 0, 0 } };
  for (int oa = 0; oa < 3; oa++)
    for (int ob = 0; ob < 3; ob++)
      {
        if (oa == 0 && ob == 0)
          continue;
        void *sa = stored_for (ops[oa], type, p.a, m, k), *sb = stored_for (ops[ob], type, p.b, k, n);
        tilemm_view va, vb;
        tilemm_view_init (&va, type, oa ? k : m, oa ? m : k, oa ? k : m, sa);
        tilemm_view_init (&vb, type, ob ? n : k, ob ? k : n, ob ? n : k, sb);
        struct {
          const char *how;
          tilemm_backend backend;
          size_t limit;
          const tilemm_workers *workers;
        } ways[] = { { "cpu, whole", TILEMM_BACKEND_CPU, 0, NULL },
                     { "cpu, panels under a quarter", TILEMM_BACKEND_CPU, quarter, NULL },
                     { "3 simulated devices", TILEMM_BACKEND_CPU, 0, &three },
                     { "gpu, whole", TILEMM_BACKEND_CUDA, 0, NULL },
                     { "gpu, panels under a quarter", TILEMM_BACKEND_CUDA, quarter, NULL },
                     { "gpu, 2 workers on device 0", TILEMM_BACKEND_CUDA, 0, &two } };
        for (int w = 0; w < 6; w++)
          {
            if (ways[w].backend == TILEMM_BACKEND_CUDA && !gpu)
              continue;
            CHECK_CASE ("%s %lldx%lldx%lld op %d·op %d: %s", tilemm_type_name (type), (long long) m,
                        (long long) n, (long long) k, oa, ob, ways[w].how);
            memset (p.other, 0x7f, p.bytes);
            CHECK (run_op (&p, ways[w].backend, ways[w].limit, ways[w].workers, ops[oa], &va,
                           ops[ob], &vb, p.other, &panels, &used, &err) == TILEMM_OK,
                   "%s", err.detail);
            CHECK (ways[w].limit == 0 || panels > 1, "%lld panel under a quarter", (long long) panels);
            CHECK (same_plan (&used, &used_whole), "another plan (%d moduli)", used.moduli);
            CHECK (memcmp (p.whole, p.other, p.bytes) == 0, "not bitwise the untransposed product");
          }
        free (sa);
        free (sb);
      }
  drop (&p);
}

/* The blocks of C the GPU executor brings back while the device computes the rest: at most
 * TILEMM_EMU_MAX_BLOCKS, covering every column, whole 256-column tiles when wider, four staging
 * chunks or more each, one block for a small C. */
static void result_blocks (void)
{
  const size_t mib = (size_t) 1 << 20;
  CHECK_CASE ("result blocks: the executor's blocks of C");
  CHECK (tilemm_emu_result_block_cols (TILEMM_DOUBLE, 8192, 8192, 16 * mib) == 1024,
         "double 8192: %lld columns per block, want 1024",
         (long long) tilemm_emu_result_block_cols (TILEMM_DOUBLE, 8192, 8192, 16 * mib));
  CHECK (tilemm_emu_result_block_cols (TILEMM_DOUBLE, 200, 170, 16 * mib) == 170,
         "a small C: not one block");
  CHECK (tilemm_emu_result_block_cols (TILEMM_DOUBLE, 0, 170, 16 * mib) == 170
           && tilemm_emu_result_block_cols (TILEMM_DOUBLE, 5, 0, 16 * mib) == 0,
         "an empty C: not one block");
  const tilemm_type types[] = { TILEMM_DOUBLE, TILEMM_SINGLE, TILEMM_COMPLEX_DOUBLE };
  const int64_t shapes[][2] = { { 8192, 8192 }, { 16384, 16384 }, { 1, 100000 }, { 100000, 3 },
                                { 777, 5000 }, { 3000, 1 }, { 200, 170 } };
  const size_t chunks[] = { 4096, 65536, 16 * mib };
  int bad = 0, several = 0;
  for (int t = 0; t < 3; t++)
    for (int s = 0; s < 7; s++)
      for (int c = 0; c < 3; c++)
        {
          const int64_t rows = shapes[s][0], cols = shapes[s][1];
          const int64_t w = tilemm_emu_result_block_cols (types[t], rows, cols, chunks[c]);
          const int64_t blocks = (cols + w - 1) / w;
          const double bytes = (double) tilemm_type_size (types[t]) * rows * (double) w;
          bad += w < 1 || w > cols || blocks > TILEMM_EMU_MAX_BLOCKS
                 || (w > 256 && w < cols && w % 256 != 0)
                 || (blocks > 1 && bytes < 4.0 * chunks[c]);
          several += blocks > 1;
        }
  CHECK (bad == 0, "%d block widths break the rule", bad);
  CHECK (several > 10, "only %d shapes come back in several blocks", several);
}

int main (void)
{
  setvbuf (stdout, NULL, _IOLBF, 0); /* a run cut short by a timeout still shows how far it got */
  test_seed (20261124);
  result_blocks ();
  simulated_table ();
  const int gpu = tilemm_cuda_probe (NULL) == TILEMM_OK;
  if (!gpu)
    printf ("SKIP: no usable GPU: the GPU cases of test_emulated_panels\n");
  const tilemm_type types[] = { TILEMM_DOUBLE, TILEMM_SINGLE, TILEMM_COMPLEX_DOUBLE,
                                TILEMM_COMPLEX_SINGLE };
  for (int t = 0; t < 4; t++)
    {
      one_case (types[t], 97, 83, 130, gpu);
      one_case (types[t], 160, 141, 64, gpu);
    }
  one_case (TILEMM_DOUBLE, 200, 170, 130, gpu);
  for (int t = 0; t < 4; t++)
    transposed_case (types[t], 97, 83, 130, gpu);
  if (gpu)
    gpu_transposed_workers ();
  tilemm_cuda_release ();
  return check_summary ("test_emulated_panels");
}
