/* test_route.c — the rules of `*` (route.c) against the rows of shared/docs/octave-semantics.md.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#define _POSIX_C_SOURCE 200809L   /* setenv (check.h) */
#include "check.h"
#include "tilemm.h"

enum { D = TILEMM_CLASS_DOUBLE, S = TILEMM_CLASS_SINGLE, L = TILEMM_CLASS_LOGICAL,
       CH = TILEMM_CLASS_CHAR, I = TILEMM_CLASS_INTEGER, O = TILEMM_CLASS_OTHER };

static tilemm_operand op (int cls, int64_t rows, int64_t cols, int is_complex)
{
  tilemm_operand x = { (tilemm_class) cls, is_complex, 0, 2, rows, cols, 0, NULL, 0 };
  return x;
}

static tilemm_route decide (tilemm_operand a, tilemm_operand b)
{
  return tilemm_route_decide (&a, &b);
}

/* A row of the semantics file that our kernels compute. */
static void expect_compute (const char *row, tilemm_operand a, tilemm_operand b, int cls,
                            int is_complex, tilemm_type type, int pairs, tilemm_operand_use ua,
                            tilemm_operand_use ub)
{
  CHECK_CASE ("route: %s", row);
  tilemm_route r = decide (a, b);
  CHECK (r.action == TILEMM_ROUTE_COMPUTE, "action %d", (int) r.action);
  CHECK (r.result_class == (tilemm_class) cls, "class %d", (int) r.result_class);
  CHECK (r.result_complex == is_complex, "complex %d", r.result_complex);
  CHECK (r.compute_type == type, "type %s", tilemm_type_name (r.compute_type));
  CHECK (r.a_as_pairs == pairs, "pairs %d", r.a_as_pairs);
  CHECK (r.use_a == ua && r.use_b == ub, "uses %d %d", (int) r.use_a, (int) r.use_b);
  CHECK (r.m == a.rows && r.k == a.cols && r.n == b.cols, "dims");
}

static void expect_action (const char *row, tilemm_operand a, tilemm_operand b,
                           tilemm_route_action action)
{
  CHECK_CASE ("route: %s", row);
  tilemm_route r = decide (a, b);
  CHECK (r.action == action, "action %d, want %d", (int) r.action, (int) action);
}

/* The route of op_a(a) * op_b(b). */
static void expect_op (const char *row, tilemm_operand a, tilemm_op op_a, tilemm_operand b,
                       tilemm_op op_b, tilemm_route_action action, int64_t m, int64_t n, int64_t k,
                       tilemm_type type, int pairs, tilemm_operand_use ub)
{
  CHECK_CASE ("route with transposes: %s", row);
  tilemm_route r = tilemm_route_decide_op (&a, op_a, &b, op_b);
  CHECK (r.action == action, "action %d, want %d", (int) r.action, (int) action);
  if (action != TILEMM_ROUTE_COMPUTE)
    return;
  CHECK (r.m == m && r.n == n && r.k == k, "dims %lld %lld %lld", (long long) r.m,
         (long long) r.n, (long long) r.k);
  CHECK (r.compute_type == type, "type %s", tilemm_type_name (r.compute_type));
  CHECK (r.a_as_pairs == pairs, "pairs %d", r.a_as_pairs);
  CHECK (r.use_b == ub, "use_b %d", (int) r.use_b);
}

static void op_routes (void)
{
  const tilemm_op N = TILEMM_OP_NONE, T = TILEMM_OP_TRANSPOSE, C = TILEMM_OP_CTRANSPOSE;
  const tilemm_operand_use AS_IS = TILEMM_OPERAND_AS_IS;
  expect_op ("ones(3,2).'*ones(3,4) -> 2x4, k 3", op (D, 3, 2, 0), T, op (D, 3, 4, 0), N,
             TILEMM_ROUTE_COMPUTE, 2, 4, 3, TILEMM_DOUBLE, 0, AS_IS);
  expect_op ("ones(2,3)*ones(4,3)' -> 2x4", op (D, 2, 3, 0), N, op (D, 4, 3, 0), C,
             TILEMM_ROUTE_COMPUTE, 2, 4, 3, TILEMM_DOUBLE, 0, AS_IS);
  expect_op ("complex A' * real B: no pairs, A's parts split", op (D, 3, 2, 1), C, op (D, 3, 4, 0),
             N, TILEMM_ROUTE_COMPUTE, 2, 4, 3, TILEMM_DOUBLE, 0, AS_IS);
  {
    const tilemm_operand ca = op (D, 3, 2, 1), rb = op (D, 3, 4, 0);
    CHECK (tilemm_route_decide_op (&ca, C, &rb, N).a_split == 1, "a_split for complex A'");
  }
  expect_op ("complex A * real B.': pairs stay", op (S, 2, 3, 1), N, op (S, 4, 3, 0), T,
             TILEMM_ROUTE_COMPUTE, 2, 4, 3, TILEMM_SINGLE, 1, AS_IS);
  expect_op ("ones(2,3).'*ones(2,3) -> nonconformant", op (D, 2, 3, 0), T, op (D, 2, 3, 0), T,
             TILEMM_ROUTE_NONCONFORMANT, 0, 0, 0, TILEMM_DOUBLE, 0, AS_IS);
  expect_op ("zeros(0,3).'*zeros(0,4) -> zeros(3,4)", op (D, 0, 3, 0), T, op (D, 0, 4, 0), N,
             TILEMM_ROUTE_ZEROS, 0, 0, 0, TILEMM_DOUBLE, 0, AS_IS);
  expect_op ("zeros(3,0).'*zeros(3,4) -> empty", op (D, 3, 0, 0), T, op (D, 3, 4, 0), N,
             TILEMM_ROUTE_EMPTY, 0, 0, 0, TILEMM_DOUBLE, 0, AS_IS);
  expect_op ("a scalar transposed is delegated", op (D, 1, 1, 1), C, op (D, 1, 3, 0), N,
             TILEMM_ROUTE_DELEGATE, 0, 0, 0, TILEMM_DOUBLE, 0, AS_IS);
}

int main (void)
{
  op_routes ();
  const tilemm_operand_use AS_IS = TILEMM_OPERAND_AS_IS, TO_RESULT = TILEMM_OPERAND_TO_RESULT,
                           TO_COMPLEX = TILEMM_OPERAND_TO_COMPLEX;
  expect_compute ("single(ones(2))*ones(2) -> single", op (S, 2, 2, 0), op (D, 2, 2, 0), S, 0,
                  TILEMM_SINGLE, 0, AS_IS, TO_RESULT);
  expect_compute ("ones(2)*single(ones(2)) -> single", op (D, 2, 2, 0), op (S, 2, 2, 0), S, 0,
                  TILEMM_SINGLE, 0, TO_RESULT, AS_IS);
  expect_compute ("ones(2)*complex(ones(2),0) -> real product on B's parts (then narrowed)",
                  op (D, 2, 2, 0), op (D, 2, 2, 1), D, 1, TILEMM_DOUBLE, 0, AS_IS, AS_IS);
  /* mtimes' own rule for a real and a complex operand: two real products when k > min(m, n)/10,
   * else the real operand made complex (liboctave CMatrix.cc); seen in Octave 7.3:
   * ones(1000,50)*complex(zeros(50,1000),Inf) is NaN - NaNi, with k = 200 it is 0 + Infi. */
  expect_compute ("ones(1000,50)*complex(..) -> A made complex (k <= min(m,n)/10)",
                  op (D, 1000, 50, 0), op (D, 50, 1000, 1), D, 1, TILEMM_COMPLEX_DOUBLE, 0,
                  TO_COMPLEX, AS_IS);
  expect_compute ("ones(1000,101)*complex(..) -> two real products (k > min(m,n)/10)",
                  op (D, 1000, 101, 0), op (D, 101, 1000, 1), D, 1, TILEMM_DOUBLE, 0, AS_IS,
                  AS_IS);
  expect_compute ("complex(1000x100)*ones(100,1000) -> B made complex (k <= min(m,n)/10)",
                  op (D, 1000, 100, 1), op (D, 100, 1000, 0), D, 1, TILEMM_COMPLEX_DOUBLE, 0,
                  AS_IS, TO_COMPLEX);
  expect_compute ("complex(1000x101)*ones(101,1000) -> pairs (k > min(m,n)/10)",
                  op (D, 1000, 101, 1), op (D, 101, 1000, 0), D, 1, TILEMM_DOUBLE, 1, AS_IS,
                  AS_IS);
  {
    CHECK_CASE ("route: real*complex splits B, other mixes do not");
    CHECK (decide (op (D, 2, 2, 0), op (D, 2, 2, 1)).b_split == 1, "real*complex");
    CHECK (decide (op (D, 2, 2, 1), op (D, 2, 2, 0)).b_split == 0, "complex*real");
    CHECK (decide (op (D, 2, 2, 1), op (D, 2, 2, 1)).b_split == 0, "complex*complex");
    tilemm_route r = decide (op (S, 3, 4, 0), op (D, 4, 5, 1));
    CHECK (r.b_split == 1 && r.compute_type == TILEMM_SINGLE && r.use_b == TO_RESULT
             && r.use_a == AS_IS && r.result_complex == 1,
           "single real * double complex: split in single, B converted to single");
  }
  expect_compute ("complex(ones(2),0)*ones(2) -> real product on pairs", op (D, 2, 2, 1),
                  op (D, 2, 2, 0), D, 1, TILEMM_DOUBLE, 1, AS_IS, AS_IS);
  expect_compute ("[1+1i 2]*[1;1] -> pairs", op (D, 1, 2, 1), op (D, 2, 1, 0), D, 1,
                  TILEMM_DOUBLE, 1, AS_IS, AS_IS);
  expect_compute ("[1i 2]*[-1i;0] -> complex", op (D, 1, 2, 1), op (D, 2, 1, 1), D, 1,
                  TILEMM_COMPLEX_DOUBLE, 0, AS_IS, AS_IS);
  expect_compute ("true(2)*true(2) -> double", op (L, 2, 2, 0), op (L, 2, 2, 0), D, 0,
                  TILEMM_DOUBLE, 0, TO_RESULT, TO_RESULT);
  expect_compute ("true(2)*single(ones(2)) -> single", op (L, 2, 2, 0), op (S, 2, 2, 0), S, 0,
                  TILEMM_SINGLE, 0, TO_RESULT, AS_IS);
  expect_compute ("'ab'*[1;2] -> double", op (CH, 1, 2, 0), op (D, 2, 1, 0), D, 0,
                  TILEMM_DOUBLE, 0, TO_RESULT, AS_IS);
  expect_compute ("single complex * double complex -> complex single", op (S, 3, 4, 1),
                  op (D, 4, 5, 1), S, 1, TILEMM_COMPLEX_SINGLE, 0, AS_IS, TO_RESULT);
  expect_compute ("double complex * single real -> pairs in single", op (D, 3, 4, 1),
                  op (S, 4, 5, 0), S, 1, TILEMM_SINGLE, 1, TO_RESULT, AS_IS);
  expect_compute ("(1:3)'*(1:3) -> double 3x3", op (D, 3, 1, 0), op (D, 1, 3, 0), D, 0,
                  TILEMM_DOUBLE, 0, AS_IS, AS_IS);

  expect_action ("int8([1 2])*2.5 -> delegated", op (I, 1, 2, 0), op (D, 1, 1, 0),
                 TILEMM_ROUTE_DELEGATE);
  expect_action ("int8 matrix * int8 matrix -> delegated (mtimes errors)", op (I, 2, 2, 0),
                 op (I, 2, 2, 0), TILEMM_ROUTE_DELEGATE);
  expect_action ("int8 matrix * double matrix -> delegated", op (I, 2, 2, 0), op (D, 2, 2, 0),
                 TILEMM_ROUTE_DELEGATE);
  expect_action ("3*ones(2,3) -> delegated scalar", op (D, 1, 1, 0), op (D, 2, 3, 0),
                 TILEMM_ROUTE_DELEGATE);
  expect_action ("ones(2,3)*3 -> delegated scalar", op (D, 2, 3, 0), op (D, 1, 1, 0),
                 TILEMM_ROUTE_DELEGATE);
  expect_action ("ones(2,3)*[] -> nonconformant", op (D, 2, 3, 0), op (D, 0, 0, 0),
                 TILEMM_ROUTE_NONCONFORMANT);
  expect_action ("[]*ones(2,3) -> nonconformant", op (D, 0, 0, 0), op (D, 2, 3, 0),
                 TILEMM_ROUTE_NONCONFORMANT);
  expect_action ("zeros(0,3)*zeros(3,4) -> empty", op (D, 0, 3, 0), op (D, 3, 4, 0),
                 TILEMM_ROUTE_EMPTY);
  expect_action ("zeros(3,0)*zeros(0,4) -> zeros", op (D, 3, 0, 0), op (D, 0, 4, 0),
                 TILEMM_ROUTE_ZEROS);
  expect_action ("zeros(0,3)*zeros(3,0) -> empty 0x0", op (D, 0, 3, 0), op (D, 3, 0, 0),
                 TILEMM_ROUTE_EMPTY);
  expect_action ("[]*[] -> empty", op (D, 0, 0, 0), op (D, 0, 0, 0), TILEMM_ROUTE_EMPTY);
  expect_action ("ones(3,2)*ones(4,5) -> nonconformant", op (D, 3, 2, 0), op (D, 4, 5, 0),
                 TILEMM_ROUTE_NONCONFORMANT);
  expect_action ("{1}*2 -> delegated", op (O, 1, 1, 0), op (D, 1, 1, 0), TILEMM_ROUTE_DELEGATE);
  expect_action ("cell matrix * matrix -> delegated", op (O, 2, 2, 0), op (D, 2, 2, 0),
                 TILEMM_ROUTE_DELEGATE);

  CHECK_CASE ("route: N-D operands are delegated (Octave folds them)");
  {
    tilemm_operand a = op (D, 2, 2, 0), b = op (D, 2, 4, 0);
    b.ndims = 3;
    CHECK (decide (a, b).action == TILEMM_ROUTE_DELEGATE, "N-D B");
    a.ndims = 3;
    b.ndims = 2;
    CHECK (decide (a, b).action == TILEMM_ROUTE_DELEGATE, "N-D A");
  }
  CHECK_CASE ("route: sparse operands are delegated");
  {
    tilemm_operand a = op (D, 2, 2, 0), b = op (D, 2, 2, 0);
    a.is_sparse = 1;
    CHECK (decide (a, b).action == TILEMM_ROUTE_DELEGATE, "sparse A");
    CHECK (decide (b, a).action == TILEMM_ROUTE_DELEGATE, "sparse B");
  }
  CHECK_CASE ("route: complex scalars are delegated");
  CHECK (decide (op (S, 1, 1, 1), op (D, 2, 2, 0)).action == TILEMM_ROUTE_DELEGATE, "scalar");
  CHECK_CASE ("route: 1xN and Nx1 vectors are computed");
  CHECK (decide (op (D, 1, 5, 0), op (D, 5, 1, 0)).action == TILEMM_ROUTE_COMPUTE, "dot");
  CHECK (decide (op (D, 5, 1, 0), op (D, 1, 5, 0)).action == TILEMM_ROUTE_COMPUTE, "outer");
  return check_summary ("test_route");
}
