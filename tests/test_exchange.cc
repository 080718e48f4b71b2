// test_exchange.cc — the operand every GPU of a product holds whole goes up from the host once:
// each GPU uploads its share and copies the others' from their devices (call_plan.h, exchange);
// where a pair of GPUs cannot reach each other, every GPU reads all of it from the host.  On the
// stand-in CUDA runtime (tests/mock_cuda) with four devices, each a memory of its own, whose
// peer copies read their source when they run: a copy of the wrong share, a share sent twice, a
// copy that does not wait for its share's upload give a wrong result or wrong bytes.
//
// Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
//
// Each case goes through the front ends' path (tilemm_decide_op, then tilemm_run) on GPUs 0 ..
// d-1 named, against the same product on GPU 0 alone: bitwise equal, the plan's path, the host
// to device bytes of every device summed (the shared operand's size once with peers, once per
// GPU without), the peer bytes each device received (the shares it does not own) as the
// figures say them; then a GPU failing part way: the product fails, nothing is left held or
// queued, and the next product is right.

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <cuda_runtime_api.h> /* the stand-in's own test hooks */

#include "backend.h"
#include "check.h"
#include "front.h"
#include "machine_facts.h"
#include "strip_owners.h"
#include "tilemm.h"

#include "test_random.h"

namespace
{
const int DEVICES = 4;   // the stand-in GPUs this program sees

// Uniform in [-1, 1): the tests' generator (test_random.h).
double uniform ()
{
  return 2 * urand () - 1;
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

// Random values of `count` reals, single or double.
std::vector<unsigned char> random_data (size_t count, bool single)
{
  std::vector<unsigned char> v (count * (single ? 4 : 8));
  for (size_t i = 0; i < count; i++)
    if (single)
      ((float *) v.data ())[i] = (float) uniform ();
    else
      ((double *) v.data ())[i] = uniform ();
  return v;
}

// op_a(A) m×k and op_b(B) k×n as stored.
operands make (bool single, bool is_complex, int64_t m, int64_t n, int64_t k, tilemm_op op_a,
               tilemm_op op_b)
{
  operands x;
  const tilemm_class cls = single ? TILEMM_CLASS_SINGLE : TILEMM_CLASS_DOUBLE;
  const int64_t ar = op_a == TILEMM_OP_NONE ? m : k, ac = op_a == TILEMM_OP_NONE ? k : m;
  const int64_t br = op_b == TILEMM_OP_NONE ? k : n, bc = op_b == TILEMM_OP_NONE ? n : k;
  x.a = { cls, is_complex, 0, 2, ar, ac, 0, NULL, 0 };
  x.b = { cls, is_complex, 0, 2, br, bc, 0, NULL, 0 };
  x.da = random_data ((size_t) (ar * ac) * (is_complex ? 2 : 1), single);
  x.db = random_data ((size_t) (br * bc) * (is_complex ? 2 : 1), single);
  return x;
}

struct outcome
{
  tilemm_status status;
  char detail[384];
  std::vector<unsigned char> c;
  tilemm_decision d;
  tilemm_run_report ran;
  tilemm_cuda_stats st;
  unsigned long long up[DEVICES], peer[DEVICES];   // bytes each device received in the call
};

// The decision's queue made again as under machine facts `rates` (each GPU's kernel rate
// measured): what the plan does where calibration measured the devices, with the peers as the
// stand-in has them now.
tilemm_status replan (tilemm_decision &d, int devices, bool peers,
                      const tilemm_machine_facts *rates)
{
  tilemm_call_plan &p = d.plan;
  tilemm_call_facts cf;
  memset (&cf, 0, sizeof cf);
  cf.cpu.current = -1;
  cf.gpu.usable = 1;
  cf.gpu.total = cf.gpu.count = devices;
  cf.gpu.current = 0;
  cf.gpu.staging_chunk_bytes = 16 << 20;
  cf.gpu.peers_known = 1;
  for (int i = 0; i < devices; i++)
    {
      cf.gpu.device[i] = i;
      cf.gpu.cc_major[i] = 9;
      cf.gpu.numa_node[i] = -1;
      for (int j = 0; j < devices; j++)
        cf.gpu.peer[i][j] = peers || i == j;
    }
  cf.machine = rates;
  p.facts = rates;
  return tilemm_call_plan_queue (&p, TILEMM_BACKEND_CUDA, &cf);
}

// One call on GPUs 0 .. devices-1 named (1: GPU 0 alone), from a clean workspace unless `warm`;
// its queue made as under `rates` where given (replan).
outcome call (const operands &x, tilemm_op op_a, tilemm_op op_b, int devices, bool warm = false,
              const tilemm_machine_facts *rates = nullptr, bool peers = true,
              bool emulated = false)
{
  outcome o;
  memset (&o.ran, 0, sizeof o.ran);
  memset (&o.st, 0, sizeof o.st);
  tilemm_options opt;
  tilemm_options_init (&opt);
  opt.backend = TILEMM_CHOOSE_GPU;
  opt.devices.count = devices;
  for (int w = 0; w < devices; w++)
    opt.devices.device[w] = w;
  opt.report = &o.ran;
  if (emulated)
    opt.precision = TILEMM_PRECISION_EMULATED;
  tilemm_error err = { TILEMM_OK, "" };
  o.status = tilemm_decide_op (&x.a, op_a, &x.b, op_b, &opt, &o.d, &err);
  snprintf (o.detail, sizeof o.detail, "%s", err.detail);
  if (o.status != TILEMM_OK || o.d.action != TILEMM_DO_COMPUTE)
    {
      if (o.status == TILEMM_OK)
        o.status = TILEMM_EINVAL;
      return o;
    }
  if (rates && (o.status = replan (o.d, devices, peers, rates)) != TILEMM_OK)
    return o;
  const tilemm_route &r = o.d.route;
  const size_t es = r.result_class == TILEMM_CLASS_SINGLE ? 4 : 8;
  o.c.assign ((size_t) (r.m * r.n) * es * (r.result_complex ? 2 : 1), 0x5A); // poisoned
  if (!warm)
    tilemm_cuda_release ();
  unsigned long long up0[DEVICES], peer0[DEVICES];
  for (int d = 0; d < DEVICES; d++)
    {
      up0[d] = mock_cuda_host_to_device_bytes (d);
      peer0[d] = mock_cuda_peer_bytes (d);
    }
  o.status = tilemm_run (&o.d, &opt, x.da.data (), x.db.data (), o.c.data (), &err);
  snprintf (o.detail, sizeof o.detail, "%s", err.detail);
  for (int d = 0; d < DEVICES; d++)
    {
      o.up[d] = mock_cuda_host_to_device_bytes (d) - up0[d];
      o.peer[d] = mock_cuda_peer_bytes (d) - peer0[d];
    }
  tilemm_cuda_last_stats (&o.st);
  return o;
}

// A product on several GPUs run twice (the second on the workspaces the first left) beside one
// GPU's: both ran, and both are bitwise one GPU's.  False where any of them did not run (nothing
// more of it to check).
bool twice_as_one (const outcome &many, const outcome &again, const outcome &one, const char *what)
{
  CHECK (many.status == TILEMM_OK && again.status == TILEMM_OK, "%s: %s (%s)", what,
         tilemm_strerror (many.status != TILEMM_OK ? many.status : again.status),
         many.status != TILEMM_OK ? many.detail : again.detail);
  if (many.status != TILEMM_OK || again.status != TILEMM_OK || one.status != TILEMM_OK)
    return false;
  CHECK (many.c == one.c && again.c == one.c, "%s: not bitwise one GPU's product (%d, %d)",
         what, many.c == one.c, again.c == one.c);
  return true;
}

// Bytes of an operand as the backend runs it (after the route's pairs and splits).
double operand_bytes (const tilemm_call_plan &p, bool of_a)
{
  return (double) tilemm_type_size (p.type) * (double) p.k * (double) (of_a ? p.m : p.n);
}

// The bytes of share w of the plan's exchange: its columns of op(B) (k each), or its columns of
// op(A) (m each).
double share_bytes (const tilemm_call_plan &p, int w, const tilemm_exchange_plan &x)
{
  const double lines = (double) (x.first[w + 1] - x.first[w]);
  return (double) tilemm_type_size (p.type) * lines
         * (double) (x.which == TILEMM_KEEP_A ? p.m : p.k);
}

// Where the product went and what each device received, against the plan's exchange.
void check_bytes (const outcome &o, bool peers, const char *what)
{
  const tilemm_call_plan &p = o.d.plan;
  const int workers = p.workers.count;
  CHECK (p.queue_keeps != TILEMM_KEEP_NONE, "%s: the plan keeps no operand on each GPU", what);
  if (p.queue_keeps == TILEMM_KEEP_NONE)
    return;
  const bool keep_a = p.queue_keeps == TILEMM_KEEP_A;
  const double shared = operand_bytes (p, keep_a), own = operand_bytes (p, !keep_a);
  double up = 0, peer = 0;
  for (int d = 0; d < DEVICES; d++)
    {
      up += (double) o.up[d];
      peer += (double) o.peer[d];
    }
  int took = 0;
  for (int w = 0; w < workers; w++)
    took += o.ran.done[w] > 0;
  if (peers)
    {
      CHECK (p.exchange.path == TILEMM_EXCHANGE_PEER && p.exchange.shares == workers,
             "%s: the plan's path %d, %d shares for %d workers", what, (int) p.exchange.path,
             p.exchange.shares, workers);
      // The shared operand read from the host once; each GPU copied in the shares it lacks.
      CHECK (up == own + shared, "%s: %.0f bytes from the host, want %.0f (%s once: %.0f)", what,
             up, own + shared, keep_a ? "op(A)" : "op(B)", shared);
      // The figures (__tilemm_stats__'s host_reads) say each operand was read once.
      CHECK (o.st.operand_bytes == own + shared && o.st.bytes_up == o.st.operand_bytes,
             "%s: the figures: %.0f bytes up for operands of %.0f (host reads %g)", what,
             o.st.bytes_up, o.st.operand_bytes,
             o.st.operand_bytes > 0 ? o.st.bytes_up / o.st.operand_bytes : 0.0);
      // A GPU that took no panel needs no other share: it may have copied in fewer (those
      // published before it ended).
      double lack = 0;
      for (int w = 0; w < workers; w++)
        {
          const int d = p.workers.device[w];
          const double lacks = shared - share_bytes (p, w, p.exchange);
          lack += lacks;
          CHECK (o.ran.done[w] > 0 ? (double) o.peer[d] == lacks : (double) o.peer[d] <= lacks,
                 "%s: GPU %d (%lld panels) received %llu bytes from its peers, lacks %.0f", what,
                 d, (long long) o.ran.done[w], o.peer[d], lacks);
        }
      CHECK (peer <= lack, "%s: %.0f peer bytes, more than the %.0f the GPUs lack", what, peer,
             lack);
    }
  else
    {
      CHECK (p.exchange.path == TILEMM_EXCHANGE_HOST, "%s: the plan's path %d, not the host's",
             what, (int) p.exchange.path);
      // Every GPU that took a panel reads all of it from the host: today's path.
      CHECK (up == own + took * shared, "%s: %.0f bytes from the host, want %.0f (%d x %.0f)",
             what, up, own + took * shared, took, shared);
      CHECK (o.st.operand_bytes == own + shared && o.st.bytes_up == up,
             "%s: the figures: %.0f bytes up (host reads %g)", what, o.st.bytes_up,
             o.st.operand_bytes > 0 ? o.st.bytes_up / o.st.operand_bytes : 0.0);
      CHECK (peer == 0, "%s: %.0f peer bytes without peer access", what, peer);
    }
  // The figures say the same, device by device.
  CHECK (o.st.ok && o.st.devices == workers, "%s: figures of %d devices, %d workers", what,
         o.st.devices, workers);
  double st_peer = 0;
  for (int i = 0; i < o.st.devices && i < TILEMM_MAX_WORKERS; i++)
    {
      const tilemm_cuda_device_stats &s = o.st.device[i];
      const int d = s.device;
      CHECK (d >= 0 && d < DEVICES && s.bytes_up == (double) o.up[d]
               && s.bytes_peer == (double) o.peer[d],
             "%s: GPU %d's figures: %.0f up, %.0f peer; the runtime: %llu, %llu", what, d,
             s.bytes_up, s.bytes_peer, d >= 0 && d < DEVICES ? o.up[d] : 0,
             d >= 0 && d < DEVICES ? o.peer[d] : 0);
      st_peer += s.bytes_peer;
    }
  CHECK (o.st.bytes_peer == st_peer, "%s: %.0f peer bytes in all, the devices' sum %.0f", what,
         o.st.bytes_peer, st_peer);
}

// One kind of product on `devices` GPUs, peers on and off, against GPU 0 alone.
void exchange_case (bool single, bool is_complex, tilemm_op op_a, tilemm_op op_b, int64_t m,
                    int64_t n, int64_t k, int devices)
{
  CHECK_CASE ("%d GPUs: %s%s %s x %s %lldx%lldx%lld: each share once from the host, the rest "
              "from peers (or all from the host without them), bitwise one GPU's",
              devices, single ? "single" : "double", is_complex ? " complex" : "", op_name (op_a),
              op_name (op_b), (long long) m, (long long) n, (long long) k);
  const operands x = make (single, is_complex, m, n, k, op_a, op_b);
  const outcome one = call (x, op_a, op_b, 1);
  CHECK (one.status == TILEMM_OK, "one GPU: %s (%s)", tilemm_strerror (one.status), one.detail);
  for (bool peers : { true, false })
    {
      mock_cuda_peer_access (-1, -1, peers);
      const outcome many = call (x, op_a, op_b, devices);
      // The same again on the workspaces it left: nothing of the last product taken for this one.
      const outcome again = call (x, op_a, op_b, devices, true);
      const char *what = peers ? "peers" : "no peers";
      if (!twice_as_one (many, again, one, what))
        continue;
      CHECK (many.d.plan.workers.count == devices, "%s: the plan takes %d of %d GPUs", what,
             many.d.plan.workers.count, devices);
      // Each GPU ran the strips given to it, no other.
      const tilemm_call_plan &p = many.d.plan;
      for (int w = 0; p.queue_owned && w < p.workers.count; w++)
        CHECK (many.ran.done[w] == p.queue_first[w + 1] - p.queue_first[w],
               "%s: worker %d ran %lld panels, owns %lld", what, w, (long long) many.ran.done[w],
               (long long) (p.queue_first[w + 1] - p.queue_first[w]));
      check_bytes (many, peers, what);
      check_bytes (again, peers, peers ? "peers, again" : "no peers, again");
      CHECK (mock_cuda_pending_ops () == 0, "%s: %zu operations left queued", what,
             mock_cuda_pending_ops ());
    }
  mock_cuda_peer_access (-1, -1, 1);
}

// The emulated scheme's calls since forget_setups: on each emulated worker's device, the setup
// carried the call plan's statistics' GEMM, that worker's wgmma grid and the multiprocessors the
// moduli a launch follow (the plan's, from the facts: the device's own multiprocessors, each
// stand-in GPU a count of its own).
void forget_setups ()
{
  int g, b, s;
  for (int d = 0; d < DEVICES; d++)
    mock_emu_setup_seen (d, &g, &b, &s);
}

void check_setups (const tilemm_call_plan &p, const char *what)
{
  for (int w = 0; w < p.emu_workers; w++)
    {
      const int d = p.emu_devices.device[w];
      int stats_gemm = -1, blocks = -1, sms = -1;
      const int calls = mock_emu_setup_seen (d, &stats_gemm, &blocks, &sms);
      const int grid = tilemm_emu_gemm_grid (p.emu_multiprocessors[w]);
      CHECK (grid == mock_cuda_multiprocessors (d),
             "%s: the plan's grid on worker %d (GPU %d): %d blocks, the GPU has %d "
             "multiprocessors", what, w, d, grid, mock_cuda_multiprocessors (d));
      CHECK (calls > 0 && stats_gemm == (int) p.emu_stats_gemm && blocks == grid,
             "%s: GPU %d: %d calls of the scheme, the last one's statistics' GEMM %d and grid %d; "
             "the plan's %d and %d", what, d, calls, stats_gemm, blocks, (int) p.emu_stats_gemm,
             grid);
      CHECK (p.emu_multiprocessors[w] == mock_cuda_multiprocessors (d)
               && sms == p.emu_multiprocessors[w],
             "%s: GPU %d (worker %d): the scheme's setup carried %d multiprocessors, the plan's "
             "%d, the GPU has %d", what, d, w, sms, p.emu_multiprocessors[w],
             mock_cuda_multiprocessors (d));
    }
}

// The emulated product on `devices` GPUs (its pass of statistics, then its pass of products, a
// strip a GPU), peers on and off, one GPU slow or not, against GPU 0 alone: bitwise equal; the
// operand every strip holds read once from the host with peers (each GPU its share, the rest
// copied from the others: the figures' host reads 1.0), once per GPU without; the plan says
// which in words.
void emulated_case (bool single, bool is_complex, tilemm_op op_a, tilemm_op op_b, int64_t m,
                    int64_t n, int64_t k, int devices)
{
  CHECK_CASE ("%d GPUs, emulated: %s%s %s x %s %lldx%lldx%lld: each operand once from the host, "
              "the shared one's shares from peers (all from the host without them), bitwise one "
              "GPU's", devices, single ? "single" : "double", is_complex ? " complex" : "",
              op_name (op_a), op_name (op_b), (long long) m, (long long) n, (long long) k);
  const operands x = make (single, is_complex, m, n, k, op_a, op_b);
  forget_setups ();
  const outcome one = call (x, op_a, op_b, 1, false, nullptr, true, true);
  CHECK (one.status == TILEMM_OK && one.d.emulated, "one GPU: %s (%s), emulated %d",
         tilemm_strerror (one.status), one.detail, one.d.emulated);
  check_setups (one.d.plan, "one GPU");
  for (int variant = 0; variant < 3; variant++)
    {
      const bool peers = variant != 1, slow = variant == 2;
      const char *what = slow ? "peers, the last GPU slow" : peers ? "peers" : "no peers";
      mock_cuda_peer_access (-1, -1, peers);
      if (slow)
        mock_cuda_slow_device (devices - 1, 300);
      forget_setups ();
      const outcome many = call (x, op_a, op_b, devices, false, nullptr, peers, true);
      const outcome again = call (x, op_a, op_b, devices, true, nullptr, peers, true);
      mock_cuda_slow_device (-1, 0);
      mock_cuda_peer_access (-1, -1, 1);
      if (!twice_as_one (many, again, one, what))
        continue;
      const tilemm_call_plan &p = many.d.plan;
      check_setups (p, what);
      const tilemm_exchange_plan &e = p.emu_exchange;
      CHECK (!p.emu_one_pass && p.emu_workers == devices && many.ran.emu_passes == 2,
             "%s: %d emulated workers of %d GPUs, %d passes", what, p.emu_workers, devices,
             many.ran.emu_passes);
      CHECK (e.path == (peers ? TILEMM_EXCHANGE_PEER : TILEMM_EXCHANGE_HOST)
               && (e.which == TILEMM_KEEP_A || e.which == TILEMM_KEEP_B)
               && (!peers || e.shares == devices),
             "%s: the plan's emulated path %d, op(%c), %d shares", what, (int) e.path,
             e.which == TILEMM_KEEP_A ? 'A' : 'B', e.shares);
      if (e.which != TILEMM_KEEP_A && e.which != TILEMM_KEEP_B)
        continue;
      const bool keep_a = e.which == TILEMM_KEEP_A;
      const double shared = operand_bytes (p, keep_a), own = operand_bytes (p, !keep_a);
      char text[8192];
      tilemm_decision_describe (&many.d, text, sizeof text);
      char said[64];
      snprintf (said, sizeof said, "emulated_exchange: %s", peers ? (keep_a ? "op(A) in" : "op(B) in")
                                                                  : "host staging for every GPU");
      CHECK (strstr (text, said) != NULL, "%s: the plan in words does not say \"%s\":\n%s", what,
             said, text);
      for (const outcome *o : { &many, &again })
        {
          double up = 0, peer = 0;
          for (int d = 0; d < DEVICES; d++)
            {
              up += (double) o->up[d];
              peer += (double) o->peer[d];
            }
          const double want = own + (peers ? 1 : devices) * shared;
          CHECK (up == want && o->st.bytes_up == up && o->st.operand_bytes == own + shared,
                 "%s: %.0f bytes from the host (the figures %.0f), want %.0f: host reads %g", what,
                 up, o->st.bytes_up, want,
                 o->st.operand_bytes > 0 ? o->st.bytes_up / o->st.operand_bytes : 0.0);
          CHECK (!peers || o->st.bytes_up == o->st.operand_bytes,
                 "%s: host reads %g, not 1", what,
                 o->st.operand_bytes > 0 ? o->st.bytes_up / o->st.operand_bytes : 0.0);
          for (int w = 0; w < devices; w++)
            {
              const int d = p.emu_devices.device[w];
              const double lacks = peers ? shared - share_bytes (p, w, e) : 0;
              CHECK ((double) o->peer[d] == lacks,
                     "%s: GPU %d received %llu bytes from its peers, lacks %.0f", what, d,
                     o->peer[d], lacks);
            }
          CHECK (o->st.bytes_peer == peer, "%s: the figures' peer bytes %.0f, the runtime's %.0f",
                 what, o->st.bytes_peer, peer);
        }
      CHECK (mock_cuda_pending_ops () == 0, "%s: %zu operations left queued", what,
             mock_cuda_pending_ops ());
    }
}

// One pair of GPUs that cannot reach each other (one way): the plan takes the host's path for
// every GPU, and says why.
void one_pair_apart (int devices)
{
  CHECK_CASE ("%d GPUs, GPU %d cannot read GPU 0: every GPU reads the shared operand from the "
              "host", devices, devices - 1);
  const operands x = make (false, false, 300, 70, 40, TILEMM_OP_NONE, TILEMM_OP_NONE);
  const outcome one = call (x, TILEMM_OP_NONE, TILEMM_OP_NONE, 1);
  mock_cuda_peer_access (devices - 1, 0, 0);
  const outcome many = call (x, TILEMM_OP_NONE, TILEMM_OP_NONE, devices);
  mock_cuda_peer_access (-1, -1, 1);
  CHECK (many.status == TILEMM_OK && many.c == one.c, "%s, bitwise %d", many.detail,
         many.c == one.c);
  if (many.status != TILEMM_OK)
    return;
  const tilemm_exchange_plan &e = many.d.plan.exchange;
  CHECK (e.path == TILEMM_EXCHANGE_HOST && e.apart_to == devices - 1 && e.apart_from == 0,
         "the plan's path %d (GPU %d cannot read GPU %d)", (int) e.path, e.apart_to,
         e.apart_from);
  check_bytes (many, false, "one pair apart");
  char text[4096];
  tilemm_decision_describe (&many.d, text, sizeof text);
  CHECK (strstr (text, "exchange: host staging for every GPU") != NULL,
         "the plan in words does not say the host's path:\n%s", text);
}

// A GPU failing part way (its n-th copy, a share's upload or a peer copy; emulated: in either
// pass): the product fails naming it (or, where the failure came after the GPU's last copy, is
// right), nothing is left held (device or pinned) or queued, the next product is right.
void failing_case (int devices, bool emulated = false)
{
  CHECK_CASE ("%d GPUs with peers%s: one failing part way fails the product cleanly", devices,
              emulated ? ", emulated" : "");
  const operands x = emulated ? make (false, false, 70, 600, 30, TILEMM_OP_TRANSPOSE, TILEMM_OP_NONE)
                              : make (false, false, 320, 90, 40, TILEMM_OP_TRANSPOSE, TILEMM_OP_NONE);
  const outcome one = call (x, TILEMM_OP_TRANSPOSE, TILEMM_OP_NONE, 1, false, nullptr, true,
                            emulated);
  for (int failing : { 0, devices - 1 })
    for (int after : { 0, 1, 2, 4, 7 })
      {
        mock_cuda_fail_device (failing, after);
        const outcome failed = call (x, TILEMM_OP_TRANSPOSE, TILEMM_OP_NONE, devices, false,
                                     nullptr, true, emulated);
        mock_cuda_fail_device (-1, 0);
        char name[64];
        snprintf (name, sizeof name, "GPU %d (worker %d)", failing, failing);
        // A failure that came after every copy of the failing GPU was made may not happen at all.
        CHECK (failed.status == TILEMM_OK
                 ? failed.c == one.c
                 : failed.status == TILEMM_ECUDA && strstr (failed.detail, name) != NULL,
               "GPU %d failing after %d copies: %s (%s)", failing, after,
               tilemm_strerror (failed.status), failed.detail);
        CHECK (failed.status == TILEMM_OK
                 || (mock_cuda_device_bytes () == 0 && mock_cuda_pinned_bytes () == 0
                     && tilemm_cuda_bytes_held () == 0),
               "after GPU %d failed: %zu device bytes, %zu pinned left", failing,
               mock_cuda_device_bytes (), mock_cuda_pinned_bytes ());
        CHECK (mock_cuda_pending_ops () == 0, "after GPU %d failed: %zu operations queued",
               failing, mock_cuda_pending_ops ());
        const outcome next = call (x, TILEMM_OP_TRANSPOSE, TILEMM_OP_NONE, devices, true, nullptr,
                                   true, emulated);
        CHECK (next.status == TILEMM_OK && next.c == one.c, "the next product: %s, bitwise %d",
               next.detail, next.c == one.c);
      }
}

// The strips given in advance: one a GPU as equal as the tiles allow where the GPUs' rates are
// one (or not measured); runs in proportion where they differ; none where too few tiles.
void plan_owners ()
{
  CHECK_CASE ("strips given in advance: one each, equal in tiles, or in proportion to the rates");
  tilemm_plan plan;
  memset (&plan, 0, sizeof plan);
  plan.m = 1000;
  plan.n = 16384;
  plan.k = 64;
  plan.tile_rows = plan.tile_cols = 128;
  plan.panel_rows = plan.n;
  plan.panel_cols = plan.m;
  for (int workers = 2; workers <= 4; workers++)
    {
      tilemm_plan q;
      int64_t first[TILEMM_MAX_WORKERS + 1];
      CHECK (tilemm_strip_owners (&q, &plan, workers, NULL, first) == 1,
             "%d workers: no strips", workers);
      const int64_t tiles = 16384 / 128;
      CHECK (q.panel_cols == plan.m && q.panel_rows % 128 == 0
               && q.panel_rows == (tiles + workers - 1) / workers * 128,
             "%d workers: strips of %lld rows", workers, (long long) q.panel_rows);
      for (int w = 0; w < workers; w++)
        CHECK (first[w] == w && first[w + 1] == w + 1, "%d workers: worker %d owns %lld-%lld",
               workers, w, (long long) first[w], (long long) first[w + 1] - 1);
      // Rates 2 : 1 (: 1 ...): the first worker twice the strips of each other.
      double rate[TILEMM_MAX_WORKERS];
      for (int w = 0; w < workers; w++)
        rate[w] = w == 0 ? 2e13 : 1e13;
      CHECK (tilemm_strip_owners (&q, &plan, workers, rate, first) == 1, "weighted: no strips");
      const int64_t strips = first[workers];
      CHECK (strips == tilemm_ceil_div (plan.n, q.panel_rows), "%d workers 2:1: %lld strips",
             workers, (long long) strips);
      for (int w = 0; w < workers; w++)
        {
          const double earned = (double) strips * rate[w] / (1e13 * (workers + 1));
          const int64_t got = first[w + 1] - first[w];
          CHECK (got >= 1 && (double) got > earned - 1 && (double) got < earned + 1,
                 "%d workers 2:1: worker %d %lld strips of %lld, earns %.2f", workers, w,
                 (long long) got, (long long) strips, earned);
        }
      // Near rates are one rate.
      rate[0] = 1.05e13;
      tilemm_strip_owners (&q, &plan, workers, rate, first);
      CHECK (first[workers] == workers, "rates within a tenth: %lld strips",
             (long long) first[workers]);
    }
  plan.n = 3 * 128;
  plan.m = 200;
  tilemm_plan q;
  int64_t first[TILEMM_MAX_WORKERS + 1];
  CHECK (tilemm_strip_owners (&q, &plan, 4, NULL, first) == 0, "three tiles for four: strips");
}

// Where the facts measured each GPU's kernels: the strips given in advance, one a GPU of one
// rate, runs in proportion where the rates differ; each GPU runs its own strips and no other,
// bitwise one GPU's, each operand once from the host with peers.
void owned_case (int devices)
{
  CHECK_CASE ("%d GPUs, their rates measured: each runs the strips given to it, bitwise one "
              "GPU's", devices);
  static tilemm_machine_facts rates;
  const operands x = make (false, false, 1500, 70, 30, TILEMM_OP_NONE, TILEMM_OP_NONE);
  const outcome one = call (x, TILEMM_OP_NONE, TILEMM_OP_NONE, 1);
  // One rate; 2:1; 2:1 read on cards of one model (calibration's noise: one rate, one strip each);
  // one model with the first card's rate alone (calibration times the types other than double
  // on the first GPU only): one rate, one strip each.
  for (int variant = 0; variant < 4; variant++)
    for (bool peers : { true, false })
      {
        const bool weighted = variant == 1, one_model = variant >= 2, first_only = variant == 3;
        tilemm_facts_model (&rates, "test: each GPU's kernels measured");
        rates.gpus = devices;
        for (int g = 0; g < devices; g++)
          {
            rates.gpu[g].ordinal = g;
            for (int t = 0; t < TILEMM_NTYPES; t++)
              rates.gpu[g].kernel_flops_per_s[t]
                = first_only ? (g == 0 ? 2e13 : 0) : variant > 0 && g == 0 ? 4e13 : 2e13;
            if (one_model)
              snprintf (rates.gpu[g].name, sizeof rates.gpu[g].name, "Made Up H100");
          }
        mock_cuda_peer_access (-1, -1, peers);
        const outcome many = call (x, TILEMM_OP_NONE, TILEMM_OP_NONE, devices, false, &rates,
                                   peers);
        mock_cuda_peer_access (-1, -1, 1);
        const char *what = first_only ? (peers ? "one model, the first card's rate, peers"
                                               : "one model, the first card's rate, no peers")
                           : one_model ? (peers ? "2:1 on one model, peers" : "2:1 on one model, no peers")
                           : weighted ? (peers ? "2:1, peers" : "2:1, no peers")
                                      : (peers ? "one rate, peers" : "one rate, no peers");
        CHECK (many.status == TILEMM_OK && many.c == one.c, "%s: %s (%s), bitwise %d", what,
               tilemm_strerror (many.status), many.detail, many.c == one.c);
        if (many.status != TILEMM_OK)
          continue;
        const tilemm_call_plan &p = many.d.plan;
        CHECK (p.queue_owned && p.workers.count == devices
                 && (weighted || p.queue_first[devices] == devices),
               "%s: owned %d, %d workers, %lld strips", what, p.queue_owned, p.workers.count,
               (long long) p.queue_first[devices]);
        CHECK (!weighted || p.queue_first[1] > p.queue_first[2] - p.queue_first[1],
               "%s: the fast GPU %lld strips, the next %lld", what,
               (long long) p.queue_first[1], (long long) (p.queue_first[2] - p.queue_first[1]));
        for (int w = 0; w < p.workers.count; w++)
          CHECK (many.ran.done[w] == p.queue_first[w + 1] - p.queue_first[w],
                 "%s: worker %d ran %lld panels, owns %lld", what, w,
                 (long long) many.ran.done[w],
                 (long long) (p.queue_first[w + 1] - p.queue_first[w]));
        check_bytes (many, peers, what);
        CHECK (mock_cuda_pending_ops () == 0, "%s: %zu operations left queued", what,
               mock_cuda_pending_ops ());
        // The last GPU failing part way through its own strips: the product fails naming it,
        // nothing left held or queued, the next product right.
        mock_cuda_peer_access (-1, -1, peers);
        mock_cuda_fail_device (devices - 1, 1);
        const outcome failed = call (x, TILEMM_OP_NONE, TILEMM_OP_NONE, devices, false, &rates,
                                     peers);
        mock_cuda_fail_device (-1, 0);
        char name[64];
        snprintf (name, sizeof name, "GPU %d (worker %d)", devices - 1, devices - 1);
        CHECK (failed.status == TILEMM_ECUDA && strstr (failed.detail, name) != NULL,
               "%s, GPU %d failing: %s (%s)", what, devices - 1, tilemm_strerror (failed.status),
               failed.detail);
        CHECK (mock_cuda_device_bytes () == 0 && mock_cuda_pinned_bytes () == 0
                 && tilemm_cuda_bytes_held () == 0 && mock_cuda_pending_ops () == 0,
               "%s, after the failure: %zu device bytes, %zu pinned, %zu operations queued",
               what, mock_cuda_device_bytes (), mock_cuda_pinned_bytes (),
               mock_cuda_pending_ops ());
        const outcome next = call (x, TILEMM_OP_NONE, TILEMM_OP_NONE, devices, true, &rates,
                                   peers);
        mock_cuda_peer_access (-1, -1, 1);
        CHECK (next.status == TILEMM_OK && next.c == one.c, "%s, the next product: %s, bitwise %d",
               what, next.detail, next.c == one.c);
      }
}

// One GPU slow (its host waits longer, so its share is published late): the others' pipelines
// go on without it (their first kernels read their own shares, the rest wait on the GPU for
// the late share's copy, enqueued once it is published), bitwise one GPU's, the bytes as ever.
void slow_case (int devices)
{
  CHECK_CASE ("%d GPUs with peers, GPU %d slow: its share late, the others' kernels wait for it "
              "on the GPU, bitwise one GPU's", devices, devices - 1);
  for (bool keep_b : { true, false })
    {
      const int64_t m = keep_b ? 900 : 70, n = keep_b ? 70 : 900;
      const operands x = make (false, false, m, n, 33, TILEMM_OP_NONE, TILEMM_OP_NONE);
      const outcome one = call (x, TILEMM_OP_NONE, TILEMM_OP_NONE, 1);
      mock_cuda_slow_device (devices - 1, 300);
      const outcome many = call (x, TILEMM_OP_NONE, TILEMM_OP_NONE, devices);
      mock_cuda_slow_device (-1, 0);
      CHECK (many.status == TILEMM_OK && many.c == one.c, "%s: %s, bitwise %d",
             keep_b ? "op(B) shared" : "op(A) shared", many.detail, many.c == one.c);
      if (many.status == TILEMM_OK)
        check_bytes (many, true, keep_b ? "slow, op(B) shared" : "slow, op(A) shared");
      CHECK (mock_cuda_pending_ops () == 0, "%zu operations left queued",
             mock_cuda_pending_ops ());
    }
}

// The plan's shares: every column in one share, as even as they go; none where the workers keep
// nothing; the host's path where the peers are not known.
void plan_shares ()
{
  CHECK_CASE ("the exchange's shares: every column once, as even as they go");
  tilemm_device_facts gpu;
  memset (&gpu, 0, sizeof gpu);
  gpu.count = DEVICES;
  gpu.peers_known = 1;
  for (int i = 0; i < DEVICES; i++)
    {
      gpu.device[i] = i;
      for (int j = 0; j < DEVICES; j++)
        gpu.peer[i][j] = 1;
    }
  for (int workers = 2; workers <= DEVICES; workers++)
    for (int64_t extent : { 1, 3, 64, 65, 1000 })
      {
        tilemm_workers w = { workers, { 0, 1, 2, 3 } };
        tilemm_exchange_plan x;
        tilemm_exchange_plan_make (&x, TILEMM_KEEP_B, 64, extent, &w, &gpu);
        CHECK (x.path == TILEMM_EXCHANGE_PEER && x.shares == workers && x.first[0] == 0
                 && x.first[workers] == extent,
               "%d workers, %lld columns: path %d, %d shares over 0..%lld", workers,
               (long long) extent, (int) x.path, x.shares, (long long) x.first[workers]);
        for (int s = 0; s < workers; s++)
          {
            const int64_t size = x.first[s + 1] - x.first[s];
            CHECK (size >= extent / workers && size <= extent / workers + 1,
                   "share %d of %lld over %d: %lld", s, (long long) extent, workers,
                   (long long) size);
            int first, last;
            tilemm_exchange_shares_of (&x, x.first[s], x.first[s + 1], &first, &last);
            CHECK (size == 0 || (first == s && last == s), "share %d's columns in shares %d-%d",
                   s, first, last);
          }
        int first, last;
        tilemm_exchange_shares_of (&x, 0, extent, &first, &last);
        CHECK (first == 0 || x.first[1] == 0, "all columns from share %d", first);
        CHECK (last == workers - 1, "all columns to share %d", last);
        // The same GPU twice: its two workers reach each other through its own memory.
        tilemm_workers same = { 2, { 1, 1 } };
        tilemm_exchange_plan_make (&x, TILEMM_KEEP_A, 64, extent, &same, &gpu);
        CHECK (x.path == TILEMM_EXCHANGE_PEER, "one GPU twice: path %d", (int) x.path);
      }
  tilemm_workers w = { 3, { 0, 1, 2 } };
  tilemm_exchange_plan x;
  tilemm_exchange_plan_make (&x, TILEMM_KEEP_NONE, 64, 100, &w, &gpu);
  CHECK (x.path == TILEMM_EXCHANGE_NONE, "nothing kept: path %d", (int) x.path);
  gpu.peer[2][1] = 0;
  tilemm_exchange_plan_make (&x, TILEMM_KEEP_A, 64, 100, &w, &gpu);
  CHECK (x.path == TILEMM_EXCHANGE_HOST && x.apart_to == 2 && x.apart_from == 1,
         "GPU 2 cannot read GPU 1: path %d (%d from %d)", (int) x.path, x.apart_to, x.apart_from);
  gpu.peer[2][1] = 1;
  gpu.peers_known = 0;
  tilemm_exchange_plan_make (&x, TILEMM_KEEP_A, 64, 100, &w, &gpu);
  CHECK (x.path == TILEMM_EXCHANGE_HOST, "peers not known: path %d", (int) x.path);
}
} // namespace

int main ()
{
  test_seed (0x2545F4914F6CDD1Dull);   // the data this program has always drawn
  setvbuf (stdout, NULL, _IOLBF, 0);
  mock_cuda_seed (20261128);
  mock_cuda_set_devices (DEVICES);   // before the backend first asks (it asks once)
  plan_shares ();
  plan_owners ();
  static const tilemm_op ops[] = { TILEMM_OP_NONE, TILEMM_OP_TRANSPOSE, TILEMM_OP_CTRANSPOSE };
  for (int devices : { 2, 3, 4 })
    {
      // Strips of C's rows (op(B) shared) and of its columns (op(A) shared), ragged sizes.
      exchange_case (false, false, TILEMM_OP_NONE, TILEMM_OP_NONE, 301, 67, 37, devices);
      exchange_case (false, false, TILEMM_OP_NONE, TILEMM_OP_NONE, 67, 301, 37, devices);
      exchange_case (true, false, TILEMM_OP_NONE, TILEMM_OP_NONE, 250, 130, 45, devices);
      // Fewer columns of the shared operand than GPUs: shares of none.
      exchange_case (false, false, TILEMM_OP_NONE, TILEMM_OP_NONE, 400, 3, 20, devices);
      exchange_case (false, false, TILEMM_OP_TRANSPOSE, TILEMM_OP_NONE, 3, 400, 2, devices);
      // The shared operand in several steps (op(B) in parts, op(A) in slots).
      exchange_case (false, false, TILEMM_OP_NONE, TILEMM_OP_NONE, 1500, 700, 30, devices);
      exchange_case (false, false, TILEMM_OP_NONE, TILEMM_OP_TRANSPOSE, 700, 1500, 30, devices);
      // op(A), op(B) each of N, T, C: real (C is T) both ways, complex one way each.
      for (int oa = 0; oa < 3; oa++)
        for (int ob = 0; ob < 3; ob++)
          {
            if (oa < 2 && ob < 2)
              exchange_case (false, false, ops[oa], ops[ob], 203, 71, 29, devices);
            exchange_case (false, true, ops[oa], ops[ob], oa == ob ? 61 : 300, oa == ob ? 300 : 59,
                           23, devices);
          }
      slow_case (devices);
      owned_case (devices);
      if (devices > 2)
        one_pair_apart (devices);
      failing_case (devices);
      // The emulated product: op(A) shared (strips of C's columns), op(B) shared (of its rows),
      // transposed and conjugated operands, single, complex.
      emulated_case (false, false, TILEMM_OP_NONE, TILEMM_OP_NONE, 67, 700, 37, devices);
      emulated_case (false, false, TILEMM_OP_NONE, TILEMM_OP_NONE, 700, 67, 37, devices);
      emulated_case (false, false, TILEMM_OP_TRANSPOSE, TILEMM_OP_TRANSPOSE, 70, 650, 29, devices);
      emulated_case (false, false, TILEMM_OP_TRANSPOSE, TILEMM_OP_NONE, 650, 70, 29, devices);
      emulated_case (true, false, TILEMM_OP_NONE, TILEMM_OP_TRANSPOSE, 600, 90, 25, devices);
      emulated_case (false, true, TILEMM_OP_CTRANSPOSE, TILEMM_OP_NONE, 50, 600, 21, devices);
      failing_case (devices, true);
    }
  tilemm_cuda_release ();
  CHECK_CASE ("nothing held at the end");
  CHECK (mock_cuda_device_bytes () == 0 && mock_cuda_pinned_bytes () == 0,
         "%zu device bytes, %zu pinned held", mock_cuda_device_bytes (),
         mock_cuda_pinned_bytes ());
  return check_summary ("test_exchange");
}
