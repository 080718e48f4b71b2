/* fault.c — the TILEMM_FAULT test hook (see fault.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"

static const char *const kind_names[TILEMM_FAULT_NKINDS] = { "malloc", "host", "memcpy",
                                                              "launch" };

/* This product's armed fault (kind < 0: none) and its counts; reset by every begin.  A product's
 * workers count from their own threads at once, so the counts are atomic (each hit sees its own
 * number: exactly one is the nth); kind and nth are written by begin, before the workers start,
 * and only read while they run. */
static struct {
  atomic_int kind;
  atomic_long nth;
  atomic_long count[TILEMM_FAULT_NKINDS];
} fault = { -1, 0, { 0 } };

const char *tilemm_fault_kind_name (int kind)
{
  return kind >= 0 && kind < TILEMM_FAULT_NKINDS ? kind_names[kind] : "none";
}

void tilemm_fault_spec_parse (const char *text, tilemm_fault_spec *spec)
{
  spec->kind = -1;
  spec->nth = 0;
  const char *colon = text ? strchr (text, ':') : NULL;
  if (!colon)
    return;
  for (int k = 0; k < TILEMM_FAULT_NKINDS; k++)
    if (strlen (kind_names[k]) == (size_t) (colon - text)
        && strncmp (text, kind_names[k], (size_t) (colon - text)) == 0)
      {
        char *end = NULL;
        const long n = strtol (colon + 1, &end, 10);
        if (end != colon + 1 && *end == '\0' && n >= 1)
          {
            spec->kind = k;
            spec->nth = n;
          }
      }
}

void tilemm_fault_begin (const tilemm_fault_spec *spec)
{
  atomic_store (&fault.kind, spec ? spec->kind : -1);
  atomic_store (&fault.nth, spec ? spec->nth : 0);
  for (int k = 0; k < TILEMM_FAULT_NKINDS; k++)
    atomic_store (&fault.count[k], 0);
}

int tilemm_fault_hit (tilemm_fault_kind kind)
{
  if ((int) kind < 0 || kind >= TILEMM_FAULT_NKINDS)
    return 0;
  const long seen = atomic_fetch_add_explicit (&fault.count[kind], 1, memory_order_relaxed) + 1;
  return atomic_load_explicit (&fault.kind, memory_order_relaxed) == (int) kind
         && seen == atomic_load_explicit (&fault.nth, memory_order_relaxed);
}

long tilemm_fault_count (tilemm_fault_kind kind)
{
  return (int) kind >= 0 && kind < TILEMM_FAULT_NKINDS ? atomic_load (&fault.count[kind]) : 0;
}
