/* SPDX-License-Identifier: MIT */
/** \file
 * fiberpar/uv.h - wake a libuv event loop when a launch completes.
 *
 * Include after (or instead of) <fiberpar.h> in code that runs a uv_loop_t.
 * It includes <uv.h>, which needs the POSIX types (pthread_rwlock_t...):
 * in strict ISO C (-std=c11) define _POSIX_C_SOURCE=200809L (or
 * _GNU_SOURCE) before any system header, as every user of libuv does (g++
 * and -std=gnu11 define them already).
 */
#ifndef FIBERPAR_UV_H
#define FIBERPAR_UV_H

#include <fiberpar.h>
#include <uv.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Call uv_async_send(async) once, when the launch behind \p ev
 *        completes (at once if it already has).
 *
 * The async handle's callback then runs on its loop's thread, where
 * fpar_event_result() and fpar_event_error() tell the outcome.  The handle
 * must stay open until its callback has run.  uv_async_send() coalesces, so
 * one handle may serve many events.
 * \param ev the event.
 * \param async an initialised uv_async_t.
 * \return 0, FPAR_EINVAL, or FPAR_EBUSY if the event already notifies a
 *         handle.
 */
FPAR_EXTERN int fpar_event_notify(fpar_event *ev, uv_async_t *async);

#ifdef __cplusplus
}
#endif
#endif
