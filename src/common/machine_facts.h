/* machine_facts.h — what this machine does, as the cost model (device_model.h) needs it: the
 * host's own product (Octave's `*`, or the BLAS a program calls), tilemm's CPU backend, the host's
 * copies by thread count and, for each GPU, its transfers and kernels.  Measured once per machine
 * (exec/calibrate.c), kept in a small file per user (facts_store.c) and read again while what
 * they depend on (the key) is unchanged; the built-in model's where nothing was measured.
 * Plain data: every decision that weighs time reads these, through device_model.h.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_MACHINE_FACTS_H
#define TILEMM_MACHINE_FACTS_H

#include "devices.h"
#include "host_blas.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds against work: a few measured points (flops increasing, seconds never decreasing),
 * read between them on a log-log line, below the first as the first (a call's fixed cost), past
 * the last at the last point's rate.  Without points, the built-in model's line fixed_s +
 * flops / flops_per_s; with neither, not known. */
#define TILEMM_CURVE_POINTS 10
typedef struct {
  int points;
  double flops[TILEMM_CURVE_POINTS];
  double seconds[TILEMM_CURVE_POINTS];  /* the median of a point's runs                     */
  double episodes[TILEMM_CURVE_POINTS];   /* their mean over that median (>= 1; 0: not known):
                                           what a script's loop pays on average beyond the
                                           typical run, where another pool's threads or a
                                           late thread slow some runs                       */
  double fixed_s, flops_per_s;
} tilemm_curve;

/* Seconds `flops` take on the curve; INFINITY where it is not known. */
double tilemm_curve_seconds (const tilemm_curve *curve, double flops);

/* The episodes factor (see tilemm_curve) at `flops`: the nearest measured point's, 1 where none is known. */
double tilemm_curve_episodes (const tilemm_curve *curve, double flops);

/* Adds a point (kept in order of flops; seconds made non-decreasing, the smaller product's lowered:
 * a larger product never takes less time, whatever a noisy measurement said).  0 when the curve is full or the point is not
 * a finite positive pair. */
int tilemm_curve_add (tilemm_curve *curve, double flops, double seconds);
/* The same with the point's episodes factor (below 1 or not finite: not known). */
int tilemm_curve_add_episodes (tilemm_curve *curve, double flops, double seconds, double episodes);

typedef enum {
  TILEMM_FACTS_MODEL = 0,   /* the built-in model (calibration off, or it could not run) */
  TILEMM_FACTS_MEASURED,    /* measured by this process                                  */
  TILEMM_FACTS_STORED       /* read from the store, measured earlier on this machine     */
} tilemm_facts_origin;

/* What a set of facts holds measured, by part: a call measures the parts its decision reads and
 * no others (exec/machine.c), so the first call of a process on a new machine waits for about a
 * second, not for every part; the parts not measured are the built-in model's. */
enum {
  TILEMM_FACTS_COPIES = 1u << 0,   /* host copies by team size, resident and fresh pages        */
  /* 1u << (1 + type): the host's product, the CPU backend and one GPU end to end on square
   * products of that type, timed alternately as a script alternating them runs them */
  TILEMM_FACTS_PAGES = 1u << 5,    /* the host's loop over pages, the CPU's and GPU's batches     */
  TILEMM_FACTS_GPU = 1u << 6,      /* one GPU's call: its fixed cost, bus and kernels' rates      */
  TILEMM_FACTS_GPUS = 1u << 7,     /* every GPU together; each GPU's links, kernels, emulated rate */
  TILEMM_FACTS_INT8 = 1u << 8,     /* the emulated precision's int8 GEMM on one GPU ("auto")      */
  TILEMM_FACTS_ALL = 0x1ffu
};
#define TILEMM_FACTS_WAYS(type) (1u << (1 + (int) (type)))

/* The most host thread counts whose copy rate is kept. */
#define TILEMM_COPY_POINTS 8

/* One GPU's own figures (device time; informative, and the links of a product on several). */
typedef struct {
  int ordinal;
  char name[128];
  double up_bytes_per_s, down_bytes_per_s;           /* pinned copies, this GPU alone       */
  double up_busy_bytes_per_s, down_busy_bytes_per_s; /* ... while every GPU copies both ways */
  double kernel_flops_per_s[TILEMM_NTYPES];          /* our kernels, from CUDA events      */
  double emulated_flops_per_s;                       /* a double product in the emulated
                                                        precision, from the same events    */
} tilemm_gpu_facts;

typedef struct tilemm_machine_facts_s {
  tilemm_facts_origin origin;
  char where[512];      /* the store's file; or, for the model, why it serves              */
  char key[1024];       /* what the facts depend on ("name=value" lines): measured again when
                           any of it changes                                               */
  double measured_s;    /* how long measuring them took (0: the model)                     */
  double others_cpu_share; /* the share of the CPUs' time other processes took while they were
                              measured (0 to 1; negative: not known).  Facts measured on a busy
                              machine are used by the process that measured them, never kept. */
  unsigned parts;       /* TILEMM_FACTS_*: the parts measured (the others: the built-in model's) */
  double part_s[9];     /* how long each part (bit i of TILEMM_FACTS_*) took to measure, the last
                           time it was (informative: the first call's wait, part by part)      */
  /* The host's BLAS as its own interface says (host_blas.h): which, its threads, whether its
   * idle threads keep spinning after a call (a pool that holds the cores a product that follows
   * it would use: the ways' curves, measured alternately with it, price that). */
  tilemm_host_blas host_blas;

  /* The host's own product of square operands, one call from the front end (Octave's `*` as
   * the oct-file calls it, or the next BLAS), by type; host_page one page of a loop of it. */
  int host_measured;
  tilemm_curve host[TILEMM_NTYPES];
  tilemm_curve host_page[TILEMM_NTYPES];

  /* tilemm's CPU backend, one plain product on the host's threads (not known: never chosen by
   * "auto"). */
  int cpu_measured;
  tilemm_curve cpu[TILEMM_NTYPES];
  /* The CPU's batched path (pages): one page's fixed cost (small real pages, computed directly,
   * and the others), and one thread's rate while every thread works (the tiled pages'; the
   * small pages' direct loops run at a rate of their own, several times lower). */
  double cpu_small_page_s, cpu_page_s, cpu_thread_flops_per_s, cpu_small_flops_per_s;
  double cpu_region_s;  /* a parallel region's start and barrier on every thread, its threads
                           woken from a pause (work shorter than this stays on one thread)   */
  int threads;          /* the host's threads (OpenMP's)                                  */

  /* Host memory copies (the pinned staging's host side), bytes/s by team size, the median of a
   * few: into pages already in memory (an operand into the pinned ring) and into fresh pages (a
   * result into the array the host has just made for it: each page faulted in by the copy). */
  int copy_points;
  int copy_threads[TILEMM_COPY_POINTS];
  double copy_bytes_per_s[TILEMM_COPY_POINTS];
  double copy_fresh_bytes_per_s[TILEMM_COPY_POINTS];

  /* GPUs: a call on one GPU end to end (the plan's unit): its fixed cost, its first bytes at
   * the bus's latency, the rest through the staging (host copies included), the kernels' rate
   * by type, a pipeline step's and a worker panel's fixed costs. */
  int gpu_measured;
  int gpus;             /* GPUs measured (0 where none is usable)                          */
  double gpu_call_s, gpu_first_bytes, gpu_first_bytes_per_s, gpu_bus_bytes_per_s;
  /* The same call measured end to end on square products up to a few thousand, by type: what
   * the fitted line above cannot say of small products (a kernel on few tiles runs far below its
   * rate; a call's copies and synchronisations add up), read in the curves' range, the line
   * past it. */
  tilemm_curve gpu_curve[TILEMM_NTYPES];
  double gpu_step_s, gpu_panel_s, gpu_panel_worth;
  double gpu_kernel_flops_per_s[TILEMM_NTYPES];
  /* The emulated precision's int8 GEMM (src/kernels/emulated_cuda.cu), exact products: int8
   * multiply-adds ×2 a second with the GPU filled.  What "precision", "auto" weighs against the
   * native kernels' rate (device_model.h: tilemm_model_gpu_emulated_s).  Measured as the part
   * TILEMM_FACTS_INT8 (the modular GEMMs of a square product timed on the caller's GPU, device
   * time: exec/calibrate.c), which only a decision weighing "precision", "auto" reads; the
   * built-in model's until then ("gpu_int8" line of the store). */
  double gpu_int8_ops_per_s;
  /* The same call on every GPU (gpu_all_count > 1), square double products of doubling sizes
   * each into a fresh result: gpu_all_one the caller's GPU alone, gpu_all_every every GPU, timed
   * one after the other at each size.  Their ratio is the gain of every GPU measured as a
   * function of size (gpus_model.h reads it in their range, its stages past it); gpu_all_call_s
   * and gpu_all_speedup a line fitted to them (informative: a single number cannot follow a
   * gain that grows with size).  gpu_all_count 0: not measured. */
  int gpu_all_count;
  double gpu_all_call_s, gpu_all_speedup;
  tilemm_curve gpu_all_one, gpu_all_every;
  /* The double kernels' rate with the GPU filled: the best of the CUDA events' compute windows
   * of one GPU's products in the every-GPU part (to 8192), at least the one-GPU call's
   * gpu_kernel_flops_per_s (measured to 2048, where a large GPU is not filled).  Read by the
   * several-GPU stages only; 0: not measured. */
  double gpu_filled_flops_per_s;
  /* One GPU's copies from another (cudaMemcpyPeerAsync), bytes/s, every pair copying at once:
   * what the several-GPU price reads for the shares of the operand every GPU holds
   * (gpus_model.h).  Measured with every GPU where every pair reaches the other
   * (cudaDeviceCanAccessPeer); 0: not measured, or some pair cannot reach (the model's
   * conservative built-in serves). */
  double gpu_peer_bytes_per_s;
  /* A batch of pages on one GPU (the batched kernels): its fixed cost, its pages' bytes through
   * the staging (0: the plain call's bus), its kernels' rate by type. */
  double gpu_batch_call_s, gpu_batch_bus_bytes_per_s;
  double gpu_batch_flops_per_s[TILEMM_NTYPES];
  tilemm_gpu_facts gpu[TILEMM_MAX_WORKERS];
} tilemm_machine_facts;

/* The built-in model (one, constant): the facts of the machine tilemm was first tuned on (an
 * H100 with 16 cores and OpenBLAS), where nothing was measured. */
const tilemm_machine_facts *tilemm_facts_builtin (void);

/* *facts = the built-in model, its `where` saying why it serves. */
void tilemm_facts_model (tilemm_machine_facts *facts, const char *why);

/* The copy team size past which the host's copies get no faster: the fewest threads within a
 * tenth of the best rate measured, into resident pages and into fresh ones (the larger of the
 * two); `most` where nothing was measured. */
int tilemm_facts_copy_saturation (const tilemm_machine_facts *facts, int most);

/* The facts as text, one "name value..." a line (the store's format: facts_store.c reads it
 * back); `size` bytes at most, always terminated.  Returns the length it needed. */
size_t tilemm_facts_print (const tilemm_machine_facts *facts, char *buf, size_t size);

/* Reads what tilemm_facts_print wrote.  TILEMM_OK, or TILEMM_EINVAL where the text is not such
 * facts (its format line missing or another, a line malformed). */
tilemm_status tilemm_facts_parse (const char *text, tilemm_machine_facts *facts);

/* Seconds on the monotonic clock (the facts' and their front ends' one timer). */
double tilemm_now_s (void);

/* The name of the facts' origin: "model", "measured", "stored". */
const char *tilemm_facts_origin_name (tilemm_facts_origin origin);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_MACHINE_FACTS_H */
