/* SPDX-License-Identifier: MIT */
/* error.h - recording the detail of a failed call for fpar_last_error().
 *
 * The base of the library: the API layer (lib/), the engine (sched/) and
 * the vector math (simd/) all report errors through it, and it uses
 * nothing but the code table of <fiberpar.h>. */
#ifndef FPAR_SCHED_BASE_ERROR_H
#define FPAR_SCHED_BASE_ERROR_H

/* Store a detailed message for the calling thread and return code, so that
 * callers can write `return fpar__set_error(FPAR_EINVAL, "...", ...);`. */
int fpar__set_error(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
