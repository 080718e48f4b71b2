// oct_shared.cc — what the oct-file's functions (tilemm, pagemtimes) share (oct_shared.h).
//
// Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
#include <octave/oct.h>
#include <octave/quit.h>

#include <string>

#include <octave/ov-typeinfo.h>

#include "oct_shared.h"

// Ctrl-C.  Octave's SIGINT handler only sets these flags; octave_quit () turns them into an
// interrupt exception.  The core polls this between panels, GPU steps and CPU tile rows: it only
// reads the flags (an exception must not cross the C core, which holds the GPU lock), and after
// the core has stopped cleanly octave_quit () below raises Octave's own interrupt.
int tilemm_oct_interrupt_pending (void *)
{
  return octave_signal_caught || octave_interrupt_state > 0;
}

tilemm_options tilemm_oct_options (const octave_value_list &args, int first, const char *usage)
{
  tilemm_options o;
  tilemm_options_init (&o);
  o.stop.should_stop = tilemm_oct_interrupt_pending;
  o.host = tilemm_oct_host_product ();
  const int nopt = args.length () - first;
  if (nopt % 2 != 0)
    error_with_id ("tilemm:badoption", "options come in name, value pairs; %s", usage);
  for (int i = first; i < args.length (); i += 2)
    {
      if (! args(i).is_string () || args(i).rows () > 1)
        error_with_id ("tilemm:badoption",
                       "option %d: the name must be a string such as \"backend\"",
                       (i - first) / 2 + 1);
      const std::string name = args(i).string_value ();
      // The core reads names and values as C strings, which end at a NUL: "backend\0x" would
      // be taken for "backend".
      if (name.find ('\0') != std::string::npos)
        error_with_id ("tilemm:badoption", "option %d: the name contains a NUL character",
                       (i - first) / 2 + 1);
      const octave_value &v = args(i+1);
      std::string text;
      NDArray numbers;
      tilemm_value value = { TILEMM_VALUE_OTHER, "", 0.0, NULL, 0 };
      if (v.is_string () && v.rows () <= 1)
        {
          text = v.string_value ();
          if (text.find ('\0') != std::string::npos)
            error_with_id ("tilemm:badoption", "option \"%s\": the value contains a NUL character",
                           name.c_str ());
          value.kind = TILEMM_VALUE_STRING;
          value.string = text.c_str ();
        }
      else if (v.isnumeric () && v.isreal () && ! v.issparse () && v.numel () == 1)
        {
          value.kind = TILEMM_VALUE_REAL_SCALAR;
          value.number = v.double_value ();
        }
      else if (v.isnumeric () && v.isreal () && ! v.issparse () && v.ndims () == 2
               && (v.rows () <= 1 || v.columns () <= 1))
        {
          /* A real vector (or []), as "devices", [0 1] takes. */
          numbers = v.array_value ();
          value.kind = TILEMM_VALUE_REAL_VECTOR;
          value.numbers = numbers.data ();
          value.count = (size_t) numbers.numel ();
        }
      tilemm_error err = { TILEMM_OK, "" };
      if (tilemm_options_set (&o, name.c_str (), &value, &err) != TILEMM_OK)
        error_with_id ("tilemm:badoption", "%s", err.detail);
    }
  return o;
}

bool tilemm_oct_compound_operator (int type_a, tilemm_op op_a, int type_b, tilemm_op op_b)
{
  if (op_a == TILEMM_OP_NONE && op_b == TILEMM_OP_NONE)
    return false;
  octave_value::compound_binary_op op;
  if (op_a != TILEMM_OP_NONE)
    op = op_a == TILEMM_OP_TRANSPOSE ? octave_value::op_trans_mul : octave_value::op_herm_mul;
  else
    op = op_b == TILEMM_OP_TRANSPOSE ? octave_value::op_mul_trans : octave_value::op_mul_herm;
  return octave_value_typeinfo::lookup_binary_op (op, type_a, type_b) != nullptr;
}

void tilemm_oct_raise_notice (const tilemm_notice &notice)
{
  if (notice.raised)
    warning_with_id (notice.id, "%s", notice.text);
}

[[noreturn]] void tilemm_oct_fail (const tilemm_error &err)
{
  if (err.status == TILEMM_EINTERRUPTED)
    octave_quit ();   // throws Octave's interrupt when the flag is still up
  const std::string id = std::string ("tilemm:") + tilemm_status_reason (err.status);
  const char *detail = err.detail[0] ? err.detail : tilemm_strerror (err.status);
  error_with_id (id.c_str (), "%s. %s", detail, tilemm_advice (err.status));
}
