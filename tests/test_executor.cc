// test_executor.cc — every kind of product under a device limit of a quarter of its data gives
// bitwise the unlimited result, holds no more device memory than the limit, and runs what its
// plan says; on the stand-in CUDA runtime (tests/mock_cuda), so CI runs the GPU's executor.
//
// Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
//
// The grid: native and emulated, A and B as stored or transposed (none, transpose, ctranspose on
// each side), real and complex (and a real times a complex operand, which the route may split),
// whole or under a quarter of the data, on one device or three (three stand-in GPUs, or simulated
// CPU devices).  Each call goes through the front ends' path (tilemm_decide_op, then tilemm_run).
// The stand-in runtime refuses an allocation beyond a device's memory; a GPU product's peak of
// device memory is read from it.  The emulated precision's stand-in device side is the CPU's
// scheme (tests/mock_cuda/cuda_op_none.c).  Then several GPUs as a product uses them: the queue's
// strips and what each worker keeps, its copy team, each device's figures, a slow device, a
// device failing part way, the workspaces kept from one call to the next.

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <cuda_runtime_api.h> /* the stand-in's own test hooks */

#include "backend.h"
#include "batch_run.h"
#include "check.h"
#include "device_model.h"
#include "front.h"
#include "tilemm.h"

// The reads of TILEMM_PRECISION, counted: this program's getenv (it stands in for the C
// library's, reading environ as that does) counts them, so that a test sees a decision that reads
// the precision more than once a call.
std::atomic<int> precision_reads (0);
extern "C" char *getenv (const char *name) noexcept
{
  if (strcmp (name, "TILEMM_PRECISION") == 0)
    precision_reads++;
  const size_t length = strlen (name);
  for (char **e = environ; e && *e; e++)
    if (strncmp (*e, name, length) == 0 && (*e)[length] == '=')
      return *e + length + 1;
  return NULL;
}

#include "test_random.h"

extern "C" unsigned long long mock_batched_launches (void);   // mock_batched.cc

namespace
{
// Uniform in [-1, 1): the tests' generator (test_random.h).
double uniform ()
{
  return 2 * urand () - 1;
}

// Fresh random data of `count` reals (float or double).
std::vector<unsigned char> random_data (size_t count, bool single)
{
  std::vector<unsigned char> v (count * (single ? 4 : 8));
  for (size_t i = 0; i < count; i++)
    {
      const double x = uniform ();
      if (single)
        ((float *) v.data ())[i] = (float) x;
      else
        ((double *) v.data ())[i] = x;
    }
  return v;
}

const char *op_name (tilemm_op op)
{
  return op == TILEMM_OP_NONE ? "N" : op == TILEMM_OP_TRANSPOSE ? "T" : "C";
}

struct operands
{
  tilemm_operand a, b;
  std::vector<unsigned char> da, db;
};

// A (m×k after op_a) and B (k×n after op_b) as stored, of the class and complexity asked.
operands make (bool single, bool a_complex, bool b_complex, int64_t m, int64_t n, int64_t k,
               tilemm_op op_a, tilemm_op op_b)
{
  operands x;
  const tilemm_class cls = single ? TILEMM_CLASS_SINGLE : TILEMM_CLASS_DOUBLE;
  const int64_t ar = op_a == TILEMM_OP_NONE ? m : k, ac = op_a == TILEMM_OP_NONE ? k : m;
  const int64_t br = op_b == TILEMM_OP_NONE ? k : n, bc = op_b == TILEMM_OP_NONE ? n : k;
  x.a = { cls, a_complex, 0, 2, ar, ac, 0, NULL, 0 };
  x.b = { cls, b_complex, 0, 2, br, bc, 0, NULL, 0 };
  x.da = random_data ((size_t) (ar * ac) * (a_complex ? 2 : 1), single);
  x.db = random_data ((size_t) (br * bc) * (b_complex ? 2 : 1), single);
  return x;
}

struct outcome
{
  tilemm_status status;
  std::vector<unsigned char> c;
  tilemm_decision d;
  tilemm_run_report ran;
  size_t peak;           // device bytes held at most during the call (GPU)
  unsigned long long launches, transposes;
  unsigned long long planned; // launches of the plan's variant
  char detail[384];
};

// Whether call () starts from clean devices (so the peak is the call's); off to see what a
// call reuses of the one before.
bool release_before_call = true;

// One call through the front ends' path, on a clean device (so the peak is this call's); on
// gpu_workers > 1 the stand-in devices 0, 1, ... (the first `gpu_workers` of them).
outcome call (const operands &x, tilemm_op op_a, tilemm_op op_b, tilemm_backend_choice backend,
              bool emulated, size_t limit, int simulated, int gpu_workers)
{
  outcome o;
  memset (&o.ran, 0, sizeof o.ran);
  tilemm_options opt;
  tilemm_options_init (&opt);
  opt.backend = backend;
  opt.precision = emulated ? TILEMM_PRECISION_EMULATED : TILEMM_PRECISION_NATIVE;
  opt.max_device_bytes = limit;
  opt.simulate_devices = simulated;
  if (gpu_workers > 1)
    {
      opt.devices.count = gpu_workers;
      for (int w = 0; w < gpu_workers; w++)
        opt.devices.device[w] = w;
    }
  opt.report = &o.ran;
  tilemm_error err = { TILEMM_OK, "" };
  o.status = tilemm_decide_op (&x.a, op_a, &x.b, op_b, &opt, &o.d, &err);
  snprintf (o.detail, sizeof o.detail, "%s", err.detail);
  o.peak = 0;
  o.launches = o.transposes = o.planned = 0;
  if (o.status != TILEMM_OK || o.d.action != TILEMM_DO_COMPUTE)
    return o;
  const tilemm_route &r = o.d.route;
  const size_t es = r.result_class == TILEMM_CLASS_SINGLE ? 4 : 8;
  o.c.assign ((size_t) (r.m * r.n) * es * (r.result_complex ? 2 : 1), 0x5A); // poisoned
  // Operands after the route's conversions: a real operand made complex stays as the route says.
  std::vector<unsigned char> a = x.da, b = x.db;
  auto widen = [&] (std::vector<unsigned char> &v) {
    std::vector<unsigned char> w (v.size () * 2, 0);
    const size_t n = v.size () / es;
    for (size_t i = 0; i < n; i++)
      memcpy (&w[2 * i * es], &v[i * es], es);
    v = w;
  };
  if (r.use_a == TILEMM_OPERAND_TO_COMPLEX && !x.a.is_complex)
    widen (a);
  if (r.use_b == TILEMM_OPERAND_TO_COMPLEX && !x.b.is_complex)
    widen (b);
  if (release_before_call)
    tilemm_cuda_release ();
  mock_cuda_reset_peak ();
  unsigned long long before = 0;
  for (int v = 1; v <= 16; v++)
    before += mock_kernels_launches (v);
  const unsigned long long t_before = mock_kernels_transposes ();
  const unsigned long long planned_before = mock_kernels_launches (o.d.plan.native.variant);
  o.status = tilemm_run (&o.d, &opt, a.data (), b.data (), o.c.data (), &err);
  snprintf (o.detail, sizeof o.detail, "%s", err.detail);
  o.peak = mock_cuda_peak_bytes ();
  for (int v = 1; v <= 16; v++)
    o.launches += mock_kernels_launches (v);
  o.launches -= before;
  o.transposes = mock_kernels_transposes () - t_before;
  o.planned = mock_kernels_launches (o.d.plan.native.variant) - planned_before;
  return o;
}

// The plan's own account of what should run: its queue's panels, its workers.
void check_followed (const outcome &o, const char *what)
{
  const tilemm_call_plan &p = o.d.plan;
  if (o.d.emulated)
    {
      const int passes = p.emu_one_pass ? 1 : 2;
      CHECK (o.ran.emu_passes == passes || o.ran.emu_passes == 1,
             "%s: %d emulated passes ran, the plan says %d", what, o.ran.emu_passes, passes);
      if (!p.emu_one_pass)
        CHECK (o.ran.emu_workers == p.emu_workers, "%s: %d emulated workers ran, the plan says %d",
               what, o.ran.emu_workers, p.emu_workers);
      return;
    }
  CHECK (o.ran.workers == p.workers.count, "%s: %d workers ran, the plan says %d", what,
         o.ran.workers, p.workers.count);
  CHECK (o.ran.panels == tilemm_plan_panel_count (&p.queue), "%s: %lld panels ran, the plan has %lld",
         what, (long long) o.ran.panels, (long long) tilemm_plan_panel_count (&p.queue));
  int64_t done = 0;
  for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
    done += o.ran.done[w];
  CHECK (done == o.ran.panels, "%s: %lld of %lld panels done", what, (long long) done,
         (long long) o.ran.panels);
  if (o.d.backend == TILEMM_BACKEND_CUDA)
    {
      // Every launch is the plan's variant, at least one per panel; a transposed operand is
      // transposed on the device once per panel at least.
      CHECK (o.planned == o.launches && o.launches >= (unsigned long long) o.ran.panels,
             "%s: %llu launches (%llu of the plan's variant %d) for %lld panels", what,
             o.launches, o.planned, p.native.variant, (long long) o.ran.panels);
      // (An operand a worker keeps between its panels is transposed once by that worker; one
      // the workers share, once in all: each share by its owner, tests/test_exchange.cc.)
      const bool transposed = p.op_a != TILEMM_OP_NONE || p.op_b != TILEMM_OP_NONE;
      const bool kept_only = (p.op_a == TILEMM_OP_NONE || p.queue_keeps == TILEMM_KEEP_A)
                             && (p.op_b == TILEMM_OP_NONE || p.queue_keeps == TILEMM_KEEP_B);
      unsigned long long least = (unsigned long long) o.ran.panels;
      if (kept_only && p.exchange.path == TILEMM_EXCHANGE_PEER)
        for (int w = 0, owners = 0; w < p.exchange.shares; w++)
          least = (unsigned long long) (owners += p.exchange.first[w + 1] > p.exchange.first[w]);
      else if (kept_only)
        for (int w = 0, took = 0; w < TILEMM_MAX_WORKERS; w++)
          least = (unsigned long long) (took += o.ran.done[w] > 0);
      CHECK (transposed ? o.transposes >= least : o.transposes == 0,
             "%s: %llu device transposes for %lld panels", what, o.transposes,
             (long long) o.ran.panels);
    }
}

void grid_case (bool single, bool a_complex, bool b_complex, tilemm_op op_a, tilemm_op op_b,
                bool emulated, tilemm_backend_choice backend, int devices)
{
  const int64_t m = 67, n = 59, k = 45; // ragged, several tiles of the CPU's 64
  const operands x = make (single, a_complex, b_complex, m, n, k, op_a, op_b);
  const bool gpu = backend == TILEMM_CHOOSE_GPU;
  char what[160];
  snprintf (what, sizeof what, "%s %s%s x %s%s, %s%s, %s, %d device(s)", single ? "single" : "double",
            a_complex ? "complex " : "", op_name (op_a), b_complex ? "complex " : "", op_name (op_b),
            emulated ? "emulated" : "native", "", gpu ? "gpu" : "cpu", devices);
  CHECK_CASE ("%s", what);
  const int simulated = gpu ? 0 : devices;
  const int workers = gpu ? devices : 1;
  const outcome whole = call (x, op_a, op_b, backend, emulated, 0, simulated, workers);
  CHECK (whole.status == TILEMM_OK && whole.d.action == TILEMM_DO_COMPUTE, "whole: %s (%s)",
         tilemm_strerror (whole.status), whole.detail);
  if (whole.status != TILEMM_OK || whole.d.action != TILEMM_DO_COMPUTE)
    return;
  check_followed (whole, "whole");
  if (gpu)
    {
      // The stand-in kernel sums as the CPU's does: the GPU's result (its device transposes, their
      // conjugates) is the CPU's, bit for bit; the stand-in emulated device side is the CPU's
      // scheme, so an emulated GPU product is the CPU's too.
      const outcome cpu = call (x, op_a, op_b, TILEMM_CHOOSE_CPU, emulated, 0, 0, 1);
      CHECK (cpu.status == TILEMM_OK && cpu.c == whole.c, "whole: not bitwise the CPU's product");
    }
  // A quarter of the product's data (after pairs and splits) on one device; for the emulated
  // precision, a quarter of what its whole product holds on a device (its residues too).
  const tilemm_call_plan &p = whole.d.plan;
  const double es = (double) tilemm_type_size (p.type);
  const size_t quarter
    = emulated ? (size_t) (tilemm_emu_panel_bytes (p.type, p.m, p.n, p.k,
                                                   TILEMM_EMU_DEFAULT_MAX_MODULI, p.op_a, p.op_b)
                           / 4)
               : (size_t) (es * ((double) p.m * p.k + (double) p.k * p.n + (double) p.m * p.n) / 4);
  const outcome limited = call (x, op_a, op_b, backend, emulated, quarter, simulated, workers);
  CHECK (limited.status == TILEMM_OK, "limited to %zu bytes: %s (%s)", quarter,
         tilemm_strerror (limited.status), limited.detail);
  if (limited.status != TILEMM_OK)
    return;
  check_followed (limited, "limited");
  const int64_t panels = emulated ? tilemm_plan_panel_count (&limited.d.plan.emu_panels)
                                  : tilemm_plan_panel_count (&limited.d.plan.native);
  CHECK (panels > 1, "limited to a quarter: %lld panel(s)", (long long) panels);
  CHECK (limited.c == whole.c, "limited: not bitwise the whole product");
  if (gpu)
    CHECK (limited.peak <= quarter, "limited: the device held %zu bytes, the limit is %zu",
           limited.peak, quarter);
  if (gpu && devices == 1 && !emulated)
    {
      // One device runs the product as one piece through the pipeline, transposed operands too:
      // the plan's panels and steps inside it (its figures), not a queue of panels run apart.
      tilemm_cuda_stats st;
      tilemm_cuda_last_stats (&st);
      CHECK (limited.ran.panels == 1 && st.panels == panels && st.steps > 1,
             "limited: %lld piece(s) ran, the pipeline ran %lld panel(s) (the plan has %lld) in "
             "%lld step(s)", (long long) limited.ran.panels, st.panels, (long long) panels,
             st.steps);
    }
}
// A plan made from the facts of GPUs of compute capability `cc` (the stand-in's own facts, their
// compute capability replaced), run on the stand-in: every launch is the plan's variant with the
// plan's fallback and the plan's split of k for its shape; the launcher decides neither.  With
// unsplit_by_hand the plan is told to split nothing (a launcher that decides the split itself
// would split anyway).
void plan_launch_case (int cc, int64_t m, int64_t n, int64_t k, bool unsplit_by_hand)
{
  CHECK_CASE ("launches follow the plan: sm_%d0, double %lld x %lld x %lld%s", cc, (long long) m,
              (long long) n, (long long) k, unsplit_by_hand ? ", plan unsplit by hand" : "");
  const operands x = make (false, false, false, m, n, k, TILEMM_OP_NONE, TILEMM_OP_NONE);
  tilemm_options opt;
  tilemm_options_init (&opt);
  opt.backend = TILEMM_CHOOSE_GPU;
  tilemm_decision d;
  tilemm_error err = { TILEMM_OK, "" };
  tilemm_status status = tilemm_decide_op (&x.a, TILEMM_OP_NONE, &x.b, TILEMM_OP_NONE, &opt, &d,
                                           &err);
  CHECK (status == TILEMM_OK && d.action == TILEMM_DO_COMPUTE, "decide: %s (%s)",
         tilemm_strerror (status), err.detail);
  if (status != TILEMM_OK || d.action != TILEMM_DO_COMPUTE)
    return;
  tilemm_call_facts facts;
  memset (&facts, 0, sizeof facts);
  tilemm_backend_facts (TILEMM_BACKEND_CPU, 0, &facts.cpu);
  tilemm_backend_facts (TILEMM_BACKEND_CUDA, 0, &facts.gpu);
  for (int i = 0; i < facts.gpu.count; i++)
    facts.gpu.cc_major[i] = cc;
  tilemm_call_settings settings;
  tilemm_call_settings_read (&settings);
  status = tilemm_call_plan_make (&d.plan, &d.route, d.backend, d.op_a, d.op_b, 0, &d.emu, &opt,
                                  &settings, &facts, &err);
  CHECK (status == TILEMM_OK, "plan: %s (%s)", tilemm_strerror (status), err.detail);
  if (status != TILEMM_OK)
    return;
  tilemm_plan &p = d.plan.native;
  CHECK (p.kernel_fallback == (cc < 8), "the plan's fallback is %d on sm_%d0", p.kernel_fallback,
         cc);
  tilemm_plan *plans[] = { &p, &d.plan.queue, &d.plan.sub[0][0], &d.plan.sub[0][1],
                           &d.plan.sub[1][0], &d.plan.sub[1][1] };
  for (tilemm_plan *q : plans)
    for (int i = 0; unsplit_by_hand && i < TILEMM_PLAN_LAUNCH_SIDES; i++)
      for (int j = 0; j < TILEMM_PLAN_LAUNCH_SIDES; j++)
        {
          q->ksplit[i][j] = 1;
          q->kchunk[i][j] = k;
        }
  // The pieces the plan's launches split k into: one panel, its steps of the plan's shapes.
  unsigned long long pieces = 0, steps = 0;
  for (int64_t r0 = 0; r0 < p.n; r0 += p.step_rows)
    for (int64_t c0 = 0; c0 < p.m; c0 += p.step_cols)
      {
        const int64_t h = p.n - r0 < p.step_rows ? p.n - r0 : p.step_rows;
        const int64_t w = p.m - c0 < p.step_cols ? p.m - c0 : p.step_cols;
        for (int i = 0; i < p.launch_heights; i++)
          for (int j = 0; j < p.launch_widths; j++)
            if (p.launch_rows[i] == h && p.launch_cols[j] == w)
              pieces += (unsigned long long) p.ksplit[i][j];
        steps++;
      }
  tilemm_cuda_release ();
  const unsigned long long launched = mock_kernels_launches (p.variant);
  const unsigned long long fell_back = mock_kernels_fallback_launches ();
  const unsigned long long split = mock_kernels_split_pieces ();
  std::vector<unsigned char> c ((size_t) (m * n) * 8, 0x5A);
  status = tilemm_run (&d, &opt, x.da.data (), x.db.data (), c.data (), &err);
  CHECK (status == TILEMM_OK, "run: %s (%s)", tilemm_strerror (status), err.detail);
  const unsigned long long ran = mock_kernels_launches (p.variant) - launched;
  CHECK (ran == steps, "%llu launches of the plan's variant %d, the plan has %llu steps", ran,
         p.variant, steps);
  CHECK (mock_kernels_fallback_launches () - fell_back == (p.kernel_fallback ? ran : 0),
         "%llu of %llu launches ran the fallback, the plan says %d",
         mock_kernels_fallback_launches () - fell_back, ran, p.kernel_fallback);
  CHECK (mock_kernels_split_pieces () - split == pieces,
         "the launches split k into %llu pieces, the plan into %llu",
         mock_kernels_split_pieces () - split, pieces);
  if (!unsplit_by_hand && cc >= 8 && p.variant == 11)
    CHECK (pieces > steps, "a tall-skinny k-heavy product: the plan splits no k (%llu pieces)",
           pieces);
}
// Device bytes of the product's operands as the backends run them (after pairs and splits).
double operand_bytes (const tilemm_call_plan &p, bool of_a)
{
  return (double) tilemm_type_size (p.type) * (double) p.k * (double) (of_a ? p.m : p.n);
}

int devices_that_took (const outcome &o)
{
  int used = 0;
  for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
    used += o.ran.done[w] > 0;
  return used;
}

// One kind of product over `devices` stand-in GPUs against the same on GPU 0 alone: bitwise the
// one-device result, the plan's workers and strips, what each worker keeps sent once per worker
// (the bytes up), each device's figures and copy team, the workspaces reused by the next call.
void multi_gpu_case (bool single, bool a_complex, bool b_complex, tilemm_op op_a, tilemm_op op_b,
                     bool emulated, int64_t m, int64_t n, int64_t k, int devices)
{
  CHECK_CASE ("%d GPUs: %s %s%s x %s%s %lldx%lldx%lld%s is bitwise one GPU's, as planned",
              devices, single ? "single" : "double", a_complex ? "complex " : "", op_name (op_a),
              b_complex ? "complex " : "", op_name (op_b), (long long) m, (long long) n,
              (long long) k, emulated ? ", emulated" : "");
  const operands x = make (single, a_complex, b_complex, m, n, k, op_a, op_b);
  const outcome one = call (x, op_a, op_b, TILEMM_CHOOSE_GPU, emulated, 0, 0, 1);
  CHECK (one.status == TILEMM_OK, "one GPU: %s (%s)", tilemm_strerror (one.status), one.detail);
  release_before_call = false;
  const outcome many = call (x, op_a, op_b, TILEMM_CHOOSE_GPU, emulated, 0, 0, devices);
  tilemm_cuda_stats st;
  tilemm_cuda_last_stats (&st);
  const unsigned long long allocated = mock_cuda_allocations ();
  const size_t pinned = mock_cuda_pinned_bytes ();
  size_t held[8];
  for (int d = 0; d < devices; d++)
    held[d] = mock_cuda_device_bytes_on (d);
  const outcome again = call (x, op_a, op_b, TILEMM_CHOOSE_GPU, emulated, 0, 0, devices);
  release_before_call = true;
  CHECK (many.status == TILEMM_OK && again.status == TILEMM_OK, "%d GPUs: %s (%s)", devices,
         tilemm_strerror (many.status), many.detail);
  if (one.status != TILEMM_OK || many.status != TILEMM_OK)
    return;
  CHECK (many.c == one.c && again.c == one.c, "not bitwise one GPU's product");
  check_followed (many, "several GPUs");
  const tilemm_call_plan &p = many.d.plan;
  const int workers = emulated ? p.emu_workers : p.workers.count;
  CHECK (workers == devices, "the plan takes %d of %d named GPUs", workers, devices);
  // What the plan says each worker keeps goes up from the host once in all where the GPUs
  // share it (each its share, the rest from its peers: tests/test_exchange.cc), else once per
  // worker that took a panel.
  if (!emulated && p.queue_keeps != TILEMM_KEEP_NONE)
    {
      const bool keep_a = p.queue_keeps == TILEMM_KEEP_A;
      const int sent = p.exchange.path == TILEMM_EXCHANGE_PEER ? 1 : devices_that_took (many);
      const double want = sent * operand_bytes (p, keep_a) + operand_bytes (p, !keep_a);
      CHECK (st.bytes_up == want, "keeping %s: %.0f bytes up, %.0f sent once a worker",
             keep_a ? "A" : "B", st.bytes_up, want);
    }
  // Each device's figures: its panels add up to the queue's, its team no larger than its share.
  CHECK (st.ok && st.devices == workers, "the figures of %d devices, %d ran", st.devices, workers);
  long long panels = 0;
  for (int i = 0; i < st.devices; i++)
    {
      const tilemm_cuda_device_stats &d = st.device[i];
      panels += d.panels;
      CHECK (d.device == (emulated ? p.emu_devices.device[i] : p.workers.device[i])
               && d.copy_threads >= 1
               && d.copy_threads == (emulated ? p.emu_teams[i] : p.teams[i]).threads,
             "device %d: GPU %d, %d copy threads", i, d.device, d.copy_threads);
      CHECK (d.panels == 0 || (d.busy_ms > 0 && d.bytes_up > 0),
             "device %d: %lld panels in %.3f ms, %.0f bytes up", i, d.panels, d.busy_ms,
             d.bytes_up);
    }
  const int64_t queued = emulated ? 2 * tilemm_plan_panel_count (&p.emu_queue)
                                  : tilemm_plan_panel_count (&p.queue);
  CHECK (panels == queued, "the devices took %lld panels, the queue has %lld", panels,
         (long long) queued);
  // The next call finds every worker's buffers and pinned ring: nothing allocated anew (where a
  // worker took no panel the first time, it makes its workspace the second).
  for (int d = 0; d < devices; d++)
    {
      CHECK (held[d] > 0 || many.ran.done[d] == 0, "GPU %d holds no workspace after its panels",
             d);
      CHECK (held[d] == 0 || mock_cuda_device_bytes_on (d) == held[d],
             "the same call again: GPU %d held %zu bytes, now %zu", d, held[d],
             mock_cuda_device_bytes_on (d));
    }
  if (devices_that_took (many) == devices)
    CHECK (mock_cuda_allocations () == allocated && mock_cuda_pinned_bytes () == pinned,
           "the same call again allocated %llu buffers", mock_cuda_allocations () - allocated);
}

// A slow GPU takes fewer of the queue's panels, the product still bitwise; a GPU failing part
// way fails the product naming it, frees what every worker holds (nothing left that tilemm does
// not account for, nothing queued on a device), and the next product is right.
void multi_gpu_trouble_case (int devices)
{
  CHECK_CASE ("%d GPUs: a slow one takes fewer panels; one failing part way fails it cleanly",
              devices);
  const int64_t m = 200, n = 1500, k = 40;
  const operands x = make (false, false, false, m, n, k, TILEMM_OP_NONE, TILEMM_OP_NONE);
  const outcome one = call (x, TILEMM_OP_NONE, TILEMM_OP_NONE, TILEMM_CHOOSE_GPU, false, 0, 0, 1);
  mock_cuda_slow_device (devices - 1, 4000);
  const outcome slow = call (x, TILEMM_OP_NONE, TILEMM_OP_NONE, TILEMM_CHOOSE_GPU, false, 0, 0,
                             devices);
  mock_cuda_slow_device (-1, 0);
  CHECK (slow.status == TILEMM_OK && slow.c == one.c, "slow: %s, bitwise %d", slow.detail,
         slow.c == one.c);
  CHECK (slow.ran.panels >= 2 * devices
           && slow.ran.done[devices - 1] * devices < slow.ran.panels,
         "the slow GPU took %lld panels of %lld, no fewer than its share",
         (long long) slow.ran.done[devices - 1], (long long) slow.ran.panels);
  for (int after : { 0, 3 })
    {
      // The others slow, so the failing GPU surely takes panels (and copies) before the queue
      // is empty.
      for (int d = 0; d + 1 < devices; d++)
        mock_cuda_slow_device (d, 3000);
      mock_cuda_fail_device (devices - 1, after);
      const outcome failed = call (x, TILEMM_OP_NONE, TILEMM_OP_NONE, TILEMM_CHOOSE_GPU, false, 0,
                                   0, devices);
      mock_cuda_fail_device (-1, 0);
      mock_cuda_slow_device (-1, 0);
      char name[64];
      snprintf (name, sizeof name, "GPU %d (worker %d)", devices - 1, devices - 1);
      CHECK (failed.status == TILEMM_ECUDA && strstr (failed.detail, name) != NULL,
             "failing after %d copies: %s (%s)", after, tilemm_strerror (failed.status),
             failed.detail);
      CHECK (tilemm_cuda_bytes_held () == mock_cuda_device_bytes ()
               && tilemm_cuda_pinned_bytes_held () == mock_cuda_pinned_bytes ()
               && mock_cuda_pending_ops () == 0,
             "after the failure: tilemm holds %zu device bytes, the devices %zu; pinned %zu, %zu; "
             "%zu operations queued", tilemm_cuda_bytes_held (), mock_cuda_device_bytes (),
             tilemm_cuda_pinned_bytes_held (), mock_cuda_pinned_bytes (), mock_cuda_pending_ops ());
      tilemm_cuda_stats st;
      tilemm_cuda_last_stats (&st);
      CHECK (!st.ok, "the figures say the failed product succeeded");
      release_before_call = false;
      const outcome next = call (x, TILEMM_OP_NONE, TILEMM_OP_NONE, TILEMM_CHOOSE_GPU, false, 0, 0,
                                 devices);
      release_before_call = true;
      CHECK (next.status == TILEMM_OK && next.c == one.c, "the next product: %s, bitwise %d",
             next.detail, next.c == one.c);
    }
}
// A batch of pages over `devices` stand-in GPUs against the same on GPU 0: X rows x rows x pages
// (complex where asked), Y one page or as many (expansion), op_b; batched (the batched kernels,
// chunks of pages from one queue) or alone (TILEMM_PAGES_ALONE=1: each page a plain product,
// the pages spread over the devices).  Bitwise one GPU's, the plan's devices and chunks, each
// device's figures; a GPU failing part way fails the batch cleanly.
void multi_gpu_pages_case (int devices, bool alone, bool x_complex, bool y_one_page,
                           tilemm_op op_b, int64_t rows, int64_t pages)
{
  CHECK_CASE ("%d GPUs: %lld pages of %lldx%lld%s x %s%s, %s: bitwise one GPU's", devices,
              (long long) pages, (long long) rows, (long long) rows, x_complex ? " complex" : "",
              op_name (op_b), y_one_page ? " (one page, expanded)" : "",
              alone ? "alone" : "batched");
  const int64_t dims_x[] = { rows, rows, pages }, dims_y[] = { rows, rows, y_one_page ? 1 : pages };
  const tilemm_operand ox = { TILEMM_CLASS_DOUBLE, x_complex, 0, 3, rows, rows, 0, NULL, 0 };
  const tilemm_operand oy = { TILEMM_CLASS_DOUBLE, 0, 0, 3, rows, rows, 0, NULL, 0 };
  const std::vector<unsigned char> x = random_data ((size_t) (rows * rows * pages) * (x_complex ? 2 : 1), false);
  const std::vector<unsigned char> y = random_data ((size_t) (rows * rows * dims_y[2]), false);
  setenv ("TILEMM_PAGES_ALONE", alone ? "1" : "0", 1);
  std::vector<unsigned char> z[2];
  tilemm_batch batch[2];
  for (int i = 0; i < 2; i++)
    {
      tilemm_options opt;
      tilemm_options_init (&opt);
      opt.backend = TILEMM_CHOOSE_GPU;
      opt.precision = TILEMM_PRECISION_NATIVE;
      opt.devices.count = i == 0 ? 1 : devices;
      for (int d = 0; d < opt.devices.count; d++)
        opt.devices.device[d] = d;
      tilemm_error err = { TILEMM_OK, "" };
      tilemm_status st = tilemm_decide_batch (&ox, 3, dims_x, TILEMM_OP_NONE, &oy, 3, dims_y, op_b,
                                              &opt, &batch[i], &err);
      CHECK (st == TILEMM_OK && batch[i].action == TILEMM_BATCH_COMPUTE, "decide: %s", err.detail);
      if (st != TILEMM_OK || batch[i].action != TILEMM_BATCH_COMPUTE)
        break;
      const tilemm_route &r = batch[i].decision.route;
      z[i].assign ((size_t) (r.m * r.n * pages) * 8 * (r.result_complex ? 2 : 1), 0x5A);
      st = tilemm_batch_run (&batch[i], &opt, x.data (), y.data (), z[i].data (), &err);
      CHECK (st == TILEMM_OK, "run on %d GPU(s): %s", opt.devices.count, err.detail);
    }
  unsetenv ("TILEMM_PAGES_ALONE");
  CHECK (!z[0].empty () && z[0] == z[1], "not bitwise one GPU's pages");
  const tilemm_batch_plan &p = batch[1].plan;
  CHECK (p.backend == TILEMM_BACKEND_CUDA && p.per_page == alone && p.workers.count == devices
           && p.pages_over_devices == alone,
         "the plan: backend %d, alone %d, %d GPUs, over devices %d", (int) p.backend, p.per_page,
         p.workers.count, p.pages_over_devices);
  // The last GPU failing part way (the others slow, so it takes pages): the batch fails naming
  // it, nothing is left that tilemm does not hold, and the batch runs again bitwise.
  if (!z[0].empty ())
    {
      tilemm_options opt;
      tilemm_options_init (&opt);
      opt.backend = TILEMM_CHOOSE_GPU;
      opt.precision = TILEMM_PRECISION_NATIVE;
      opt.devices.count = devices;
      for (int d = 0; d < devices; d++)
        opt.devices.device[d] = d;
      std::vector<unsigned char> again (z[0].size (), 0x5A);
      tilemm_error err = { TILEMM_OK, "" };
      setenv ("TILEMM_PAGES_ALONE", alone ? "1" : "0", 1);
      for (int d = 0; d + 1 < devices; d++)
        mock_cuda_slow_device (d, 3000);
      mock_cuda_fail_device (devices - 1, 1);
      const tilemm_status failed = tilemm_batch_run (&batch[1], &opt, x.data (), y.data (),
                                                     again.data (), &err);
      mock_cuda_fail_device (-1, 0);
      mock_cuda_slow_device (-1, 0);
      char name[32];
      snprintf (name, sizeof name, "GPU %d", devices - 1);
      CHECK (failed == TILEMM_ECUDA && strstr (err.detail, name) != NULL,
             "a failing GPU: %s (%s)", tilemm_strerror (failed), err.detail);
      CHECK (tilemm_cuda_bytes_held () == mock_cuda_device_bytes ()
               && tilemm_cuda_pinned_bytes_held () == mock_cuda_pinned_bytes (),
             "after the failure: tilemm holds %zu, the devices %zu", tilemm_cuda_bytes_held (),
             mock_cuda_device_bytes ());
      const tilemm_status next = tilemm_batch_run (&batch[1], &opt, x.data (), y.data (),
                                                   again.data (), &err);
      unsetenv ("TILEMM_PAGES_ALONE");
      CHECK (next == TILEMM_OK && again == z[0], "the batch again: %s", err.detail);
    }
  tilemm_cuda_stats st;
  tilemm_cuda_last_stats (&st);
  long long items = 0;
  for (int i = 0; i < st.devices; i++)
    items += st.device[i].panels;
  const int64_t per_item = alone ? 1 : p.pages_per_chunk;
  CHECK (st.ok && st.devices == devices && items == (pages + per_item - 1) / per_item,
         "the figures: %d devices, %lld items of %lld pages", st.devices, items,
         (long long) per_item);
}
} // namespace

// "auto" for X'*X and X*X' of one object (the BLAS library's syrk/herk, Octave's A'*A): decided as
// a rank-k update through tilemm_decide_op (half the host's flops), so between the plain
// product's crossover and its own it goes to `*` (the next BLAS), and above its own to the GPU;
// one_triangle (the BLAS library) keeps the decision but drops the mirror.
void rank_k_decisions ()
{
  CHECK_CASE ("decide: a rank-k update goes to the GPU only where it pays, as one");
  struct shape { bool single, cplx; int64_t small, mid, large; } shapes[] = {
    { false, false, 64, 512, 4096 }, { true, false, 64, 512, 4096 },
    { false, true, 32, 300, 2048 }, { true, true, 32, 300, 2048 } };
  for (const shape &sh : shapes)
    for (int notrans = 0; notrans < 2; notrans++)
      for (int one_triangle = 0; one_triangle < 2; one_triangle++)
        {
          const tilemm_class cls = sh.single ? TILEMM_CLASS_SINGLE : TILEMM_CLASS_DOUBLE;
          const tilemm_op t = sh.cplx ? TILEMM_OP_CTRANSPOSE : TILEMM_OP_TRANSPOSE;
          // syrk 'N': A·op(A), A n×k; 'T'/'C': op(A)·A, A k×n.
          const tilemm_op op_a = notrans ? TILEMM_OP_NONE : t, op_b = notrans ? t : TILEMM_OP_NONE;
          const int64_t sizes[] = { sh.small, sh.mid, sh.large };
          for (int i = 0; i < 3; i++)
            {
              const int64_t n = sizes[i];
              static const char object = 0;
              const tilemm_operand x = { cls, sh.cplx, 0, 2, n, n, 0, &object, 0 };
              tilemm_operand plain_b = x;
              plain_b.identity = NULL;
              tilemm_options opt;
              tilemm_options_init (&opt);
              opt.one_triangle = one_triangle;
              tilemm_error err = { TILEMM_OK, "" };
              tilemm_decision d, plain;
              const tilemm_status st = tilemm_decide_op (&x, op_a, &x, op_b, &opt, &d, &err);
              const tilemm_status sp = tilemm_decide_op (&x, op_a, &plain_b, op_b, &opt, &plain,
                                                         &err);
              const char *what = i == 0 ? "small" : i == 1 ? "between the crossovers" : "large";
              CHECK (st == TILEMM_OK && sp == TILEMM_OK, "%s: status %d, %d", what, (int) st,
                     (int) sp);
              const bool gpu = d.action == TILEMM_DO_COMPUTE && d.backend == TILEMM_BACKEND_CUDA;
              const bool plain_gpu
                = plain.action == TILEMM_DO_COMPUTE && plain.backend == TILEMM_BACKEND_CUDA;
              CHECK (gpu == (i == 2),
                     "%s %s%s %s n=%lld (%s): X'X %s", sh.single ? "single" : "double",
                     sh.cplx ? "complex " : "", op_name (op_a), op_name (op_b), (long long) n,
                     what, gpu ? "on the GPU" : "delegated");
              CHECK (d.action == TILEMM_DO_DELEGATE || gpu, "%s: action %d", what, (int) d.action);
              if (i == 1)
                CHECK (plain_gpu, "n=%lld: the plain product of two objects is not on the GPU",
                       (long long) n);
              if (gpu)
                CHECK (d.route.mirror
                         == (one_triangle ? TILEMM_MIRROR_NONE
                             : sh.cplx    ? TILEMM_MIRROR_HERMITIAN
                                          : TILEMM_MIRROR_SYMMETRIC),
                       "one_triangle %d: mirror %d", one_triangle, (int) d.route.mirror);
            }
        }
}

// Options as a plain call gets them, with the backend `choice`, in native precision.
static tilemm_options native_options (tilemm_backend_choice choice)
{
  tilemm_options opt;
  tilemm_options_init (&opt);
  opt.backend = choice;
  opt.precision = TILEMM_PRECISION_NATIVE;
  return opt;
}

// Whether `ask` returns within five seconds while another product holds the GPU (its table's
// begin: the lock that gathering the devices' facts takes); -1 where the stand-in GPU could not
// be held.  The GPU is free again when this returns.
static int decided_while_gpu_held (const std::function<void ()> &ask)
{
  const tilemm_backend_ops *gpu = tilemm_backend_find (TILEMM_BACKEND_CUDA);
  void *state = NULL;
  tilemm_error held = { TILEMM_OK, "" };
  tilemm_call_plan holder;   // a product's turn takes its call plan (no fault armed)
  memset (&holder, 0, sizeof holder);
  holder.fault.kind = -1;
  if (!gpu || gpu->begin (&holder, &state, &held) != TILEMM_OK)
    {
      CHECK (0, "the stand-in GPU could not be held: %s", held.detail);
      return -1;
    }
  std::atomic<int> done (0);
  std::thread asker ([&] {
    ask ();
    done = 1;
  });
  for (int waited = 0; waited < 5000 && !done; waited++)
    usleep (1000);
  const int decided = done;
  gpu->end (state, TILEMM_OK);
  asker.join ();
  return decided;
}

// "auto" where the GPU does not pay is decided from the route, before any fact about the devices
// is gathered (their facts take the GPU's lock and probe): a small product is delegated at once
// even while a product holds the GPU, and without the lock's cost, which the BLAS library's
// hand-off of a 2x2 dgemm_ to the next BLAS must not pay.  Emulated precision is never delegated,
// so it waits for the facts (and the lock); a large product goes to the GPU once it is free.
void auto_decides_before_the_facts ()
{
  CHECK_CASE ("decide: \"auto\" delegates a small product before asking the devices");
  const operands x = make (false, false, false, 2, 2, 2, TILEMM_OP_NONE, TILEMM_OP_NONE);
  tilemm_status status = TILEMM_EINVAL;
  tilemm_decision d;
  const int decided = decided_while_gpu_held ([&] {
    const tilemm_options opt = native_options (TILEMM_CHOOSE_AUTO);
    tilemm_error err = { TILEMM_OK, "" };
    status = tilemm_decide_op (&x.a, TILEMM_OP_NONE, &x.b, TILEMM_OP_NONE, &opt, &d, &err);
  });
  if (decided < 0)
    return;
  CHECK (decided, "a 2x2 product's decision waited for the GPU's lock (the devices' facts "
                  "gathered before the \"auto\" rule)");
  CHECK (status == TILEMM_OK && d.action == TILEMM_DO_DELEGATE, "2x2 auto: status %d, action %d",
         (int) status, (int) d.action);
  const tilemm_operand big = { TILEMM_CLASS_DOUBLE, 0, 0, 2, 4096, 4096, 0, NULL, 0 };
  tilemm_options opt;
  tilemm_options_init (&opt);
  opt.precision = TILEMM_PRECISION_NATIVE;
  tilemm_error err = { TILEMM_OK, "" };
  status = tilemm_decide_op (&big, TILEMM_OP_NONE, &big, TILEMM_OP_NONE, &opt, &d, &err);
  CHECK (status == TILEMM_OK && d.action == TILEMM_DO_COMPUTE && d.backend == TILEMM_BACKEND_CUDA,
         "4096^3 auto: status %d, action %d, backend %d", (int) status, (int) d.action,
         (int) d.backend);
  opt.precision = TILEMM_PRECISION_EMULATED;
  status = tilemm_decide_op (&x.a, TILEMM_OP_NONE, &x.b, TILEMM_OP_NONE, &opt, &d, &err);
  CHECK (status == TILEMM_OK && d.action == TILEMM_DO_COMPUTE && d.backend == TILEMM_BACKEND_CPU,
         "2x2 auto emulated: status %d, action %d, backend %d", (int) status, (int) d.action,
         (int) d.backend);
}

// pagemtimes' "auto": a batch the GPU cannot pay for is decided from its route and page count,
// without the GPU's lock (held here by another product); a batch it pays for still goes there.
void auto_batch_decides_before_the_facts ()
{
  CHECK_CASE ("decide: \"auto\" keeps a small batch on the CPU before asking the devices");
  const tilemm_operand page = { TILEMM_CLASS_DOUBLE, 0, 0, 2, 4, 4, 0, NULL, 0 };
  const int64_t small_dims[] = { 4, 4, 3 };
  tilemm_status status = TILEMM_EINVAL;
  tilemm_batch batch;
  const int decided = decided_while_gpu_held ([&] {
    const tilemm_options opt = native_options (TILEMM_CHOOSE_AUTO);
    tilemm_error err = { TILEMM_OK, "" };
    status = tilemm_decide_batch (&page, 3, small_dims, TILEMM_OP_NONE, &page, 3, small_dims,
                                  TILEMM_OP_NONE, &opt, &batch, &err);
  });
  if (decided < 0)
    return;
  CHECK (decided, "3 pages of 4x4: the decision waited for the GPU's lock (the devices' facts "
                  "gathered before the \"auto\" rule)");
  CHECK (status == TILEMM_OK && batch.action == TILEMM_BATCH_COMPUTE
           && batch.plan.backend == TILEMM_BACKEND_CPU,
         "3 pages of 4x4 auto: status %d, action %d, backend %d", (int) status,
         (int) batch.action, (int) batch.plan.backend);
  const tilemm_operand big = { TILEMM_CLASS_DOUBLE, 0, 0, 2, 2048, 2048, 0, NULL, 0 };
  const int64_t big_dims[] = { 2048, 2048, 16 };
  tilemm_options opt;
  tilemm_options_init (&opt);
  opt.precision = TILEMM_PRECISION_NATIVE;
  tilemm_error err = { TILEMM_OK, "" };
  status = tilemm_decide_batch (&big, 3, big_dims, TILEMM_OP_NONE, &big, 3, big_dims,
                                TILEMM_OP_NONE, &opt, &batch, &err);
  CHECK (status == TILEMM_OK && batch.plan.backend == TILEMM_BACKEND_CUDA,
         "16 pages of 2048^2 auto: status %d (%s), backend %d", (int) status, err.detail,
         (int) batch.plan.backend);
}

// __tilemm_pages_plan__'s text (tilemm_batch_describe) says only what this batch's decision
// weighed: a batch left over from whatever the caller's memory held (here every byte 0xA5)
// describes no precision "auto" weighed and prints no byte of that memory.
static void batch_describe_reads_only_its_decision ()
{
  CHECK_CASE ("decide: a batch's text reads only what its decision set");
  const tilemm_operand page = { TILEMM_CLASS_DOUBLE, 0, 0, 2, 8, 8, 0, NULL, 0 };
  const int64_t dims[] = { 8, 8, 50 };
  tilemm_batch batch;
  memset (&batch, 0xA5, sizeof batch);
  const tilemm_options opt = native_options (TILEMM_CHOOSE_AUTO);
  tilemm_error err = { TILEMM_OK, "" };
  if (tilemm_decide_batch (&page, 3, dims, TILEMM_OP_NONE, &page, 3, dims, TILEMM_OP_NONE, &opt,
                           &batch, &err)
      != TILEMM_OK)
    {
      CHECK (false, "50 pages of 8x8: %s", err.detail);
      return;
    }
  char text[1 << 14];
  tilemm_batch_describe (&batch, text, sizeof text);
  bool printable = true;
  for (const char *c = text; *c; c++)
    printable = printable && ((*c >= 32 && *c < 127) || *c == '\n');
  CHECK (printable, "the batch's text has bytes it did not write:\n%s", text);
  CHECK (strstr (text, "precision auto:") == NULL,
         "the batch's text names a precision \"auto\" it did not weigh:\n%s", text);
  CHECK (strstr (text, "auto: host loop") != NULL, "the batch's text has no ways:\n%s", text);
}

// An emulated batch's plan says its pages run alone (per_page: exec/decide.c sets it for every
// emulated batch, there being no emulated batched kernel), its text too, and the batch is bitwise
// the loop of its pages' products.  The executor routes by the plan alone (exec/batch.c): the
// emulated decision under a plan that says batched (a native batch's of the same shape) runs the
// batched kernels.
namespace
{
void emulated_batch_runs_as_its_plan_says ()
{
  const int64_t dims[] = { 24, 24, 3 };
  const tilemm_operand page = { TILEMM_CLASS_DOUBLE, 0, 0, 3, 24, 24, 0, NULL, 0 };
  const std::vector<unsigned char> x = random_data (24 * 24 * 3, false);
  const std::vector<unsigned char> y = random_data (24 * 24 * 3, false);
  const size_t page_bytes = 24 * 24 * 8;
  for (tilemm_backend_choice choice : { TILEMM_CHOOSE_CPU, TILEMM_CHOOSE_GPU })
    {
      const bool gpu = choice == TILEMM_CHOOSE_GPU;
      CHECK_CASE ("an emulated batch on the %s runs its pages alone, as its plan says",
                  gpu ? "gpu" : "cpu");
      tilemm_options opt = native_options (choice);
      opt.precision = TILEMM_PRECISION_EMULATED;
      tilemm_error err = { TILEMM_OK, "" };
      tilemm_batch batch;
      setenv ("TILEMM_PAGES_ALONE", "0", 1);   // not alone by the settings: by the precision
      tilemm_status st = tilemm_decide_batch (&page, 3, dims, TILEMM_OP_NONE, &page, 3, dims,
                                              TILEMM_OP_NONE, &opt, &batch, &err);
      CHECK (st == TILEMM_OK && batch.action == TILEMM_BATCH_COMPUTE && batch.decision.emulated,
             "decide: %s", err.detail);
      if (st != TILEMM_OK || batch.action != TILEMM_BATCH_COMPUTE)
        {
          unsetenv ("TILEMM_PAGES_ALONE");
          continue;
        }
      CHECK (batch.plan.per_page == 1 && !batch.plan.pages_over_devices,
             "the plan: per_page %d, over devices %d", batch.plan.per_page,
             batch.plan.pages_over_devices);
      char text[1 << 14];
      tilemm_batch_describe (&batch, text, sizeof text);
      CHECK (strstr (text, "per_page: 1\n") != NULL && strstr (text, "each page:\n") != NULL,
             "the plan in words:\n%s", text);
      std::vector<unsigned char> z (3 * page_bytes, 0x5A), loop (3 * page_bytes, 0xA5);
      st = tilemm_batch_run (&batch, &opt, x.data (), y.data (), z.data (), &err);
      CHECK (st == TILEMM_OK, "run: %s", err.detail);
      for (int p = 0; p < 3 && st == TILEMM_OK; p++)
        st = tilemm_run (&batch.decision, &opt, x.data () + p * page_bytes,
                         y.data () + p * page_bytes, loop.data () + p * page_bytes, &err);
      CHECK (st == TILEMM_OK && z == loop, "not bitwise the loop of its pages: %s", err.detail);
      if (gpu)
        {
          CHECK_CASE ("the batch's route is its plan's: an emulated decision, a batched plan");
          tilemm_batch batched;
          opt.precision = TILEMM_PRECISION_NATIVE;
          st = tilemm_decide_batch (&page, 3, dims, TILEMM_OP_NONE, &page, 3, dims,
                                    TILEMM_OP_NONE, &opt, &batched, &err);
          CHECK (st == TILEMM_OK && !batched.plan.per_page
                   && batched.plan.backend == TILEMM_BACKEND_CUDA,
                 "the native batch: %s (per_page %d)", err.detail, batched.plan.per_page);
          batched.decision = batch.decision;
          const unsigned long long before = mock_batched_launches ();
          if (st == TILEMM_OK)
            st = tilemm_batch_run (&batched, &opt, x.data (), y.data (), z.data (), &err);
          CHECK (st == TILEMM_OK && mock_batched_launches () > before,
                 "%llu batched launches: %s", mock_batched_launches () - before, err.detail);
        }
      unsetenv ("TILEMM_PAGES_ALONE");
    }
}
} // namespace

// pagemtimes' "auto" hands pages to the host's own `*` where the model finds the loop of it
// fastest (a page or a few of 128x128: our CPU team and the GPU's call cost more), and only
// there: not where "cpu" or "gpu" is asked, not in emulated precision, not for many small
// pages (the CPU's batched path) nor many large ones (the GPU).
static tilemm_batch_action batch_action (int64_t rows, int64_t pages, tilemm_backend_choice choice,
                                         tilemm_precision precision, tilemm_backend *backend)
{
  const tilemm_operand page = { TILEMM_CLASS_DOUBLE, 0, 0, 2, rows, rows, 0, NULL, 0 };
  const int64_t dims[] = { rows, rows, pages };
  tilemm_options opt = native_options (choice);
  opt.precision = precision;
  tilemm_error err = { TILEMM_OK, "" };
  tilemm_batch batch;
  if (tilemm_decide_batch (&page, 3, dims, TILEMM_OP_NONE, &page, 3, dims, TILEMM_OP_TRANSPOSE,
                           &opt, &batch, &err)
      != TILEMM_OK)
    return (tilemm_batch_action) -1;
  *backend = batch.plan.backend;
  return batch.action;
}

void auto_batch_hands_pages_to_the_host ()
{
  CHECK_CASE ("decide: \"auto\" hands a few mid-size pages to the host's *, and only those");
  tilemm_backend be = TILEMM_BACKEND_CPU;
  const tilemm_precision native = TILEMM_PRECISION_NATIVE;
  CHECK (batch_action (128, 1, TILEMM_CHOOSE_AUTO, native, &be) == TILEMM_BATCH_HOST,
         "one page of 128x128, auto: not the host's *");
  CHECK (batch_action (128, 1, TILEMM_CHOOSE_CPU, native, &be) == TILEMM_BATCH_COMPUTE
           && be == TILEMM_BACKEND_CPU, "one page of 128x128, cpu: not our CPU path");
  CHECK (batch_action (128, 1, TILEMM_CHOOSE_GPU, native, &be) == TILEMM_BATCH_COMPUTE
           && be == TILEMM_BACKEND_CUDA, "one page of 128x128, gpu: not the GPU");
  CHECK (batch_action (128, 1, TILEMM_CHOOSE_AUTO, TILEMM_PRECISION_EMULATED, &be)
           == TILEMM_BATCH_COMPUTE, "one emulated page of 128x128, auto: handed to the host's *");
  CHECK (batch_action (4, 10000, TILEMM_CHOOSE_AUTO, native, &be) == TILEMM_BATCH_COMPUTE,
         "10^4 pages of 4x4, auto: not computed by us");
  CHECK (batch_action (256, 200, TILEMM_CHOOSE_AUTO, native, &be) == TILEMM_BATCH_COMPUTE
           && be == TILEMM_BACKEND_CUDA, "200 pages of 256x256, auto: not the GPU");
}

// A GPU batch's host copies: one thread for a batch of under 64 MiB (a team's wake-up costs
// more there, and waits for cores where another library's threads spin), the default team for
// a large one; the CPU's plan names none.
void batch_copy_team ()
{
  CHECK_CASE ("plan: a small GPU batch copies on one host thread, a large one on the team");
  const int64_t sizes[][2] = { { 128, 10 }, { 256, 10 }, { 64, 10000 } };
  const int want[] = { 1, 1, 0 };
  for (int i = 0; i < 3; i++)
    {
      const tilemm_operand page = { TILEMM_CLASS_DOUBLE, 0, 0, 2, sizes[i][0], sizes[i][0], 0,
                                    NULL, 0 };
      const int64_t dims[] = { sizes[i][0], sizes[i][0], sizes[i][1] };
      for (tilemm_backend_choice choice : { TILEMM_CHOOSE_GPU, TILEMM_CHOOSE_CPU })
        {
          const tilemm_options opt = native_options (choice);
          tilemm_error err = { TILEMM_OK, "" };
          tilemm_batch batch;
          const tilemm_status status
            = tilemm_decide_batch (&page, 3, dims, TILEMM_OP_NONE, &page, 3, dims, TILEMM_OP_NONE,
                                   &opt, &batch, &err);
          const int expected = choice == TILEMM_CHOOSE_GPU ? want[i] : 0;
          // (The GPU's copy teams follow it: one thread where the plan copies on one.)
          CHECK (status == TILEMM_OK && batch.plan.copy_threads == expected
                   && (expected != 1 || batch.plan.teams[0].threads == 1),
                 "%lld pages of %lldx%lld on %s: status %d, copy threads %d, want %d",
                 (long long) sizes[i][1], (long long) sizes[i][0], (long long) sizes[i][0],
                 choice == TILEMM_CHOOSE_GPU ? "gpu" : "cpu", (int) status,
                 batch.plan.copy_threads, expected);
        }
    }
}

// The precision is read once a call (tilemm_precision_in_effect, TILEMM_PRECISION where the
// options leave it unset), by tilemm_decide_op and by tilemm_decide_batch alike (which hands it
// to the page's decision), with the same errors for a bad TILEMM_PRECISION and for "moduli"
// without the emulated precision.
void precision_read_once ()
{
  CHECK_CASE ("decide: the precision is read once a call");
  const char *was = getenv ("TILEMM_PRECISION");
  const std::string saved = was ? was : "";
  const tilemm_operand x = { TILEMM_CLASS_DOUBLE, 0, 0, 2, 64, 64, 0, NULL, 0 };
  const int64_t pages[] = { 64, 64, 3 }, empty[] = { 64, 64, 0 };
  for (const char *value : { "native", "emulated", "bogus" })
    for (int moduli : { 0, 5 })
      {
        setenv ("TILEMM_PRECISION", value, 1);
        tilemm_options opt;
        tilemm_options_init (&opt);
        opt.backend = TILEMM_CHOOSE_CPU;
        opt.moduli = moduli;
        const bool bad = strcmp (value, "bogus") == 0
                         || (moduli > 0 && strcmp (value, "emulated") != 0);
        tilemm_error err = { TILEMM_OK, "" };
        tilemm_decision d;
        int before = precision_reads;
        tilemm_status st = tilemm_decide_op (&x, TILEMM_OP_NONE, &x, TILEMM_OP_NONE, &opt, &d,
                                             &err);
        CHECK (precision_reads - before == 1, "tilemm_decide_op (%s, moduli %d) read "
               "TILEMM_PRECISION %d times", value, moduli, precision_reads - before);
        CHECK ((st == TILEMM_EOPTION) == bad && (bad || st == TILEMM_OK),
               "tilemm_decide_op (%s, moduli %d): status %d", value, moduli, (int) st);
        for (const int64_t *dims : { pages, empty })
          {
            tilemm_batch batch;
            before = precision_reads;
            st = tilemm_decide_batch (&x, 3, dims, TILEMM_OP_NONE, &x, 3, dims, TILEMM_OP_NONE,
                                      &opt, &batch, &err);
            CHECK (precision_reads - before == 1, "tilemm_decide_batch (%s, moduli %d, %lld "
                   "pages) read TILEMM_PRECISION %d times", value, moduli, (long long) dims[2],
                   precision_reads - before);
            // (An empty batch checks the precision, not its options: as before.)
            const bool batch_bad = strcmp (value, "bogus") == 0 || (bad && dims[2] > 0);
            CHECK ((st == TILEMM_EOPTION) == batch_bad && (batch_bad || st == TILEMM_OK),
                   "tilemm_decide_batch (%s, moduli %d, %lld pages): status %d", value, moduli,
                   (long long) dims[2], (int) st);
          }
      }
  if (was)
    setenv ("TILEMM_PRECISION", saved.c_str (), 1);
  else
    unsetenv ("TILEMM_PRECISION");
}

// The emulated passes over simulated devices run on the simulated devices' table, as the native
// product does (tilemm_exec_begin): a device set to fail (TILEMM_SIMULATE_FAIL, read into the
// plan) fails the product with the simulated error.  On the plain CPU table nothing would fail:
// the result is bitwise the same either way, so only the fault shows which table ran.
void emulated_passes_on_simulated_devices ()
{
  CHECK_CASE ("emulated passes over 3 simulated devices run on their table (a fault fails it)");
  const operands x = make (false, false, false, 300, 280, 64, TILEMM_OP_NONE, TILEMM_OP_NONE);
  setenv ("TILEMM_SIMULATE_FAIL", "1", 1);
  const outcome o = call (x, TILEMM_OP_NONE, TILEMM_OP_NONE, TILEMM_CHOOSE_CPU, true, 0, 3, 1);
  unsetenv ("TILEMM_SIMULATE_FAIL");
  CHECK (o.d.action == TILEMM_DO_COMPUTE && !o.d.plan.emu_one_pass && o.d.plan.emu_workers > 1,
         "the plan: action %d, one pass %d, %d workers", (int) o.d.action, o.d.plan.emu_one_pass,
         o.d.plan.emu_workers);
  CHECK (o.status == TILEMM_ECUDA && strstr (o.detail, "simulated failure") != NULL,
         "simulated device 1 set to fail: status %d (%s)", (int) o.status, o.detail);
  const outcome fine = call (x, TILEMM_OP_NONE, TILEMM_OP_NONE, TILEMM_CHOOSE_CPU, true, 0, 3, 1);
  CHECK (fine.status == TILEMM_OK, "no fault: status %d (%s)", (int) fine.status, fine.detail);
}

// The machine's facts measured on the stand-in runtime: every part of the GPU's calibration runs
// through the same path a product takes (its numbers are the stand-in's, not a GPU's), and
// nothing is left held; a GPU that fails while it is measured is an error, never half the facts.
void calibration_on_the_stand_in ()
{
  CHECK_CASE ("calibration: the stand-in GPUs measured through the product's own path");
  const size_t device0 = mock_cuda_device_bytes (), pinned0 = mock_cuda_pinned_bytes ();
  tilemm_machine_facts f;
  tilemm_error err = { TILEMM_OK, "" };
  const tilemm_status st = tilemm_calibrate (NULL, &f, &err);
  CHECK (st == TILEMM_OK, "%s", err.detail);
  const int gpus = tilemm_cuda_device_count ();
  CHECK (f.gpu_measured && f.gpus == gpus && f.gpu_all_count == (gpus > 1 ? gpus : 0)
           && (gpus < 2 || f.gpu_all_speedup > 0),
         "%d GPUs measured of %d, together %d (speedup %g)", f.gpus, gpus, f.gpu_all_count,
         f.gpu_all_speedup);
  CHECK (gpus < 2
           || (f.gpu_all_every.points >= 3 && f.gpu_all_one.points == f.gpu_all_every.points),
         "every GPU against one kept by size: %d and %d points", f.gpu_all_one.points,
         f.gpu_all_every.points);
  // The peer rate: every pair of the stand-in's GPUs reaches the other, so it is measured, and
  // kept in the store's text.
  {
    char text[16384];
    tilemm_machine_facts back;
    CHECK (tilemm_facts_print (&f, text, sizeof text) < sizeof text
             && tilemm_facts_parse (text, &back) == TILEMM_OK
             && back.gpu_peer_bytes_per_s == f.gpu_peer_bytes_per_s
             && back.gpu_all_every.points == f.gpu_all_every.points
             && (gpus < 2 ? f.gpu_peer_bytes_per_s == 0 : f.gpu_peer_bytes_per_s > 0),
           "%d GPUs: the peer rate %g B/s, read back %g", gpus, f.gpu_peer_bytes_per_s,
           back.gpu_peer_bytes_per_s);
  }
  if (gpus > 1)
    {
      // A pair that cannot reach: no peer rate (the model's conservative one serves), nothing
      // copied between them.
      tilemm_cuda_release ();
      mock_cuda_peer_access (0, 1, 0);
      tilemm_machine_facts off;
      tilemm_error e0 = { TILEMM_OK, "" };
      const tilemm_status st0 = tilemm_calibrate (NULL, &off, &e0);
      mock_cuda_peer_access (0, 1, 1);
      CHECK (st0 == TILEMM_OK && off.gpu_peer_bytes_per_s == 0,
             "GPU 0 cannot read GPU 1: status %d (%s), peer rate %g", (int) st0, e0.detail,
             off.gpu_peer_bytes_per_s);
    }
  CHECK (f.gpu_call_s > 0 && f.gpu_bus_bytes_per_s > 0, "the fit: %g s a call, %g B/s",
         f.gpu_call_s, f.gpu_bus_bytes_per_s);
  bool rates = true;
  for (int t = 0; t < TILEMM_NTYPES; t++)
    rates = rates && f.gpu_kernel_flops_per_s[t] > 0 && isfinite (f.gpu_kernel_flops_per_s[t])
            && f.gpu_batch_flops_per_s[t] > 0;
  CHECK (rates, "every type's kernels and batch measured");
  bool curves = true;
  for (int t = 0; t < TILEMM_NTYPES; t++)
    curves = curves && f.gpu_curve[t].points > 0
             && f.gpu_curve[t].flops[0] == tilemm_model_flops ((tilemm_type) t, 4, 4, 4);
  const tilemm_curve &dc = f.gpu_curve[TILEMM_DOUBLE];
  CHECK (curves && dc.points >= 4
           && dc.flops[dc.points - 1] >= tilemm_model_flops (TILEMM_DOUBLE, 128, 128, 128),
         "every type's calls end to end from 4; double's past 64 (the line's products): %d "
         "points, the last %g flops",
         dc.points, dc.points > 0 ? dc.flops[dc.points - 1] : 0.0);
  for (int g = 0; g < f.gpus; g++)
    CHECK (f.gpu[g].ordinal == g && f.gpu[g].up_bytes_per_s > 0 && f.gpu[g].down_bytes_per_s > 0
             && f.gpu[g].up_busy_bytes_per_s > 0 && f.gpu[g].down_busy_bytes_per_s > 0
             && f.gpu[g].kernel_flops_per_s[TILEMM_DOUBLE] > 0,
           "GPU %d: links %g %g %g %g", g, f.gpu[g].up_bytes_per_s, f.gpu[g].down_bytes_per_s,
           f.gpu[g].up_busy_bytes_per_s, f.gpu[g].down_busy_bytes_per_s);
  CHECK (f.cpu_measured && !f.host_measured, "the CPU's curves; no host product given");
  // The stand-in "times" its int8 GEMM at a nominal 1e11 operations a second
  // (tests/mock_cuda/cuda_op_none.c): the part measured through the GPU table's int8_rate.
  CHECK ((f.parts & TILEMM_FACTS_INT8) && fabs (f.gpu_int8_ops_per_s / 1e11 - 1) < 1e-9,
         "the int8 part: parts %#x, %g ops/s", f.parts, f.gpu_int8_ops_per_s);
  tilemm_cuda_release ();
  CHECK (mock_cuda_device_bytes () == device0 && mock_cuda_pinned_bytes () == pinned0,
         "nothing held: %zu device bytes (%zu before), %zu pinned (%zu)",
         mock_cuda_device_bytes (), device0, mock_cuda_pinned_bytes (), pinned0);

  CHECK_CASE ("calibration: a GPU that fails while measured: an error, nothing held");
  // The stand-in refuses allocations over 1 MiB, as a GPU that another process fills would.
  mock_cuda_fail_malloc_over ((size_t) 1 << 20);
  tilemm_error e2 = { TILEMM_OK, "" };
  const tilemm_status failed = tilemm_calibrate (NULL, &f, &e2);
  mock_cuda_fail_malloc_over (0);
  CHECK (failed != TILEMM_OK && e2.detail[0], "status %d: %s", (int) failed, e2.detail);
  tilemm_cuda_release ();
  CHECK (mock_cuda_device_bytes () == device0 && mock_cuda_pinned_bytes () == pinned0,
         "nothing held after the failure: %zu device bytes", mock_cuda_device_bytes ());
}

// The emulated product of operands holding NaN and Inf (the plan's emu_on_nonfinite): every entry
// in a row of op(A) or a column of op(B) holding one is NaN or Inf, and every other entry is
// bitwise the emulated product of the finite rows and columns alone (a call of its own): the
// lines zeroed in the executor's copies change no statistic of the others.
void emulated_nonfinite_case (tilemm_op op_a, tilemm_op op_b, int devices)
{
  CHECK_CASE ("emulated %s%s with NaN and Inf, %d device(s): the rest bitwise the finite lines' "
              "product", op_name (op_a), op_name (op_b), devices);
  const int64_t m = 41, n = 37, k = 50;
  operands x = make (false, false, false, m, n, k, op_a, op_b);
  double *a = (double *) x.da.data (), *b = (double *) x.db.data ();
  // op(A)(i, p) and op(B)(p, j) as stored.
  auto at = [&] (int64_t i, int64_t p) -> double & {
    return op_a == TILEMM_OP_NONE ? a[i + p * m] : a[p + i * k];
  };
  auto bt = [&] (int64_t p, int64_t j) -> double & {
    return op_b == TILEMM_OP_NONE ? b[p + j * k] : b[j + p * n];
  };
  for (int64_t p = 0; p < k; p++)
    at (9, p) *= 1e200; // a wide row: the rule's moduli may not carry its pairs
  at (3, 5) = NAN;
  at (17, 0) = INFINITY;
  bt (44, 8) = -INFINITY;
  bt (2, 30) = NAN;
  std::vector<bool> bad_row (m, false), bad_col (n, false);
  bad_row[3] = bad_row[17] = true;
  bad_col[8] = bad_col[30] = true;
  const outcome o = call (x, op_a, op_b, TILEMM_CHOOSE_CPU, true, 0, devices, 1);
  CHECK (o.status == TILEMM_OK, "with NaN and Inf: %s (%s)", tilemm_strerror (o.status), o.detail);
  // The finite lines alone, untransposed.
  operands f = make (false, false, false, m - 2, n - 2, k, TILEMM_OP_NONE, TILEMM_OP_NONE);
  double *fa = (double *) f.da.data (), *fb = (double *) f.db.data ();
  for (int64_t i = 0, i2 = 0; i < m; i++)
    if (!bad_row[i])
      {
        for (int64_t p = 0; p < k; p++)
          fa[i2 + p * (m - 2)] = at (i, p);
        i2++;
      }
  for (int64_t j = 0, j2 = 0; j < n; j++)
    if (!bad_col[j])
      {
        for (int64_t p = 0; p < k; p++)
          fb[p + j2 * k] = bt (p, j);
        j2++;
      }
  const outcome alone = call (f, TILEMM_OP_NONE, TILEMM_OP_NONE, TILEMM_CHOOSE_CPU, true, 0,
                              devices, 1);
  CHECK (alone.status == TILEMM_OK, "the finite lines alone: %s (%s)",
         tilemm_strerror (alone.status), alone.detail);
  if (o.status != TILEMM_OK || alone.status != TILEMM_OK)
    return;
  const double *c = (const double *) o.c.data (), *c2 = (const double *) alone.c.data ();
  int64_t differ = 0, finite_bad = 0;
  for (int64_t j = 0, j2 = 0; j < n; j++)
    {
      for (int64_t i = 0, i2 = 0; i < m; i++)
        {
          if (bad_row[i] || bad_col[j])
            finite_bad += isfinite (c[i + j * m]) != 0;
          else
            differ += memcmp (&c[i + j * m], &c2[i2 + j2 * (m - 2)], sizeof (double)) != 0;
          i2 += !bad_row[i];
        }
      j2 += !bad_col[j];
    }
  CHECK (differ == 0, "%lld entries differ from the finite lines' own product", (long long) differ);
  CHECK (finite_bad == 0, "%lld entries of a non-finite line are finite", (long long) finite_bad);
}

// The emulated product of one pass pipelined in panels of C's columns (TILEMM_EMU_PIPE_COLS, the
// plan's emu_pipe_cols) gives bitwise the product of one panel: ragged shapes, panels that do not
// divide n, one column a panel, 1-row and 1-column products, transposed and complex operands.
// `spread`: a quarter of B's columns over many binades, the last ones (1: the first panel's
// statistics select another branch than the whole product's, and its panels run again under the
// whole one's) or the first ones (2: the later panels' own statistics select another branch than
// the whole's).  The second half of k cancels the first but for a few bits (so that the bits of
// C depend on the branch: well-conditioned entries come out correctly rounded under any).
void emulated_pipelined_case (bool a_complex, bool b_complex, tilemm_op op_a, tilemm_op op_b,
                              int64_t m, int64_t n, int64_t k, int64_t cols, int spread,
                              int64_t first = 0)
{
  CHECK_CASE ("emulated pipelined in panels of %lld (the first %lld): %s%s %s%s %lld x %lld x %lld%s",
              (long long) cols, (long long) (first > 0 ? first : cols), a_complex ? "complex " : "", op_name (op_a),
              b_complex ? "complex " : "", op_name (op_b), (long long) m, (long long) n,
              (long long) k, spread == 1 ? ", B's last columns spread" : spread == 2 ? ", B's first columns spread" : "");
  operands x = make (false, a_complex, b_complex, m, n, k, op_a, op_b);
  const int parts = b_complex ? 2 : 1;
  const int64_t br = op_b == TILEMM_OP_NONE ? k : n, bc = op_b == TILEMM_OP_NONE ? n : k;
  if (spread)
    {
      // op(B)'s last quarter of columns (the last one at least) spread over 2^-3 .. 2^3: their
      // pairs need more bits than the others', so the first panel's branch is not the whole's.
      double *db = (double *) x.db.data ();
      const int64_t quarter = n / 4 > 1 ? n / 4 : 1;
      for (int64_t j = spread == 1 ? n - quarter : 0; j < (spread == 1 ? n : quarter); j++)
        for (int64_t p = 0; p < k; p++)
          {
            const int64_t r = op_b == TILEMM_OP_NONE ? p : j, c = op_b == TILEMM_OP_NONE ? j : p;
            for (int q = 0; q < parts; q++)
              db[(size_t) (r + c * br) * parts + q] *= ldexp (1.0, (int) ((p * 5 + j * 3 + q) % 7) - 3);
          }
    }
  if (spread)
    {
      // op(A)(i, p + h) = op(A)(i, p), op(B)(p + h, j) = −op(B)(p, j)·(1 + δ): C is the δ parts.
      const int ap = a_complex ? 2 : 1, h = (int) (k / 2);
      const int64_t ar = op_a == TILEMM_OP_NONE ? m : k;
      double *da = (double *) x.da.data (), *db = (double *) x.db.data ();
      auto at_a = [&] (int64_t i, int64_t p) {
        return (size_t) (op_a == TILEMM_OP_NONE ? i + p * ar : p + i * ar) * ap;
      };
      auto at_b = [&] (int64_t p, int64_t j) {
        return (size_t) (op_b == TILEMM_OP_NONE ? p + j * br : j + p * br) * parts;
      };
      for (int64_t p = 0; p < h; p++)
        {
          for (int64_t i = 0; i < m; i++)
            for (int q = 0; q < ap; q++)
              da[at_a (i, p + h) + q] = da[at_a (i, p) + q];
          for (int64_t j = 0; j < n; j++)
            for (int q = 0; q < parts; q++)
              db[at_b (p + h, j) + q] = -db[at_b (p, j) + q] * (1.0 + ldexp ((double) ((p + j) % 3 + 1), -30));
        }
      if (k % 2)
        for (int64_t j = 0; j < n; j++)
          for (int q = 0; q < parts; q++)
            db[at_b (k - 1, j) + q] *= 0x1p-40;
    }
  if (spread == 1 && a_complex == b_complex)
    {
      // The data do what they are for: the first panel's statistics select another branch.
      const tilemm_type type = a_complex ? TILEMM_COMPLEX_DOUBLE : TILEMM_DOUBLE;
      const int64_t ar = op_a == TILEMM_OP_NONE ? m : k, ac = op_a == TILEMM_OP_NONE ? k : m;
      tilemm_view va, vb, vfirst;
      tilemm_view_init (&va, type, ar, ac, ar, x.da.data ());
      tilemm_view_init (&vb, type, br, bc, br, x.db.data ());
      const int64_t w0 = first > 0 ? first : cols;
      vfirst = op_b == TILEMM_OP_NONE ? tilemm_view_sub (&vb, 0, 0, k, w0)
                                      : tilemm_view_sub (&vb, 0, 0, w0, k);
      tilemm_emu_stats sw, sf;
      tilemm_error err;
      tilemm_emu_options eo;
      tilemm_emu_default_options (&eo, type);
      tilemm_emu_plan pw, pf;
      CHECK (tilemm_emu_stats_cpu_op (op_a, &va, op_b, &vb, &sw, &err) == TILEMM_OK
               && tilemm_emu_stats_cpu_op (op_a, &va, op_b, &vfirst, &sf, &err) == TILEMM_OK,
             "statistics: %s", err.detail);
      tilemm_emu_decide (&eo, &sw, &pw);
      tilemm_emu_decide (&eo, &sf, &pf);
      CHECK (pw.verdict == TILEMM_EMU_OK && (pw.pa != pf.pa || pw.pb != pf.pb
                                             || pw.moduli != pf.moduli),
             "the first panel's branch (%d moduli, %d, %d) is the whole's (%d, %d, %d, verdict %d)",
             pf.moduli, pf.pa, pf.pb, pw.moduli, pw.pa, pw.pb, (int) pw.verdict);
    }
  setenv ("TILEMM_EMU_PIPE_COLS", "-1", 1);
  const outcome whole = call (x, op_a, op_b, TILEMM_CHOOSE_GPU, true, 0, 0, 1);
  char width[32];
  snprintf (width, sizeof width, "%lld", (long long) cols);
  setenv ("TILEMM_EMU_PIPE_COLS", width, 1);
  snprintf (width, sizeof width, "%lld", (long long) first);
  setenv ("TILEMM_EMU_PIPE_FIRST", width, 1);
  const outcome piped = call (x, op_a, op_b, TILEMM_CHOOSE_GPU, true, 0, 0, 1);
  unsetenv ("TILEMM_EMU_PIPE_COLS");
  unsetenv ("TILEMM_EMU_PIPE_FIRST");
  CHECK (whole.status == TILEMM_OK && piped.status == TILEMM_OK, "status %s (%s), %s (%s)",
         tilemm_strerror (whole.status), whole.detail, tilemm_strerror (piped.status),
         piped.detail);
  const int64_t w0 = first > 0 ? first : cols;
  CHECK (whole.d.plan.emu_pipe_first == 0, "TILEMM_EMU_PIPE_COLS=-1 pipelined: %lld",
         (long long) whole.d.plan.emu_pipe_first);
  CHECK (piped.d.plan.emu_pipe_first == (w0 < n ? w0 : 0)
           && (w0 >= n || piped.d.plan.emu_pipe_cols == cols),
         "the plan's panels: %lld, then %lld", (long long) piped.d.plan.emu_pipe_first,
         (long long) piped.d.plan.emu_pipe_cols);
  CHECK (whole.c.size () == piped.c.size () && memcmp (whole.c.data (), piped.c.data (),
                                                       whole.c.size ()) == 0,
         "pipelined C differs from the unpipelined one");
}

// The plan's own rule: two panels, the first one's product lasting while the rest of B comes up
// (first·r = n − first, r the product of a column against the upload of one), in whole
// 256-column tiles, at most half of n; one panel where B is small, n narrow, or where the model
// says the second panel costs more than it hides (tilemm_emu_pipeline_gain_s).
void emulated_pipeline_rule (void)
{
  CHECK_CASE ("the plan's rule for the emulated pipeline");
  const tilemm_emu_pipe_rates h = { 1.4e15, 5e10, 2e-5 };
  const int64_t f16 = tilemm_emu_pipeline_first (TILEMM_DOUBLE, 16384, 16384, 16384, 17, &h);
  const int64_t f8 = tilemm_emu_pipeline_first (TILEMM_DOUBLE, 8192, 8192, 8192, 16, &h);
  // r = 18·2·16384 / 1.4e15 over 8 / 5e10 = 2.63: 16384 / 3.63 = 4509, up to 4608
  CHECK (f16 == 4608, "16384: %lld", (long long) f16);
  // r = 17·2·8192 / 1.4e15 over 8 / 5e10 = 1.24: 8192 / 2.24 = 3653, up to 3840
  CHECK (f8 == 3840, "8192: %lld", (long long) f8);
  const tilemm_emu_pipe_rates fast = { 1e17, 5e10, 2e-5 }, slow = { 1e12, 5e10, 2e-5 };
  CHECK (tilemm_emu_pipeline_first (TILEMM_DOUBLE, 16384, 16384, 16384, 17, &fast) == 8192,
         "a slow bus against the GEMMs: half");
  CHECK (tilemm_emu_pipeline_first (TILEMM_DOUBLE, 16384, 16384, 16384, 17, &slow) == 256,
         "slow GEMMs: one tile of columns first");
  CHECK (tilemm_emu_pipeline_first (TILEMM_DOUBLE, 1000, 1000, 1000, 16, &h) == 0,
         "1000: B's bytes");
  CHECK (tilemm_emu_pipeline_first (TILEMM_DOUBLE, 4096, 300, 65536, 16, &h) == 0,
         "n < 512");
}

// The decision and the GPU call plan of an emulated double product 8 x k x 8 (complex_type: of
// complex operands), on the stand-in's facts as `adjust` leaves them, without TILEMM_EMU_IMMA.
// TILEMM_EINVAL where the decision did not compute (a failed check).
tilemm_status gpu_plan_of (tilemm_class cls, int complex_type, int64_t m, int64_t n, int64_t k,
                           tilemm_precision precision, tilemm_decision &d,
                           const std::function<void (tilemm_call_facts &)> &adjust,
                           tilemm_error &err)
{
  tilemm_operand a, b;
  memset (&a, 0, sizeof a);
  a.cls = cls;
  a.is_complex = complex_type;
  a.ndims = 2;
  b = a;
  a.rows = m, a.cols = k;
  b.rows = k, b.cols = n;
  tilemm_options opt;
  tilemm_options_init (&opt);
  opt.backend = TILEMM_CHOOSE_GPU;
  opt.precision = precision;
  tilemm_status status = tilemm_decide_op (&a, TILEMM_OP_NONE, &b, TILEMM_OP_NONE, &opt, &d, &err);
  CHECK (status == TILEMM_OK && d.action == TILEMM_DO_COMPUTE, "decide: %s (%s)",
         tilemm_strerror (status), err.detail);
  if (status != TILEMM_OK || d.action != TILEMM_DO_COMPUTE)
    return TILEMM_EINVAL;
  tilemm_call_facts facts;
  memset (&facts, 0, sizeof facts);
  tilemm_backend_facts (TILEMM_BACKEND_CPU, 0, &facts.cpu);
  tilemm_backend_facts (TILEMM_BACKEND_CUDA, 0, &facts.gpu);
  adjust (facts);
  tilemm_call_settings settings;
  tilemm_call_settings_read (&settings);
  settings.emu_gemm[0] = '\0';
  return tilemm_call_plan_make (&d.plan, &d.route, TILEMM_BACKEND_CUDA, d.op_a, d.op_b,
                                precision == TILEMM_PRECISION_EMULATED, &d.emu, &opt, &settings,
                                &facts, &err);
}

tilemm_status emulated_gpu_plan (int complex_type, int64_t k, tilemm_decision &d,
                                 const std::function<void (tilemm_call_facts &)> &adjust,
                                 tilemm_error &err)
{
  return gpu_plan_of (TILEMM_CLASS_DOUBLE, complex_type, 8, 8, k, TILEMM_PRECISION_EMULATED, d,
                      adjust, err);
}

// The native CUDA variant fills the fewest multiprocessors among the call's GPUs, from their
// facts (the call plan's limits): single 2048 has 128 blocks of variant 13's tiles, so 6 on
// 132 (an H100's, and the count where the facts know none), 13 on 16, and 13 on every worker
// where one GPU of 16 is among the call's 132s (the stand-in's three GPUs here), so that the
// GPUs' results are bitwise equal.
void native_variant_from_the_facts (void)
{
  CHECK_CASE ("plan: the native CUDA variant for the facts' multiprocessors");
  struct
  {
    int sms, first_sms;   // the facts' multiprocessors (device 0's: first_sms; 0: unknown)
    int variant;
  } cases[] = {
    { 132, 132, 6 }, { 16, 16, 13 }, { 0, 0, 6 }, { 16, 132, 13 }, { 132, 16, 13 },
  };
  for (const auto &c : cases)
    {
      tilemm_decision d;
      tilemm_error err = { TILEMM_OK, "" };
      const tilemm_status status = gpu_plan_of (
        TILEMM_CLASS_SINGLE, 0, 2048, 2048, 2048, TILEMM_PRECISION_NATIVE, d,
        [&] (tilemm_call_facts &f) {
          for (int i = 0; i < TILEMM_MAX_WORKERS; i++)
            f.gpu.multiprocessors[i] = i == 0 ? c.first_sms : c.sms;
        }, err);
      CHECK (status == TILEMM_OK, "plan: %s (%s)", tilemm_strerror (status), err.detail);
      if (status != TILEMM_OK)
        continue;
      int subs_alike = 1;
      for (int r = 0; r < 2; r++)
        for (int col = 0; col < 2; col++)
          subs_alike = subs_alike && d.plan.sub[r][col].variant == d.plan.native.variant;
      CHECK (d.plan.native.variant == c.variant && subs_alike,
             "%d multiprocessors (device 0: %d) on %d worker(s): variant %d (panels alike %d), "
             "want %d", c.sms, c.first_sms, d.plan.workers.count,
             d.plan.native.variant, subs_alike, c.variant);
    }
}

// The int8 GEMMs of the emulated scheme are the call plan's: the modular GEMMs' (emu_gemm: wgmma
// where the facts say the device runs it, else v2) and the statistics' (emu_stats_gemm: v2 where
// wgmma would need the product's real inner dimension, 2k for a complex one, in several k-chunks),
// and the plan in words names both.  No GEMM is left for the backend to choose from the shape.
void emulated_gemms_planned (void)
{
  CHECK_CASE ("plan: the emulated scheme's int8 GEMMs, the modular and the statistics', named");
  const int64_t most = (int64_t) TILEMM_EMU_KCHUNK_TILES * 64;   // one launch's padded k
  struct
  {
    int complex_type, wgmma;
    int64_t k;
    tilemm_emu_gemm gemm, stats;
  } cases[] = {
    { 0, 1, 64, TILEMM_EMU_GEMM_WGMMA, TILEMM_EMU_GEMM_WGMMA },
    { 0, 1, most, TILEMM_EMU_GEMM_WGMMA, TILEMM_EMU_GEMM_WGMMA },
    { 0, 1, most + 1, TILEMM_EMU_GEMM_WGMMA, TILEMM_EMU_GEMM_V2 },
    { 1, 1, most / 2, TILEMM_EMU_GEMM_WGMMA, TILEMM_EMU_GEMM_WGMMA },
    { 1, 1, most / 2 + 1, TILEMM_EMU_GEMM_WGMMA, TILEMM_EMU_GEMM_V2 },
    { 0, 0, most + 1, TILEMM_EMU_GEMM_V2, TILEMM_EMU_GEMM_V2 },
    { 1, 0, 64, TILEMM_EMU_GEMM_V2, TILEMM_EMU_GEMM_V2 },
  };
  for (const auto &c : cases)
    {
      tilemm_decision d;
      tilemm_error err = { TILEMM_OK, "" };
      const tilemm_status status = emulated_gpu_plan (
        c.complex_type, c.k, d, [&] (tilemm_call_facts &f) { f.gpu.wgmma = c.wgmma; }, err);
      CHECK (status == TILEMM_OK && d.plan.emu_gemm == c.gemm && d.plan.emu_stats_gemm == c.stats,
             "%s k %lld, wgmma %s: GEMMs %d and %d, want %d and %d (%s)",
             c.complex_type ? "complex" : "real", (long long) c.k, c.wgmma ? "runs" : "does not",
             (int) d.plan.emu_gemm, (int) d.plan.emu_stats_gemm, (int) c.gemm, (int) c.stats,
             err.detail);
      if (status != TILEMM_OK)
        continue;
      char text[16384];
      tilemm_call_plan_describe (&d.plan, TILEMM_BACKEND_CUDA, 1, &d.emu, text, sizeof text);
      const char *want = c.stats == TILEMM_EMU_GEMM_V2 ? "emulated_stats_gemm: v2" : "emulated_stats_gemm: wgmma";
      CHECK (strstr (text, want) != NULL, "the plan in words: %s", want);
    }
}

// The moduli a modular GEMM launch takes are the plan's: it holds each emulated worker's
// multiprocessors from the facts (emu_multiprocessors; 0 where they do not name the device), and
// its reader for a block's shape (tilemm_emu_planes_per_launch) puts all moduli in one launch on
// wgmma or where the block's 128x128 tiles are fewer than two waves of them, else one a launch.
// The switch follows the facts: 263 and 264 tiles on 132 multiprocessors, 131 and 132 on 66.
void emulated_moduli_per_launch_planned (void)
{
  CHECK_CASE ("plan: the moduli a modular GEMM launch takes, from the facts' multiprocessors");
  const int N = 16;
  struct
  {
    int sms, wgmma, named;   // the facts' multiprocessors; named: the facts name the device
    int64_t m, cols;         // a block of C
    int want;                // its moduli a launch
  } cases[] = {
    { 132, 0, 1, 263 * 128, 128, N },      // 263 tiles
    { 132, 0, 1, 132 * 128, 2 * 128, 1 },  // 264
    { 132, 0, 1, 263 * 128 - 5, 100, N },  // 263 tiles, partial ones counted whole
    { 132, 0, 1, 132 * 128 + 1, 2 * 128, 1 },  // 133 x 2 = 266 tiles
    { 66, 0, 1, 131 * 128, 128, N },       // 131
    { 66, 0, 1, 66 * 128, 2 * 128, 1 },    // 132
    { 66, 0, 1, 263 * 128, 128, 1 },       // what 132 multiprocessors take whole
    { 132, 1, 1, 264 * 128, 64 * 128, N }, // wgmma: all, whatever the shape
    { 66, 1, 1, 132 * 128, 128, N },
    { 132, 0, 0, 1, 1, 1 },                // no multiprocessors named: one a launch
    { 132, 1, 0, 264 * 128, 128, N },
  };
  for (const auto &c : cases)
    {
      tilemm_decision d;
      tilemm_error err = { TILEMM_OK, "" };
      const tilemm_status status = emulated_gpu_plan (0, 64, d, [&] (tilemm_call_facts &f) {
        f.gpu.wgmma = c.wgmma;
        for (int i = 0; i < TILEMM_MAX_WORKERS; i++)
          {
            f.gpu.multiprocessors[i] = c.sms;
            if (!c.named)
              f.gpu.device[i] = TILEMM_MAX_WORKERS + 7;   // no worker's device
          }
      }, err);
      CHECK (status == TILEMM_OK, "plan: %s (%s)",
             tilemm_strerror (status), err.detail);
      if (status != TILEMM_OK)
        continue;
      const int sms = d.plan.emu_multiprocessors[0];
      const int grid = tilemm_emu_gemm_grid (sms);
      CHECK (sms == (c.named ? c.sms : 0) && grid == sms,
             "the plan's multiprocessors %d and grid %d of worker 0, the facts' %d%s", sms, grid,
             c.sms, c.named ? "" : " on no worker's device");
      const int got = tilemm_emu_planes_per_launch (d.plan.emu_gemm, c.m, c.cols, N, sms);
      CHECK (got == c.want,
             "%d multiprocessors%s, %s, a block %lldx%lld (%lld tiles): %d moduli a launch, want %d",
             c.sms, c.named ? "" : " (not named)", c.wgmma ? "wgmma" : "v2", (long long) c.m,
             (long long) c.cols, (long long) (((c.m + 127) / 128) * ((c.cols + 127) / 128)), got,
             c.want);
    }
}

// The model behind the rule on the built-in facts (an H100's): a real product keeps A's work
// between its panels, so a tall one (m = 16 n) pipelines; the complex product of the same shape
// repeats A's pass (about 66 GB at the device's rate, 26 ms) for 8 ms of B's upload hidden, and
// takes one panel.  Where the bus is fast against the host round trips a panel adds, one panel.
void emulated_pipeline_model (void)
{
  CHECK_CASE ("the emulated pipeline priced on the built-in facts");
  const tilemm_machine_facts *f = tilemm_facts_builtin ();
  const tilemm_emu_pipe_rates h = { f->gpu_int8_ops_per_s, f->gpu_bus_bytes_per_s, f->gpu_step_s };
  const int64_t real = tilemm_emu_pipeline_first (TILEMM_DOUBLE, 65536, 4096, 4096, 17, &h);
  const int64_t cplx = tilemm_emu_pipeline_first (TILEMM_COMPLEX_DOUBLE, 65536, 4096, 4096, 17, &h);
  CHECK (real == 256, "real 65536x4096x4096: first %lld", (long long) real);
  CHECK (cplx == 0, "complex 65536x4096x4096: first %lld (A's pass again priced at %.3g s of gain)",
         (long long) cplx,
         tilemm_emu_pipeline_gain_s (TILEMM_COMPLEX_DOUBLE, 65536, 4096, 4096, 17, 256, &h));
  // the gain is the upload hidden less the round trips: a step of 1 ms each loses
  const tilemm_emu_pipe_rates late = { f->gpu_int8_ops_per_s, f->gpu_bus_bytes_per_s, 1e-3 };
  const double g = tilemm_emu_pipeline_gain_s (TILEMM_DOUBLE, 8192, 1024, 8192, 16, 512, &h);
  const double gl = tilemm_emu_pipeline_gain_s (TILEMM_DOUBLE, 8192, 1024, 8192, 16, 512, &late);
  CHECK (g > 0 && fabs (g - gl - TILEMM_EMU_PIPE_SYNCS * (1e-3 - f->gpu_step_s)) < 1e-9,
         "the round trips' term: %.6g, %.6g", g, gl);
  CHECK (tilemm_emu_pipeline_first (TILEMM_DOUBLE, 8192, 1024, 8192, 16, &late) == 0,
         "1 ms round trips: pipelined");
}

int main ()
{
  setvbuf (stdout, NULL, _IOLBF, 0);
  mock_cuda_seed (20261125);
  mock_cuda_set_devices (3);   // before the backend first asks (it asks once)
  rank_k_decisions ();
  auto_decides_before_the_facts ();
  auto_batch_decides_before_the_facts ();
  auto_batch_hands_pages_to_the_host ();
  batch_describe_reads_only_its_decision ();
  emulated_batch_runs_as_its_plan_says ();
  batch_copy_team ();
  precision_read_once ();
  emulated_passes_on_simulated_devices ();
  calibration_on_the_stand_in ();
  emulated_pipeline_rule ();
  emulated_gemms_planned ();
  emulated_moduli_per_launch_planned ();
  native_variant_from_the_facts ();
  emulated_pipeline_model ();
  if (getenv ("TILEMM_TEST_NO_EMULATED") == NULL)
    {
      const tilemm_op N = TILEMM_OP_NONE, T = TILEMM_OP_TRANSPOSE, C = TILEMM_OP_CTRANSPOSE;
      emulated_pipelined_case (false, false, N, N, 70, 130, 90, 50, 0);
      emulated_pipelined_case (false, false, N, N, 70, 130, 90, 50, 1);
      emulated_pipelined_case (false, false, N, N, 70, 130, 90, 50, 2);
      emulated_pipelined_case (false, false, N, N, 70, 130, 90, 100, 1, 30);
      emulated_pipelined_case (true, true, T, C, 33, 41, 30, 8, 2, 3);
      emulated_pipelined_case (false, false, T, N, 70, 130, 90, 30, 1, 70);
      emulated_pipelined_case (false, false, T, T, 61, 77, 45, 16, 1);
      emulated_pipelined_case (false, false, T, N, 61, 77, 44, 20, 2);
      emulated_pipelined_case (true, true, N, C, 33, 41, 29, 7, 1);
      emulated_pipelined_case (true, true, C, N, 33, 41, 30, 9, 2);
      emulated_pipelined_case (true, false, C, N, 25, 19, 31, 1, 0);
      emulated_pipelined_case (false, true, N, T, 25, 19, 31, 4, 1);
      emulated_pipelined_case (false, false, N, T, 1, 53, 40, 10, 1);
      emulated_pipelined_case (false, false, N, N, 40, 1, 33, 1, 0);
      emulated_pipelined_case (false, false, N, N, 40, 2, 33, 1, 1);
    }
  for (int devices : { 1, 3 })
    {
      emulated_nonfinite_case (TILEMM_OP_NONE, TILEMM_OP_NONE, devices);
      emulated_nonfinite_case (TILEMM_OP_TRANSPOSE, TILEMM_OP_TRANSPOSE, devices);
    }
  static const tilemm_op ops[] = { TILEMM_OP_NONE, TILEMM_OP_TRANSPOSE, TILEMM_OP_CTRANSPOSE };
  struct kind { bool single, a_complex, b_complex; } kinds[] = {
    { false, false, false }, { false, true, true }, { true, false, false }, { true, true, true },
    { false, false, true }, { false, true, false } };
  for (const kind &t : kinds)
    for (int oa = 0; oa < 3; oa++)
      for (int ob = 0; ob < 3; ob++)
        for (int devices : { 1, 3 })
          {
            grid_case (t.single, t.a_complex, t.b_complex, ops[oa], ops[ob], false,
                       TILEMM_CHOOSE_GPU, devices);
            grid_case (t.single, t.a_complex, t.b_complex, ops[oa], ops[ob], false,
                       TILEMM_CHOOSE_CPU, devices);
            // The emulated precision's CPU scheme is the slow part: its single-precision kinds
            // take the same code paths as the double ones (the scheme's own tests cover single).
            // Every transpose pair for real operands; for complex ones, as stored and the two
            // mixed pairs (a conjugate on either side).
            const bool pair = (!t.a_complex && !t.b_complex) || oa + ob == 0 || oa * ob == 2;
            if (!t.single && pair && getenv ("TILEMM_TEST_NO_EMULATED") == NULL)
              {
                grid_case (t.single, t.a_complex, t.b_complex, ops[oa], ops[ob], true,
                           TILEMM_CHOOSE_CPU, devices);
                grid_case (t.single, t.a_complex, t.b_complex, ops[oa], ops[ob], true,
                           TILEMM_CHOOSE_GPU, devices);
              }
          }
  // The variant's fallback and the split of k are the plan's (a DMMA variant below sm_80; the
  // split-k variant for a small C' with a long k, which falls back unsplit below sm_80).
  for (int cc : { 9, 7 })
    {
      plan_launch_case (cc, 200, 200, 100, false);
      plan_launch_case (cc, 64, 64, 8192, false);
    }
  plan_launch_case (9, 64, 64, 8192, true);
  // Several GPUs: strips along n (A kept) and along m (B kept), transposed and complex
  // operands, a real times a complex one (split), emulated; then a slow and a failing GPU.
  for (int devices : { 2, 3 })
    {
      multi_gpu_case (false, false, false, TILEMM_OP_NONE, TILEMM_OP_NONE, false, 300, 900, 50,
                      devices);
      multi_gpu_case (true, false, false, TILEMM_OP_NONE, TILEMM_OP_NONE, false, 900, 260, 70,
                      devices);
      multi_gpu_case (false, false, false, TILEMM_OP_TRANSPOSE, TILEMM_OP_TRANSPOSE, false, 260,
                      700, 33, devices);
      multi_gpu_case (false, true, true, TILEMM_OP_CTRANSPOSE, TILEMM_OP_NONE, false, 300, 500, 40,
                      devices);
      multi_gpu_case (false, false, true, TILEMM_OP_NONE, TILEMM_OP_TRANSPOSE, false, 200, 400,
                      30, devices);
      multi_gpu_case (false, false, false, TILEMM_OP_NONE, TILEMM_OP_NONE, true, 200, 600, 40,
                      devices);
      multi_gpu_trouble_case (devices);
      multi_gpu_pages_case (devices, false, false, false, TILEMM_OP_NONE, 48, 200);
      multi_gpu_pages_case (devices, false, true, true, TILEMM_OP_TRANSPOSE, 40, 150);
      multi_gpu_pages_case (devices, true, false, false, TILEMM_OP_NONE, 70, 12);
      multi_gpu_pages_case (devices, true, true, false, TILEMM_OP_CTRANSPOSE, 50, 9);
    }
  tilemm_cuda_release ();
  CHECK_CASE ("nothing held at the end");
  CHECK (mock_cuda_device_bytes () == 0, "%zu device bytes held", mock_cuda_device_bytes ());
  return check_summary ("test_executor");
}
