// oct_shared.h — what the oct-file's functions (tilemm_oct.cc, pages_oct.cc) share: the reading
// of options, the Ctrl-C poll, Octave's compound operators, operands converted and results
// allocated without a fill, warnings raised (oct_shared.cc).
//
// Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
#ifndef TILEMM_OCT_SHARED_H
#define TILEMM_OCT_SHARED_H

#include <octave/oct.h>

#include <memory>

#include "front.h"

// The options from args(first) on, in name, value pairs, checked by the core
// (tilemm_options_set); an error "tilemm:badoption" naming `usage` otherwise.  Its stop polls
// tilemm_oct_interrupt_pending.
tilemm_options tilemm_oct_options (const octave_value_list &args, int first, const char *usage);

// Whether Octave has a Ctrl-C pending (the core's stop poll: it only reads the flags).
int tilemm_oct_interrupt_pending (void *);

// A status as Octave's error "tilemm:<reason>" with its detail and advice; an interrupted
// product (Ctrl-C, the core stopped cleanly) as Octave's own interrupt.
[[noreturn]] void tilemm_oct_fail (const tilemm_error &err);

// Whether Octave evaluates op_a(a) * op_b(b) by a compound operator of its own (trans_mul,
// mul_trans, herm_mul, mul_herm) for operands of types type_a, type_b (octave_value type ids):
// then a real and a complex operand always take two real products (route.c).
bool tilemm_oct_compound_operator (int type_a, tilemm_op op_a, int type_b, tilemm_op op_b);

// Octave's arrays of each element type, from any operand the route accepts.  An operand that
// already has the class and complexity shares its data (no copy); others are converted.
inline void tilemm_oct_convert (const octave_value &x, NDArray &out) { out = x.array_value (true); }
inline void tilemm_oct_convert (const octave_value &x, FloatNDArray &out)
{
  out = x.float_array_value (true);
}
inline void tilemm_oct_convert (const octave_value &x, ComplexNDArray &out)
{
  out = x.complex_array_value (true);
}
inline void tilemm_oct_convert (const octave_value &x, FloatComplexNDArray &out)
{
  out = x.float_complex_array_value (true);
}

// An Octave array of `dims` whose elements are NOT initialised.  Octave 7's Array allocator
// value-initialises every element ("uninitialised" constructors included: ArrayRep::allocate
// constructs each one), which for a 4096×4096 double result is a 128 MiB zero fill by one
// thread, page faults included: ≈ 60 ms on the GPU machine, many times the product itself.  So
// the storage is taken from the same allocator without constructing the elements (they are all
// written by the product), and Array's constructor from a pointer takes ownership of it: its
// destructor gives it back to that allocator.  Element types here are trivially destructible.
template <typename A>
A tilemm_oct_uninitialised (const dim_vector &dims)
{
  typedef typename A::element_type T;
  std::allocator<T> alloc;
  T *data = alloc.allocate (dims.safe_numel ());
  return A (Array<T> (data, dims));
}

// Octave's own `*` for the machine's facts (oct_host.cc): one product through Octave's binary
// operator, and the loop of it over pages as pagemtimes' "auto" runs it where the host's `*` is
// fastest; the BLAS library it calls.
const tilemm_host_product *tilemm_oct_host_product (void);

// Seconds the loop of Octave's `*` over the pages of X and Y (3-D arrays of one class, as many
// pages each) takes, as pagemtimes runs it (pages_oct.cc: host_pages); -1 where it cannot.
double tilemm_oct_host_pages_s (const octave_value &x, const octave_value &y);

// A warning the product left (tilemm_notice), raised with its id.
void tilemm_oct_raise_notice (const tilemm_notice &notice);

#endif
