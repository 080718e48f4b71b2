/* front.h — what every front end (the mex gateway, the oct-file) shares, so that the rules of a
 * call are written once: options, the decision of what tilemm (A, B, ...) does, and running the
 * product on raw buffers (options.c, decide.c, run.c).  Host-independent C: a front end only
 * converts its host's values.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_FRONT_H
#define TILEMM_FRONT_H

#include "call_plan.h"
#include "device_model.h"
#include "devices.h"
#include "emulated.h"
#include "machine_facts.h"
#include "precision_auto.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const char tilemm_usage[];

typedef enum {
  TILEMM_CHOOSE_AUTO = 0,   /* the GPU when usable, else the built-in mtimes */
  TILEMM_CHOOSE_CPU,
  TILEMM_CHOOSE_GPU
} tilemm_backend_choice;

/* The choice a backend's name says, in any case: "auto", "cpu" or "gpu" (the oct-file's and the
 * mex gateway's option "backend", the BLAS library's TILEMM_BLAS_BACKEND).  0 for any other
 * name (*choice untouched). */
int tilemm_backend_choice_from_name (const char *name, tilemm_backend_choice *choice);

typedef enum {
  TILEMM_PRECISION_UNSET = -1,   /* not named: TILEMM_PRECISION's, else native           */
  TILEMM_PRECISION_NATIVE = 0,   /* the backend's floating-point product (`*`'s rounding) */
  TILEMM_PRECISION_EMULATED,     /* Ozaki scheme II on exact int8 products (emulated.h)   */
  TILEMM_PRECISION_AUTO          /* emulated where the model prices it faster at a bound at
                                    least as tight, native elsewhere (precision_auto.h)      */
} tilemm_precision;

/* A warning a call leaves for its host (not an error: the result is there). */
typedef struct {
  int raised;
  char id[64];     /* e.g. "tilemm:emulated:fallback" */
  char text[384];
} tilemm_notice;

/* "accuracy", "native": the native-matching rule of the emulated precision (emulated.h, step
 * 3'), at the type's target bits. */
#define TILEMM_ACCURACY_NATIVE (-1)
/* "accuracy", "elementwise": native BLAS's elementwise bound γ_k·|A||B| (emulated.h, step 3''),
 * at the type's target bits; what "precision", "auto" runs. */
#define TILEMM_ACCURACY_ELEMENTWISE (-2)

/* The host's own product, as a front end can run it (Octave's `*` from the oct-file or the mex
 * gateway, the next BLAS from the BLAS library): for the machine's facts (exec/calibrate.c). */
typedef struct tilemm_host_product_s {
  /* Runs the host's product of `type`, an m×k by a k×n matrix of random values (made before the
   * first run, not timed), `runs` times; returns the fewest seconds one run took (the front end
   * times each with tilemm_now_s), or a negative number where it cannot. */
  double (*seconds) (void *ctx, tilemm_type type, int64_t m, int64_t n, int64_t k, int runs);
  /* The same for `pages` pages of that product, as the loop of the host's `*` over the pages of
   * pagemtimes runs them (NULL: a page costs what one product does): the fewest seconds of one
   * run over all of them. */
  double (*pages_seconds) (void *ctx, tilemm_type type, int64_t m, int64_t n, int64_t k,
                           int64_t pages, int runs);
  void *ctx;
  /* The file of the BLAS library the host's product calls (for the facts' key); "" unknown. */
  char library[512];
} tilemm_host_product;

/* A precision: one entry of the table the plan chooses from.  The built-in entries are the
 * native and the emulated precision's (tilemm_precision_entry_of, exec/run.c); a caller may give
 * one more of its own (tilemm_options.precision_entry: a new precision is an entry, not a flag
 * through the layers).  plan_emulated: the call's plan is the emulated precision's (its panels,
 * passes and branches: its options are then "moduli" and "accuracy") rather than the native
 * product's.  run: the plan's product C = op_a(A)·op_b(B) on views of A and B as stored (the
 * plan's ops; after the executor has split complex parts where the plan says, before it mirrors
 * X'·X), run as the decision says; it decides nothing. */
struct tilemm_options_s;
struct tilemm_decision_s;
typedef struct tilemm_precision_entry_s {
  const char *name;
  int plan_emulated;
  tilemm_status (*run) (const struct tilemm_decision_s *decision,
                        const struct tilemm_options_s *options, const tilemm_view *a,
                        const tilemm_view *b, const tilemm_view *c, tilemm_error *err);
} tilemm_precision_entry;

typedef struct tilemm_options_s {
  tilemm_backend_choice backend;
  tilemm_precision precision; /* "precision"                                              */
  int moduli;                 /* "moduli" (1..TILEMM_EMU_MAX_MODULI); 0: not named          */
  int accuracy;               /* "accuracy" (target bits, 1..53, or TILEMM_ACCURACY_NATIVE);
                                 0: not named                                              */
  size_t max_device_bytes;   /* 0: no limit */
  tilemm_stop stop;          /* not a user option: the host's interrupt poll (Ctrl-C), or
                                none (tilemm_options_init); see tilemm_stop in tilemm.h */
  tilemm_workers devices;    /* "devices" (CUDA ordinals, one worker each); count 0: not named,
                                so TILEMM_DEVICES, else every usable GPU (multi.h)           */
  int simulate_devices;      /* "simulate_devices" for the cpu backend (multi.h); -1: not set,
                                so TILEMM_SIMULATE_DEVICES; 0 or 1: none                     */
  tilemm_notice *notice;     /* not a user option: where a call leaves a warning for the host
                                to raise (NULL: nowhere)                                     */
  tilemm_run_report *report; /* not a user option: where tilemm_run says what it ran (tests;
                                NULL: nowhere)                                               */
  int one_triangle;          /* not a user option: the host reads one triangle of a product of
                                one object (op(X)·X or X·op(X): BLAS ?syrk, ?herk), so it is
                                decided as that rank-k update but not mirrored (0: mirrored) */
  const tilemm_host_product *host; /* not a user option: the host's own product, which the
                                machine's facts measure where they are measured in this call
                                (NULL: the host's product is not measured: the model's)       */
  const struct tilemm_machine_facts_s *facts; /* not a user option: the facts every decision of
                                the call reads (NULL: the process's, tilemm_machine_facts_for;
                                calibration's own products read the built-in model's)         */
  const tilemm_precision_entry *precision_entry; /* not a user option: a precision of the
                                caller's, one more entry of the table (NULL: the built-in entry
                                "precision" names)                                            */
  tilemm_calibration_setting calibration; /* not a user option: TILEMM_CALIBRATION and the
                                store's folder as the call read them at its start
                                (tilemm_calibration_in_effect; mode UNSET: not read yet, so the
                                machine's facts read them as they take the call's options)    */
} tilemm_options;

/* An option value as a front end sees it: a string, a real scalar, or something else. */
typedef enum { TILEMM_VALUE_STRING, TILEMM_VALUE_REAL_SCALAR, TILEMM_VALUE_OTHER,
               TILEMM_VALUE_REAL_VECTOR } tilemm_value_kind;
typedef struct {
  tilemm_value_kind kind;
  const char *string;   /* TILEMM_VALUE_STRING */
  double number;        /* TILEMM_VALUE_REAL_SCALAR */
  const double *numbers; /* TILEMM_VALUE_REAL_VECTOR: `count` reals (a real vector, or empty) */
  size_t count;
} tilemm_value;

void tilemm_options_init (tilemm_options *options);

/* Applies one name/value pair (names are case-insensitive).  TILEMM_EOPTION with a message that
 * names the option and says what it takes. */
tilemm_status tilemm_options_set (tilemm_options *options, const char *name,
                                  const tilemm_value *value, tilemm_error *err);

typedef enum {
  TILEMM_DO_DELEGATE = 0,   /* hand A and B unchanged to the built-in mtimes                 */
  TILEMM_DO_FILL,           /* an m×n real result of zeros (k = 0) or an empty one: no kernel */
  TILEMM_DO_COMPUTE         /* run the route's product on `backend`                          */
} tilemm_action;

/* The decision and the plan of a call: what tilemm (A, B, ...) does, made once by
 * tilemm_decide_op, then run by tilemm_run, which decides nothing. */
typedef struct tilemm_decision_s {
  tilemm_route route;
  tilemm_action action;
  tilemm_backend backend;   /* TILEMM_DO_COMPUTE */
  tilemm_op op_a, op_b;     /* how A and B enter the product (TILEMM_OP_NONE: as they are) */
  const tilemm_precision_entry *precision;  /* the table's entry the plan runs            */
  int emulated;             /* its plan is the emulated precision's, with emu's settings   */
  tilemm_emu_options emu;
  tilemm_call_plan plan;    /* TILEMM_DO_COMPUTE: everything else (call_plan.h) */
  /* "auto": what the cost model said each way costs (way_costs.best the way taken before the
   * GPU's facts; `auto_weighed` 0 where no way was weighed: a backend the user named). */
  int auto_weighed;
  tilemm_way_costs way_costs;
  /* "precision", "auto": what it weighed and took (`precision_weighed` 0 where the precision
   * was named, or no product is computed). */
  int precision_weighed;
  tilemm_precision_choice precision_choice;
  const struct tilemm_machine_facts_s *facts; /* the facts the decision read */
} tilemm_decision;

/* The transpose a keyword names, case-insensitive: "none", "transpose" or "ctranspose" (as
 * pagemtimes takes them).  1 and *op when text names one, else 0. */
int tilemm_op_from_name (const char *text, tilemm_op *op);

/* Whether a call is the form tilemm (A, tA, B, tB, options...): four arguments or more, and the
 * second or the fourth names a transpose.  second and fourth are the texts of those arguments
 * when they are strings, else NULL.  (So tilemm (A, B, ...) with a char B keeps its meaning
 * unless B's text is one of the keywords and a fourth argument follows.) */
int tilemm_is_op_form (int nargin, const char *second, const char *fourth);

/* Reads tA and tB (NULL when not strings) of the op form: TILEMM_EOPTION with a message that
 * says what they take when either is not a keyword (front ends raise "tilemm:badtranspose"). */
tilemm_status tilemm_ops_parse (const char *ta, const char *tb, tilemm_op *op_a, tilemm_op *op_b,
                                tilemm_error *err);

extern const char tilemm_badtranspose_id[];   /* "tilemm:badtranspose" */

/* The precision a call runs in: the option's, else TILEMM_PRECISION's ("native", "emulated" or
 * "auto", read at every call), else native ("auto" is then decided with the plan).  TILEMM_EOPTION for a bad TILEMM_PRECISION. */
tilemm_status tilemm_precision_in_effect (const tilemm_options *options,
                                          tilemm_precision *precision, tilemm_error *err);

/* ---------------------------------------------------------------- the machine's facts */

/* The facts every decision of a call reads (device_model.h): options->facts where set; else the
 * process's: read from the store (the call's calibration setting's folder, one file per key) while
 * what they depend on is unchanged (tilemm_machine_key), else measured now, once
 * (tilemm_calibrate, about a second or two, with options->host for the host's product) and
 * stored; the built-in model where calibration is off or cannot run (then with one warning,
 * through options->notice where the call has one, else on stderr).  Never NULL; they live as
 * long as the process (exec/machine.c). */
const tilemm_machine_facts *tilemm_machine_facts_for (const tilemm_options *options);

/* The same, holding measured at least the `parts` (TILEMM_FACTS_*) a decision reads: a part
 * neither this process nor the store holds is measured now, alone (a call on a new machine waits
 * for what its own decision reads: about a second, with a one-line notice on stderr), and
 * stored beside the parts already kept.  tilemm_machine_facts_for is this with every part. */
const tilemm_machine_facts *tilemm_machine_facts_with (const tilemm_options *options,
                                                       unsigned parts);

/* The same, measured again now whatever the store holds, and stored (tilemm_info ("calibrate")). */
const tilemm_machine_facts *tilemm_machine_facts_measure (const tilemm_options *options);

/* What the facts depend on, one "name=value" a line: tilemm's version and build, the CPU's model
 * and count, the host's threads and the settings that change them, the GPUs and driver (from
 * the driver's files, with no CUDA call), and the host product's library (host may be NULL). */
void tilemm_machine_key (const tilemm_host_product *host, char *key, size_t size);

/* Measures the machine's facts (exec/calibrate.c): the host's product through `host` (may be
 * NULL: the model's), tilemm's CPU backend and batched path, host copies by thread count, and
 * every usable GPU (one alone end to end, all together, a batch of pages, each one's kernels).
 * TILEMM_OK, or the status of what failed (a GPU busy or failing, memory short) with the reason
 * in err; *facts then holds nothing to keep. */
tilemm_status tilemm_calibrate (const tilemm_host_product *host, tilemm_machine_facts *facts,
                                tilemm_error *err);

/* Measures the `parts` (TILEMM_FACTS_*) into *facts, keeping the others as they are (facts held
 * measured part by part).  Its status as tilemm_calibrate's; *facts is then not to be kept. */
tilemm_status tilemm_calibrate_parts (const tilemm_host_product *host, unsigned parts,
                                      tilemm_machine_facts *facts, tilemm_error *err);

/* The calibration's setting of a call (tilemm_settings.h): options->calibration where the call
 * read it at its start (exec/prepare.c), else TILEMM_CALIBRATION and the store's folder as the
 * environment says now, so that a change takes effect at the next call (common/options.c, where
 * every variable is read). */
void tilemm_calibration_in_effect (const tilemm_options *options,
                                   tilemm_calibration_setting *setting);

/* The settings that change how many threads the host's products run on (OMP_NUM_THREADS,
 * OPENBLAS_NUM_THREADS, MKL_NUM_THREADS, GOTO_NUM_THREADS) and which GPUs a process sees
 * (CUDA_VISIBLE_DEVICES), as "NAME=value ..." for the facts' key. */
void tilemm_host_threads_setting (char *text, size_t size);

/* What tilemm (a, b, options...) does.  TILEMM_ENOGPU (with the reason) when "gpu" was asked
 * for and no GPU is usable; "auto" without a GPU delegates to mtimes, except in emulated
 * precision, which "auto" runs on the GPU where it is usable and pays, else on the CPU (never
 * delegated: `*` is not emulated). */
tilemm_status tilemm_decide (const tilemm_operand *a, const tilemm_operand *b,
                             const tilemm_options *options, tilemm_decision *decision,
                             tilemm_error *err);

/* What tilemm (a, op_a, b, op_b, options...) does: tilemm_decide for op_a(a)·op_b(b).  A
 * delegated product is op_a(a) * op_b(b): the front end transposes the operands it hands to
 * mtimes (transpose, ctranspose), so the answer and the error are exactly Octave's. */
tilemm_status tilemm_decide_op (const tilemm_operand *a, tilemm_op op_a, const tilemm_operand *b,
                                tilemm_op op_b, const tilemm_options *options,
                                tilemm_decision *decision, tilemm_error *err);

/* Runs a TILEMM_DO_COMPUTE decision on buffers: a and b hold the operands after the route's
 * conversions (column-major, contiguous, as stored: a transposed A is k×m), c an m×n result of
 * the route's class and complexity (interleaved when complex). */
tilemm_status tilemm_run (const tilemm_decision *decision, const tilemm_options *options,
                          const void *a, const void *b, void *c, tilemm_error *err);

/* The GPUs a product on the GPU uses when the call names none: TILEMM_DEVICES' list (one worker
 * per entry, checked against the devices there are), else every usable GPU (then the crossover
 * of devices.h decides, per product, how many of them).  For tilemm_info (src/exec/devices.c). */
tilemm_status tilemm_devices_in_use (tilemm_workers *workers, int *named, tilemm_error *err);

/* The GPUs a product may use under `options` (the option, else the settings' TILEMM_DEVICES,
 * else every usable device of `facts`); *named: whether they were named (options.c, pure). */
tilemm_status tilemm_devices_of_call (const tilemm_options *options,
                                      const tilemm_call_settings *settings,
                                      const tilemm_device_facts *facts, tilemm_workers *w,
                                      int *named, tilemm_error *err);

/* Simulated devices for the cpu backend: the option's, else the settings'
 * TILEMM_SIMULATE_DEVICES. */
int tilemm_simulated_of_call (const tilemm_options *options, const tilemm_call_settings *settings);

/* ---------------------------------------------------------------- a BLAS call's own arithmetic */

/* A scalar as (re, im) doubles: a BLAS call's alpha and beta of every type. */
typedef struct {
  double re, im;
} tilemm_scalar;

/* One BLAS call, its arguments checked: C := alpha·op_a(A)·op_b(B) + beta·C over C's m×n block
 * (gemm), or over its upper or lower triangle only (syrk, herk: B is A, m = n).  Its product P
 * goes the way of every call (tilemm_decide_op, tilemm_run); around it, the BLAS's own
 * arithmetic (exec/blas_request.c), which the BLAS library's front end calls. */
typedef struct {
  tilemm_type type;
  char uplo;              /* 0 for gemm (the whole block), 'U' or 'L' for syrk and herk       */
  int hermitian;          /* herk: alpha and beta are real, C's diagonal has no imaginary part */
  tilemm_op op_a, op_b;
  const void *a, *b;      /* as stored: A is m×k (k×m when op_a transposes), B k×n (n×k)      */
  int64_t lda, ldb;
  int64_t m, n, k;
  tilemm_scalar alpha, beta;
  void *c;
  int64_t ldc;
} tilemm_blas_request;

/* C := alpha·P + beta·C over the request's block or triangle, in the element type's own
 * arithmetic as the reference BLAS does (P m×n with leading dimension ldp; NULL: P is C itself,
 * beta 0 then); beta 0 never reads C; herk's diagonal keeps no imaginary part.  Columns in
 * pieces of `columns` over `team` threads of the host pool: the call plan's update_columns and
 * update_team, or tilemm_decide_update's where there is no product. */
void tilemm_blas_update (const tilemm_blas_request *request, tilemm_scalar alpha, const void *p,
                         int64_t ldp, tilemm_scalar beta, int team, int64_t columns);

/* C := beta·C over the request's block or triangle (beta 0 writes zeros without reading C): the
 * reference's alpha = 0 and k = 0 branches; on `team` in pieces of `columns` as
 * tilemm_blas_update. */
void tilemm_blas_scale_c (const tilemm_blas_request *request, int team, int64_t columns);

/* The team and the pieces (*team, *columns) of the update of the request's C where there is no
 * product and so no call plan (C scaled): the decision's (exec/decide.c), the rule of
 * team_size.h (tilemm_update_team) on the host's threads (tilemm_decide_host_threads). */
void tilemm_decide_update (const tilemm_blas_request *request, int *team, int64_t *columns);

/* The host threads for host work of the BLAS library that is no product (C scaled with no
 * product, the process's memset of a large block): work of `pieces` pieces taking `one_thread_s`
 * seconds on one thread.  The decision's (exec/decide.c): the rule of team_size.h on the host's
 * facts gathered now, only where the work pays for a second thread at all. */
int tilemm_decide_host_threads (int64_t pieces, double one_thread_s);

/* A stored operand (rows × cols, leading dimension ld) as tilemm_run takes it: itself when
 * contiguous, else a packed copy (*copy, the caller frees it), its columns copied in pieces of
 * `columns` over `team` threads of the host pool: the call plan's pack_columns and pack_team of
 * the operand (1: the caller's thread alone).  NULL when the copy cannot be allocated. */
const void *tilemm_blas_contiguous (tilemm_type type, const void *x, int64_t rows, int64_t cols,
                                    int64_t ld, int team, int64_t columns, void **copy);

/* The whole request element by element, in double or double complex (the last resort: it needs
 * no memory, so it cannot fail). */
void tilemm_blas_loop (const tilemm_blas_request *request);

/* The plan of a decided call in words (tilemm_call_plan_describe), "" for no compute. */
void tilemm_decision_describe (const tilemm_decision *decision, char *buf, size_t size);

/* For `*`'s narrowing of complex results: 1 when all `count` imaginary parts are zero. */
int tilemm_imag_all_zero (tilemm_type complex_type, const void *data, size_t count);

/* Copies the real parts of `count` interleaved complex elements into `real`. */
void tilemm_copy_real_parts (tilemm_type complex_type, const void *data, size_t count, void *real);

/* The built-in entry of the precision table for `precision` (native for TILEMM_PRECISION_UNSET
 * and TILEMM_PRECISION_NATIVE). */
const tilemm_precision_entry *tilemm_precision_entry_of (tilemm_precision precision);

/* What a user can do about a failure, appended to error messages ("" when nothing helps). */
const char *tilemm_advice (tilemm_status status);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_FRONT_H */
