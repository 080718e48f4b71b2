/* tilemm.c — the mex gateway: C = tilemm (A, B, "option", value, ...), a drop-in for A * B.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Thin glue: read classes and sizes, parse the options, ask the core's route what `*` means,
 * delegate what our kernels do not compute to the built-in mtimes (so its answers and errors are
 * exactly `*`'s), wrap the data in views, run the plan, and turn a status into an error with a
 * "tilemm:<reason>" identifier.  Its Octave tests, which it shares with the oct-file front end
 * (tilemm_oct.cc), are in tilemm.tst beside it; the build writes them into tilemm.cc-tst.
 */
#include <stdio.h>
#include <string.h>

#include "front.h"
#include "mex_common.h"

/* ------------------------------------------------------------------ options */

/* Whether arg is a char array holding a NUL character: the core reads names and values as C
 * strings, which end there, so "backend\0x" would be taken for "backend". */
static int has_nul (const mxArray *arg)
{
  if (!mxIsChar (arg))
    return 0;
  const mxChar *text = mxGetChars (arg);
  const size_t count = mxGetNumberOfElements (arg);
  for (size_t i = 0; text && i < count; i++)
    if (text[i] == 0)
      return 1;
  return 0;
}

/* A char row vector's text in buf; 0 if the array is not one or does not fit. */
static int get_string (const mxArray *arg, char *buf, size_t len)
{
  if (!mxIsChar (arg) || mxGetNumberOfDimensions (arg) != 2 || mxGetM (arg) > 1
      || mxGetNumberOfElements (arg) >= len)
    return 0;
  return mxGetString (arg, buf, (mwSize) len) == 0;
}


static tilemm_options parse_options (int nopt, const mxArray *opt[])
{
  tilemm_options o;
  tilemm_options_init (&o);
  o.host = tilemm_mex_host_product ();
  if (nopt % 2 != 0)
    mexErrMsgIdAndTxt ("tilemm:badoption", "options come in name, value pairs; %s",
                       tilemm_usage);
  for (int i = 0; i < nopt; i += 2)
    {
      char name[64], text[64];
      if (!get_string (opt[i], name, sizeof name))
        mexErrMsgIdAndTxt ("tilemm:badoption",
                           "option %d: the name must be a string such as \"backend\"", i / 2 + 1);
      if (has_nul (opt[i]))
        mexErrMsgIdAndTxt ("tilemm:badoption", "option %d: the name contains a NUL character",
                           i / 2 + 1);
      const mxArray *v = opt[i + 1];
      if (has_nul (v))
        mexErrMsgIdAndTxt ("tilemm:badoption", "option \"%s\": the value contains a NUL character",
                           name);
      tilemm_value value = { TILEMM_VALUE_OTHER, "", 0.0, NULL, 0 };
      if (get_string (v, text, sizeof text))
        {
          value.kind = TILEMM_VALUE_STRING;
          value.string = text;
        }
      else if (mxIsNumeric (v) && !mxIsComplex (v) && !mxIsSparse (v)
               && mxGetNumberOfElements (v) == 1)
        {
          value.kind = TILEMM_VALUE_REAL_SCALAR;
          value.number = mxGetScalar (v);
        }
      else if (mxIsDouble (v) && !mxIsComplex (v) && !mxIsSparse (v)
               && mxGetNumberOfDimensions (v) == 2 && (mxGetM (v) <= 1 || mxGetN (v) <= 1))
        {
          /* A real vector (or []), as "devices", [0 1] takes. */
          value.kind = TILEMM_VALUE_REAL_VECTOR;
          value.numbers = (const double *) mxGetData (v);
          value.count = (size_t) mxGetNumberOfElements (v);
        }
      tilemm_error err = { TILEMM_OK, "" };
      if (tilemm_options_set (&o, name, &value, &err) != TILEMM_OK)
        mexErrMsgIdAndTxt ("tilemm:badoption", "%s", err.detail);
    }
  return o;
}

/* ------------------------------------------------------------------ operands */

static tilemm_class class_of (const mxArray *x)
{
  switch (mxGetClassID (x))
    {
    case mxDOUBLE_CLASS:
      return TILEMM_CLASS_DOUBLE;
    case mxSINGLE_CLASS:
      return TILEMM_CLASS_SINGLE;
    case mxLOGICAL_CLASS:
      return TILEMM_CLASS_LOGICAL;
    case mxCHAR_CLASS:
      return TILEMM_CLASS_CHAR;
    case mxINT8_CLASS:
    case mxUINT8_CLASS:
    case mxINT16_CLASS:
    case mxUINT16_CLASS:
    case mxINT32_CLASS:
    case mxUINT32_CLASS:
    case mxINT64_CLASS:
    case mxUINT64_CLASS:
      return TILEMM_CLASS_INTEGER;
    default:
      return TILEMM_CLASS_OTHER;
    }
}

static tilemm_operand describe (const mxArray *x)
{
  tilemm_operand d;
  d.cls = class_of (x);
  d.is_complex = mxIsComplex (x) ? 1 : 0;
  d.is_sparse = mxIsSparse (x) ? 1 : 0;
  d.ndims = (int) mxGetNumberOfDimensions (x);
  d.rows = (int64_t) mxGetM (x);
  d.cols = (int64_t) mxGetN (x);
  d.is_structured = 0;   /* the mex API has no diagonal or permutation matrices */
  d.identity = mxIsNumeric (x) ? mxGetData (x) : NULL;   /* one array passed twice */
  d.host_two_real = 0;   /* MATLAB transposes, then multiplies by its plain rule */
  return d;
}

static mxClassID mx_class (tilemm_class cls)
{
  return cls == TILEMM_CLASS_SINGLE ? mxSINGLE_CLASS : mxDOUBLE_CLASS;
}

/* Returns x converted as the route asks; a new array (to destroy) or x itself. */
static mxArray *prepare_operand (const mxArray *x, tilemm_operand_use use, tilemm_class cls)
{
  if (use == TILEMM_OPERAND_AS_IS)
    return (mxArray *) x;
  mxArray *converted = NULL;
  mxArray *in = (mxArray *) x;
  mexCallMATLAB (1, &converted, 1, &in, cls == TILEMM_CLASS_SINGLE ? "single" : "double");
  if (use == TILEMM_OPERAND_TO_COMPLEX)
    {
      mxArray *made = NULL;
      mexCallMATLAB (1, &made, 1, &converted, "complex");
      mxDestroyArray (converted);
      converted = made;
    }
  return converted;
}

/* ------------------------------------------------------------------ result */

/* An uninitialised m×n result.  Octave 7's interleaved mxCreate*NumericMatrix gives a complex
 * array a buffer sized for a real one (half of what it needs), so under Octave a complex result
 * is created m×2n and then given n columns: its buffer then holds exactly the 2·m·n values.
 * (Where the allocation is right, the unused half is never touched and costs no page.) */
static mxArray *create_result (int64_t m, int64_t n, tilemm_class cls, int is_complex)
{
  return tilemm_mex_create_uninit (m, n, mx_class (cls), is_complex);
}

/* `*` gives a real result when every imaginary part is zero: so do we. */
static mxArray *narrow_if_real (mxArray *c, tilemm_class cls)
{
  const tilemm_type type = cls == TILEMM_CLASS_SINGLE ? TILEMM_COMPLEX_SINGLE
                                                      : TILEMM_COMPLEX_DOUBLE;
  const size_t count = mxGetNumberOfElements (c);
  /* mxGetData is the documented accessor of interleaved data (Octave 7's mxGetComplexSingles
   * rejects single complex arrays). */
  if (!tilemm_imag_all_zero (type, mxGetData (c), count))
    return c;
  mxArray *real = mxCreateUninitNumericMatrix (mxGetM (c), mxGetN (c), mx_class (cls), mxREAL);
  tilemm_copy_real_parts (type, mxGetData (c), count, mxGetData (real));
  mxDestroyArray (c);
  return real;
}

/* ------------------------------------------------------------------ gateway */

/* op(x) by the host's own transpose or ctranspose (a new array), or x itself for none. */
static mxArray *host_op (const mxArray *x, tilemm_op op)
{
  if (op == TILEMM_OP_NONE)
    return (mxArray *) x;
  mxArray *in = (mxArray *) x, *out = NULL;
  mexCallMATLAB (1, &out, 1, &in, op == TILEMM_OP_TRANSPOSE ? "transpose" : "ctranspose");
  return out;
}

/* op_a(a) * op_b(b) by the built-in transpose, ctranspose and mtimes: its answer, or its very
 * error.  (MATLAB evaluates A.' * B so; Octave's compound operator folds an N-D A to 2-D
 * instead of failing, which tilemm.oct follows and this gateway, for MATLAB, does not.) */
static void delegate_to_mtimes (mxArray *plhs[], const mxArray *a, tilemm_op op_a,
                                const mxArray *b, tilemm_op op_b)
{
  mxArray *args[2] = { host_op (a, op_a), host_op (b, op_b) };
  mexCallMATLAB (1, plhs, 2, args, "mtimes");
  if (args[0] != a)
    mxDestroyArray (args[0]);
  if (args[1] != b)
    mxDestroyArray (args[1]);
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  tilemm_mex_register_cleanup ();
  if (nlhs > 1)
    mexErrMsgIdAndTxt ("tilemm:nargout", "one output only; %s", tilemm_usage);
  if (nrhs < 2)
    mexErrMsgIdAndTxt ("tilemm:nargin", "two matrices needed; %s", tilemm_usage);
  /* tilemm (A, B, options...) or tilemm (A, tA, B, tB, options...) (front.h says which). */
  char second[16], fourth[16];
  /* (a text with a NUL is no transpose keyword: "transpose" and a NUL would read as one) */
  const char *text2 = get_string (prhs[1], second, sizeof second) && !has_nul (prhs[1]) ? second
                                                                                        : NULL;
  const char *text4 = nrhs > 3 && get_string (prhs[3], fourth, sizeof fourth)
                          && !has_nul (prhs[3])
                        ? fourth
                        : NULL;
  const int op_form = tilemm_is_op_form (nrhs, text2, text4);
  tilemm_op op_a = TILEMM_OP_NONE, op_b = TILEMM_OP_NONE;
  tilemm_error err = { TILEMM_OK, "" };
  if (op_form && tilemm_ops_parse (text2, text4, &op_a, &op_b, &err) != TILEMM_OK)
    mexErrMsgIdAndTxt (tilemm_badtranspose_id, "%s", err.detail);
  const mxArray *a = prhs[0], *b = prhs[op_form ? 2 : 1];
  const int first_option = op_form ? 4 : 2;
  /* No interrupt poll here (o.stop stays empty): the documented mex API has none
   * (utIsInterruptPending is undocumented MATLAB), so a mex product runs to its end; the
   * oct-file front end, tilemm_oct.cc, polls Octave's Ctrl-C flag between panels and steps. */
  tilemm_options o = parse_options (nrhs - first_option, prhs + first_option);
  tilemm_notice notice = { 0, "", "" };
  o.notice = &notice;
  const tilemm_operand da = describe (a), db = describe (b);
  tilemm_decision d;
  if (tilemm_decide_op (&da, op_a, &db, op_b, &o, &d, &err) != TILEMM_OK)
    tilemm_mex_fail (err.status, &err);

  switch (d.action)
    {
    case TILEMM_DO_DELEGATE:
      delegate_to_mtimes (plhs, a, op_a, b, op_b);
      return;
    case TILEMM_DO_FILL:
      /* A created numeric matrix is zero-filled: the answer for k = 0, and empty otherwise. */
      plhs[0] = mxCreateNumericMatrix ((mwSize) d.route.m, (mwSize) d.route.n,
                                       mx_class (d.route.result_class), mxREAL);
      return;
    case TILEMM_DO_COMPUTE:
      break;
    }

  mxArray *pa = prepare_operand (a, d.route.use_a, d.route.result_class);
  mxArray *pb = prepare_operand (b, d.route.use_b, d.route.result_class);
  mxArray *c = create_result (d.route.m, d.route.n, d.route.result_class, d.route.result_complex);
  if (tilemm_run (&d, &o, mxGetData (pa), mxGetData (pb), mxGetData (c), &err) != TILEMM_OK)
    {
      mxDestroyArray (c);
      tilemm_mex_fail (err.status, &err);
    }
  if (notice.raised)
    mexWarnMsgIdAndTxt (notice.id, "%s", notice.text);
  if (pa != a)
    mxDestroyArray (pa);
  if (pb != b)
    mxDestroyArray (pb);
  plhs[0] = d.route.result_complex ? narrow_if_real (c, d.route.result_class) : c;
}
