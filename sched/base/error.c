/* SPDX-License-Identifier: MIT */
/* error.c - error codes, their names and texts, and the per-thread detail
 * of the last failure.  Everything comes from FPAR_ERRNO_MAP. */
#include <stdarg.h>
#include <stdio.h>

#include "fiberpar.h"
#include "sched/base/error.h"

static __thread char fpar__last_error[512];

const char *fpar_strerror(int err) {
  switch (err) {
  case 0:
    return "success";
#define FPAR__STRERROR_CASE(name, value, msg)                                  \
  case FPAR_##name:                                                            \
    return msg;
    FPAR_ERRNO_MAP(FPAR__STRERROR_CASE)
#undef FPAR__STRERROR_CASE
  default:
    return "unknown error";
  }
}

const char *fpar_err_name(int err) {
  switch (err) {
  case 0:
    return "0";
#define FPAR__ERR_NAME_CASE(name, value, msg)                                  \
  case FPAR_##name:                                                            \
    return "FPAR_" #name;
    FPAR_ERRNO_MAP(FPAR__ERR_NAME_CASE)
#undef FPAR__ERR_NAME_CASE
  default:
    return "FPAR_EUNKNOWN";
  }
}

const char *fpar_last_error(void) {
  return fpar__last_error;
}

int fpar__set_error(int code, const char *fmt, ...) {
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(fpar__last_error, sizeof fpar__last_error, fmt, ap);
  va_end(ap);
  return code;
}
