/* SPDX-License-Identifier: MIT */
/* test_group_claim.c - the chunk words that say which work-groups of the
 * active launch are taken (sched/base/group_claim.h), on their own,
 * without workers: every group taken exactly once, launches told apart by
 * the number in each word, late takers turned away, the words restamped,
 * numbers that wrap at 2^32, chunks of 2^32 groups and more, and two
 * threads taking at once. */
#include <pthread.h>
#include <stdint.h>

#include "sched/base/group_claim.h"
#include "testutil.h"

/* Take from chunk k of n of launch seq of `groups` groups (see
 * fpar__claim_take). */
static size_t take(fpar__claim *c, unsigned n, unsigned k, uint64_t seq,
                   size_t groups, size_t most, size_t *first) {
  fpar__claim_launch cl;

  fpar__claim_launch_init(&cl, seq, groups, n);
  return fpar__claim_take(c, &cl, k, most, first);
}

/* Take everything left of launch seq from chunk k, marking each group in
 * seen (which must not be marked yet); returns how many groups. */
static size_t take_all(fpar__claim *c, unsigned n, unsigned k, uint64_t seq,
                       size_t groups, size_t most, unsigned char *seen) {
  size_t got, first, total = 0, g;

  while ((got = take(c, n, k, seq, groups, most, &first)) != 0) {
    ck_assert_uint_le(first + got, groups);
    for (g = first; g < first + got; g++) {
      ck_assert_msg(!seen[g], "group %zu taken twice", g);
      seen[g] = 1;
    }
    total += got;
  }
  return total;
}

/* Launches of several sizes on 3 chunks: the chunks cover the groups
 * exactly once, in contiguous pieces that differ by at most one group. */
START_TEST(test_every_group_once) {
  static const size_t sizes[] = {0, 1, 2, 3, 7, 100, 1001};
  fpar__claim *c = fpar__claims_create(3);
  uint64_t seq = 1;

  ck_assert_ptr_nonnull(c);
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++, seq++) {
    size_t groups = sizes[i], lens[3], total = 0;
    unsigned char *seen = calloc(groups + 1, 1);
    for (unsigned k = 0; k < 3; k++)
      total += lens[k] = take_all(c, 3, k, seq, groups, 4, seen);
    ck_assert_uint_eq(total, groups);
    ck_assert_uint_le(lens[0] - lens[2], 1);
    for (size_t g = 0; g < groups; g++)
      ck_assert_msg(seen[g], "group %zu of %zu never taken", g, groups);
    free(seen);
  }
  fpar__claims_destroy(c);
}
END_TEST

/* A short chunk goes one group at a time; a long one in shares of what is
 * left, never more than `most`. */
START_TEST(test_shares) {
  fpar__claim *c = fpar__claims_create(1);
  size_t first, got;

  ck_assert_uint_eq(take(c, 1, 0, 1, 15, 4, &first), 1);
  ck_assert_uint_eq(first, 0);
  ck_assert_uint_eq(take(c, 1, 0, 2, 1000, 4, &first), 4);
  ck_assert_uint_eq(first, 0);
  got = take(c, 1, 0, 3, 1000, SIZE_MAX, &first);
  ck_assert_uint_eq(got, 1000 / 8);
  ck_assert_uint_eq(take(c, 1, 0, 3, 1000, SIZE_MAX, &first), (1000 - got) / 8);
  ck_assert_uint_eq(first, got);
  fpar__claims_destroy(c);
}
END_TEST

/* A word that names an earlier launch counts nothing taken for the next
 * one: each launch starts at the chunk's front with nothing reset. */
START_TEST(test_next_launch_starts_afresh) {
  fpar__claim *c = fpar__claims_create(2);
  size_t first;

  ck_assert_uint_eq(take(c, 2, 1, 1, 10, 1, &first), 1);
  ck_assert_uint_eq(first, 5);
  ck_assert_uint_eq(take(c, 2, 1, 2, 10, 1, &first), 1);
  ck_assert_uint_eq(first, 5);
  ck_assert_uint_eq(take(c, 2, 1, 2, 10, 1, &first), 1);
  ck_assert_uint_eq(first, 6);
  fpar__claims_destroy(c);
}
END_TEST

/* A taker that still looks at launch 1 once launch 2 has taken from the
 * chunk gets nothing, and does not disturb launch 2's count. */
START_TEST(test_late_taker_turned_away) {
  fpar__claim *c = fpar__claims_create(1);
  size_t first;

  ck_assert_uint_eq(take(c, 1, 0, 2, 10, 1, &first), 1);
  ck_assert_uint_eq(take(c, 1, 0, 1, 10, 1, &first), 0);
  ck_assert_uint_eq(take(c, 1, 0, 2, 10, 1, &first), 1);
  ck_assert_uint_eq(first, 1);
  fpar__claims_destroy(c);
}
END_TEST

/* A restamp marks the completed launch's chunks taken: its late takers get
 * nothing, and the next launch starts at the front. */
START_TEST(test_restamp) {
  fpar__claim *c = fpar__claims_create(2);
  size_t first;

  ck_assert_uint_eq(take(c, 2, 0, 7, 4, 1, &first), 1);
  fpar__claims_restamp(c, 2, 7);
  ck_assert_uint_eq(take(c, 2, 0, 7, 4, 1, &first), 0);
  ck_assert_uint_eq(take(c, 2, 1, 7, 4, 1, &first), 0);
  ck_assert_uint_eq(take(c, 2, 1, 5, 4, 1, &first), 0);
  ck_assert_uint_eq(take(c, 2, 1, 8, 4, 1, &first), 1);
  ck_assert_uint_eq(first, 2);
  fpar__claims_destroy(c);
}
END_TEST

/* Launch numbers across 2^32: the word of launch 2^32 - 1 is earlier than
 * launch 2^32 (whose low half is 0), and later than launch 2^32 - 2.  The
 * word was restamped less than 2^20 launches before, as the scheduler
 * does. */
START_TEST(test_numbers_wrap) {
  fpar__claim *c = fpar__claims_create(1);
  uint64_t last = ((uint64_t)1 << 32) - 1;
  size_t first;

  fpar__claims_restamp(c, 1, last - 5);
  ck_assert_uint_eq(take(c, 1, 0, last, 3, 1, &first), 1);
  ck_assert_uint_eq(take(c, 1, 0, last - 1, 3, 1, &first), 0);
  ck_assert_uint_eq(take(c, 1, 0, last + 1, 3, 1, &first), 1);
  ck_assert_uint_eq(first, 0);
  ck_assert_uint_eq(take(c, 1, 0, last, 3, 1, &first), 0);
  fpar__claims_destroy(c);
}
END_TEST

/* Chunks of 2^32 groups and more are taken in units of several groups:
 * the pieces still follow one another and cover each chunk exactly. */
START_TEST(test_huge_chunks) {
  fpar__claim *c = fpar__claims_create(2);
  size_t groups = 3 * ((size_t)1 << 32) + 5, first, got, start = 0;

  for (unsigned k = 0; k < 2; k++) {
    size_t len = groups / 2 + (k < groups % 2), end = start;
    unsigned takes = 0;
    while ((got = take(c, 2, k, 1, groups, SIZE_MAX, &first))) {
      ck_assert_uint_eq(first, end);
      end += got;
      ck_assert_uint_lt(++takes, 1000);
    }
    ck_assert_uint_eq(end - start, len);
    start = end;
  }
  ck_assert_uint_eq(start, groups);
  fpar__claims_destroy(c);
}
END_TEST

/* Two threads taking from both chunks of the same launches at once: every
 * group exactly once, launch after launch. */
#define RACE_GROUPS 5000
#define RACE_LAUNCHES 200

typedef struct race {
  fpar__claim *c;
  pthread_barrier_t start;
  unsigned char seen[2][RACE_GROUPS];
  size_t total[2];
} race;

typedef struct racer {
  race *r;
  unsigned home;
} racer;

static void *race_taker(void *arg) {
  racer *me = arg;
  race *r = me->r;

  for (uint64_t seq = 1; seq <= RACE_LAUNCHES; seq++) {
    size_t first, got;
    pthread_barrier_wait(&r->start);
    for (unsigned k = 0; k < 2; k++)
      while ((got = take(r->c, 2, (me->home + k) % 2, seq, RACE_GROUPS, 4,
                         &first)) != 0)
        for (size_t g = first; g < first + got; g++)
          r->seen[me->home][g]++;
    pthread_barrier_wait(&r->start);
    if (me->home == 0) {
      size_t n = 0;
      for (size_t g = 0; g < RACE_GROUPS; g++) {
        ck_assert_uint_eq(r->seen[0][g] + r->seen[1][g], 1);
        n += r->seen[1][g];
      }
      r->total[1] += n;
      memset(r->seen, 0, sizeof r->seen);
    }
    pthread_barrier_wait(&r->start);
  }
  return NULL;
}

START_TEST(test_two_takers) {
  race *r = calloc(1, sizeof *r);
  racer a = {r, 0}, b = {r, 1};
  pthread_t t;

  r->c = fpar__claims_create(2);
  pthread_barrier_init(&r->start, NULL, 2);
  ck_assert_int_eq(pthread_create(&t, NULL, race_taker, &b), 0);
  race_taker(&a);
  pthread_join(t, NULL);
  /* How the groups fell: on a busy machine one thread may take them all
   * while the other waits for a CPU, so this is only reported. */
  printf("two takers: the second took %zu of %zu groups\n", r->total[1],
         (size_t)RACE_GROUPS * RACE_LAUNCHES);
  pthread_barrier_destroy(&r->start);
  fpar__claims_destroy(r->c);
  free(r);
}
END_TEST

static Suite *claim_suite(void) {
  Suite *s = suite_create("claim");
  TCase *tc;

  tc = fpar_test_case("takes");
  tcase_add_test(tc, test_every_group_once);
  tcase_add_test(tc, test_shares);
  tcase_add_test(tc, test_huge_chunks);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("launches");
  tcase_add_test(tc, test_next_launch_starts_afresh);
  tcase_add_test(tc, test_late_taker_turned_away);
  tcase_add_test(tc, test_restamp);
  tcase_add_test(tc, test_numbers_wrap);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("threads");
  tcase_add_test(tc, test_two_takers);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(claim_suite());
}
