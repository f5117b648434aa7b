/* SPDX-License-Identifier: MIT */
/* sized.c - copying public structs that can grow (see sized.h). */
#include <string.h>

#include "fiberpar.h"
#include "lib/sized.h"
#include "sched/base/error.h"

int fpar__copy_sized(void *dst, size_t dst_size, const void *src,
                     const char *what) {
  size_t size;
  const unsigned char *extra;

  memcpy(&size, src, sizeof size);
  if (size < sizeof size)
    return fpar__set_error(FPAR_EINVAL,
                           "%s.size is %zu: initialise it with its _init "
                           "function",
                           what, size);
  memset(dst, 0, dst_size);
  memcpy(dst, src, size < dst_size ? size : dst_size);
  for (extra = (const unsigned char *)src + dst_size;
       size > dst_size && extra < (const unsigned char *)src + size; extra++)
    if (*extra != 0)
      return fpar__set_error(FPAR_EINVAL,
                             "%s sets members this version of libfiberpar "
                             "(%s) does not know: the program was built "
                             "against a newer <fiberpar.h>",
                             what, FPAR_VERSION_STRING);
  return 0;
}
