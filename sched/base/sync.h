/* SPDX-License-Identifier: MIT */
/* sync.h - threads and synchronisation come from libuv; this is the one
 * internal header that includes it. */
#ifndef FPAR_SCHED_BASE_SYNC_H
#define FPAR_SCHED_BASE_SYNC_H

#include <uv.h>

#endif
