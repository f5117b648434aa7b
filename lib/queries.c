/* SPDX-License-Identifier: MIT */
/* queries.c - the id and range queries of <fiberpar.h> and
 * <fiberpar/scoped.h> as exported functions, for callers that cannot
 * inline them (other languages, pointers to them): the headers' own
 * definitions, compiled here once as external ones (see FPAR_QUERY). */
#define FPAR_BUILD_QUERIES
#include "fiberpar.h"
