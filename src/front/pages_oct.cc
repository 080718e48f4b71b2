// pages_oct.cc — the hidden __tilemm_pages__ of tilemm.oct, under pagemtimes (inst/compat/):
// reads Octave's N-D arrays and options into a request, has the batch decided
// (tilemm_decide_batch, src/exec/decide.c) and runs it (tilemm_batch_run, src/exec/batch.c)
// into Octave's own result array.
//
// Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).

#include <octave/oct.h>
#include <octave/ov-typeinfo.h>
#include <octave/ov-re-mat.h>
#include <octave/ov-cx-mat.h>
#include <octave/ov-flt-re-mat.h>
#include <octave/ov-flt-cx-mat.h>
#include <octave/parse.h>
#include <octave/quit.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "batch.h"
#include "batch_run.h"
#include "front.h"
#include "oct_shared.h"

namespace
{

const char pages_usage[]
  = "usage: Z = pagemtimes (X, Y) or pagemtimes (X, transpX, Y, transpY), then options "
    "\"backend\" (\"auto\", \"cpu\", \"gpu\"), \"max_device_bytes\", \"precision\"";



// MATLAB documents pagemtimes' operands as single or double arrays, real or complex (full).
void check_operand (const octave_value &x, const char *name)
{
  if (x.issparse ())
    error_with_id ("tilemm:pages:sparse",
                   "pagemtimes: %s must be a full array (sparse arrays have no pages)", name);
  if (! x.is_double_type () && ! x.is_single_type ())
    error_with_id ("tilemm:pages:class",
                   "pagemtimes: %s must be a single or double array, not %s", name,
                   x.class_name ().c_str ());
}

std::vector<int64_t> dims_of (const octave_value &x)
{
  const dim_vector d = x.dims ();
  std::vector<int64_t> out (d.ndims ());
  for (int i = 0; i < d.ndims (); i++)
    out[i] = d(i);
  return out;
}

// The type Octave's compound operators are looked up by for a page of x
// (tilemm_oct_compound_operator): that of a full matrix of x's class and complexity.
int page_type_id (const octave_value &x)
{
  if (x.is_single_type ())
    return x.iscomplex () ? octave_float_complex_matrix::static_type_id ()
                          : octave_float_matrix::static_type_id ();
  return x.iscomplex () ? octave_complex_matrix::static_type_id ()
                        : octave_matrix::static_type_id ();
}


// op(x) page by page: its first two dimensions swapped, conjugated for ctranspose.
octave_value page_op (const octave_value &x, tilemm_op op)
{
  if (op == TILEMM_OP_NONE)
    return x;
  Array<int> order (dim_vector (1, std::max (2, (int) x.ndims ())));
  for (int i = 0; i < order.numel (); i++)
    order(i) = i;
  order(0) = 1, order(1) = 0;
  octave_value t = x.permute (order);
  if (op == TILEMM_OP_CTRANSPOSE && x.iscomplex ())
    t = octave::feval ("conj", octave_value_list (t), 1)(0);
  return t;
}

// Pages where `*` multiplies by a scalar (a 1×1 page of op(X) or of op(Y)): Octave's `*` then
// multiplies element by element, so `.*` over the pages gives each page exactly as `*` does
// (its complex rules and IEEE cases included), with the same implicit expansion.
octave_value scalar_pages (const octave_value &x, tilemm_op op_a, const octave_value &y,
                           tilemm_op op_b)
{
  octave_value xa = page_op (x, op_a), yb = page_op (y, op_b);
  octave_value z = octave::binary_op (octave_value::op_el_mul, xa, yb);
  z.maybe_mutate ();
  return z;
}

// A complex result as a loop of `*` leaves it: a loop of `*` leaves real pages where every
// imaginary part is zero, and Octave narrows a complex array whose imaginary parts are all zero,
// so the whole result is real then.
template <typename Real, typename Cplx>
octave_value narrowed (const tilemm_batch &batch, const Cplx &z, const dim_vector &z_dims)
{
  const tilemm_type type = batch.decision.route.result_class == TILEMM_CLASS_SINGLE
                             ? TILEMM_COMPLEX_SINGLE : TILEMM_COMPLEX_DOUBLE;
  if (! tilemm_imag_all_zero (type, z.data (), z.numel ()))
    return octave_value (z);
  Real real = tilemm_oct_uninitialised<Real> (z_dims);
  tilemm_copy_real_parts (type, z.data (), z.numel (), real.fortran_vec ());
  return octave_value (real);
}

template <typename Real, typename Cplx>
octave_value compute (const tilemm_batch &batch, const tilemm_options &options,
                      const octave_value &x, const octave_value &y, const dim_vector &z_dims)
{
  tilemm_notice notice = { 0, "", "" };
  tilemm_options o = options;
  o.notice = &notice;
  const tilemm_route &r = batch.decision.route;
  Real rx, ry;
  Cplx cx, cy;
  const void *px, *py;
  if (r.use_a == TILEMM_OPERAND_TO_COMPLEX || x.iscomplex ())
    tilemm_oct_convert (x, cx), px = cx.data ();
  else
    tilemm_oct_convert (x, rx), px = rx.data ();
  if (r.use_b == TILEMM_OPERAND_TO_COMPLEX || y.iscomplex ())
    tilemm_oct_convert (y, cy), py = cy.data ();
  else
    tilemm_oct_convert (y, ry), py = ry.data ();
  tilemm_error err = { TILEMM_OK, "" };
  if (! r.result_complex)
    {
      Real z = tilemm_oct_uninitialised<Real> (z_dims);
      if (tilemm_batch_run (&batch, &o, px, py, z.fortran_vec (), &err) != TILEMM_OK)
        tilemm_oct_fail (err);
      tilemm_oct_raise_notice (notice);
      return octave_value (z);
    }
  Cplx z = tilemm_oct_uninitialised<Cplx> (z_dims);
  if (tilemm_batch_run (&batch, &o, px, py, z.fortran_vec (), &err) != TILEMM_OK)
    tilemm_oct_fail (err);
  tilemm_oct_raise_notice (notice);
  return narrowed<Real, Cplx> (batch, z, z_dims);
}

// One page of Z as the loop a user writes computes it: op(X page) * op(Y page) through Octave's
// own operators, a transposed left side (else right side) as the compound operator the parser
// makes of X(:,:,i).' * Y(:,:,i) (the host BLAS reads it transposed; X'*X of one page is its
// rank-k update, exactly symmetric), a transposed right side beside a transposed left one
// transposed first, as the parser leaves it.
octave_value page_product (const octave_value &a, tilemm_op op_a, const octave_value &b,
                           tilemm_op op_b)
{
  if (op_a != TILEMM_OP_NONE)
    return octave::binary_op (op_a == TILEMM_OP_TRANSPOSE ? octave_value::op_trans_mul
                                                          : octave_value::op_herm_mul,
                              a, page_op (b, op_b));
  if (op_b != TILEMM_OP_NONE)
    return octave::binary_op (op_b == TILEMM_OP_TRANSPOSE ? octave_value::op_mul_trans
                                                          : octave_value::op_mul_herm,
                              a, b);
  return octave::binary_op (octave_value::op_mul, a, b);
}

// Pages by the host's own `*` (TILEMM_BATCH_HOST: "auto" found the loop of `*` faster than the
// CPU's batched path and the GPU's): the loop, without the interpreter, into Z; the result's
// class and realness as compute's (narrowed).
template <typename Real, typename Cplx>
octave_value host_pages (const tilemm_batch &batch, const octave_value &x, tilemm_op op_a,
                         const octave_value &y, tilemm_op op_b, const dim_vector &z_dims)
{
  const tilemm_batch_shape &s = batch.shape;
  octave_value x3 = x.reshape (dim_vector (s.x_rows, s.x_cols, s.x_pages));
  octave_value y3 = y.reshape (dim_vector (s.y_rows, s.y_cols, s.y_pages));
  const bool one_array = &x.get_rep () == &y.get_rep ();
  const bool cplx = batch.decision.route.result_complex;
  Real zr;
  Cplx zc;
  if (cplx)
    zc = tilemm_oct_uninitialised<Cplx> (z_dims);
  else
    zr = tilemm_oct_uninitialised<Real> (z_dims);
  const octave_idx_type page = (octave_idx_type) (s.m * s.n);
  octave_value_list idx (3);
  idx(0) = idx(1) = octave_value (octave_value::magic_colon_t);
  for (int64_t p = 0; p < s.z_pages; p++)
    {
      octave_quit ();
      int64_t xp, yp;
      tilemm_batch_sources (&s, p, &xp, &yp);
      idx(2) = octave_value ((double) (xp + 1));
      const octave_value xv = x3.index_op (idx);
      octave_value yv = xv;   // X'*X of one page: the very same page on both sides
      if (! one_array || xp != yp)
        {
          idx(2) = octave_value ((double) (yp + 1));
          yv = y3.index_op (idx);
        }
      const octave_value zv = page_product (xv, op_a, yv, op_b);
      if (cplx)
        {
          const Cplx zp = octave_value_extract<Cplx> (zv);
          std::copy (zp.data (), zp.data () + page, zc.fortran_vec () + p * page);
        }
      else
        {
          const Real zp = octave_value_extract<Real> (zv);
          std::copy (zp.data (), zp.data () + page, zr.fortran_vec () + p * page);
        }
    }
  if (! cplx)
    return octave_value (zr);
  return narrowed<Real, Cplx> (batch, zc, z_dims);
}

// pagemtimes (X, transpX, Y, transpY, options...) with the transposes given: the whole call;
// or, where `plan_only`, its decision as text (__tilemm_pages_plan__).
octave_value pages (const octave_value_list &args, bool plan_only)
{
  if (args.length () < 4)
    error_with_id ("tilemm:nargin", "%s", pages_usage);
  const octave_value &x = args(0), &y = args(2);
  std::string tx, ty;
  if (args(1).is_string () && args(1).rows () <= 1)
    tx = args(1).string_value ();
  if (args(3).is_string () && args(3).rows () <= 1)
    ty = args(3).string_value ();
  tilemm_op op_a = TILEMM_OP_NONE, op_b = TILEMM_OP_NONE;
  tilemm_error err = { TILEMM_OK, "" };
  if (tilemm_ops_parse (args(1).is_string () ? tx.c_str () : nullptr,
                        args(3).is_string () ? ty.c_str () : nullptr, &op_a, &op_b, &err)
      != TILEMM_OK)
    error_with_id (tilemm_badtranspose_id, "pagemtimes: transpX and transpY must each be "
                   "\"none\", \"transpose\" or \"ctranspose\"");
  check_operand (x, "X");
  check_operand (y, "Y");
  const tilemm_options options = tilemm_oct_options (args, 4, pages_usage);

  // The arrays as the decision sees them: class, complexity, and whether they are one array
  // on both sides (pagemtimes (A, "transpose", A, "none"): each page is X'·X of one page, which
  // `*` makes exactly symmetric (Hermitian)); their sizes.
  const std::vector<int64_t> xd = dims_of (x), yd = dims_of (y);
  tilemm_operand da, db;
  memset (&da, 0, sizeof da);
  memset (&db, 0, sizeof db);
  da.cls = x.is_single_type () ? TILEMM_CLASS_SINGLE : TILEMM_CLASS_DOUBLE;
  db.cls = y.is_single_type () ? TILEMM_CLASS_SINGLE : TILEMM_CLASS_DOUBLE;
  da.is_complex = x.iscomplex (), db.is_complex = y.iscomplex ();
  da.identity = &x.get_rep ();
  db.identity = &y.get_rep ();
  da.host_two_real
    = tilemm_oct_compound_operator (page_type_id (x), op_a, page_type_id (y), op_b) ? 1 : 0;
  tilemm_batch batch;
  if (tilemm_decide_batch (&da, (int) xd.size (), xd.data (), op_a, &db, (int) yd.size (),
                           yd.data (), op_b, &options, &batch, &err)
      != TILEMM_OK)
    {
      if (err.status == TILEMM_ESHAPE)
        error_with_id (batch.shape.bad_dim == 2 ? "tilemm:pages:nonconformant"
                                                : "tilemm:pages:pagedims",
                       "%s", err.detail);
      tilemm_oct_fail (err);
    }
  if (plan_only)
    {
      std::vector<char> text (1 << 16);
      tilemm_batch_describe (&batch, text.data (), text.size ());
      return octave_value (std::string (text.data ()));
    }
  const tilemm_batch_shape &s = batch.shape;
  dim_vector z_dims = dim_vector::alloc (s.page_ndims + 2);
  z_dims(0) = s.m;
  z_dims(1) = s.n;
  for (int d = 0; d < s.page_ndims; d++)
    z_dims(2 + d) = s.z_dims[d];
  z_dims.chop_trailing_singletons ();

  const bool single = x.is_single_type () || y.is_single_type ();
  switch (batch.action)
    {
    case TILEMM_BATCH_FILL:
      if (single)
        return octave_value (FloatNDArray (z_dims, 0.0f));
      return octave_value (NDArray (z_dims, 0.0));
    case TILEMM_BATCH_SCALAR:
      return scalar_pages (x, op_a, y, op_b);
    case TILEMM_BATCH_BEYOND:
      error_with_id ("tilemm:pages:size", "pagemtimes: pages of %lldx%lld and %lldx%lld are "
                     "beyond what the product takes", (long long) s.x_rows, (long long) s.x_cols,
                     (long long) s.y_rows, (long long) s.y_cols);
    case TILEMM_BATCH_HOST:
      if (single)
        return host_pages<FloatNDArray, FloatComplexNDArray> (batch, x, op_a, y, op_b, z_dims);
      return host_pages<NDArray, ComplexNDArray> (batch, x, op_a, y, op_b, z_dims);
    case TILEMM_BATCH_COMPUTE:
      break;
    }
  if (single)
    return compute<FloatNDArray, FloatComplexNDArray> (batch, options, x, y, z_dims);
  return compute<NDArray, ComplexNDArray> (batch, options, x, y, z_dims);
}

} // namespace

double tilemm_oct_host_pages_s (const octave_value &x, const octave_value &y)
{
  const std::vector<int64_t> xd = dims_of (x), yd = dims_of (y);
  tilemm_batch batch;
  std::memset (&batch, 0, sizeof batch);
  tilemm_error err = { TILEMM_OK, "" };
  if (tilemm_batch_shape_make ((int) xd.size (), xd.data (), TILEMM_OP_NONE, (int) yd.size (),
                               yd.data (), TILEMM_OP_NONE, &batch.shape, &err)
      != TILEMM_OK)
    return -1;
  batch.decision.route.result_complex = x.iscomplex () || y.iscomplex ();
  const tilemm_batch_shape &s = batch.shape;
  dim_vector z_dims (s.m, s.n, s.z_pages);
  const double t0 = tilemm_now_s ();
  if (x.is_single_type ())
    host_pages<FloatNDArray, FloatComplexNDArray> (batch, x, TILEMM_OP_NONE, y, TILEMM_OP_NONE,
                                                   z_dims);
  else
    host_pages<NDArray, ComplexNDArray> (batch, x, TILEMM_OP_NONE, y, TILEMM_OP_NONE, z_dims);
  return tilemm_now_s () - t0;
}


// pagemtimes itself is inst/compat/pagemtimes.m (on the path only where Octave has none): its
// help, demo and tests, and a call of __tilemm_pages__ below.  It is not autoloaded from here:
// a function handle to an oct-file function autoloaded under a second name (@pagemtimes) ran
// the oct-file's first function, tilemm, in Octave 7.3 (tests/interrupt.sh found it; the
// m-file's BIST checks a handle).
// PKG_ADD: autoload ("__tilemm_pages__", fullfile (fileparts (mfilename ("fullpath")), "tilemm.oct"));
DEFUN_DLD (__tilemm_pages__, args, ,
           "-*- texinfo -*-\n"
           "@deftypefn {} {@var{Z} =} __tilemm_pages__ (@var{X}, @var{tX}, @var{Y}, @var{tY}, "
           "@dots{})\n"
           "Undocumented internal function of pagemtimes (tilemm): the pages of @var{X} and "
           "@var{Y} multiplied, transposed as @var{tX} and @var{tY} say, with tilemm's options.\n"
           "@end deftypefn")
{
  return pages (args, false);
}

// PKG_ADD: autoload ("__tilemm_pages_plan__", fullfile (fileparts (mfilename ("fullpath")), "tilemm.oct"));
DEFUN_DLD (__tilemm_pages_plan__, args, ,
           "-*- texinfo -*-\n"
           "@deftypefn {} {@var{text} =} __tilemm_pages_plan__ (@var{X}, @var{tX}, @var{Y}, "
           "@var{tY}, @dots{})\n"
           "Undocumented internal function of pagemtimes (tilemm): what the batch "
           "@code{__tilemm_pages__} would run decided, one decision a line (the machine's "
           "facts, each way's cost, the action, the plan), nothing computed.\n"
           "@end deftypefn")
{
  return pages (args, true);
}
