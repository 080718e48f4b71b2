/* fault.h — a hidden test hook that makes one CUDA call of a product fail on purpose.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Not a user option: tests set the environment variable TILEMM_FAULT to "KIND:N" and the Nth
 * operation of that kind in each GPU product that starts while it is set fails as if the
 * runtime had refused it; the product then takes its ordinary error path.  The kinds:
 *   malloc  device allocations (cudaMalloc)          -> TILEMM_EDEVMEM
 *   host    pinned host allocations (cudaHostAlloc)  -> TILEMM_ENOMEM
 *   memcpy  copies (cudaMemcpyAsync)                  -> TILEMM_ECUDA
 *   launch  kernel launches (tilemm_cuda_launch)      -> TILEMM_ECUDA
 * The variable is read once per call, with the call's other settings (tilemm_settings.h), into the
 * call's plan; each product arms the plan's fault when it starts (tilemm_fault_begin) and the
 * counts start from zero then, so nothing carries over from one call to the next; unarmed, a hook
 * costs an increment and a comparison.  Callers hold the CUDA backend's lock, so one product arms
 * at a time; its workers count from their own threads at once, so the counts are atomic.
 * Plain C, no CUDA header: the hook returns whether to fail, the call site picks the error. */
#ifndef TILEMM_FAULT_H
#define TILEMM_FAULT_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  TILEMM_FAULT_MALLOC = 0,
  TILEMM_FAULT_HOST,
  TILEMM_FAULT_MEMCPY,
  TILEMM_FAULT_LAUNCH,
  TILEMM_FAULT_NKINDS
} tilemm_fault_kind;

/* An armed fault: the nth operation of `kind` fails (kind -1: none). */
typedef struct {
  int kind;
  long nth;
} tilemm_fault_spec;

/* TILEMM_FAULT's text ("KIND:N", N >= 1) as a spec; anything else (NULL, "", malformed) arms
 * none. */
void tilemm_fault_spec_parse (const char *text, tilemm_fault_spec *spec);

/* The name of a kind ("malloc", "host", "memcpy", "launch"; "none" for another number). */
const char *tilemm_fault_kind_name (int kind);

/* Arms `spec` (NULL: none) and zeroes the counts: call once at the start of each product, with
 * the call plan's spec (call_plan.h: tilemm_call_plan.fault). */
void tilemm_fault_begin (const tilemm_fault_spec *spec);

/* Counts one operation of `kind`; 1 when it is the one to fail. */
int tilemm_fault_hit (tilemm_fault_kind kind);

/* Operations of `kind` counted since tilemm_fault_begin (tests use it to find every N). */
long tilemm_fault_count (tilemm_fault_kind kind);

/* The text put in the error detail of an injected failure. */
#define TILEMM_FAULT_TEXT "injected by TILEMM_FAULT"

/* `call`, or `injected` (a cudaError_t) without making the call when the hook says fail. */
#define TILEMM_FAULT_OR(kind, injected, call) (tilemm_fault_hit (kind) ? (injected) : (call))

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_FAULT_H */
