// tilemm_oct.cc — the Octave-native front end of tilemm (built as tilemm.oct).
//
// Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
//
// The same rules as the mex gateway (src/front/tilemm.c), written once in the core (front.h): this file
// only converts Octave values.  It exists because returning a mex result costs Octave 7 a copy
// element by element into a fresh array, about as long as the whole product on the GPU; here the
// result is Octave's own array, allocated without a fill, and the backend writes straight into
// it.  Under Octave, tilemm.oct shadows tilemm.mex; the mex gateway is built for MATLAB (and
// tested under Octave from src/mex/).

#include <octave/oct.h>
#include <octave/ov-typeinfo.h>
#include <octave/parse.h>
#include <octave/quit.h>

#include <memory>
#include <string>

#include <dlfcn.h>

#include "backend.h"
#include "front.h"
#include "oct_shared.h"
#include "tilemm_help.h"

namespace
{

// Releases the GPU buffers when Octave unloads the module or exits.
struct release_at_unload
{
  ~release_at_unload () { tilemm_cuda_release (); }
} release_guard;



tilemm_class class_of (const octave_value &x)
{
  if (x.is_double_type ())
    return TILEMM_CLASS_DOUBLE;
  if (x.is_single_type ())
    return TILEMM_CLASS_SINGLE;
  if (x.islogical ())
    return TILEMM_CLASS_LOGICAL;
  if (x.is_char_matrix () || x.is_string ())
    return TILEMM_CLASS_CHAR;
  if (x.isinteger ())
    return TILEMM_CLASS_INTEGER;
  return TILEMM_CLASS_OTHER;
}

tilemm_operand describe (const octave_value &x)
{
  tilemm_operand d;
  d.cls = class_of (x);
  d.is_complex = x.iscomplex () ? 1 : 0;
  d.is_sparse = x.issparse () ? 1 : 0;
  const dim_vector dims = x.dims ();
  d.ndims = dims.ndims ();
  d.rows = dims(0);
  d.cols = dims.ndims () > 1 ? dims(1) : 1;
  // Diagonal and permutation matrices keep their type and O(n) cost only in mtimes.
  d.is_structured = x.is_diag_matrix () || x.is_perm_matrix () ? 1 : 0;
  // Two arguments that are one Octave object share one representation.
  d.identity = &x.get_rep ();
  return d;
}

// Runs the product into Octave's own result array, allocated without a fill.
template <typename Real, typename Cplx>
octave_value compute (const tilemm_decision &d, const tilemm_options &options,
                      const octave_value &a, const octave_value &b)
{
  tilemm_notice notice = { 0, "", "" };
  tilemm_options o = options;
  o.notice = &notice;
  const tilemm_route &r = d.route;
  const bool single = r.result_class == TILEMM_CLASS_SINGLE;
  const dim_vector result_dims (r.m, r.n);
  tilemm_error err = { TILEMM_OK, "" };
  // The converted operands live until the product is done.
  Real ra, rb;
  Cplx ca, cb;
  const void *pa, *pb;
  if (r.use_a == TILEMM_OPERAND_TO_COMPLEX || a.iscomplex ())
    tilemm_oct_convert (a, ca), pa = ca.data ();
  else
    tilemm_oct_convert (a, ra), pa = ra.data ();
  if (r.use_b == TILEMM_OPERAND_TO_COMPLEX || b.iscomplex ())
    tilemm_oct_convert (b, cb), pb = cb.data ();
  else
    tilemm_oct_convert (b, rb), pb = rb.data ();

  if (! r.result_complex)
    {
      Real c = tilemm_oct_uninitialised<Real> (result_dims);   // the product writes every element
      if (tilemm_run (&d, &o, pa, pb, c.fortran_vec (), &err) != TILEMM_OK)
        tilemm_oct_fail (err);
      tilemm_oct_raise_notice (notice);
      return octave_value (c);
    }
  Cplx c = tilemm_oct_uninitialised<Cplx> (result_dims);
  if (tilemm_run (&d, &o, pa, pb, c.fortran_vec (), &err) != TILEMM_OK)
    tilemm_oct_fail (err);
  tilemm_oct_raise_notice (notice);
  const tilemm_type type = single ? TILEMM_COMPLEX_SINGLE : TILEMM_COMPLEX_DOUBLE;
  if (tilemm_imag_all_zero (type, c.data (), c.numel ()))
    {
      Real real = tilemm_oct_uninitialised<Real> (result_dims);
      tilemm_copy_real_parts (type, c.data (), c.numel (), real.fortran_vec ());
      return octave_value (real);
    }
  return octave_value (c);
}

// Whether Octave evaluates op_a(a) * op_b(b) by a compound operator of its own for this pair
// of types (trans_mul (a, op_b(b)), or mul_trans (a, b) when only b is transposed): for a real
// and a complex operand those take two real products whatever the shape (route.c).

// args(i)'s text when it is a string (a char row, or '') without an embedded NUL, else NULL
// (so "transpose" followed by a NUL and more is no keyword); kept alive in `text`.
const char *text_of (const octave_value_list &args, int i, std::string &text)
{
  if (i >= args.length () || ! args(i).is_string () || args(i).rows () > 1)
    return nullptr;
  text = args(i).string_value ();
  return text.find ('\0') == std::string::npos ? text.c_str () : nullptr;
}

// op_a(a) * op_b(b) exactly as Octave evaluates the expression A.' * B (and the like): with a
// transposed operand it is one of Octave's compound operators (trans_mul, herm_mul, mul_trans,
// mul_herm), which differ from transpose-then-mtimes (an N-D operand is folded to 2-D, not an
// error; mixed real and complex operands take two real products).  With two, the parser makes
// A.' * B.' the compound trans_mul (A, B.'): B is transposed, A is not.  Its answer or its very
// error.
octave_value delegate (const octave_value &a, tilemm_op op_a, const octave_value &b, tilemm_op op_b)
{
  if (op_a == TILEMM_OP_NONE && op_b == TILEMM_OP_NONE)
    {
      octave_value_list operands (2);
      operands(0) = a;
      operands(1) = b;
      return octave::feval ("mtimes", operands, 1)(0);
    }
  if (op_b == TILEMM_OP_NONE)
    return octave::binary_op (op_a == TILEMM_OP_TRANSPOSE ? octave_value::op_trans_mul
                                                          : octave_value::op_herm_mul, a, b);
  if (op_a == TILEMM_OP_NONE)
    return octave::binary_op (op_b == TILEMM_OP_TRANSPOSE ? octave_value::op_mul_trans
                                                          : octave_value::op_mul_herm, a, b);
  const octave_value tb = octave::unary_op (op_b == TILEMM_OP_TRANSPOSE
                                              ? octave_value::op_transpose
                                              : octave_value::op_hermitian, b);
  return octave::binary_op (op_a == TILEMM_OP_TRANSPOSE ? octave_value::op_trans_mul
                                                        : octave_value::op_herm_mul, a, tb);
}

} // namespace

// What tilemm (args...) does: the operands, the options and the decision with its plan.
struct call
{
  octave_value a, b;
  tilemm_op op_a = TILEMM_OP_NONE, op_b = TILEMM_OP_NONE;
  tilemm_options o;
  tilemm_decision d;
};

static void decide_call (const octave_value_list &args, call &x)
{
  if (args.length () < 2)
    error_with_id ("tilemm:nargin", "two matrices needed; %s", tilemm_usage);
  // tilemm (A, B, options...) or tilemm (A, tA, B, tB, options...) (front.h says which).
  std::string second, fourth;
  const char *text2 = text_of (args, 1, second), *text4 = text_of (args, 3, fourth);
  const bool op_form = tilemm_is_op_form (args.length (), text2, text4);
  tilemm_error err = { TILEMM_OK, "" };
  if (op_form && tilemm_ops_parse (text2, text4, &x.op_a, &x.op_b, &err) != TILEMM_OK)
    error_with_id (tilemm_badtranspose_id, "%s", err.detail);
  x.a = args(0);
  x.b = args(op_form ? 2 : 1);
  x.o = tilemm_oct_options (args, op_form ? 4 : 2, tilemm_usage);
  tilemm_operand da = describe (x.a);
  const tilemm_operand db = describe (x.b);
  // A transposed full matrix keeps its type, so b's type stands for op_b(b)'s.
  da.host_two_real
    = tilemm_oct_compound_operator (x.a.type_id (), x.op_a, x.b.type_id (), x.op_b) ? 1 : 0;
  if (tilemm_decide_op (&da, x.op_a, &db, x.op_b, &x.o, &x.d, &err) != TILEMM_OK)
    tilemm_oct_fail (err);
}

DEFUN_DLD (tilemm, args, nargout, TILEMM_HELP_TEXT)
{
  if (nargout > 1)
    error_with_id ("tilemm:nargout", "one output only; %s", tilemm_usage);
  call x;
  decide_call (args, x);
  const octave_value &a = x.a, &b = x.b;
  const tilemm_op op_a = x.op_a, op_b = x.op_b;
  const tilemm_options &o = x.o;
  const tilemm_decision &d = x.d;

  switch (d.action)
    {
    case TILEMM_DO_DELEGATE:
      // Octave's own product: its answer, and its error with its own id and message.
      return delegate (a, op_a, b, op_b);
    case TILEMM_DO_FILL:
      if (d.route.result_class == TILEMM_CLASS_SINGLE)
        return octave_value (FloatNDArray (dim_vector (d.route.m, d.route.n), 0.0f));
      return octave_value (NDArray (dim_vector (d.route.m, d.route.n), 0.0));
    case TILEMM_DO_COMPUTE:
      break;
    }
  if (d.route.result_class == TILEMM_CLASS_SINGLE)
    return compute<FloatNDArray, FloatComplexNDArray> (d, o, a, b);
  return compute<NDArray, ComplexNDArray> (d, o, a, b);
}

// PKG_ADD: autoload ("__tilemm_plan__", fullfile (fileparts (mfilename ("fullpath")), "tilemm.oct"));
DEFUN_DLD (__tilemm_plan__, args, ,
           "-*- texinfo -*-\n"
           "@deftypefn {} {@var{text} =} __tilemm_plan__ (@var{A}, @var{B}, @dots{})\n"
           "Undocumented internal function: the plan of @code{tilemm (@var{A}, @var{B}, @dots{})}\n"
           "(the same arguments), one decision a line, without computing the product: backend,\n"
           "product, precision, device limit, kernel variant, panels, steps, workers, queue and,\n"
           "for the emulated precision, its rule, panels, passes, int8 GEMM and blocks.\n"
           "@end deftypefn")
{
  call x;
  decide_call (args, x);
  char text[4096];
  tilemm_decision_describe (&x.d, text, sizeof text);
  return octave_value (std::string (text));
}

// PKG_ADD: autoload ("__tilemm_stats__", fullfile (fileparts (mfilename ("fullpath")), "tilemm.oct"));
DEFUN_DLD (__tilemm_stats__, args, ,
           "-*- texinfo -*-\n"
           "@deftypefn  {} {@var{s} =} __tilemm_stats__ ()\n"
           "@deftypefnx {} {@var{s} =} __tilemm_stats__ (\"blas\")\n"
           "Undocumented internal function: where the time of tilemm's last GPU product went\n"
           "(with @qcode{\"blas\"}: the last GPU product of libtilemm_blas.so preloaded into\n"
           "this process, its device fields those of the oct-file).\n"
           "\n"
           "Fields: @code{calls} (GPU products since tilemm.oct was loaded), @code{ok},\n"
           "@code{backend_ms} (entry to return of the GPU backend), @code{upload_ms},\n"
           "@code{compute_ms} and @code{download_ms} (its critical path: they sum to\n"
           "@code{backend_ms}), @code{kernels_ms} (the kernels' own device time: a plain\n"
           "product's @code{compute_ms}, a batch's panels' kernels without the waits between\n"
           "them; summed over the devices; 0 for the emulated precision, whose stages are not\n"
           "timed so), @code{copy_in_ms} and @code{copy_out_ms} (host time in staging\n"
           "copies), @code{result_prep_ms}, @code{bytes_up}, @code{bytes_down},\n"
           "@code{operand_bytes} (op(A) and op(B) as the product holds them), @code{host_reads}\n"
           "(@code{bytes_up} over @code{operand_bytes}: 1 where the host read each operand once,\n"
           "however many GPUs ran the product), @code{panels},\n"
           "@code{steps}, @code{backend_ms_sum}, @code{copy_in_ms_sum} and @code{copy_out_ms_sum} (sums\n"
           "over every GPU product since load), @code{device_bytes_held}, @code{pinned_bytes_held},\n"
           "@code{device_free} and @code{device_total} (cudaMemGetInfo; -1 without a GPU), and\n"
           "@code{devices}, a struct array with a row per device that ran the product:\n"
           "@code{device} (its CUDA ordinal), @code{copy_threads} (its host copy team),\n"
           "@code{panels} (queue panels it took), @code{steps}, @code{busy_ms} (its first panel's\n"
           "start to its last one's end), @code{upload_ms}, @code{compute_ms} and\n"
           "@code{download_ms} (its panels' splits, summed), @code{copy_in_ms},\n"
           "@code{copy_out_ms}, @code{result_prep_ms}, @code{bytes_up} and @code{bytes_down},\n"
           "@code{host_bytes} (what the host read for it: its uploads), @code{bus_bytes} (what\n"
           "crossed its bus: up and down) and @code{peer_bytes} (received from the other GPUs by\n"
           "peer copies: their shares of the operand every GPU holds; @code{bytes_peer} is their\n"
           "sum).  On several devices @code{backend_ms} is the wall time of the whole, @code{upload_ms},\n"
           "@code{compute_ms} and @code{download_ms} are those of the device busy longest, and\n"
           "the copies and bytes are sums over the devices.\n"
           "@end deftypefn")
{
  // "blas": the figures of the BLAS library preloaded into this process (its own copy of the
  // GPU backend), where it is.
  const bool of_blas = args.length () == 1 && args(0).is_string ()
                       && args(0).string_value () == "blas";
  if (args.length () > 1 || (args.length () == 1 && !of_blas))
    print_usage ();
  tilemm_cuda_stats st;
  if (of_blas)
    {
      typedef void stats_fn (tilemm_cuda_stats *);
      stats_fn *blas = (stats_fn *) dlsym (RTLD_DEFAULT, "tilemm_blas_last_stats");
      if (!blas)
        error_with_id ("tilemm:noblas",
                       "__tilemm_stats__: libtilemm_blas.so is not loaded in this process");
      blas (&st);
    }
  else
    tilemm_cuda_last_stats (&st);
  octave_scalar_map s;
  s.assign ("calls", octave_value ((double) st.calls));
  s.assign ("ok", octave_value (st.ok != 0));
  s.assign ("backend_ms", octave_value (st.total_ms));
  s.assign ("upload_ms", octave_value (st.upload_ms));
  s.assign ("compute_ms", octave_value (st.compute_ms));
  s.assign ("download_ms", octave_value (st.download_ms));
  s.assign ("kernels_ms", octave_value (st.kernels_ms));
  s.assign ("copy_in_ms", octave_value (st.copy_in_ms));
  s.assign ("copy_out_ms", octave_value (st.copy_out_ms));
  s.assign ("result_prep_ms", octave_value (st.result_prep_ms));
  s.assign ("bytes_up", octave_value (st.bytes_up));
  s.assign ("bytes_down", octave_value (st.bytes_down));
  s.assign ("bytes_peer", octave_value (st.bytes_peer));
  s.assign ("operand_bytes", octave_value (st.operand_bytes));
  s.assign ("host_reads", octave_value (st.operand_bytes > 0 ? st.bytes_up / st.operand_bytes : 0.0));
  s.assign ("panels", octave_value ((double) st.panels));
  s.assign ("steps", octave_value ((double) st.steps));
  s.assign ("backend_ms_sum", octave_value (st.sum_total_ms));
  s.assign ("copy_in_ms_sum", octave_value (st.sum_copy_in_ms));
  s.assign ("copy_out_ms_sum", octave_value (st.sum_copy_out_ms));
  s.assign ("device_bytes_held", octave_value ((double) tilemm_cuda_bytes_held ()));
  s.assign ("pinned_bytes_held", octave_value ((double) tilemm_cuda_pinned_bytes_held ()));
  double free_bytes = -1, total_bytes = -1;
  if (tilemm_cuda_probe (NULL) == TILEMM_OK)
    {
      tilemm_device_info info;
      if (tilemm_cuda_device_info (tilemm_cuda_current_device (), &info, NULL) == TILEMM_OK)
        {
          free_bytes = (double) info.free_memory;
          total_bytes = (double) info.total_memory;
        }
    }
  s.assign ("device_free", octave_value (free_bytes));
  s.assign ("device_total", octave_value (total_bytes));
  // Each device's own figures, a row each (1×0 before any GPU product).
  static const char *const fields[] = { "device", "copy_threads", "panels", "steps", "busy_ms",
                                        "upload_ms", "compute_ms", "download_ms", "copy_in_ms",
                                        "copy_out_ms", "result_prep_ms", "bytes_up",
                                        "bytes_down", "host_bytes", "bus_bytes",
                                        "peer_bytes" };
  const int count = st.devices > 0 && st.devices <= TILEMM_MAX_WORKERS ? st.devices : 0;
  octave_map devices (dim_vector (1, count));
  for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
    {
      Cell values (dim_vector (1, count));
      for (int i = 0; i < count; i++)
        {
          const tilemm_cuda_device_stats &d = st.device[i];
          const double v[] = { (double) d.device,    (double) d.copy_threads, (double) d.panels,
                               (double) d.steps,     d.busy_ms,               d.upload_ms,
                               d.compute_ms,         d.download_ms,           d.copy_in_ms,
                               d.copy_out_ms,        d.result_prep_ms,        d.bytes_up,
                               d.bytes_down,         d.bytes_up,
                               d.bytes_up + d.bytes_down,                     d.bytes_peer };
          values(i) = octave_value (v[f]);
        }
      devices.assign (fields[f], values);
    }
  s.assign ("devices", octave_value (devices));
  return octave_value (s);
}
