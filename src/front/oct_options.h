// oct_options.h — the oct-file's shared reading of options and its Ctrl-C poll
// (oct_options.cc), for tilemm_oct.cc and pages_oct.cc.
//
// Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
#ifndef TILEMM_OCT_OPTIONS_H
#define TILEMM_OCT_OPTIONS_H

#include <octave/oct.h>

#include "front.h"

// The options from args(first) on, in name, value pairs, checked by the core
// (tilemm_options_set); an error "tilemm:badoption" naming `usage` otherwise.  Its stop polls
// tilemm_oct_interrupt_pending.
tilemm_options tilemm_oct_options (const octave_value_list &args, int first, const char *usage);

// Whether Octave has a Ctrl-C pending (the core's stop poll: it only reads the flags).
int tilemm_oct_interrupt_pending (void *);

#endif
