/* exchange.h — the hand-off between the workers of one product that share an operand
 * (exchange_plan.h): each worker publishes its share once it is on its way to its device (what a
 * peer copies it from: the backend's handle), the others wait for it.  One object per product,
 * owned by the run that starts the workers (exec/workers.c, on the caller's stack), so nothing
 * outlives the product.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * A share whose owner never runs (its thread could not be made) is marked absent: the others
 * read it from the host themselves.  Once the product stops (a failure, the host's stop), every
 * wait returns at once, so no worker waits for a share that will never come.
 */
#ifndef TILEMM_EXCHANGE_H
#define TILEMM_EXCHANGE_H

#include <pthread.h>

#include "devices.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  TILEMM_SHARE_PUBLISHED = 1,  /* on its way: copy it from its owner (the handle)            */
  TILEMM_SHARE_ABSENT,         /* its owner does not run: read it from the host              */
  TILEMM_SHARE_STOPPED         /* the product is stopping: wait for nothing more             */
} tilemm_share_state;

typedef struct tilemm_exchange_s {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  int shares;
  int state[TILEMM_MAX_WORKERS];           /* 0 (not yet) or a tilemm_share_state         */
  const void *handle[TILEMM_MAX_WORKERS];  /* the backend's, of a published share         */
  int stopped;
} tilemm_exchange;

/* 0, or -1 where the lock or the condition cannot be made. */
int tilemm_exchange_init (tilemm_exchange *x, int shares);
void tilemm_exchange_destroy (tilemm_exchange *x);
/* Share `owner` is on its way (handle: where and when a peer may copy it). */
void tilemm_exchange_publish (tilemm_exchange *x, int owner, const void *handle);
/* Share `owner` will not be published: its owner does not run. */
void tilemm_exchange_absent (tilemm_exchange *x, int owner);
/* The product is stopping: every wait, now and later, returns TILEMM_SHARE_STOPPED. */
void tilemm_exchange_stop (tilemm_exchange *x);
/* Waits until share `owner` is published (*handle its handle), absent, or the product stops. */
tilemm_share_state tilemm_exchange_await (tilemm_exchange *x, int owner, const void **handle);
/* The same without waiting: 0 where share `owner` is not yet published nor absent and the
 * product goes on (a worker's pipeline asks between its steps, and meanwhile runs what needs
 * only the shares it has). */
int tilemm_exchange_poll (tilemm_exchange *x, int owner, const void **handle);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_EXCHANGE_H */
