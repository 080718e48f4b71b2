/* executor.h — the CUDA executor's shared pieces (internal to src/cuda/): the
 * device workspace each worker owns, the units that travel through the pinned staging, and the
 * common frame of the host entries.  Not a public header: backend.h and multi.h are the
 * executor's interface.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_CUDA_EXECUTOR_H
#define TILEMM_CUDA_EXECUTOR_H

#include <cuda_runtime_api.h>

#include <chrono>
#include <mutex>

#include <string.h>

#include "backend.h"
#include "batch.h"
#include "cuda_try.h"
#include "emulated_scheme.h"
#include "fault.h"
#include "host_pages.h"
#include "kernels.h"
#include "call_plan.h"
#include "copy_team.h"
#include "devices.h"
#include "exchange.h"
#include "host_team.h"
#include "parallel_copy.h"
#include "tilemm.h"
#include "transpose.h"

namespace tilemm_cuda {

/* ---------------------------------------------------------------- the device (device.cu) */

/* Whether there is a usable GPU (asked once; the answer kept). */
tilemm_status probe (tilemm_error *err);

/* ---------------------------------------------------------------- the workspace (workspace.cu) */

enum { NCOMP = 2, MAX_CHUNKS = TILEMM_STAGING_MAX_CHUNKS };
/* BUF_SPLIT + i: the split-k kernel's partial sums for compute stream i (kernel_launch.cu). */
enum { BUF_X, BUF_Y, BUF_C, BUF_XT, BUF_YT, BUF_SPLIT, NBUF = BUF_SPLIT + NCOMP };
enum { EV_Y, EV_COMP, EV_CFREE, EV_X, NRING };

/* An operand a worker left on its device for the worker's next panel of the same product: the
 * pipeline's kept operand (tilemm_call_plan.queue_keeps) in its steps, or an emulated panel's
 * operand whole (step -1) from the pass of statistics for the pass of products.  Which one, of
 * which product, and where it came from and lies (the view as stored, its transpose, its
 * steps).  product 0: nothing kept. */
struct kept_operand
{
  unsigned long long product;
  tilemm_keep which;
  const void *data;
  int64_t rows, cols, stride, step, k;
  tilemm_op op;
};

/* Where a worker's share of the operand the workers share lies and when it is there: what the
 * others copy it from (published on the product's exchange, exchange.h). */
struct share_handle
{
  int device;
  const char *base;        /* the kept operand's buffer (its steps in place)          */
  cudaEvent_t uploaded;    /* recorded on the owner's upload stream after its share   */
};

/* The streams, events and buffers kept between calls, on device `device`. */
struct workspace
{
  int device;
  cudaStream_t up, down, comp[NCOMP];
  cudaStream_t peer;                 /* the others' shares copied in from their devices */
  bool events;                       /* the fixed events below exist              */
  cudaEvent_t up_ev[MAX_CHUNKS];     /* an upload chunk's copy to the device done  */
  cudaEvent_t down_ev[MAX_CHUNKS];   /* a download chunk's copy from the device done */
  cudaEvent_t t_begin, t_first, t_last; /* timing: entry, first kernel, last kernel */
  cudaEvent_t k_begin[2], k_end[2];  /* timing: a batch panel's kernels, per slot     */
  cudaEvent_t share_up;              /* this worker's share up (on up)             */
  cudaEvent_t share_in[TILEMM_MAX_WORKERS]; /* share s in from its owner (on peer) */
  cudaEvent_t *ring[NRING];          /* per step, modulo their length: A's rows up,
                                        kernel done, C's slot downloaded; per part of
                                        Bᵀ: up                                        */
  size_t ring_size;                  /* plain data, like all of ws: nothing here has a
                                        destructor that could run before the release
                                        at unload                                     */
  void *buffer[NBUF];
  size_t capacity[NBUF];
  unsigned char *pinned;             /* 2·chunks staging chunks: uploads, then downloads */
  size_t pinned_bytes;
  tilemm_emu_cuda_arena emu;         /* the emulated precision's residues and statistics */
  kept_operand kept_x, kept_y;       /* what buffers BUF_X and BUF_Y hold for the next panel */
  /* The shares of the kept operand still on their way from the other workers' devices: of
   * product `arriving` (0: none), as its plan's exchange cuts it; this worker's kernels wait
   * for share s's share_in until a panel of it has ended. */
  unsigned long long arriving;
  const tilemm_exchange_plan *arriving_plan;
  int arriving_worker;
  /* ... and how the ones not yet published are fetched when they are (receive_shares): no
   * worker thread waits on the host for a share; its pipeline asks between its steps and holds
   * back only the kernels that read a share whose copy is not yet enqueued. */
  tilemm_exchange *arriving_exchange;   /* the product's hand-off (lives while its workers run) */
  tilemm_view arriving_stored;          /* the shared operand as stored, whole               */
  tilemm_op arriving_op;
  int64_t arriving_m, arriving_k;
  char *arriving_base;                  /* where the operand lies whole (its shares in place) */
  void *arriving_scratch;               /* a transposed share's piece up as stored, here first */
  bool arriving_pending[TILEMM_MAX_WORKERS];  /* share s: its copy in not yet enqueued     */
  int arriving_left;                    /* how many are pending                              */
  share_handle published;            /* this worker's share, as the others see it  */
  /* The host side, kept between products like the rest: the team of threads that copies into
   * and out of the pinned chunks (made as the plan's copy team says, kept while the plan says
   * the same), and the members one copy of this product uses. */
  tilemm_host_team *team;
  tilemm_copy_team team_plan;
  int team_threads;
  /* The pinned staging the product being run copies through: its call plan's (set when the
   * worker starts; the pinned chunks above are made for it, grown when a plan asks more). */
  tilemm_staging_plan staging;
};

size_t workspace_bytes (const workspace &w);

/* One workspace per worker (multi.h): worker w of a product spread over several devices uses
 * ws_pool[w] from its own host thread; the one-device path and the low-level entries are worker
 * 0, on the caller's thread.  Every function below that uses a workspace is handed it (ws). */
extern workspace ws_pool[TILEMM_MAX_WORKERS];
/* Products take turns on the workspaces. */
extern std::mutex ws_mutex;
/* Of the last product; `calls` counts them all. */
extern tilemm_cuda_stats last_stats;

/* device.cu: the devices (called with ws_mutex held, except locked_probe). */
tilemm_status locked_probe (tilemm_error *err);
int device_count (void);
int current_device (void);
tilemm_status device_info (int index, tilemm_device_info *info, tilemm_error *err);
void device_memory (int device, size_t *usable, size_t *total);
/* links.cu: each GPU's pinned copies alone and all at once (takes ws_mutex). */
tilemm_status cuda_links (const tilemm_workers *devices, tilemm_link_rates *rates,
                          tilemm_error *err);
int usable_devices (tilemm_workers *workers, int *cc_major, int *total, int *numa_node,
                    tilemm_cpu_set *local_cpus, int *multiprocessors);
/* device.cu: the multiprocessors of device `device` as the facts gather them (usable_devices;
 * 0: not a usable device).  Called with ws_mutex held. */
int device_multiprocessors (int device);
/* int8_rate.cu: the emulated int8 GEMM's rate on `device` (int8 operations a second, 0 where
 * not timed), n×n×n at the certified rule's typical moduli; the GEMM `gemm` (tilemm_emu_gemm).
 * Takes ws_mutex. */
tilemm_status cuda_int8_rate (int device, int64_t n, int gemm, double *ops_per_s,
                              tilemm_error *err);
/* workspace.cu: what a host asks (each takes ws_mutex). */
void release_all (void);
size_t bytes_held (void);
size_t pinned_bytes_held (void);
void copy_last_stats (tilemm_cuda_stats *stats);

/* A device's figures (tilemm_cuda_stats.device) from its worker's: on `device`, its copy team of
 * `threads`, the queue panels it took, its busy time. */
inline tilemm_cuda_device_stats device_stats (const tilemm_cuda_stats &x, int device, int threads,
                                              long long panels, double busy_ms)
{
  tilemm_cuda_device_stats d;
  memset (&d, 0, sizeof d);
  d.device = device;
  d.copy_threads = threads;
  d.panels = panels;
  d.steps = x.steps;
  d.busy_ms = busy_ms;
  d.upload_ms = x.upload_ms;
  d.compute_ms = x.compute_ms;
  d.download_ms = x.download_ms;
  d.copy_in_ms = x.copy_in_ms;
  d.copy_out_ms = x.copy_out_ms;
  d.result_prep_ms = x.result_prep_ms;
  d.bytes_up = x.bytes_up;
  d.bytes_down = x.bytes_down;
  d.bytes_peer = x.bytes_peer;
  return d;
}

/* Adds the sums since load (last_stats') to st, the figures of the product just ended. */
inline void accumulate_stats (tilemm_cuda_stats &st)
{
  st.sum_total_ms = last_stats.sum_total_ms + st.total_ms;
  st.sum_copy_in_ms = last_stats.sum_copy_in_ms + st.copy_in_ms;
  st.sum_copy_out_ms = last_stats.sum_copy_out_ms + st.copy_out_ms;
}

void workspace_free (workspace &ws);
/* Makes ws's copy team the plan's `team`, kept when it already is (workspace.cu); TILEMM_EINVAL
 * where the plan gives none. */
tilemm_status workspace_team (workspace &ws, const tilemm_copy_team *team, tilemm_error *err);
void workspace_recover (void);
void workspace_drain (workspace &ws);
tilemm_status workspace_reserve (workspace &ws, const size_t bytes[NBUF], size_t ring,
                                 tilemm_error *err);
/* Makes the emulated precision's arena slot s hold at least bytes[s] (tilemm_emu_cuda_arena_need);
 * emu_arena_free gives it back. */
tilemm_status emu_arena_reserve (workspace &ws, const size_t bytes[4], tilemm_error *err);
void emu_arena_free (tilemm_emu_cuda_arena *arena);
void pool_free (int w);
void pool_free_all (void);

/* k = 0: C is zeros (all-bits-zero is +0 in every element type); no GPU work needed. */
void zero_columns (const tilemm_view *c);
tilemm_status entry_checks (const tilemm_plan *plan, const tilemm_view *c, bool *done,
                            tilemm_error *err);

/* ---------------------------------------------------------------- launches (kernel_launch.cu) */

/* The split-k scratch a launch of the plan's variant on C' (height × width) · k asks of the
 * workspace's buffer BUF_SPLIT + stream (0: none). */
size_t split_scratch_bytes (const tilemm_plan *plan, int64_t height, int64_t width, int64_t k);
/* tilemm_cuda_launch of the plan's variant on compute stream ws.comp[comp], as the plan decides
 * it for this device and shape, with that stream's scratch. */
tilemm_status launch_kernel (workspace &ws, const tilemm_plan *plan, const tilemm_matrix &c,
                             const tilemm_matrix &x, const tilemm_matrix &y, int comp,
                             tilemm_error *err);

/* ---------------------------------------------------------------- staging (staging.cu) */

/* A block that travels: `lines` lines of `width` bytes, `pitch` apart on the host, packed
 * (width apart) on the device. */
struct piece
{
  char *host;
  size_t pitch;
  char *dev;
  size_t width;
  int64_t lines;
};

/* What one staging chunk carries: whole lines, or a segment of one line when a line is longer
 * than the chunk.  Packed in the chunk, and contiguous on the device either way. */
struct unit
{
  int64_t line, lines;
  size_t off, len;
  size_t bytes () const { return (size_t) lines * len; }
};

struct cursor
{
  int64_t line;
  size_t off;
  bool started;
};


unit next_unit (const piece &p, cursor &c, size_t most);
piece piece_of (const tilemm_view &v, void *dev, size_t es);
tilemm_status send_unit (workspace &ws, const piece &p, const unit &u, int chunk,
                         unsigned char *stage,
                         const char *what, tilemm_cuda_stats *st, tilemm_error *err);
tilemm_status fetch_unit (workspace &ws, const piece &p, const unit &u, int chunk,
                          unsigned char *stage,
                          tilemm_cuda_stats *st, tilemm_error *err);
/* The host copies of the staging run on ws's copy team (workspace_team), on the members the
 * plan names for each (tilemm_staging_copy_members: ws.staging, ws.team_threads); into_result: the destination is a result's (its pages faulted in by this
 * copy, as huge pages: tilemm_parallel_copy_into_huge). */
void copy_on_team (workspace &ws, void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
                   size_t row_bytes, size_t cols, bool into_result);
tilemm_status stage_up (workspace &ws, const tilemm_view &v, void *dev, tilemm_cuda_stats *st,
                        tilemm_error *err);
tilemm_status stage_down (workspace &ws, void *dev, const tilemm_view &v, cudaEvent_t ready,
                          tilemm_cuda_stats *st,
                          tilemm_error *err);
tilemm_matrix device_matrix (void *elements, int64_t height, int64_t width);
/* pipeline.cu: a transposed operand's piece, up as stored in `scratch`, transposed into `slot`
 * on ws.up (nothing for an untransposed one, which went straight into its slot). */
tilemm_status transpose_into_slot (workspace &ws, tilemm_op op, const tilemm_view &stored,
                                   const void *scratch, void *slot, tilemm_error *err);
/* pipeline.cu: the workspace made for the largest of `plans` (count of them: the panels a
 * worker may take), as every panel's pipeline makes it. */
tilemm_status reserve_for_panels (workspace &ws, const tilemm_plan *plans, int count,
                                  tilemm_op op_a, tilemm_op op_b, tilemm_error *err);
double ms_since (std::chrono::steady_clock::time_point t0);

/* Waits for the result's page preparation threads however the product ends. */
struct prefault_guard
{
  tilemm_prefault *p = nullptr;
  ~prefault_guard () { tilemm_prefault_finish (p); }
};

/* The result's pages prepared (huge pages; TILEMM_PREFAULT_THREADS threads faulting them in, no
 * more than ws's copy team, on its CPUs). */
tilemm_prefault *prepare_result (workspace &ws, const tilemm_view *c, tilemm_cuda_stats *st);

/* ---------------------------------------------------------------- the products */

/* pipeline.cu: one native product C = op_a(A)·op_b(B), in panels and steps (a transposed
 * operand transposed on the device, step by step). */
/* keep, product: what the plan says the worker keeps between its panels of product `product`
 * (tilemm_call_plan.queue_keeps; TILEMM_KEEP_NONE and 0 for a panel run alone): a kept operand
 * this worker's previous panel of the product left on the device is not sent again.  also: the
 * plans of the other panels the worker may take (also_count of them; the call plan's sub), the
 * workspace made for the largest of them at once. */
tilemm_status run_pipeline (workspace &ws, const tilemm_plan *plan, tilemm_op op_a,
                            const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                            const tilemm_view *c, const tilemm_stop *stop, tilemm_cuda_stats *st,
                            tilemm_error *err, tilemm_keep keep = TILEMM_KEEP_NONE,
                            unsigned long long product = 0, const tilemm_plan *also = nullptr,
                            int also_count = 0);
/* transposed_product.cu: op(x), packed, of an operand uploaded as stored into ws.buffer[stored]:
 * that buffer itself, or its transpose (conjugated for 'C') made in ws.buffer[transposed] on
 * stream s. */
tilemm_status operand_on_device (workspace &ws, tilemm_op op, const tilemm_view *x, int stored,
                                 int transposed,
                                 cudaStream_t s, const void **ready, tilemm_error *err);
/* What one emulated panel does: the whole scheme in one pass (statistics, the plan they select
 * among the call plan's branches, the product), the statistics only, or the product under a
 * plan made from every panel's; with the int8 GEMM the call's plan chose; C comes back in blocks
 * of block_cols columns (the call's plan says how wide). */
struct emu_stage
{
  enum { WHOLE, STATS, PRODUCT } kind;
  const tilemm_emu_options *options;  /* WHOLE, STATS */
  const tilemm_emu_plan *plan;        /* PRODUCT      */
  int64_t block_cols;
  tilemm_emu_gemm gemm;
  const tilemm_emu_branches *branches;  /* WHOLE: the call plan's */
  tilemm_emu_gemm stats_gemm;         /* the call plan's emu_stats_gemm                      */
  int gemm_blocks;                    /* the wgmma grid of the worker: tilemm_emu_gemm_grid   */
  int multiprocessors;                /* the call plan's emu_multiprocessors of the worker    */
  int64_t most_m = 0, most_n = 0;     /* the largest panel the worker may take (0: this one's):
                                         its workspace made for it at once                  */
  unsigned long long product = 0;     /* STATS, PRODUCT of several workers: the product whose
                                         panel's operands stay on the device from the one pass
                                         to the other (0: none)                              */
};
/* peer_exchange.cu: worker `worker`'s share of the operand the plan's exchange shares (TILEMM_EXCHANGE_PEER)
 * up from the host into its kept buffer and published on `exchange`, and every other share
 * already published copied from its owner's device on ws.peer; the rest are left to
 * receive_shares, which the worker's pipeline calls between its steps.  So the worker's panels
 * of product `product` find the operand kept, their kernels waiting on the GPU for the shares
 * still on their way, and its thread never waits for another worker's upload. */
tilemm_status share_operand (workspace &ws, int worker, const tilemm_call_plan *plan,
                             unsigned long long product, tilemm_op op_a, const tilemm_view *a,
                             tilemm_op op_b, const tilemm_view *b, tilemm_exchange *exchange,
                             tilemm_cuda_stats *st, tilemm_error *err);
/* peer_exchange.cu: share_operand's work for any operand laid out as the plan's exchange `x`
 * cuts it (kept_geometry: op(x)ᵀ in x->step's runs; a step of the whole extent is op(x) packed,
 * as an emulated panel holds it): worker `worker`'s share of `stored` (op(x) = op(stored), whole)
 * up from the host into `base` (through `scratch`, a piece as stored, where `op` transposes),
 * published on `exchange`, and every other share already published copied from its owner's
 * device on ws.peer; ws.arriving is then `product`. */
tilemm_status publish_share (workspace &ws, int worker, const tilemm_exchange_plan *x,
                             unsigned long long product, int64_t m, int64_t k, tilemm_op op,
                             const tilemm_view *stored, char *base, void *scratch,
                             tilemm_exchange *exchange, tilemm_cuda_stats *st, tilemm_error *err);
/* peer_exchange.cu: every share of product ws.arriving not yet copied in waited for on the host
 * (its owner's publication, or its absence: then read from the host), its copy enqueued; for a
 * panel that needs the whole operand before anything (an emulated panel's statistics).
 * TILEMM_EINTERRUPTED once the product stops. */
tilemm_status await_shares (workspace &ws, tilemm_cuda_stats *st, tilemm_error *err);
/* peer_exchange.cu: the shares of product ws.arriving not yet copied in whose owners have
 * published them since (or will not: those read from the host), their copies enqueued now,
 * without waiting for the others; TILEMM_EINTERRUPTED once the product stops. */
tilemm_status receive_shares (workspace &ws, tilemm_cuda_stats *st, tilemm_error *err);
/* Whether every share holding any of columns [begin, end) of what the shares cut has its copy
 * in enqueued (a kernel reading them may wait for share_in on the GPU). */
bool shares_enqueued (const workspace &ws, int64_t begin, int64_t end);

/* What a workspace keeps of an operand: see kept_operand. */
kept_operand kept_of (unsigned long long product, tilemm_keep which, tilemm_op op,
                      const tilemm_view *v, int64_t step, int64_t k);
bool same_kept (const kept_operand &x, const kept_operand &y);
/* batch_product.cu: `pages` pages of a batch from page `first` (a chunk of its queue), in the
 * panels the batch's plan cuts them into. */
tilemm_status batch_chunk (workspace &ws, const tilemm_batch_job *job, int64_t first,
                           int64_t pages, const tilemm_stop *stop, tilemm_cuda_stats *st,
                           tilemm_error *err);
/* emulated_product.cu: one panel of an emulated product C = op_a(A)·op_b(B) (stats: STATS's
 * statistics). */
tilemm_status emu_panel (workspace &ws, const emu_stage &stage, tilemm_op op_a,
                         const tilemm_view *a,
                         tilemm_op op_b, const tilemm_view *b, const tilemm_view *c,
                         const tilemm_stop *stop, tilemm_emu_stats *stats, tilemm_emu_plan *used,
                         tilemm_cuda_stats *st, tilemm_error *err);

/* emulated_product.cu: the workspace of an m×n×k panel of `stage` (and of the largest the worker
 * may take: stage.most_*), as emu_panel makes it. */
tilemm_status emu_reserve (workspace &ws, const emu_stage &stage, tilemm_type type, tilemm_op op_a,
                           tilemm_op op_b, int64_t m, int64_t n, int64_t k, tilemm_error *err);

/* emulated_exchange.cu: before worker `worker`'s pass of statistics (stage: its STATS stage),
 * its share of the operand the plan's emu_exchange shares (TILEMM_EXCHANGE_PEER; a and b as
 * stored, whole) up from the host as op(x) into the buffer its panels read it from, published
 * on `exchange`, the shares already published copied in from their owners' devices. */
tilemm_status emu_share (workspace &ws, int worker, const tilemm_call_plan *plan,
                         const emu_stage &stage, tilemm_op op_a, const tilemm_view *a,
                         tilemm_op op_b, const tilemm_view *b, tilemm_exchange *exchange,
                         tilemm_cuda_stats *st, tilemm_error *err);
/* emulated_exchange.cu: whether operand `which` of a panel of stage.product (v: as stored, op)
 * is the one emu_share put in place: not sent, nor transposed, by the panel. */
bool emu_shared_here (const workspace &ws, const emu_stage &stage, tilemm_keep which, tilemm_op op,
                      const tilemm_view *v);
/* emulated_exchange.cu: stream s waits for every other share's copy (all enqueued:
 * await_shares); the exchange of the product then ends for this worker. */
tilemm_status emu_wait_shares (workspace &ws, cudaStream_t s, tilemm_error *err);

/* emulated_pipeline.cu: an emulated product of one pass (stage.kind WHOLE) in panels of C, the
 * first of first_cols columns, the others of panel_cols (the call plan's emu_pipe_first and
 * emu_pipe_cols), B's panels sent while the device computes the panel before: bitwise
 * emu_panel's product. */
tilemm_status emu_pipelined (workspace &ws, const emu_stage &stage, int64_t first_cols,
                             int64_t panel_cols, tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                             const tilemm_view *b, const tilemm_view *c, const tilemm_stop *stop,
                             tilemm_emu_plan *used, tilemm_cuda_stats *st, tilemm_error *err);

} /* namespace tilemm_cuda */

#endif /* TILEMM_CUDA_EXECUTOR_H */
