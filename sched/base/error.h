/* SPDX-License-Identifier: MIT */
/* error.h - recording the detail of a failed call for fpar_last_error().
 *
 * The base of the library: the API layer (lib/), the engine (sched/) and
 * the vector math (simd/) all report errors through it, and it uses
 * nothing but the code table of <fiberpar.h>. */
/* Room base of sched/ (docs/layout.md): errors, a runtime's knobs, the
 * clock and timed spins, the launch record and its pool, thread names, the
 * fork generation, libuv's sync.  The rooms, in the order they may include one
 * another: base, machine, fiber, group, diag, exec; a room includes its own
 * headers and those of the rooms before it, never one after it
 * (tests/test_layout.sh checks).  base includes no other room; machine, fiber,
 * group, diag, exec, lib/ and simd/ include it. */
#ifndef FPAR_SCHED_BASE_ERROR_H
#define FPAR_SCHED_BASE_ERROR_H

/* Store a detailed message for the calling thread and return code, so that
 * callers can write `return fpar__set_error(FPAR_EINVAL, "...", ...);`. */
int fpar__set_error(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
