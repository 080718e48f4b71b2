/* route.c — the rules of Octave's `*` as small pure functions: what a product means, which
 * operands our kernels take and how, and what everything else is handed back to.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The rows this must agree with are measured in shared/docs/octave-semantics.md.  Whatever our
 * kernels do not compute (scalars, integers, sparse, N-D, non-numeric classes) is delegated to
 * the built-in mtimes unchanged, so its answer and its error are exactly `*`'s.
 */
#include "tilemm.h"

static int class_is_kernel_input (tilemm_class cls)
{
  return cls == TILEMM_CLASS_DOUBLE || cls == TILEMM_CLASS_SINGLE || cls == TILEMM_CLASS_LOGICAL
         || cls == TILEMM_CLASS_CHAR;
}

static int operand_is_delegated (const tilemm_operand *x)
{
  return !class_is_kernel_input (x->cls) || x->is_sparse || x->is_structured || x->ndims > 2
         || (x->rows == 1 && x->cols == 1) || x->rows > TILEMM_MAX_DIM || x->cols > TILEMM_MAX_DIM;
}

/* "single wins; logical and char give double" */
static tilemm_class result_class (const tilemm_operand *a, const tilemm_operand *b)
{
  return (a->cls == TILEMM_CLASS_SINGLE || b->cls == TILEMM_CLASS_SINGLE) ? TILEMM_CLASS_SINGLE
                                                                          : TILEMM_CLASS_DOUBLE;
}

static tilemm_operand_use operand_use (const tilemm_operand *x, tilemm_class cls, int make_complex)
{
  if (make_complex)
    return TILEMM_OPERAND_TO_COMPLEX;
  return x->cls == cls ? TILEMM_OPERAND_AS_IS : TILEMM_OPERAND_TO_RESULT;
}

/* The route of a * b; always_two_real: a real and a complex operand always take two real
 * products (some of Octave's transposed operators do, whatever the shape). */
static tilemm_route route_of (const tilemm_operand *a, const tilemm_operand *b,
                              int always_two_real)
{
  tilemm_route route = { 0 };
  route.action = TILEMM_ROUTE_DELEGATE;
  if (operand_is_delegated (a) || operand_is_delegated (b))
    return route;

  route.m = a->rows;
  route.k = a->cols;
  route.n = b->cols;
  if (a->cols != b->rows)
    {
      route.action = TILEMM_ROUTE_NONCONFORMANT;
      return route;
    }

  route.result_class = result_class (a, b);
  route.result_complex = a->is_complex || b->is_complex;
  const int single = route.result_class == TILEMM_CLASS_SINGLE;

  if (route.m == 0 || route.n == 0)
    route.action = TILEMM_ROUTE_EMPTY;
  else if (route.k == 0)
    route.action = TILEMM_ROUTE_ZEROS;
  else
    route.action = TILEMM_ROUTE_COMPUTE;

  /* A real and a complex operand: mtimes (liboctave's CMatrix.cc and fCMatrix.cc) takes two real
   * products, real(X)·Y and imag(X)·Y, when k > min(m, n) / 10 (integer division), and otherwise
   * makes the real operand complex for one complex product.  The two differ only where an
   * operand holds Inf or NaN (0·Inf terms of the made-up zero parts), and tilemm follows the
   * same rule so those parts come out as they do with `*`.  Two real products: complex·real on
   * A's interleaved data read as reals (no copy); real·complex with B's parts copied apart
   * (b_split, tilemm_run). */
  const int64_t shorter = route.m < route.n ? route.m : route.n;
  const int two_real = always_two_real || route.k > shorter / 10;
  route.a_as_pairs = a->is_complex && !b->is_complex && two_real;
  route.b_split = !a->is_complex && b->is_complex && two_real;
  const int complex_kernel = route.result_complex && !route.a_as_pairs && !route.b_split;
  route.compute_type = complex_kernel ? (single ? TILEMM_COMPLEX_SINGLE : TILEMM_COMPLEX_DOUBLE)
                                      : (single ? TILEMM_SINGLE : TILEMM_DOUBLE);
  route.use_a = operand_use (a, route.result_class, complex_kernel && !a->is_complex);
  route.use_b = operand_use (b, route.result_class, complex_kernel && !b->is_complex);
  return route;
}

tilemm_route tilemm_route_decide (const tilemm_operand *a, const tilemm_operand *b)
{
  return route_of (a, b, 0);
}

tilemm_route tilemm_route_decide_op (const tilemm_operand *a, tilemm_op op_a,
                                     const tilemm_operand *b, tilemm_op op_b)
{
  /* op(x) has x's rows and columns swapped; an N-D operand is delegated either way (its
   * transpose is an error that the host's own transpose raises). */
  tilemm_operand ta = *a, tb = *b;
  if (op_a != TILEMM_OP_NONE)
    ta.rows = a->cols, ta.cols = a->rows;
  if (op_b != TILEMM_OP_NONE)
    tb.rows = b->cols, tb.cols = b->rows;
  /* Octave evaluates A.'*B (A'*B) as one operator, trans_mul(A, op_b(B)), and A*B.' (A*B') as
   * mul_trans(A, B) where it has one for the pair of types (the host says so: host_two_real);
   * liboctave's op-m-cm.cc and op-fm-fcm.cc (real A, complex B) and op-cm-m.cc and
   * op-fcm-fm.cc (complex A, real B) define them as two real products whatever the shape.  The
   * other mixed forms (complex A transposed times real B, real A times complex B transposed,
   * classes that differ, logical or char operands) have no operator of their own: the operand
   * is transposed, then multiplied by the plain rule. */
  const int always_two_real
    = a->host_two_real
      && ((op_a != TILEMM_OP_NONE && !a->is_complex && b->is_complex)
          || (op_a == TILEMM_OP_NONE && op_b != TILEMM_OP_NONE && a->is_complex
              && !b->is_complex));
  tilemm_route route = route_of (&ta, &tb, always_two_real);
  /* X'·X, X·X', X.'·X, X·X.' of one object (same data, one side transposed): Octave's xgemm
   * takes BLAS syrk/herk, whose result is exactly symmetric or Hermitian. */
  const int one_transposed = (op_a == TILEMM_OP_NONE) != (op_b == TILEMM_OP_NONE);
  if (route.action == TILEMM_ROUTE_COMPUTE && one_transposed && a->identity
      && a->identity == b->identity && a->rows == b->rows && a->cols == b->cols)
    route.mirror = a->is_complex && (op_a == TILEMM_OP_CTRANSPOSE || op_b == TILEMM_OP_CTRANSPOSE)
                     ? TILEMM_MIRROR_HERMITIAN
                     : TILEMM_MIRROR_SYMMETRIC;
  /* A transposed complex A has no pairs reading: its parts are copied apart instead. */
  if (route.a_as_pairs && op_a != TILEMM_OP_NONE)
    {
      route.a_as_pairs = 0;
      route.a_split = 1;
    }
  return route;
}
