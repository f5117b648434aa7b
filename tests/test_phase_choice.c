/* SPDX-License-Identifier: MIT */
/* test_phase_choice.c - the choice between a phase kernel's row runners
 * (sched/group/phase_choice.h), on its own, without workers: the times
 * each group's phases took are given, so every decision is known in
 * advance.  The order of the runners within pairs, a clear winner either
 * way, equal runners, a slowed group that must not decide alone, the
 * cold first pair, phases decided apart, the winner of fused against
 * split meeting the scalar runner, a launch with one runner, and more
 * kernels than the table holds. */
#include <stdint.h>
#include <stdlib.h>

#include "sched/group/phase_choice.h"
#include "testutil.h"

/* Three runners that are never called: the choice compares and returns
 * their addresses only. */
static unsigned fused_rows(const fpar_item *it, void *args, void *lm,
                           void *states, unsigned *stops, unsigned resume,
                           int uniform, int by_value) {
  (void)it, (void)args, (void)lm, (void)states, (void)stops, (void)resume;
  (void)uniform, (void)by_value;
  return 0;
}

static unsigned split_rows(const fpar_item *it, void *args, void *lm,
                           void *states, unsigned *stops, unsigned resume,
                           int uniform, int by_value) {
  return fused_rows(it, args, lm, states, stops, resume, uniform, by_value);
}

static unsigned scalar_rows(const fpar_item *it, void *args, void *lm,
                            void *states, unsigned *stops, unsigned resume,
                            int uniform, int by_value) {
  return split_rows(it, args, lm, states, stops, resume, uniform, by_value);
}

static fpar__launch_spec launch_of3(fpar_phase_rows_fn fused,
                                    fpar_phase_rows_fn split,
                                    fpar_phase_rows_fn scalar) {
  fpar__launch_spec l;

  memset(&l, 0, sizeof l);
  l.phase_rows = fused;
  l.phase_split_rows = split;
  l.phase_scalar_rows = scalar;
  return l;
}

static fpar__launch_spec launch_of(fpar_phase_rows_fn fused,
                                   fpar_phase_rows_fn split) {
  return launch_of3(fused, split, NULL);
}

/* Run one group whose phase `resume` takes ns[0] on the fused runner,
 * ns[1] on the split one and ns[2] on the scalar one (when on trial):
 * *ran receives the runner the phase ran on.  Returns whether the phase
 * was on trial. */
static int group3(fpar__phase_choices **table, const fpar__launch_spec *l,
                  unsigned resume, const uint64_t ns[3],
                  fpar_phase_rows_fn *ran) {
  fpar__phase_trial t;
  int timed;

  fpar__phase_trial_begin(table, l, &t);
  *ran = fpar__phase_trial_rows(&t, l, resume);
  timed = *ran == NULL;
  if (timed) {
    *ran = fpar__phase_trial_tried(&t, resume);
    ck_assert(*ran != NULL);
    ck_assert(*ran == l->phase_rows || *ran == l->phase_split_rows ||
              *ran == l->phase_scalar_rows);
    fpar__phase_trial_took(&t, resume,
                           *ran == l->phase_rows         ? ns[0]
                           : *ran == l->phase_split_rows ? ns[1]
                                                         : ns[2]);
  }
  fpar__phase_trial_end(&t);
  return timed;
}

/* group3 for a kernel of two runners. */
static int group(fpar__phase_choices **table, const fpar__launch_spec *l,
                 unsigned resume, uint64_t fused_ns, uint64_t split_ns,
                 fpar_phase_rows_fn *ran) {
  const uint64_t ns[3] = {fused_ns, split_ns, 0};

  return group3(table, l, resume, ns, ran);
}

/* Run groups until one runs the phase untimed, at most `most` groups;
 * returns how many were timed, *chosen the runner kept. */
static int groups_to_decide3(fpar__phase_choices **table,
                             const fpar__launch_spec *l, unsigned resume,
                             const uint64_t ns[3], int most,
                             fpar_phase_rows_fn *chosen) {
  int g = 0;

  while (g < most && group3(table, l, resume, ns, chosen))
    g++;
  return g;
}

static int groups_to_decide(fpar__phase_choices **table,
                            const fpar__launch_spec *l, unsigned resume,
                            uint64_t fused_ns, uint64_t split_ns, int most,
                            fpar_phase_rows_fn *chosen) {
  const uint64_t ns[3] = {fused_ns, split_ns, 0};

  return groups_to_decide3(table, l, resume, ns, most, chosen);
}

START_TEST(test_pairs_alternate) {
  fpar__phase_choices *table = NULL;
  fpar__launch_spec l = launch_of(fused_rows, split_rows);
  /* fused, split; split, fused; fused, split; ... */
  static const int split_at[] = {0, 1, 1, 0, 0, 1, 1, 0};

  /* Equal times decide nothing in four pairs (three counted). */
  for (int g = 0; g < 8; g++) {
    fpar_phase_rows_fn ran;

    ck_assert(group(&table, &l, 0, 1000, 1000, &ran));
    ck_assert_msg(ran == (split_at[g] ? split_rows : fused_rows),
                  "group %d ran the wrong runner", g);
  }
  fpar__phase_choices_free(table);
}
END_TEST

START_TEST(test_clear_winner) {
  for (int split_wins = 0; split_wins < 2; split_wins++) {
    fpar__phase_choices *table = NULL;
    fpar__launch_spec l = launch_of(fused_rows, split_rows);
    fpar_phase_rows_fn chosen;
    int g = groups_to_decide(&table, &l, 3, split_wins ? 2000 : 1000,
                             split_wins ? 1000 : 2000, 100, &chosen);

    /* The cold first pair, then two pairs that agree by far. */
    ck_assert_int_eq(g, 6);
    ck_assert(chosen == (split_wins ? split_rows : fused_rows));
    /* Decided: untimed from then on, whatever the times. */
    for (int k = 0; k < 20; k++) {
      fpar_phase_rows_fn ran;

      ck_assert(!group(&table, &l, 3, 1, 1000000, &ran));
      ck_assert(ran == chosen);
    }
    fpar__phase_choices_free(table);
  }
}
END_TEST

/* Runners within 3% of each other: the fused one, once it has won half
 * of the eight pairs (the first pair not counted). */
START_TEST(test_equal_runners_keep_fused) {
  fpar__phase_choices *table = NULL;
  fpar__launch_spec l = launch_of(fused_rows, split_rows);
  fpar_phase_rows_fn chosen;
  int g = groups_to_decide(&table, &l, 0, 1000, 990, 100, &chosen);

  ck_assert_int_eq(g, 2 + 2 * 4);
  ck_assert(chosen == fused_rows);
  fpar__phase_choices_free(table);
}
END_TEST

/* A pair in which the fused group was slowed tenfold (a preemption)
 * counts once; the pairs after it still choose the faster fused runner. */
START_TEST(test_one_slowed_group) {
  fpar__phase_choices *table = NULL;
  fpar__launch_spec l = launch_of(fused_rows, split_rows);
  fpar_phase_rows_fn chosen;

  /* The cold pair; then split first, and a fused group slowed tenfold. */
  for (int g = 0; g < 4; g++)
    ck_assert(group(&table, &l, 0, g < 2 ? 1000 : 10000, 1200, &chosen));
  /* Split 20% slower in each pair after: four more pairs decide. */
  ck_assert_int_eq(groups_to_decide(&table, &l, 0, 1000, 1200, 100, &chosen),
                   2 * 4);
  ck_assert(chosen == fused_rows);
  fpar__phase_choices_free(table);
}
END_TEST

/* Each phase (by the barrier it resumes after) is decided on its own;
 * resumes from 8 on share one verdict. */
START_TEST(test_phases_apart) {
  fpar__phase_choices *table = NULL;
  fpar__launch_spec l = launch_of(fused_rows, split_rows);

  for (int g = 0; g < 12; g++) {
    fpar__phase_trial t;
    unsigned resume;

    fpar__phase_trial_begin(&table, &l, &t);
    for (resume = 0; resume < 12; resume++) {
      int split_faster = resume % 2 == 0 || resume >= 8;

      if (fpar__phase_trial_rows(&t, &l, resume) == NULL)
        fpar__phase_trial_took(
            &t, resume,
            (fpar__phase_trial_tried(&t, resume) == split_rows) == split_faster
                ? 100
                : 300);
    }
    fpar__phase_trial_end(&t);
  }
  for (unsigned resume = 0; resume < 12; resume++) {
    fpar__phase_trial t;
    fpar_phase_rows_fn want =
        resume % 2 == 0 || resume >= 8 ? split_rows : fused_rows;

    fpar__phase_trial_begin(&table, &l, &t);
    ck_assert_msg(fpar__phase_trial_rows(&t, &l, resume) == want,
                  "phase %u chose the wrong runner", resume);
    fpar__phase_trial_end(&t);
  }
  fpar__phase_choices_free(table);
}
END_TEST

/* With a scalar runner, the winner of fused against split meets it:
 * each meeting decided as two runners alone are (the first after the
 * cold pair and two pairs that agree by far, the second after two
 * more), the pairs of the second alternating between the holder and the
 * scalar runner, and the fastest of the three kept, whichever it is. */
START_TEST(test_scalar_meets_winner) {
  static const struct {
    uint64_t ns[3]; /* fused, split, scalar */
    int winner;     /* of fused and split: 0, 1 */
    int chosen;     /* of the three */
  } cases[] = {
      {{2000, 1000, 500}, 1, 2},
      {{1000, 2000, 500}, 0, 2},
      {{2000, 1000, 3000}, 1, 1},
      {{1000, 2000, 3000}, 0, 0},
  };
  /* holder, challenger; challenger, holder; ... */
  static const int challenger_at[] = {0, 1, 1, 0};
  const fpar_phase_rows_fn runner[3] = {fused_rows, split_rows, scalar_rows};

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fpar__phase_choices *table = NULL;
    fpar__launch_spec l = launch_of3(fused_rows, split_rows, scalar_rows);
    fpar_phase_rows_fn ran;
    int g;

    for (g = 0; group3(&table, &l, 2, cases[i].ns, &ran); g++) {
      int second = g >= 6;
      fpar_phase_rows_fn holder = runner[second ? cases[i].winner : 0];
      fpar_phase_rows_fn challenger = runner[second ? 2 : 1];

      ck_assert_msg(g < 10, "case %zu: still on trial after 10 groups", i);
      ck_assert_msg(ran == (challenger_at[g % 4] ? challenger : holder),
                    "case %zu: group %d ran the wrong runner", i, g);
    }
    ck_assert_int_eq(g, 10);
    ck_assert_msg(ran == runner[cases[i].chosen], "case %zu kept the wrong one",
                  i);
    fpar__phase_choices_free(table);
  }
}
END_TEST

/* A launch with one runner (a lane kernel, a pinned form): no trial, no
 * table. */
START_TEST(test_one_runner) {
  fpar__phase_choices *table = NULL;
  fpar__launch_spec l = launch_of(fused_rows, NULL);
  fpar__phase_trial t;

  for (int g = 0; g < 4; g++) {
    fpar__phase_trial_begin(&table, &l, &t);
    ck_assert(fpar__phase_trial_rows(&t, &l, 0) == fused_rows);
    fpar__phase_trial_end(&t);
  }
  ck_assert_ptr_null(table);
}
END_TEST

/* More kernels than the table holds, and kernels that share a fused
 * runner's address, or the fused and the split one's, but not all three:
 * every phase runs one of its own kernel's runners, never another's; an
 * evicted kernel starts over. */
START_TEST(test_many_kernels) {
  enum { kernels = 200 };
  static unsigned char code[3 * kernels][16];
  static const uint64_t ns[3] = {30, 10, 20};
  fpar__phase_choices *table = NULL;

  for (int round = 0; round < 3; round++)
    for (int k = 0; k < kernels; k++) {
      /* Addresses of distinct objects stand for distinct runners; an odd
       * kernel k shares kernel k - 1's fused address, and when k % 4 is 3
       * its split one too, and has a scalar runner. */
      int f = k % 2 == 1 ? k - 1 : k, sp = k % 4 == 3 ? k - 1 : k;
      fpar__launch_spec l = launch_of3(
          (fpar_phase_rows_fn)(uintptr_t)code[f],
          (fpar_phase_rows_fn)(uintptr_t)code[kernels + sp],
          k % 4 == 3 ? (fpar_phase_rows_fn)(uintptr_t)code[2 * kernels + k]
                     : NULL);

      for (int g = 0; g < 12; g++) {
        fpar_phase_rows_fn rows;

        group3(&table, &l, 0, ns, &rows);
        ck_assert_msg(rows == l.phase_rows || rows == l.phase_split_rows ||
                          (rows != NULL && rows == l.phase_scalar_rows),
                      "kernel %d ran another kernel's runner", k);
      }
    }
  fpar__phase_choices_free(table);
}
END_TEST

static Suite *choice_suite(void) {
  Suite *s = suite_create("phase_choice");
  TCase *tc = fpar_test_case("choice");

  tcase_add_test(tc, test_pairs_alternate);
  tcase_add_test(tc, test_clear_winner);
  tcase_add_test(tc, test_equal_runners_keep_fused);
  tcase_add_test(tc, test_one_slowed_group);
  tcase_add_test(tc, test_phases_apart);
  tcase_add_test(tc, test_scalar_meets_winner);
  tcase_add_test(tc, test_one_runner);
  tcase_add_test(tc, test_many_kernels);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(choice_suite());
}
