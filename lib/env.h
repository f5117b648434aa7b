/* env.h - reading FIBERPAR_* environment variables. */
#ifndef FPAR_LIB_ENV_H
#define FPAR_LIB_ENV_H

#include <stddef.h>

#include "fiberpar.h"

/* Each reader leaves *out untouched when the variable is unset or empty,
 * and returns 0, or FPAR_EENV (with fpar_last_error naming the variable
 * and value) when the value is malformed or outside [min, max]. */
int fpar__env_size(const char *name, size_t min, size_t max, size_t *out);
int fpar__env_unsigned(const char *name, unsigned min, unsigned max,
                       unsigned *out);
int fpar__env_pin(const char *name, fpar_pin *out);
int fpar__env_fpenv(const char *name, fpar_fpenv *out);
int fpar__env_phase(const char *name, fpar_phase_mode *out);

#endif
