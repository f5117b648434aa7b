/* env.c - FIBERPAR_* environment variables (see env.h). */
#include <errno.h>
#include <stdlib.h>
#include <strings.h>

#include "lib/env.h"
#include "lib/error.h"

/* Parse "123", "64K", "2M", "1G" (powers of 1024, case-insensitive). */
static int fpar__parse_size(const char *s, size_t *out) {
  unsigned long long v;
  char *end;
  unsigned shift = 0;

  errno = 0;
  v = strtoull(s, &end, 10);
  if (end == s || errno != 0 || *s == '-')
    return -1;
  switch (*end) {
  case 'k':
  case 'K':
    shift = 10;
    end++;
    break;
  case 'm':
  case 'M':
    shift = 20;
    end++;
    break;
  case 'g':
  case 'G':
    shift = 30;
    end++;
    break;
  default:
    break;
  }
  if (*end == 'i' || *end == 'I') /* accept KiB-style "Ki" and "KiB" */
    end++;
  if (*end == 'b' || *end == 'B')
    end++;
  if (*end != '\0' || (shift && v > (~0ull >> shift)))
    return -1;
  *out = (size_t)(v << shift);
  return 0;
}

int fpar__env_size(const char *name, size_t min, size_t max, size_t *out) {
  const char *s = getenv(name);
  size_t v;

  if (s == NULL || *s == '\0')
    return 0;
  if (fpar__parse_size(s, &v) != 0 || v < min || v > max)
    return fpar__set_error(FPAR_EENV,
                           "%s=\"%s\": expected a size from %zu to %zu bytes "
                           "(suffixes K, M, G allowed)",
                           name, s, min, max);
  *out = v;
  return 0;
}

int fpar__env_unsigned(const char *name, unsigned min, unsigned max,
                       unsigned *out) {
  const char *s = getenv(name);
  unsigned long v;
  char *end;

  if (s == NULL || *s == '\0')
    return 0;
  errno = 0;
  v = strtoul(s, &end, 10);
  if (end == s || *end != '\0' || errno != 0 || *s == '-' || v < min || v > max)
    return fpar__set_error(FPAR_EENV,
                           "%s=\"%s\": expected an integer from %u to %u", name,
                           s, min, max);
  *out = (unsigned)v;
  return 0;
}

/* One of a few keywords (case-insensitive), each with a value. */
static int fpar__env_keyword(const char *name, const char *const *words,
                             const int *values, unsigned n, int *out) {
  const char *s = getenv(name);
  unsigned k;

  if (s == NULL || *s == '\0')
    return 0;
  for (k = 0; k < n; k++)
    if (strcasecmp(s, words[k]) == 0) {
      *out = values[k];
      return 0;
    }
  return fpar__set_error(FPAR_EENV, "%s=\"%s\": expected %s%s%s%s%s", name, s,
                         words[0], n > 2 ? ", " : " or ", words[1],
                         n > 2 ? " or " : "", n > 2 ? words[2] : "");
}

int fpar__env_pin(const char *name, fpar_pin *out) {
  static const char *const words[] = {"core", "pu", "none"};
  static const int values[] = {FPAR_PIN_CORE, FPAR_PIN_PU, FPAR_PIN_NONE};
  int v = (int)*out, err = fpar__env_keyword(name, words, values, 3, &v);

  *out = (fpar_pin)v;
  return err;
}

int fpar__env_fpenv(const char *name, fpar_fpenv *out) {
  static const char *const words[] = {"item", "shared"};
  static const int values[] = {FPAR_FPENV_ITEM, FPAR_FPENV_SHARED};
  int v = (int)*out, err = fpar__env_keyword(name, words, values, 2, &v);

  *out = (fpar_fpenv)v;
  return err;
}

int fpar__env_phase(const char *name, fpar_phase_mode *out) {
  static const char *const words[] = {"loops", "fibers", "debug"};
  static const int values[] = {FPAR_PHASE_LOOPS, FPAR_PHASE_FIBERS,
                               FPAR_PHASE_DEBUG};
  int v = (int)*out, err = fpar__env_keyword(name, words, values, 3, &v);

  *out = (fpar_phase_mode)v;
  return err;
}
