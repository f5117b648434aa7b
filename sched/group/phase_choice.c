/* SPDX-License-Identifier: MIT */
/* phase_choice.c - the choice between a phase kernel's row runners
 * (<fiberpar/phase.h>).  The fused one folds the calls' stops into its
 * item loops, the split one after each row.  The fold is a reduction,
 * and with it GCC leaves about half of the item loops it would otherwise
 * vectorize scalar; vectorized, some phases run twice as fast, others
 * slower (a loop that runs both sides of every test on every work-item,
 * or the masks of a few active ones).  The scalar runner is the fused
 * one with no loop vectorized: where a vector loop gathers and scatters
 * for a few active work-items (nw's diagonals) it runs 15-20% faster
 * than either.  Nothing at compile time tells which, so each worker
 * measures.
 *
 * Runners meet two at a time, per phase (by the barrier it resumes
 * after): fused against split, then the winner (the holder) against the
 * scalar one.  The worker's groups of a kernel go in pairs, the holder
 * on one group and the challenger on the other, the order alternating
 * from pair to pair (holder, challenger; challenger, holder; ...) so
 * that neither always comes first after a launch starts.  In each pair,
 * each phase compares the two groups' time in it, and once the pairs
 * agree (fpar__choice_pair) the phase goes on to its next challenger, or
 * keeps its holder and runs untimed on the worker from then on: after 2
 * to 8 pairs per meeting, the first pair of the kernel not counted (its
 * caches are cold).  A pair's groups are alike in most kernels (the same
 * code on other data), and a majority of pairs keeps one group that a
 * page fault or a preemption slowed from deciding.  A phase's time
 * includes two reads of the clock, tens of nanoseconds in a virtual
 * machine: for the smallest phases the choice is a coin toss between
 * runners that differ by less.
 */
#include <stdlib.h>
#include <string.h>

#include "sched/group/phase_choice.h"

/* Pairs of groups a meeting of two runners takes at most, and how much
 * faster the challenger must be in a pair to count (in 32nds: 31/32,
 * 3%). */
#define FPAR__CHOICE_PAIRS 8
#define FPAR__CHOICE_MARGIN 31
#define FPAR__CHOICE_SCORE 4

/* Kernels a worker remembers, and the entries a lookup probes. */
#define FPAR__CHOICE_KERNELS 64
#define FPAR__CHOICE_PROBES 8

struct fpar__phase_choices {
  fpar__phase_choice kernel[FPAR__CHOICE_KERNELS];
  fpar__phase_choice *last; /* the entry found last */
};

/* Whether c is the entry of launch l's kernel.  All runners are the key:
 * a kernel unloaded with its library (dlclose) and another loaded at the
 * same addresses then share an entry whose chosen runners are the new
 * kernel's own. */
static int fpar__choice_is(const fpar__phase_choice *c,
                           const fpar__launch_spec *l) {
  return c->runner[0] == l->phase_rows && c->runner[1] == l->phase_split_rows &&
         c->runner[2] == l->phase_scalar_rows;
}

/* The kernel's entry: its own, else a free one near its hash, else the
 * one at its hash, started afresh. */
static fpar__phase_choice *fpar__choice_find(fpar__phase_choices *table,
                                             const fpar__launch_spec *l) {
  uint64_t h = (uint64_t)(uintptr_t)l->phase_rows * 0x9e3779b97f4a7c15u;
  unsigned at = (unsigned)(h >> 58), k;
  fpar__phase_choice *c;

  for (k = 0; k < FPAR__CHOICE_PROBES; k++) {
    c = &table->kernel[(at + k) % FPAR__CHOICE_KERNELS];
    if (fpar__choice_is(c, l))
      return c;
    if (c->runner[0] == NULL)
      break;
  }
  if (k == FPAR__CHOICE_PROBES)
    c = &table->kernel[at];
  memset(c, 0, sizeof *c);
  c->runner[0] = l->phase_rows;
  c->runner[1] = l->phase_split_rows;
  c->runner[2] = l->phase_scalar_rows;
  return c;
}

void fpar__phase_trial_begin(fpar__phase_choices **table,
                             const fpar__launch_spec *l, fpar__phase_trial *t) {
  fpar__phase_choice *c;
  uint32_t g;

  /* A kernel has a scalar runner only beside a split one. */
  t->choice = NULL;
  if (l->phase_split_rows == NULL)
    return;
  if (*table == NULL && (*table = calloc(1, sizeof **table)) == NULL)
    return;
  c = (*table)->last;
  if (c == NULL || !fpar__choice_is(c, l))
    c = (*table)->last = fpar__choice_find(*table, l);
  t->choice = c;
  /* Pairs alternate which runner goes first: holder, challenger;
   * challenger, holder. */
  g = c->groups++;
  t->challenger = (g ^ (g >> 1)) & 1;
  t->second = (int)(g & 1);
  t->timed = 0;
  memset(t->ns, 0, sizeof t->ns);
}

/* The pair's second group ran the phase in ns (challenger: on the
 * challenger): count the pair.  Returns 1 when the challenger wins the
 * meeting, -1 the holder, 0 while undecided: once one runner has won a
 * majority of FPAR__CHOICE_PAIRS pairs, or sooner when the score says so.
 * Each pair adds 1 to it when the challenger was faster (by
 * FPAR__CHOICE_MARGIN), 2 when it took less than 3/4 of the holder's
 * time, and takes 1 away otherwise, 2 when it took more than 4/3: two
 * pairs that agree by a quarter decide. */
static int fpar__choice_pair(fpar__phase_verdict *v, unsigned challenger,
                             uint64_t ns) {
  uint64_t challenger_ns = challenger ? ns : v->first_ns;
  uint64_t holder_ns = challenger ? v->first_ns : ns;
  int faster = challenger_ns * 32 < holder_ns * FPAR__CHOICE_MARGIN;

  v->first_ns = 0;
  v->pairs++;
  v->challenger_faster += faster;
  v->score += faster ? (challenger_ns * 4 < holder_ns * 3 ? 2 : 1)
                     : (challenger_ns * 3 > holder_ns * 4 ? -2 : -1);
  if (v->score >= FPAR__CHOICE_SCORE ||
      2 * v->challenger_faster > FPAR__CHOICE_PAIRS)
    return 1;
  if (v->score <= -FPAR__CHOICE_SCORE ||
      2 * (v->pairs - v->challenger_faster) >= FPAR__CHOICE_PAIRS)
    return -1;
  return 0;
}

/* Phase k's meeting ended: its winner holds, and meets the next runner
 * (from the next pair of groups on), or is the phase's choice. */
static void fpar__choice_met(fpar__phase_choice *c, unsigned k, int verdict) {
  fpar__phase_verdict *v = &c->phase[k];

  if (verdict > 0)
    v->holder = (unsigned char)(v->stage + 1);
  if (v->stage + 2u < FPAR__CHOICE_RUNNERS && c->runner[v->stage + 2] != NULL)
    *v = (fpar__phase_verdict){.holder = v->holder, .stage = v->stage + 1};
  else
    c->chosen[k] = c->runner[v->holder];
}

void fpar__phase_trial_end(fpar__phase_trial *t) {
  fpar__phase_choice *c = t->choice;
  unsigned k;

  /* The first pair of groups finds cold caches: it does not count. */
  if (c == NULL || !t->timed || c->groups <= 2)
    return;
  for (k = 0; k < FPAR__CHOICE_PHASES; k++) {
    fpar__phase_verdict *v = &c->phase[k];
    int verdict;

    if (t->ns[k] == 0 || c->chosen[k] != NULL)
      continue;
    if (!t->second) {
      v->first_ns = t->ns[k];
      continue;
    }
    if (v->first_ns == 0)
      continue;
    verdict = fpar__choice_pair(v, t->challenger, t->ns[k]);
    if (verdict != 0)
      fpar__choice_met(c, k, verdict);
  }
}

void fpar__phase_choices_free(fpar__phase_choices *table) {
  free(table);
}
