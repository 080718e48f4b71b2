/* exchange.c — the hand-off of shared operands between a product's workers (see exchange.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <string.h>

#include "exchange.h"

int tilemm_exchange_init (tilemm_exchange *x, int shares)
{
  memset (x, 0, sizeof *x);
  x->shares = shares < 0 ? 0 : shares > TILEMM_MAX_WORKERS ? TILEMM_MAX_WORKERS : shares;
  if (pthread_mutex_init (&x->lock, NULL) != 0)
    return -1;
  if (pthread_cond_init (&x->changed, NULL) != 0)
    {
      pthread_mutex_destroy (&x->lock);
      return -1;
    }
  return 0;
}

void tilemm_exchange_destroy (tilemm_exchange *x)
{
  pthread_cond_destroy (&x->changed);
  pthread_mutex_destroy (&x->lock);
}

static void set_state (tilemm_exchange *x, int owner, int state, const void *handle)
{
  if (owner < 0 || owner >= x->shares)
    return;
  pthread_mutex_lock (&x->lock);
  if (!x->state[owner])
    {
      x->state[owner] = state;
      x->handle[owner] = handle;
    }
  pthread_cond_broadcast (&x->changed);
  pthread_mutex_unlock (&x->lock);
}

void tilemm_exchange_publish (tilemm_exchange *x, int owner, const void *handle)
{
  set_state (x, owner, TILEMM_SHARE_PUBLISHED, handle);
}

void tilemm_exchange_absent (tilemm_exchange *x, int owner)
{
  set_state (x, owner, TILEMM_SHARE_ABSENT, NULL);
}

void tilemm_exchange_stop (tilemm_exchange *x)
{
  pthread_mutex_lock (&x->lock);
  x->stopped = 1;
  pthread_cond_broadcast (&x->changed);
  pthread_mutex_unlock (&x->lock);
}

tilemm_share_state tilemm_exchange_await (tilemm_exchange *x, int owner, const void **handle)
{
  *handle = NULL;
  if (owner < 0 || owner >= x->shares)
    return TILEMM_SHARE_ABSENT;
  pthread_mutex_lock (&x->lock);
  while (!x->stopped && !x->state[owner])
    pthread_cond_wait (&x->changed, &x->lock);
  const tilemm_share_state state = x->stopped ? TILEMM_SHARE_STOPPED
                                              : (tilemm_share_state) x->state[owner];
  *handle = x->handle[owner];
  pthread_mutex_unlock (&x->lock);
  return state;
}

int tilemm_exchange_poll (tilemm_exchange *x, int owner, const void **handle)
{
  *handle = NULL;
  if (owner < 0 || owner >= x->shares)
    return TILEMM_SHARE_ABSENT;
  pthread_mutex_lock (&x->lock);
  const int state = x->stopped ? TILEMM_SHARE_STOPPED : x->state[owner];
  *handle = x->handle[owner];
  pthread_mutex_unlock (&x->lock);
  return state;
}
