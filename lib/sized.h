/* SPDX-License-Identifier: MIT */
/* sized.h - public structs that can grow: their first member is the size
 * the caller's header gave them (set by their _init function), so a
 * program built against an older header keeps working with a newer
 * library. */
#ifndef FPAR_LIB_SIZED_H
#define FPAR_LIB_SIZED_H

#include <stddef.h>

/* Copy the caller's struct src, whose first member is its size, into dst,
 * which holds our dst_size bytes: members the caller's header lacks read
 * as 0, their default.  Returns 0, or FPAR_EINVAL (fpar_last_error names
 * `what`) when the size is 0 (the struct was not initialised with its
 * _init function) or when the caller's struct is bigger than ours and
 * sets members this library does not know. */
int fpar__copy_sized(void *dst, size_t dst_size, const void *src,
                     const char *what);

#endif
