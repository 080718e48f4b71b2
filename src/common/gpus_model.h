/* gpus_model.h — what a product costs on g GPUs, priced stage by stage, and how many GPUs pay.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * A product on g GPUs is cut in strips along its longer side (plan.c, strips): each GPU gets its
 * strip of the cut operand, all of the other one (the shared operand: its own share from the
 * host and the others' from its peers where every pair reaches, exchange_plan.h; all of it from
 * the host where not), and sends its strip of C back.  Its pipeline overlaps four stages, so the
 * slowest one sets its pace:
 *   kernels  its flops at the kernels' rate;
 *   bus      its host bytes (its strip, what it reads of the shared operand, its part of C) over
 *            its own link, at the rate the links keep while every GPU copies;
 *   host     every GPU's host bytes together through the host's copies: the copy teams share
 *            the host's threads (each a g-th of them) and its memory, so g teams copy at most as
 *            fast as the copy curve's best, and each no faster than its team's size gives;
 *   peers    the shares it copies from the other GPUs at the peer rate (a fact where measured,
 *            else a conservative built-in: PCIe peer copies, not NVLink).
 * A batch of pages (pages > 1) is split by pages: each GPU its pages of both operands, nothing
 * shared, nothing exchanged.
 *
 * What g GPUs take is one GPU's time times a ratio (tilemm_model_gpus_s).  Where the facts
 * measured every GPU's call against one's on square double products (gpu_all_one and
 * gpu_all_every, a ratio by size), that ratio is read at the product's flops inside the
 * measured sizes; what the measurement took beyond the stages' ratio (the excess: pipelines
 * filling and draining, the teams' starts, the result's pages faulted) grows with the bytes
 * moved, so past the largest measured size the ratio tends to the stages' (each stage the
 * call's fixed cost plus its slowest stage, the kernels at their rate with the GPU filled).  The
 * stages also carry the measurement to other shapes, types and fewer GPUs.  Where the facts
 * measured no call on every GPU, one GPU's time (the model claims no gain it has not seen).
 * Pure.
 */
#ifndef TILEMM_GPUS_MODEL_H
#define TILEMM_GPUS_MODEL_H

#include "machine_facts.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The peer rate where the facts measured none, bytes/s: a PCIe peer copy's, well under NVLink's,
 * so that the model never takes GPUs for a link it has not seen. */
#define TILEMM_MODEL_PEER_BYTES_PER_S 2.0e10

/* A product as the backends run it, and what its GPUs can do. */
typedef struct {
  tilemm_type type;
  double m, n, k;
  int peers;          /* every pair of the GPUs reaches the other (the exchange's peer path)   */
  int host_threads;   /* the host's threads the copy teams share (0: the facts')               */
  double pages;       /* a batch of pages of m×k by k×n split by pages (0 or 1: one product)   */
} tilemm_gpus_product;

/* The product's price on g GPUs: each GPU's stages (seconds) and bytes, and its time. */
typedef struct {
  int gpus;
  double kernel_s, bus_s, host_s, peer_s;  /* one GPU's stages; host_s: every GPU's together  */
  double host_bytes;                       /* one GPU's bytes over its link, both ways         */
  double peer_bytes;                       /* one GPU's bytes from its peers                   */
  double pace_s;                           /* the slowest stage                                */
  double seconds;                          /* the call on g GPUs                               */
} tilemm_gpus_price;

void tilemm_model_gpus_price (const tilemm_machine_facts *facts, const tilemm_gpus_product *p,
                              int gpus, tilemm_gpus_price *price);

/* Seconds p, which takes one_s on one GPU (its call, or its batch), takes on `gpus` GPUs. */
double tilemm_model_gpus_s (const tilemm_machine_facts *facts, const tilemm_gpus_product *p,
                            double one_s, int gpus);

/* How many of `most` GPUs (1 to most) p, which takes one_s on one GPU, is fastest on: g only
 * where g beats every fewer count, one where none beats it; among counts past one that price
 * alike (the host's copies, shared by all, set each one's pace) the one whose GPUs each have
 * least of their own to do (kernels, bus, peers); *seconds its time there (may be NULL).  The
 * one rule for a call's GPUs, "auto"'s GPU way and a batch's GPUs. */
int tilemm_model_gpus_that_pay (const tilemm_machine_facts *facts, const tilemm_gpus_product *p,
                                double one_s, int most, double *seconds);

/* The same for a product, one_s its call on one GPU (tilemm_model_gpu_call_s). */
int tilemm_model_product_gpus_that_pay (const tilemm_machine_facts *facts,
                                        const tilemm_gpus_product *p, int most, double *seconds);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_GPUS_MODEL_H */
