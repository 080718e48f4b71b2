/* pipeline.cu — the native product C = op_a(A)·op_b(B) through the pinned staging: panels and
 * steps, uploads, kernels and downloads overlapped.
 *
 * One product, on the untouched column-major buffers, is the row-major product Cᵀ = Bᵀ·Aᵀ
 * (tilemm.h).  The plan cuts Cᵀ into panels and each panel into steps: a panel's piece of Bᵀ
 * (columns of B) stays on the device while A's rows go through it, one step at a time: a step
 * uploads some rows of A (a block of Aᵀ's columns), runs the plan's kernel variant for the
 * matching block of Cᵀ and downloads it into C at C's own stride, never touching the elements
 * between C's rows and its stride.  Every piece travels PACKED (the same bytes in the same order,
 * the gaps between columns left behind).
 *
 * Transposed operands.  The kernels read op(A)ᵀ and op(B)ᵀ in one layout only.  A transposed
 * operand's piece of a step is cut from it as stored (tilemm_view_op_sub: a step's rows of op(A)
 * are columns of the stored A, a part's columns of op(B) rows of the stored B), goes up packed
 * into a scratch buffer, and is transposed (conjugated for 'C') from there into its slot by the
 * device (kernels/transpose.cu), on the upload stream right after the piece's last chunk and
 * before the event that says the slot is ready: every wait below holds as for a plain piece, and
 * the next piece's chunks into the same scratch follow the transpose on that stream, so one
 * scratch per operand (a step's piece: the plan counts it) suffices.
 *
 * The bus.  Octave's memory is pageable: plain copies from it run at 7–12 GB/s.  So every byte
 * goes through a ring of pinned staging chunks, allocated once and bounded (TILEMM_STAGING_MB ×
 * 2·TILEMM_STAGING_CHUNKS): host threads (tilemm_parallel_copy_2d) fill an upload chunk while
 * the copy engine sends the previous ones, and empty a download chunk into C while the other
 * engine brings the next.  One host thread (the caller) drives it all without blocking: copies
 * out what has arrived, enqueues what can start (kernels on two streams, downloads), then
 * stages one more upload chunk, and again.  Streams and events order the GPU side:
 *   upload stream:   Bᵀ panel, A rows of step 0, 1, 2, …        (waits: a slot free again)
 *   compute streams: step j's kernel on stream j % 2            (waits: its data, its C slot)
 *   download stream: step j's piece of C, chunk by chunk        (waits: step j's kernel)
 * so step j computes while step j+1 uploads and step j−1 downloads.  With one panel every step
 * has its own slot (the whole product sits on the device, as before); under a limit the plan
 * gives two slots that the steps take in turn, and the device holds tilemm_plan_device_bytes.
 *
 * The result.  A fresh result array faults its pages in on first write: they are asked for as
 * huge pages (host_pages.h), one fault per 2 MiB, which the staging copies take in their stride
 * (background threads can fault them in instead, TILEMM_PREFAULT_THREADS; slower there).
 *
 * State kept between calls (workspace.cu): the probe's answer, four streams, events, three device buffers
 * (Bᵀ's panel, A's slots, C's slots, grown only) and the pinned ring, created on first use, so
 * repeated products allocate nothing.  On ANY failure everything is freed, the error cleared,
 * and a broken context (a "sticky" error such as an illegal address) reset, so the next call
 * starts clean.  A mutex makes concurrent calls safe (they take turns).
 *
 * Settings (environment, read once, into the call plan's staging and copy teams: copy_team.c;
 * the manual, Performance > Settings): TILEMM_STAGING_MB (chunk size, 16),
 * TILEMM_STAGING_CHUNKS (chunks each way, 4), TILEMM_COPY_THREADS (the threads of each GPU's
 * copy team, 0 = its share of the host: the plan's copy_team.c decides), TILEMM_HUGEPAGES (1: ask huge pages for the result), TILEMM_PREFAULT_THREADS
 * (threads faulting the result in, 0: none).  (TILEMM_STEP_COLS and TILEMM_STEP_ROWS are read
 * by the plan: src/common/call_plan.c.)
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <thread>
#include <vector>

#include "executor.h"

using namespace tilemm_cuda;

namespace tilemm_cuda {

/* One step of the pipeline: the block rows × cols of Cᵀ at (row, col): part `part` of the
 * panel's Bᵀ times step `y` of A's rows (its slot: y % slots). */
struct step
{
  int64_t row, rows, col, cols;
  int64_t y, part;
  bool x_new;   /* the part's Bᵀ is uploaded here (its first use in this panel row)   */
  bool x_reuse; /* ... over an earlier panel row's, which earlier kernels still read    */
  bool y_first; /* the first step of A's rows y: they are uploaded here                 */
  bool y_last;  /* the last step of A's rows y: slot y % slots is free once it is done  */
};

/* A transposed operand's piece, up as stored in `scratch` (packed: the stored view's rows ×
 * cols, column-major), transposed (conjugated for 'C') into `slot` in the layout the kernels read,
 * on the upload stream (see the header).  Nothing to do for an untransposed piece, which went
 * straight into its slot. */
tilemm_status transpose_into_slot (workspace &ws, tilemm_op op, const tilemm_view &stored,
                                          const void *scratch, void *slot, tilemm_error *err)
{
  if (op == TILEMM_OP_NONE)
    return TILEMM_OK;
  return tilemm_cuda_transpose (stored.type, op == TILEMM_OP_CTRANSPOSE, scratch, stored.rows,
                                stored.cols, stored.rows > 0 ? stored.rows : 1, slot,
                                stored.cols > 0 ? stored.cols : 1, ws.up, err);
}

/* ---------------------------------------------------------------- one product */

kept_operand kept_of (unsigned long long product, tilemm_keep which, tilemm_op op,
                             const tilemm_view *v, int64_t step, int64_t k)
{
  kept_operand kept;
  kept.product = product;
  kept.which = which;
  kept.data = v->data;
  kept.rows = v->rows;
  kept.cols = v->cols;
  kept.stride = v->stride;
  kept.step = step;
  kept.k = k;
  kept.op = op;
  return kept;
}

bool same_kept (const kept_operand &x, const kept_operand &y)
{
  return x.product != 0 && x.product == y.product && x.which == y.which && x.data == y.data
         && x.rows == y.rows && x.cols == y.cols && x.stride == y.stride && x.step == y.step
         && x.k == y.k && x.op == y.op;
}

/* How a plan goes through the pipeline: its panels' steps and slots, and what it holds on the
 * device (its buffers, its rings of events). */
struct layout
{
  int64_t panel_rows, panel_cols, sr, sc, slots, rows_held, parts, ysteps;
  bool one_panel;
  std::vector<step> steps;
  size_t bytes[NBUF];
  size_t ring;
};

static void layout_of (const tilemm_plan *plan, tilemm_op op_a, tilemm_op op_b, layout &l,
                       int64_t first_part = 0)
{
  const size_t es = tilemm_type_size (plan->type);
  const int64_t k = plan->k, m = plan->m, n = plan->n;
  l.panel_rows = plan->panel_rows < n ? plan->panel_rows : n;
  l.panel_cols = plan->panel_cols < m ? plan->panel_cols : m;
  l.one_panel = l.panel_rows >= n && l.panel_cols >= m;
  tilemm_plan_steps (plan, &l.sr, &l.sc);
  const int64_t sr = l.sr, sc = l.sc;
  /* One panel: every step of A's rows its own slot.  Panels: the plan's slots, in turn. */
  l.slots = l.one_panel ? (m + sc - 1) / sc : (plan->slots >= 1 ? plan->slots : 1);
  l.rows_held = l.one_panel ? m : l.slots * sc;
  l.parts = (l.panel_rows + sr - 1) / sr;
  l.steps.clear ();
  l.ysteps = 0;
  const int64_t count = tilemm_plan_panel_count (plan);
  int64_t prev_row = -1, panel_row = -1;
  std::vector<bool> part_up;
  for (int64_t i = 0; i < count; i++)
    {
      tilemm_panel p;
      tilemm_plan_panel (plan, i, &p);
      if (p.row != prev_row)
        {
          panel_row++;
          part_up.assign ((size_t) l.parts, false);
          prev_row = p.row;
        }
      /* Each step of A's rows goes through the panel's parts from `first_part` on, round: a
       * worker's first kernels read the parts of the kept operand it uploads itself, the
       * others' shares meanwhile on their way (the order changes no sum: each step is one
       * block of C). */
      const int64_t panel_parts = (p.rows + sr - 1) / sr;
      const int64_t rotate = first_part < panel_parts ? first_part : 0;
      for (int64_t c0 = p.col; c0 < p.col + p.cols; c0 += sc, l.ysteps++)
        for (int64_t i = 0; i < panel_parts; i++)
          {
            const int64_t r0 = p.row + (rotate + i) % panel_parts * sr;
            step s;
            s.row = r0;
            s.rows = p.row + p.rows - r0 < sr ? p.row + p.rows - r0 : sr;
            s.col = c0;
            s.cols = p.col + p.cols - c0 < sc ? p.col + p.cols - c0 : sc;
            s.y = l.ysteps;
            s.part = (r0 - p.row) / sr;
            s.x_new = !part_up[(size_t) s.part];
            s.x_reuse = s.x_new && panel_row > 0;
            part_up[(size_t) s.part] = true;
            s.y_first = i == 0;
            s.y_last = i == panel_parts - 1;
            l.steps.push_back (s);
          }
    }
  const int64_t N = (int64_t) l.steps.size ();
  size_t scratch = 0; /* the split-k kernel's partial sums: the most any step asks */
  for (const step &sp : l.steps)
    {
      const size_t b = split_scratch_bytes (plan, sp.rows, sp.cols, k);
      scratch = b > scratch ? b : scratch;
    }
  /* A transposed operand's scratch: one step's piece of it as stored (tilemm_plan_device_bytes
   * counts the same; the ops are the call's: a low-level entry's plan may not record them). */
  int64_t scratch_a, scratch_b;
  tilemm_plan_transposed_scratch (plan, op_a, op_b, &scratch_a, &scratch_b);
  const size_t bytes[NBUF] = { (size_t) (l.panel_rows * k) * es, (size_t) (k * l.rows_held) * es,
                               (size_t) (l.panel_rows * l.rows_held) * es, (size_t) scratch_b * es,
                               (size_t) scratch_a * es, scratch, N > 1 ? scratch : 0 };
  memcpy (l.bytes, bytes, sizeof bytes);
  /* Event rings: per step of A's rows (uploaded, slot downloaded) and per step (kernel done),
   * long enough that no event is recorded again before every wait on its last record is
   * enqueued (see the gates below); per part of Bᵀ (up). */
  const int64_t RY = l.slots + 2, RC = l.one_panel ? N + 2 : l.slots * l.parts + 2;
  const int64_t ring = RY > RC ? RY : RC;
  l.ring = (size_t) (ring > l.parts ? ring : l.parts);
}

/* The workspace made for the largest of the layout `l` and the plans `also` (count of them). */
static tilemm_status reserve_largest (workspace &ws, const layout &l, const tilemm_plan *also,
                                      int count, tilemm_op op_a, tilemm_op op_b,
                                      tilemm_error *err)
{
  size_t bytes[NBUF];
  memcpy (bytes, l.bytes, sizeof bytes);
  size_t ring = l.ring;
  for (int i = 0; i < count; i++)
    {
      layout other;
      layout_of (&also[i], op_a, op_b, other);
      for (int j = 0; j < NBUF; j++)
        bytes[j] = other.bytes[j] > bytes[j] ? other.bytes[j] : bytes[j];
      ring = other.ring > ring ? other.ring : ring;
    }
  return workspace_reserve (ws, bytes, ring, err);
}

tilemm_status reserve_for_panels (workspace &ws, const tilemm_plan *plans, int count,
                                  tilemm_op op_a, tilemm_op op_b, tilemm_error *err)
{
  if (count < 1)
    return tilemm_error_set (err, TILEMM_EINVAL, "reserve_for_panels: no plan");
  layout l;
  layout_of (&plans[0], op_a, op_b, l);
  return reserve_largest (ws, l, plans + 1, count - 1, op_a, op_b, err);
}

tilemm_status run_pipeline (workspace &ws, const tilemm_plan *plan, tilemm_op op_a,
                            const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                            const tilemm_view *c, const tilemm_stop *stop, tilemm_cuda_stats *st,
                            tilemm_error *err, tilemm_keep keep, unsigned long long product,
                            const tilemm_plan *also, int also_count)
{
  const tilemm_staging_plan &cfg = ws.staging;
  const size_t es = tilemm_type_size (plan->type);
  const int64_t k = plan->k, m = plan->m, n = plan->n;
  /* A worker that uploaded a share of the kept op(B) itself (share_operand) starts each step
   * of A's rows at the first part of that share. */
  int64_t first_part = 0;
  if (keep == TILEMM_KEEP_B && product != 0 && ws.arriving == product && ws.arriving_plan)
    {
      int64_t step_rows = 0, step_cols = 0;
      tilemm_plan_steps (plan, &step_rows, &step_cols);
      const tilemm_exchange_plan &x = *ws.arriving_plan;
      const int w = ws.arriving_worker;
      if (step_rows > 0 && x.first[w + 1] > x.first[w])
        first_part = x.first[w] / step_rows;
    }
  layout l;
  layout_of (plan, op_a, op_b, l, first_part);
  const int64_t panel_rows = l.panel_rows, sr = l.sr, sc = l.sc, parts = l.parts;
  const bool one_panel = l.one_panel;
  const std::vector<step> &steps = l.steps;
  st->panels += tilemm_plan_panel_count (plan);
  const int64_t N = (int64_t) steps.size (), S = l.slots;
  const int64_t RY = S + 2, RC = one_panel ? N + 2 : S * parts + 2;
  st->steps += N;
  /* The first step of each step of A's rows, and one past the last. */
  std::vector<int64_t> y_begin ((size_t) l.ysteps + 1, N);
  for (int64_t j = N - 1; j >= 0; j--)
    y_begin[(size_t) steps[j].y] = j;
  const bool t_a = op_a != TILEMM_OP_NONE, t_b = op_b != TILEMM_OP_NONE;
  /* The workspace holds what the largest of `also` (the other panels this worker may take)
   * asks, so that it is made once, whichever panel it meets first. */
  tilemm_status status = reserve_largest (ws, l, also, also_count, op_a, op_b, err);
  if (status != TILEMM_OK)
    return status;
  /* The operand the plan keeps between this worker's panels: all of op(A)'s rows (or op(B)'s
   * columns), left in its slots (its parts) by this worker's previous panel of the product, the
   * same rows in the same steps; then its uploads and transposes are not made again.  Anything
   * else that goes up into those buffers ends what they kept. */
  const bool keeping = one_panel && product != 0 && keep != TILEMM_KEEP_NONE;
  const kept_operand mine = keep == TILEMM_KEEP_A ? kept_of (product, keep, op_a, a, sc, k)
                                                  : kept_of (product, keep, op_b, b, sr, k);
  const bool kept_y = keeping && keep == TILEMM_KEEP_A && same_kept (ws.kept_y, mine);
  const bool kept_x = keeping && keep == TILEMM_KEEP_B && same_kept (ws.kept_x, mine);
  ws.kept_x.product = ws.kept_y.product = 0;
  /* Kept, but the other workers' shares of it still on their way (share_operand): a kernel
   * reads the shares that hold those of its columns of op(B), or every one of op(A) (they cut
   * its inner dimension).  It is enqueued once their copies are (receive_shares, between the
   * rounds below: until then the other kernels, uploads and downloads go on), and waits on the
   * GPU for those another worker owns. */
  const tilemm_exchange_plan *const arriving
    = (kept_x || kept_y) && ws.arriving == product ? ws.arriving_plan : nullptr;
  auto shares_read = [&] (int64_t j, int *first, int *last) {
    if (keep == TILEMM_KEEP_A)
      tilemm_exchange_shares_of (arriving, 0, k, first, last);
    else
      tilemm_exchange_shares_of (arriving, steps[j].row, steps[j].row + steps[j].rows, first,
                                 last);
  };
  auto shares_there = [&] (int64_t j) {
    return keep == TILEMM_KEEP_A ? shares_enqueued (ws, 0, k)
                                 : shares_enqueued (ws, steps[j].row, steps[j].row + steps[j].rows);
  };
  auto wait_for_shares = [&] (int64_t j, cudaStream_t s) {
    int first = 0, last = -1;
    shares_read (j, &first, &last);
    for (int o = first; o <= last; o++)
      if (o != ws.arriving_worker && arriving->first[o + 1] > arriving->first[o])
        CUDA_TRY (cudaStreamWaitEvent (s, ws.share_in[o], 0),
                  "cudaStreamWaitEvent(share %d from its GPU)", o);
    return TILEMM_OK;
  };

  /* The result's pages: huge, faulted in by the copies into them (or, if asked for, by other
   * threads while the operands go up: slower on the GPU machine, as those faults compete with
   * the staging copies). */
  prefault_guard prefault;
  prefault.p = prepare_result (ws, c, st);

  char *const dX = (char *) ws.buffer[BUF_X], *const dY = (char *) ws.buffer[BUF_Y],
             *const dC = (char *) ws.buffer[BUF_C], *const dXT = (char *) ws.buffer[BUF_XT],
             *const dYT = (char *) ws.buffer[BUF_YT];
  unsigned char *const up_stage = ws.pinned;
  unsigned char *const down_stage = ws.pinned + (size_t) cfg.chunks * cfg.chunk_bytes;
  const int nup = cfg.chunks, ndown = cfg.chunks;
  /* Units: the plan's (staging: units_per_view of a view, least_unit_bytes each at least, a
   * chunk at most). */
  auto unit_size = [&] (double total) {
    double u = total / (cfg.units_per_view > 0 ? cfg.units_per_view : 1);
    if (u < (double) cfg.least_unit_bytes)
      u = (double) cfg.least_unit_bytes;
    return u > (double) cfg.chunk_bytes ? cfg.chunk_bytes : (size_t) u;
  };
  const size_t up_unit = unit_size ((double) es * (double) k * (double) (m + n));
  const size_t down_unit = unit_size ((double) es * (double) m * (double) n);

  /* Where step j's pieces live on the device. */
  auto dev_y = [&] (int64_t j) { return dY + (size_t) ((steps[j].y % S) * sc * k) * es; };
  auto dev_x = [&] (int64_t j) { return dX + (size_t) (steps[j].part * sr * k) * es; };
  auto dev_c = [&] (int64_t j) {
    return dC + (size_t) ((steps[j].y % S) * sc * panel_rows + steps[j].part * sr * steps[j].cols)
                  * es;
  };
  /* Step j's rows of op(A) (op(A)ᵀ's columns) and columns of op(B) (op(B)ᵀ's rows), as stored:
   * into their slots, or a transposed one into its scratch. */
  auto y_view = [&] (int64_t j) {
    return tilemm_view_op_sub (op_a, a, steps[j].col, 0, steps[j].cols, k);
  };
  auto x_view = [&] (int64_t j) {
    return tilemm_view_op_sub (op_b, b, 0, steps[j].row, k, steps[j].rows);
  };
  auto y_piece = [&] (int64_t j) { return piece_of (y_view (j), t_a ? dYT : dev_y (j), es); };
  auto x_piece = [&] (int64_t j) { return piece_of (x_view (j), t_b ? dXT : dev_x (j), es); };
  auto c_piece = [&] (int64_t j) {
    const tilemm_view v = tilemm_view_sub (c, steps[j].col, steps[j].row, steps[j].cols,
                                           steps[j].rows);
    return piece_of (v, dev_c (j), es);
  };
  cudaEvent_t *const ev_y = ws.ring[EV_Y], *const ev_comp = ws.ring[EV_COMP],
                     *const ev_cfree = ws.ring[EV_CFREE], *const ev_x = ws.ring[EV_X];

  CUDA_TRY (cudaEventRecord (ws.t_begin, ws.up), "cudaEventRecord");

  /* Upload state: step uj's part of Bᵀ (phase 0, when new) then its rows of A (phase 1, when
   * first); every upload of the steps before uj is enqueued. */
  int64_t uj = 0;
  int uphase = steps[0].x_new ? 0 : 1;
  cursor ucur = { 0, 0, false };
  unsigned long long up_count = 0, down_count = 0;
  auto next_upload_phase = [&] () {
    /* From (uj, uphase) to the next upload that exists: X if new, else Y if first, else on. */
    for (;;)
      {
        if (uphase == 0)
          uphase = 1;
        else
          {
            uj++;
            uphase = 0;
          }
        if (uj >= N)
          return;
        if ((uphase == 0 && steps[uj].x_new) || (uphase == 1 && steps[uj].y_first))
          return;
      }
  };
  if (!steps[0].x_new && !steps[0].y_first)
    next_upload_phase ();
  /* Compute state. */
  int64_t comp_next = 0;
  /* Download state: step dj's piece of C; the steps of A's rows whose pieces of C are all
   * enqueued; the chunks in flight, oldest first. */
  int64_t dj = 0, dy_done = 0;
  cursor dcur = { 0, 0, false };
  struct in_flight
  {
    int chunk;
    char *host;
    size_t pitch;
    unit u;
  } fifo[MAX_CHUNKS];
  int fifo_head = 0, fifo_count = 0;

  while (dj < N || fifo_count > 0)
    {
      bool progress = false;

      /* 0. The shares published since the last round: their copies in enqueued. */
      if (arriving && ws.arriving_left > 0 && (status = receive_shares (ws, st, err)) != TILEMM_OK)
        return status;

      /* 1. Copy out every chunk that has arrived, in order. */
      while (fifo_count > 0)
        {
          const in_flight &f = fifo[fifo_head];
          const cudaError_t q = cudaEventQuery (ws.down_ev[f.chunk]);
          if (q == cudaErrorNotReady)
            break;
          CUDA_TRY (q, "copying C to the host (step %lld)", (long long) dj);
          const auto t0 = std::chrono::steady_clock::now ();
          copy_on_team (ws, f.host, f.pitch, down_stage + (size_t) f.chunk * cfg.chunk_bytes,
                        f.u.len, f.u.len, (size_t) f.u.lines, true);
          st->copy_out_ms += ms_since (t0);
          fifo_head = (fifo_head + 1) % MAX_CHUNKS;
          fifo_count--;
          progress = true;
        }

      /* 2. Enqueue every kernel whose data is enqueued and whose C slot is free again. */
      while (comp_next < N && uj > comp_next
             && (steps[comp_next].y < S || dy_done > steps[comp_next].y - S)
             && (!arriving || shares_there (comp_next)))
        {
          const int64_t j = comp_next;
          if (j > 0 && tilemm_stop_requested (stop)) /* between steps; the caller drains */
            return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted before step %lld of %lld",
                                     (long long) j + 1, (long long) N);
          const step &sp = steps[j];
          cudaStream_t s = ws.comp[j % NCOMP];
          CUDA_TRY (cudaStreamWaitEvent (s, ev_x[sp.part], 0), "cudaStreamWaitEvent");
          CUDA_TRY (cudaStreamWaitEvent (s, ev_y[sp.y % RY], 0), "cudaStreamWaitEvent");
          if (arriving && (status = wait_for_shares (j, s)) != TILEMM_OK)
            return status;
          if (sp.y >= S)
            CUDA_TRY (cudaStreamWaitEvent (s, ev_cfree[(sp.y - S) % RY], 0),
                      "cudaStreamWaitEvent");
          if (j == 0)
            CUDA_TRY (cudaEventRecord (ws.t_first, s), "cudaEventRecord");
          status = launch_kernel (ws, plan, device_matrix (dev_c (j), sp.rows, sp.cols),
                                  device_matrix (dev_x (j), sp.rows, k),
                                  device_matrix (dev_y (j), k, sp.cols), (int) (j % NCOMP), err);
          if (status != TILEMM_OK)
            return status;
          CUDA_TRY (cudaEventRecord (ev_comp[j % RC], s), "cudaEventRecord");
          comp_next++;
          if (comp_next == N) /* the last kernel's end, on stream 0 */
            {
              CUDA_TRY (cudaStreamWaitEvent (ws.comp[0], ev_comp[(N - 1) % RC], 0),
                        "cudaStreamWaitEvent");
              if (N >= 2)
                CUDA_TRY (cudaStreamWaitEvent (ws.comp[0], ev_comp[(N - 2) % RC], 0),
                          "cudaStreamWaitEvent");
              CUDA_TRY (cudaEventRecord (ws.t_last, ws.comp[0]), "cudaEventRecord");
            }
          progress = true;
        }

      /* 3. Enqueue downloads of computed steps into free download chunks. */
      while (dj < N && comp_next > dj && fifo_count < ndown)
        {
          const piece p = c_piece (dj);
          if (!dcur.started)
            {
              CUDA_TRY (cudaStreamWaitEvent (ws.down, ev_comp[dj % RC], 0), "cudaStreamWaitEvent");
              dcur.started = true;
            }
          const int chunk = (int) (down_count % (unsigned long long) ndown);
          const unit u = next_unit (p, dcur, down_unit);
          status = fetch_unit (ws, p, u, chunk, down_stage + (size_t) chunk * cfg.chunk_bytes, st,
                               err);
          if (status != TILEMM_OK)
            return status;
          down_count++;
          fifo[(fifo_head + fifo_count) % MAX_CHUNKS]
            = { chunk, p.host + (size_t) u.line * p.pitch + u.off, p.pitch, u };
          fifo_count++;
          if (dcur.line >= p.lines)
            {
              if (steps[dj].y_last)
                {
                  CUDA_TRY (cudaEventRecord (ev_cfree[steps[dj].y % RY], ws.down),
                            "cudaEventRecord");
                  dy_done = steps[dj].y + 1;
                }
              dj++;
              dcur = { 0, 0, false };
            }
          progress = true;
        }

      /* 4. Pieces the device kept from this worker's previous panel are there already: ready
       * (in the upload stream's order) without a copy. */
      while (uj < N && !ucur.started && ((uphase == 0 && kept_x) || (uphase == 1 && kept_y)))
        {
          if (uphase == 0)
            CUDA_TRY (cudaEventRecord (ev_x[steps[uj].part], ws.up), "cudaEventRecord");
          else
            CUDA_TRY (cudaEventRecord (ev_y[steps[uj].y % RY], ws.up), "cudaEventRecord");
          next_upload_phase ();
          progress = true;
        }

      /* 5. Stage one more upload chunk, if one is free and its place may be overwritten. */
      if (uj < N)
        {
          const int chunk = (int) (up_count % (unsigned long long) nup);
          const cudaError_t q = cudaEventQuery (ws.up_ev[chunk]);
          if (q != cudaErrorNotReady)
            CUDA_TRY (q, "copying A and B to the device");
          bool go = q == cudaSuccess;
          if (go && !ucur.started)
            {
              /* A part of Bᵀ replaces an earlier panel row's once every kernel reading it is
               * enqueued (the last one on each stream); A's rows y go into slot y % S once
               * every kernel of rows y − S is. */
              if (uphase == 0 && steps[uj].x_reuse)
                {
                  go = comp_next >= uj;
                  if (go)
                    {
                      CUDA_TRY (cudaStreamWaitEvent (ws.up, ev_comp[(uj - 1) % RC], 0),
                                "cudaStreamWaitEvent");
                      if (uj >= 2)
                        CUDA_TRY (cudaStreamWaitEvent (ws.up, ev_comp[(uj - 2) % RC], 0),
                                  "cudaStreamWaitEvent");
                    }
                }
              else if (uphase == 1 && steps[uj].y >= S)
                {
                  const int64_t last = y_begin[(size_t) (steps[uj].y - S + 1)] - 1;
                  go = comp_next > last;
                  if (go)
                    {
                      CUDA_TRY (cudaStreamWaitEvent (ws.up, ev_comp[last % RC], 0),
                                "cudaStreamWaitEvent");
                      if (last - 1 >= y_begin[(size_t) (steps[uj].y - S)])
                        CUDA_TRY (cudaStreamWaitEvent (ws.up, ev_comp[(last - 1) % RC], 0),
                                  "cudaStreamWaitEvent");
                    }
                }
              ucur.started = go;
            }
          if (go)
            {
              const piece p = uphase == 0 ? x_piece (uj) : y_piece (uj);
              const unit u = next_unit (p, ucur, up_unit);
              status = send_unit (ws, p, u, chunk, up_stage + (size_t) chunk * cfg.chunk_bytes,
                                  uphase == 0 ? "B" : "A", st, err);
              if (status != TILEMM_OK)
                return status;
              up_count++;
              if (ucur.line >= p.lines) /* the piece is up (transposed, if so): the next one */
                {
                  status = uphase == 0
                             ? transpose_into_slot (ws, op_b, x_view (uj), dXT, dev_x (uj), err)
                             : transpose_into_slot (ws, op_a, y_view (uj), dYT, dev_y (uj), err);
                  if (status != TILEMM_OK)
                    return status;
                  if (uphase == 0)
                    CUDA_TRY (cudaEventRecord (ev_x[steps[uj].part], ws.up), "cudaEventRecord");
                  else
                    CUDA_TRY (cudaEventRecord (ev_y[steps[uj].y % RY], ws.up), "cudaEventRecord");
                  next_upload_phase ();
                  ucur = { 0, 0, false };
                }
              progress = true;
            }
        }

      if (!progress)
        std::this_thread::yield ();
    }

  /* Every piece of C is in place; errors inside a kernel show here at the latest. */
  CUDA_TRY (cudaEventSynchronize (ws.t_last), "running CUDA kernel variant %d for %s",
            plan->variant, tilemm_type_name (plan->type));
  cudaStream_t *streams[] = { &ws.up, &ws.down, &ws.comp[0], &ws.comp[1], &ws.peer };
  for (cudaStream_t *s : streams)
    CUDA_TRY (cudaStreamSynchronize (*s), "cudaStreamSynchronize");
  float up_ms = 0, comp_ms = 0;
  CUDA_TRY (cudaEventElapsedTime (&up_ms, ws.t_begin, ws.t_first), "cudaEventElapsedTime");
  CUDA_TRY (cudaEventElapsedTime (&comp_ms, ws.t_first, ws.t_last), "cudaEventElapsedTime");
  st->upload_ms += up_ms;
  st->compute_ms += comp_ms;
  st->kernels_ms += comp_ms;
  {
    const auto t0 = std::chrono::steady_clock::now ();
    tilemm_prefault_finish (prefault.p);
    prefault.p = nullptr;
    st->result_prep_ms += ms_since (t0);
  }
  if (keeping)
    (keep == TILEMM_KEEP_A ? ws.kept_y : ws.kept_x) = mine;
  if (arriving && ws.arriving_left == 0)   /* every share has landed: the streams are idle */
    ws.arriving = 0;
  return TILEMM_OK;
}

} /* namespace tilemm_cuda */
