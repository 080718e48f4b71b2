/* tilemm.h — the pure-C core of tilemm: views, plans, routes, status codes.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The core knows nothing of Octave, MATLAB or CUDA: any host (the mex gateway, an oct-file, a C
 * program, a BLAS shim) wraps its data in views, asks for a plan and calls tilemm_multiply.
 *
 * The one idea.  Views describe matrices the way Octave, MATLAB and BLAS store them: column by
 * column, column j starting `stride` elements after column j-1.  Read row by row, the same bytes
 * are the transpose.  So C = A·B (m×n) is computed, on the untouched buffers, as the row-major
 * product  Cᵀ (n×m) = Bᵀ (n×k) · Aᵀ (k×m)  by a tiled kernel in the style of the CUDA guide
 * (tilemm_matrix below is the guide's Matrix).  Nothing is ever transposed or copied to reorder.
 */
#ifndef TILEMM_H
#define TILEMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- status */

typedef enum {
  TILEMM_OK = 0,
  TILEMM_EINVAL,      /* a bad argument: null data, negative size, stride < rows, ...      */
  TILEMM_ESHAPE,      /* inner dimensions disagree, or C has the wrong size               */
  TILEMM_ETYPE,       /* operands of different or unsupported element types               */
  TILEMM_EOVERFLOW,   /* a size whose element or byte count does not fit the address space */
  TILEMM_ENOMEM,      /* host memory could not be allocated                               */
  TILEMM_ENOGPU,      /* no usable GPU: not built with CUDA, no device, no or old driver  */
  TILEMM_EDEVMEM,     /* device memory could not be allocated                             */
  TILEMM_ECUDA,       /* a CUDA call failed (the error detail names it)                   */
  TILEMM_EBACKEND,    /* the plan names a backend this build does not have                */
  TILEMM_EOPTION,     /* an unknown option, or a bad option value (front ends)            */
  TILEMM_EINTERRUPTED, /* the host asked to stop (tilemm_stop); C is partly written       */
  TILEMM_ELIMIT,      /* the cpu backend's max_device_bytes is too small for one panel: no
                         GPU memory is involved, so not TILEMM_EDEVMEM                      */
  TILEMM_NSTATUS
} tilemm_status;

/* A sentence describing the status, never NULL. */
const char *tilemm_strerror (tilemm_status status);

/* The short reason used in error identifiers, "tilemm:<reason>" (e.g. "nogpu", "cuda"). */
const char *tilemm_status_reason (tilemm_status status);

/* What went wrong, in detail, for a host to show its user.  Every call that can fail in a way a
 * status alone cannot explain (CUDA calls) takes an optional tilemm_error*; it is per call, so
 * no state survives from one call to the next. */
typedef struct {
  tilemm_status status;
  char detail[384];   /* e.g. "cudaMalloc(dA, 134217728 bytes): out of memory"; "" if none */
} tilemm_error;

/* Records status and a printf-style detail into err (if err is not NULL); returns status. */
tilemm_status tilemm_error_set (tilemm_error *err, tilemm_status status, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__ ((format (printf, 3, 4)))
#endif
  ;

/* ---------------------------------------------------------------- arithmetic */

/* ceil (a / b) for a >= 0: the count of pieces of b that cover a (tiles, panels, chunks, a
 * launch's blocks); 0 for b <= 0, so that a count of no pieces never divides by zero.  The one
 * definition every layer uses (plans, backends, launchers alike). */
static inline int64_t tilemm_ceil_div (int64_t a, int64_t b)
{
  return b > 0 ? (a + b - 1) / b : 0;
}

/* ---------------------------------------------------------------- views */

typedef enum {
  TILEMM_SINGLE = 0,        /* float                                   */
  TILEMM_DOUBLE,            /* double                                  */
  TILEMM_COMPLEX_SINGLE,    /* interleaved (re, im) float pairs         */
  TILEMM_COMPLEX_DOUBLE,    /* interleaved (re, im) double pairs        */
  TILEMM_NTYPES
} tilemm_type;

/* Bytes per element (a complex element counts once: 8 or 16 bytes). 0 for a bad type. */
size_t tilemm_type_size (tilemm_type type);
int tilemm_type_is_complex (tilemm_type type);
const char *tilemm_type_name (tilemm_type type);

/* A column-major, strided matrix view: element (i, j) lives at data + (i + j*stride) elements.
 * stride >= max(rows, 1).  A view never owns its data. */
typedef struct {
  int64_t rows;
  int64_t cols;
  int64_t stride;
  tilemm_type type;
  void *data;
} tilemm_view;

/* Fills *view after checking the arguments (sizes >= 0, stride >= max(rows,1), data not NULL
 * unless the view is empty, byte extent representable). */
tilemm_status tilemm_view_init (tilemm_view *view, tilemm_type type, int64_t rows, int64_t cols,
                                int64_t stride, void *data);

/* Checks an existing view as tilemm_view_init would. */
tilemm_status tilemm_view_check (const tilemm_view *view);

/* The sub-matrix of `rows`×`cols` starting at (row, col): the same struct with an offset pointer
 * and the parent's stride (the CUDA guide's GetSubMatrix).  The caller keeps it inside the
 * parent; tilemm_view_sub clamps it so it never reaches past the parent's edge. */
tilemm_view tilemm_view_sub (const tilemm_view *view, int64_t row, int64_t col, int64_t rows,
                             int64_t cols);

/* The row-major reading of a view, the CUDA guide's Matrix: element (r, c) lives at
 * elements + r*stride + c.  The reading of a column-major rows×cols view is its cols×rows
 * transpose, with the same stride and the same bytes. */
typedef struct {
  int64_t height;
  int64_t width;
  int64_t stride;
  void *elements;
} tilemm_matrix;

tilemm_matrix tilemm_row_major_reading (const tilemm_view *view);

/* ---------------------------------------------------------------- plan */

typedef enum {
  TILEMM_BACKEND_CPU = 0,   /* the tiled C backend, always built                   */
  TILEMM_BACKEND_CUDA,      /* the tiled CUDA kernels; TILEMM_ENOGPU if not usable */
  TILEMM_NBACKENDS
} tilemm_backend;

const char *tilemm_backend_name (tilemm_backend backend);

/* How an operand enters the product: as stored, transposed, or conjugate-transposed (BLAS's
 * 'N', 'T', 'C'; pagemtimes' "none", "transpose", "ctranspose").  Transposing a column-major
 * view is only the other reading of the same bytes, so no operand is copied to transpose it on
 * the CPU (see backend_cpu.c); the GPU transposes on the device (transpose.cu). */
typedef enum {
  TILEMM_OP_NONE = 0,
  TILEMM_OP_TRANSPOSE,
  TILEMM_OP_CTRANSPOSE,   /* the same as TILEMM_OP_TRANSPOSE for a real type */
  TILEMM_NOPS
} tilemm_op;

/* The most distinct heights (and widths) of the launches one plan runs. */
#define TILEMM_PLAN_LAUNCH_SIDES 4

/* How one product C (m×n) = A (m×k) · B (k×n) is cut into work.  The tile shape is given for the
 * row-major product Cᵀ = Bᵀ·Aᵀ that the kernels compute: a block tile covers tile_rows rows of Cᵀ
 * (columns of C) by tile_cols columns of Cᵀ (rows of C), stepping tile_depth along k. */
typedef struct {
  tilemm_backend backend;
  tilemm_type type;
  int64_t m, n, k;
  int variant;          /* backend kernel variant (CUDA: see cuda_variants.h)            */
  int tile_rows;        /* block tile rows of Cᵀ                                          */
  int tile_cols;        /* block tile columns of Cᵀ                                       */
  int tile_depth;       /* k step of one shared-memory (or cache) tile                    */
  int pad;              /* elements added to each shared-memory tile row against conflicts */
  int64_t panel_rows;   /* rows of Cᵀ (columns of C) per panel; n when there is one panel   */
  int64_t panel_cols;   /* cols of Cᵀ (rows of C) per panel; m when there is one panel      */
  int threads;          /* host threads (CPU backend): sized to the product on the host's
                           threads (tilemm_plan_cpu_threads); 0: one thread                  */
  int cpu_isa;          /* CPU backend: the instruction-set variant it runs (tilemm_cpu_isa,
                           host_cpus.h), the host's facts' where the plan sets its threads;
                           0, the default variant, for a plan made without them             */
  /* How the GPU backend streams a panel (the CPU backend ignores these).  A panel's piece of
   * Bᵀ (panel_rows × k) stays on the device while A's rows go through it in steps of step_cols
   * rows; each step is uploaded, multiplied and its piece of C downloaded while the next one
   * uploads and the previous one downloads.  A step of A's rows meets Bᵀ's panel in parts of
   * step_rows rows (columns of B), so the first kernel need not wait for all of B.  The device
   * holds Bᵀ's panel plus `slots` steps of A's rows and of C's pieces. */
  int64_t step_rows;    /* rows of Cᵀ (columns of B and C) per step; <= panel_rows          */
  int64_t step_cols;    /* cols of Cᵀ (rows of A and C) per step; <= panel_cols             */
  int64_t slots;        /* steps of A's rows held at once (1 panel: every one of them)      */
  /* The GPU's transposed operands (TILEMM_OP_NONE on the CPU, which reads a transposed operand
   * the other way round).  A transposed operand's piece of a step goes up as stored into a
   * scratch buffer and is transposed from there into its slot, so the device holds one step's
   * piece more for each: step_cols·k for op_a, step_rows·k for op_b, counted in the panels and
   * in tilemm_plan_device_bytes. */
  tilemm_op op_a, op_b;
  /* How the GPU launches the variant on each launch shape the plan runs (the CPU backend ignores
   * these): made in the plan layer (tilemm_plan_launches, ksplit.h) with the steps; the launcher
   * only reads them.  A launch computes C' (launch_rows[i] × launch_cols[j]) with the plan's k:
   * a step, the last step of a panel's rows or columns, the last panel's. */
  int kernel_fallback;  /* 1: the DMMA variants run their register-tiled fallback (a device
                           below compute capability 8, from the devices' facts; 0 without)   */
  int launch_heights, launch_widths;                    /* entries used below             */
  int64_t launch_rows[TILEMM_PLAN_LAUNCH_SIDES];         /* the launches' heights          */
  int64_t launch_cols[TILEMM_PLAN_LAUNCH_SIDES];         /* the launches' widths           */
  int ksplit[TILEMM_PLAN_LAUNCH_SIDES][TILEMM_PLAN_LAUNCH_SIDES]; /* pieces of k (1: unsplit) */
  int64_t kchunk[TILEMM_PLAN_LAUNCH_SIDES][TILEMM_PLAN_LAUNCH_SIDES]; /* reals of k a piece  */
} tilemm_plan;

/* Limits a plan must respect.  Zero means "no limit". */
typedef struct {
  size_t max_device_bytes;   /* what the GPU holds for one product (Bᵀ's panel plus the slots
                                of A's rows and C's pieces) stays within this many bytes, so
                                each panel's A, B and C pieces fit in it too                  */
  const struct tilemm_machine_facts_s *facts; /* the machine's facts the cost model reads to
                                choose panels and steps (machine_facts.h); NULL: the built-in
                                model's                                                       */
  int multiprocessors;       /* the fewest multiprocessors among the GPUs the call may use (the
                                devices' facts), which the CUDA variant's choice and the panels'
                                fill model count, so every GPU of a split runs one variant and
                                the results stay bitwise equal; 0, unknown: an H100's
                                (TILEMM_CUDA_SMALL_BLOCKS)                                    */
} tilemm_limits;

/* Chooses variant, tiles, padding and panels for the product.  Pure: no allocation, no device
 * query; limits may be NULL.  With no limit, or one the whole product fits in, there is one
 * panel (cut into steps for the GPU's overlap of copies and compute).  Otherwise the panels keep
 * as much of Bᵀ on the device as leaves room for two slots of steps that fill the GPU, so that
 * A is sent as few times as possible (B and C once).  A limit too small for one panel is
 * TILEMM_EDEVMEM for the GPU and TILEMM_ELIMIT for the CPU (which cuts the same kind of panels,
 * so that they are tested without a GPU). */
tilemm_status tilemm_plan_make (tilemm_plan *plan, tilemm_backend backend, tilemm_type type,
                                int64_t m, int64_t n, int64_t k, const tilemm_limits *limits);

/* The CPU backend's threads for `plan` on `host_threads` threads (tilemm_team_threads_left):
 * no more than its tiles of a panel, none beyond what its flops pay for (team_size.h) at the
 * faster of the rule's per-thread rate and the one `facts` measured (NULL: the built-in model's);
 * at least 1.  The call plan and the batch plan set plan->threads from it; a plan made without
 * the host's facts keeps 0 (one thread).  Pure. */
int tilemm_plan_cpu_threads (const tilemm_plan *plan, const struct tilemm_machine_facts_s *facts,
                             int host_threads);

/* The CPU backend's tiles of one panel of `plan` (tiles_down × tiles_across block tiles, taken
 * row by row) in the plan's batches: the batch from tile `first` holds the returned count of
 * tiles and runs on *team threads.  Without a stop to poll (polled 0), one batch of every tile;
 * with one, batches of whole tile rows of at least TILEMM_CPU_POLL_TILES_PER_THREAD tiles a
 * thread of plan->threads, the stop polled between them (a thread that left a job early would
 * hold back none).  *team: plan->threads (0: one), no more than the batch's tiles.  Pure. */
#define TILEMM_CPU_POLL_TILES_PER_THREAD 4
int64_t tilemm_plan_cpu_tile_batch (const tilemm_plan *plan, int64_t tiles_down,
                                    int64_t tiles_across, int polled, int64_t first, int *team);

/* tilemm_plan_make for C = op_a(A)·op_b(B): on the GPU (backend CUDA) the plan records the
 * transposed operands and counts their scratch (a step's piece as stored) in its panels and
 * device bytes; on the CPU the ops change nothing. */
tilemm_status tilemm_plan_make_op (tilemm_plan *plan, tilemm_backend backend, tilemm_type type,
                                   int64_t m, int64_t n, int64_t k, tilemm_op op_a, tilemm_op op_b,
                                   const tilemm_limits *limits);

/* Device bytes the GPU backend holds to run the plan: Bᵀ's panel plus `slots` steps' rows of A
 * and pieces of C, and a transposed operand's scratch (tilemm_plan_make keeps it within
 * max_device_bytes). */
size_t tilemm_plan_device_bytes (const tilemm_plan *plan);

/* The steps as the GPU's pipeline takes them: the plan's, where set and smaller than a panel
 * (itself never larger than the product), else the panel's extent. */
void tilemm_plan_steps (const tilemm_plan *plan, int64_t *step_rows, int64_t *step_cols);

/* Elements of the scratch a transposed operand's piece of one step of `plan` goes up into, as
 * stored, before the device transposes it into its slot: step_cols·k where op_a transposes,
 * step_rows·k where op_b does, else 0 (steps as tilemm_plan_steps takes them). */
void tilemm_plan_transposed_scratch (const tilemm_plan *plan, tilemm_op op_a, tilemm_op op_b,
                                     int64_t *a_elements, int64_t *b_elements);

/* Whether the GPU path pays for C (m×n) = A (m×k)·B (k×n) against Octave's own `*` in the built-in
 * model (device_model.h, tilemm_plan_auto_way with no facts): the GPU's time is a fixed cost per
 * call, the bytes over the bus and the flops at the kernels' rate; `*`'s is the flops at the CPU
 * BLAS's rate near the crossover on the machine the model was tuned on.  Pure. */
int tilemm_plan_gpu_pays (tilemm_type type, int64_t m, int64_t n, int64_t k);

/* The same for a rank-k update C (n×n) = op(X)·X or X·op(X) of one X (k the inner dimension):
 * what the host computes as BLAS ?syrk or ?herk, one triangle, half the flops of the plain
 * product, against the GPU path's time for the product it runs (the plain one, whole).  Pure. */
int tilemm_plan_rank_k_gpu_pays (tilemm_type type, int64_t n, int64_t k);

/* A panel: rows × cols of Cᵀ starting at (row, col); in C's terms, C(col : col+cols-1,
 * row : row+rows-1), computed from A(col…, :) and B(:, row…). */
typedef struct {
  int64_t row, col, rows, cols;
} tilemm_panel;

/* Number of panels in a plan (0 for an empty product). */
int64_t tilemm_plan_panel_count (const tilemm_plan *plan);

/* Panel number index (0 ≤ index < count, row by row over Cᵀ); returns 0 when out of range. */
int tilemm_plan_panel (const tilemm_plan *plan, int64_t index, tilemm_panel *panel);

/* ---------------------------------------------------------------- multiply */

/* C = A·B for column-major views of one type: A is m×k, B is k×n, C is m×n (written whole;
 * its previous contents are never read).  Runs plan->backend.  err may be NULL. */
tilemm_status tilemm_multiply (const tilemm_plan *plan, const tilemm_view *a, const tilemm_view *b,
                               const tilemm_view *c, tilemm_error *err);

/* A host's way to stop a long product (Ctrl-C).  should_stop(arg) is polled on the calling
 * thread between panels, GPU steps and batches of CPU tile rows, never inside a tile or a kernel;
 * when it returns nonzero the product stops, in-flight GPU work is waited for (the buffers stay
 * consistent and are kept), and TILEMM_EINTERRUPTED is returned.  It must not longjmp or throw
 * (the core is C and holds locks), only answer; the host raises its own interrupt afterwards. */
typedef struct {
  int (*should_stop) (void *arg);   /* NULL: never stop */
  void *arg;
} tilemm_stop;

/* tilemm_multiply with a stop callback (stop may be NULL). */
tilemm_status tilemm_multiply_stoppable (const tilemm_plan *plan, const tilemm_view *a,
                                         const tilemm_view *b, const tilemm_view *c,
                                         const tilemm_stop *stop, tilemm_error *err);

/* Checks that a, b, c form a product the plan describes: types, sizes, strides. */
tilemm_status tilemm_check_operands (const tilemm_plan *plan, const tilemm_view *a,
                                     const tilemm_view *b, const tilemm_view *c);

/* The rows and columns op(view) has: (rows, cols) for NONE, (cols, rows) otherwise. */
int64_t tilemm_op_rows (tilemm_op op, const tilemm_view *view);
int64_t tilemm_op_cols (tilemm_op op, const tilemm_view *view);

/* The stored part of `view` that holds op(view)'s rows×cols block at (row, col): that block of
 * the view itself for NONE, the cols×rows block at (col, row) otherwise (tilemm_view_sub). */
tilemm_view tilemm_view_op_sub (tilemm_op op, const tilemm_view *view, int64_t row, int64_t col,
                                int64_t rows, int64_t cols);

/* C = op_a(A)·op_b(B): a and b are the views as stored (A is k×m when op_a transposes), op_a(A)
 * is m×k, op_b(B) is k×n, C is m×n, written whole and never read.  With two NONE ops this is
 * tilemm_multiply. */
tilemm_status tilemm_multiply_op (const tilemm_plan *plan, tilemm_op op_a, const tilemm_view *a,
                                  tilemm_op op_b, const tilemm_view *b, const tilemm_view *c,
                                  tilemm_error *err);

/* tilemm_multiply_op with a stop callback (stop may be NULL; a transposed product on the GPU
 * runs in one piece and is not stopped part way). */
tilemm_status tilemm_multiply_op_stoppable (const tilemm_plan *plan, tilemm_op op_a,
                                            const tilemm_view *a, tilemm_op op_b,
                                            const tilemm_view *b, const tilemm_view *c,
                                            const tilemm_stop *stop, tilemm_error *err);

/* tilemm_check_operands for op_a(A)·op_b(B). */
tilemm_status tilemm_check_operands_op (const tilemm_plan *plan, tilemm_op op_a,
                                        const tilemm_view *a, tilemm_op op_b,
                                        const tilemm_view *b, const tilemm_view *c);

/* ---------------------------------------------------------------- route: the rules of `*` */

typedef enum {
  TILEMM_CLASS_DOUBLE = 0,
  TILEMM_CLASS_SINGLE,
  TILEMM_CLASS_LOGICAL,
  TILEMM_CLASS_CHAR,
  TILEMM_CLASS_INTEGER,     /* int8 … uint64                                   */
  TILEMM_CLASS_OTHER        /* cell, struct, function handle, object, unknown   */
} tilemm_class;

typedef struct {
  tilemm_class cls;
  int is_complex;
  int is_sparse;
  int ndims;                /* as the host reports it (2 for a matrix)        */
  int64_t rows, cols;       /* first two dimensions                           */
  int is_structured;        /* a diagonal or permutation matrix (Octave's own types): `*`
                               scales or permutes it in O(n) and keeps its type, so it is
                               delegated, never densified                                     */
  const void *identity;     /* the host's object (NULL: unknown): A and B the same object with
                               one of them transposed is Octave's symmetric/Hermitian product */
  int host_two_real;        /* set on A: the host multiplies this pair of operands, in the op
                               form asked, by a compound operator of its own (Octave's
                               trans_mul, mul_trans, … for a real and a complex operand of one
                               class), which takes two real products whatever the shape      */
} tilemm_operand;

/* The largest dimension an operand may have: BLAS's Fortran INTEGER, which `*` checks (it refuses
 * larger ones, or answers them without BLAS): such operands are handed to mtimes. */
#define TILEMM_MAX_DIM ((int64_t) 2147483647)

typedef enum {
  TILEMM_ROUTE_COMPUTE = 0,   /* run a kernel                                                */
  TILEMM_ROUTE_ZEROS,         /* k == 0: an m×n result of zeros, m, n > 0                    */
  TILEMM_ROUTE_EMPTY,         /* m == 0 or n == 0: an empty m×n result                       */
  TILEMM_ROUTE_NONCONFORMANT, /* "operator *: nonconformant arguments (op1 is RxC, op2 is RxC)" */
  TILEMM_ROUTE_DELEGATE       /* hand both operands, unchanged, to the built-in mtimes       */
} tilemm_route_action;

typedef enum {
  TILEMM_OPERAND_AS_IS = 0,   /* the operand's data is used in place                         */
  TILEMM_OPERAND_TO_RESULT,   /* convert to the result's real class (logical/char/double→…)   */
  TILEMM_OPERAND_TO_COMPLEX   /* convert to the result's class and make it complex (no route
                                 asks for it since real·complex splits B; front ends keep it) */
} tilemm_operand_use;

/* Octave multiplies X'·X, X·X', X.'·X and X·X.' of one object X as a symmetric (real, or .')
 * or Hermitian (complex ') product (BLAS syrk/herk): C equals its own transpose (or conjugate
 * transpose, with a real diagonal) exactly.  tilemm computes the product, then mirrors its upper
 * triangle onto the lower (tilemm_run). */
typedef enum {
  TILEMM_MIRROR_NONE = 0,
  TILEMM_MIRROR_SYMMETRIC,
  TILEMM_MIRROR_HERMITIAN
} tilemm_mirror;

typedef struct {
  tilemm_route_action action;
  tilemm_class result_class;  /* TILEMM_CLASS_DOUBLE or TILEMM_CLASS_SINGLE when not delegated */
  int result_complex;         /* complex before narrowing (narrowed when all imag parts are 0) */
  tilemm_type compute_type;   /* element type the kernel runs in                              */
  tilemm_operand_use use_a, use_b;
  int a_as_pairs;             /* complex A times real B: the kernel reads A's interleaved data as
                                 a real (2m)×k matrix (stride 2·lda) and writes C's interleaved
                                 data as a real (2m)×n one — a real product, no copy            */
  int b_split;                /* real A times complex B where mtimes takes two real products:
                                 B's parts copied apart as one real k×2n matrix [re(B) im(B)],
                                 one real product A·[re(B) im(B)] (half the flops of a complex
                                 one), joined into C (tilemm_run)                               */
  int a_split;                /* complex A, transposed, times real B where mtimes takes two real
                                 products: A's parts copied apart likewise (a transposed A has no
                                 pairs reading)                                                 */
  tilemm_mirror mirror;       /* op(X)·X or X·op(X) of one object: the result is mirrored     */
  int64_t m, n, k;            /* the product's dimensions (m, n in complex elements)           */
} tilemm_route;

/* Decides what `a * b` means, exactly as Octave's mtimes does for the cases it keeps, and
 * TILEMM_ROUTE_DELEGATE for everything else (scalars, integers, sparse, N-D, non-numeric). */
tilemm_route tilemm_route_decide (const tilemm_operand *a, const tilemm_operand *b);

/* What `op_a(a) * op_b(b)` means (a.' or a' for a transposed operand): the route of the
 * transposed operands, with m, n, k of the product.  A transposed complex A times a real B is
 * not read as pairs (its pairs are not a strided real matrix then): B is made complex instead.
 * The host transposes a delegated operand itself before it calls mtimes. */
tilemm_route tilemm_route_decide_op (const tilemm_operand *a, tilemm_op op_a,
                                     const tilemm_operand *b, tilemm_op op_b);

/* ---------------------------------------------------------------- library facts */

const char *tilemm_version (void);
int tilemm_cuda_built (void);      /* 1 when this build has the CUDA backend */
int tilemm_openmp_built (void);    /* 0: the CPU backend runs on tilemm's pool */

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_H */
