/* SPDX-License-Identifier: MIT */
/* subgroup_site.h - a pending sub-group operation (subgroup_site.c): its
 * state, the worker's FPAR__SLOT_SUBGROUP, and how the group's other
 * rendezvous see it: its site value, its name, and the divergence report
 * of a work-item that meets it at a barrier, a collective or the end of
 * the kernel.  Below the barrier and the group runner, which call it;
 * subgroup.c, which runs the operations, sits above them. */
#ifndef FPAR_SCHED_GROUP_SUBGROUP_SITE_H
#define FPAR_SCHED_GROUP_SUBGROUP_SITE_H

#include <stddef.h>
#include <stdint.h>

#include "fiberpar.h"
#include "sched/group/worker.h"

/* The members' values of an operation, and the result they share. */
typedef struct fpar__subgroup_values {
  uint64_t all;
  uint64_t in[FPAR_MAX_SUB_GROUP_SIZE];
} fpar__subgroup_values;

/* The operation the running sub-group meets at.  The value of member k
 * (its sub-group local id) is values->in[k]; the last arrival stores the
 * result of a reduction or a ballot in values->all; each member, when
 * resumed, reads its own result from there before it can arrive anywhere
 * else.  The next operation, which the first member may start before the
 * others have read, uses the other of v[0] and v[1]; the one after it
 * cannot start before every member has arrived at the next, so has read.
 *
 * `op` is the pending operation's key from its first member's arrival to
 * its last one's, and 0 otherwise (from the start of each group too): a
 * member on the fast path that finds its own key there knows that its
 * sub-group's first member waits at the same operation, and that the
 * fast path was permitted (an operation recorded where it was not carries
 * FPAR__SG_KEY_SLOW). */
typedef struct fpar__subgroup_run {
  const char *group_site;        /* fpar__group_run.site, put back at the end */
  uint64_t op;                   /* the pending operation's key, or 0 */
  fpar__subgroup_values *values; /* the pending operation's: v[parity] */
  unsigned parity;
  fpar__subgroup_values *v; /* v[0] and v[1], allocated at the worker's first
                               operation, so that idle workers do not hold it */
  /* The fast path's permit: the serial of the group (fpar__group_run
   * .serial) whose operations may take it, and the launch's sub-group
   * mask, copied when the group's first operation has found that they
   * may; or, where sub-groups are not all whole, the serial of the group
   * whose operations may take their steady state out of line. */
  size_t fast_group;
  size_t fast_mask;
  size_t ragged_group;
} fpar__subgroup_run;
_Static_assert(sizeof(fpar__subgroup_run) <= FPAR__SLOT_BYTES,
               "the sub-group state fits its slot");

/* The sub-group state of worker w. */
static inline fpar__subgroup_run *fpar__subgroup_of(fpar__worker *w) {
  return fpar__worker_slot(w, FPAR__SLOT_SUBGROUP);
}

/* The group's rendezvous value (fpar__group_run.site) while a sub-group
 * operation waits for members: a barrier or a return then compares
 * unequal and takes its slow path, which reports the divergence. */
extern const char fpar__site_subgroup[];
#define FPAR__SITE_SUBGROUP fpar__site_subgroup

/* The operations and types, in the order of their names. */
enum {
  FPAR__SG_SHUFFLE,
  FPAR__SG_XOR,
  FPAR__SG_UP,
  FPAR__SG_DOWN,
  FPAR__SG_BROADCAST,
  FPAR__SG_BALLOT,
  FPAR__SG_ADD,
  FPAR__SG_MIN,
  FPAR__SG_MAX
};
enum { FPAR__SG_FLOAT, FPAR__SG_DOUBLE, FPAR__SG_INT, FPAR__SG_UINT };

/* The name of the argument that must agree, for operations that have
 * one. */
static inline const char *fpar__sg_uniform_name(unsigned kind) {
  switch (kind) {
  case FPAR__SG_XOR:
    return "mask";
  case FPAR__SG_UP:
  case FPAR__SG_DOWN:
    return "delta";
  case FPAR__SG_BROADCAST:
    return "lane";
  default:
    return NULL;
  }
}

/* A bit of no operation's key, added to the key of an operation whose
 * first member found the fast path not permitted: every member then takes
 * the slow path. */
#define FPAR__SG_KEY_SLOW ((uint64_t)1 << 16)

/* A bit of every operation's key, so that none is 0 (no operation). */
#define FPAR__SG_KEY_SET ((uint64_t)1 << 17)

/* Operation `kind` on `type` with argument a, in one word that members
 * compare: the kind in bits 0-7, the type in 8-15, FPAR__SG_KEY_SET and,
 * for the operations with a uniform argument, the argument in 32-63.
 * Exact: the shuffles' mask and delta are 32-bit, and a broadcast's lane
 * is checked to be below the sub-group's size first. */
static inline uint64_t fpar__sg_op_key(unsigned kind, unsigned type,
                                       uint64_t a) {
  return kind | (uint64_t)type << 8 | FPAR__SG_KEY_SET |
         (fpar__sg_uniform_name(kind) != NULL ? a << 32 : 0);
}

/* The kind, type and uniform argument of an operation key. */
static inline unsigned fpar__sg_key_kind(uint64_t op) {
  return (unsigned)(op & 0xff);
}
static inline unsigned fpar__sg_key_type(uint64_t op) {
  return (unsigned)(op >> 8 & 0xff);
}
static inline uint64_t fpar__sg_key_uniform(uint64_t op) {
  return op >> 32;
}

/* "fpar_sub_group_KIND_TYPE" of an operation (FPAR__SG_*) and type. */
const char *fpar__subgroup_name(unsigned kind, unsigned type);

/* Work-item `item` did `what` ("returned from the kernel", "waits at the
 * barrier at x") while the members of its sub-group before it wait at a
 * sub-group operation: fail the group with FPAR_EDIVERGENCE. */
_Noreturn void fpar__subgroup_diverged(fpar__worker *w, size_t item,
                                       const char *what);

#endif
