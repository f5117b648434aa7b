/* SPDX-License-Identifier: MIT */
/* test_local.c - group-local memory: objects requested by kernels
 * (fpar_group_local_memory and its _for_overwrite variant) and launch-time
 * local buffers (fpar_launch_desc.local_buffers).
 *
 * Also built against the ucontext switch (tests/test_local_ucontext), so
 * the workloads stay small.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Launch d on the environment's queue and wait for it; a failed launch
 * fails the test with the launch's own message. */
static void run_desc(fpar_test_env *e, const fpar_launch_desc *d) {
  fpar_event *ev = NULL;
  const char *msg;
  int rc;

  ck_assert_fpar_ok(fpar_launch(e->q, d, &ev));
  rc = fpar_event_wait(ev);
  msg = fpar_event_error(ev);
  ck_assert_msg(rc == 0, "launch failed with %s: %s", fpar_err_name(rc),
                msg != NULL ? msg : "(no message)");
  fpar_event_release(ev);
}

/* The same for a launch without local buffers. */
static void run_launch(fpar_test_env *e, fpar_range global, fpar_range local,
                       fpar_kernel_fn kernel, void *args) {
  fpar_launch_desc d;

  fpar_launch_desc_init(&d);
  d.kernel = kernel;
  d.args = args;
  d.global = global;
  d.local = local;
  run_desc(e, &d);
}

/* Whether [a, a + na) and [b, b + nb) share a byte. */
static int ranges_overlap(uintptr_t a, size_t na, uintptr_t b, size_t nb) {
  return a < b + nb && b < a + na;
}

/* ---- One object per group ---------------------------------------------- */

typedef struct pointer_args {
  uintptr_t *ptr; /* per work-item: the object it was given */
  int use_barrier;
} pointer_args;

/* Records the object each work-item gets, as a plain loop over the
 * work-items (no barrier) or as fibers (barrier first). */
static void record_object_kernel(fpar_item *it, void *p) {
  pointer_args *a = p;

  if (a->use_barrier)
    fpar_barrier(it);
  a->ptr[fpar_global_id(it, 0)] = (uintptr_t)fpar_group_local_memory(it, 24, 0);
}

START_TEST(test_same_object_for_all_items) {
  enum { L = 64, N = 4 * L };
  uintptr_t ptr[N];
  pointer_args args = {ptr, _i};
  fpar_test_env e;
  size_t i;

  memset(ptr, 0, sizeof ptr);
  fpar_test_env_init(&e, 2);
  run_launch(&e, fpar_range1(N), fpar_range1(L), record_object_kernel, &args);
  for (i = 0; i < N; i++) {
    ck_assert_msg(ptr[i] != 0, "work-item %zu got NULL", i);
    ck_assert_msg(ptr[i] % 16 == 0, "work-item %zu: %p is not 16-aligned", i,
                  (void *)ptr[i]);
    ck_assert_msg(ptr[i] == ptr[i / L * L],
                  "work-item %zu got %p, work-item 0 of its group %p", i,
                  (void *)ptr[i], (void *)ptr[i / L * L]);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Zero fill --------------------------------------------------------- */

#define ZERO_BYTES 512

typedef struct zero_args {
  int *saw_zero;  /* per work-item: the object was all zero at first */
  uintptr_t *ptr; /* per group: the object's address */
} zero_args;

/* Every work-item checks the fresh object before anyone writes to it, then
 * the group fills it with garbage for the next group to (not) see. */
static void zero_then_dirty_kernel(fpar_item *it, void *p) {
  zero_args *a = p;
  size_t lid = fpar_local_id(it, 0), n = fpar_local_range(it, 0), i;
  unsigned char *obj = fpar_group_local_memory(it, ZERO_BYTES, 0);
  int zero = 1;

  for (i = 0; i < ZERO_BYTES; i++)
    zero &= obj[i] == 0;
  a->saw_zero[fpar_global_id(it, 0)] = zero;
  if (lid == 0)
    a->ptr[fpar_group_id(it, 0)] = (uintptr_t)obj;
  fpar_barrier(it);
  for (i = lid; i < ZERO_BYTES; i += n)
    obj[i] = (unsigned char)(0xa5 ^ i);
}

START_TEST(test_zero_filled_at_every_group_start) {
  enum { L = 16, GROUPS = 8, N = L * GROUPS, LAUNCHES = 2 };
  int saw_zero[N];
  uintptr_t ptr[LAUNCHES][GROUPS];
  zero_args args = {saw_zero, NULL};
  fpar_test_env e;
  size_t launch, i, g, reused = 0;

  /* One worker runs the groups one after another on the same arena, so a
   * later group's object lands where an earlier one left garbage (the test
   * polls: a thread that waits would run groups on an arena of its own). */
  fpar_test_env_init(&e, 1);
  for (launch = 0; launch < LAUNCHES; launch++) {
    fpar_event *ev;
    memset(saw_zero, 0, sizeof saw_zero);
    args.ptr = ptr[launch];
    ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(N), fpar_range1(L),
                                        zero_then_dirty_kernel, &args, &ev));
    ck_assert_int_eq(fpar_test_poll(ev), FPAR_COMPLETE);
    fpar_event_release(ev);
    for (i = 0; i < N; i++)
      ck_assert_msg(saw_zero[i],
                    "launch %zu: work-item %zu of group %zu saw a dirty "
                    "object",
                    launch, i % L, i / L);
  }
  for (launch = 0; launch < LAUNCHES; launch++)
    for (g = 0; g < GROUPS; g++)
      reused += ptr[launch][g] == ptr[0][0];
  /* The check above only means something if garbage was left where a
   * later object was handed out. */
  ck_assert_uint_gt(reused, 1);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Several objects ---------------------------------------------------- */

#define OBJECTS 3

static const size_t object_size[OBJECTS] = {100, 200, 8};
static const size_t object_align[OBJECTS] = {0, 64, 8};

typedef struct objects_args {
  uintptr_t *ptr; /* [work-item][object] */
  int *intact;    /* per work-item: every object kept its own pattern */
} objects_args;

/* Asks for three objects, fills each with its own byte, and after a
 * barrier checks that no object was overwritten by another. */
static void three_objects_kernel(fpar_item *it, void *p) {
  objects_args *a = p;
  size_t gid = fpar_global_id(it, 0), lid = fpar_local_id(it, 0), k, i;
  unsigned char *obj[OBJECTS];
  int intact = 1;

  obj[0] = fpar_group_local_memory(it, object_size[0], object_align[0]);
  obj[1] = fpar_group_local_memory(it, object_size[1], object_align[1]);
  obj[2] = fpar_group_local_memory_for_overwrite(it, object_size[2],
                                                 object_align[2]);
  for (k = 0; k < OBJECTS; k++) {
    a->ptr[gid * OBJECTS + k] = (uintptr_t)obj[k];
    if (lid == 0)
      memset(obj[k], 0x10 + (int)k, object_size[k]);
  }
  fpar_barrier(it);
  for (k = 0; k < OBJECTS; k++)
    for (i = 0; i < object_size[k]; i++)
      intact &= obj[k][i] == 0x10 + k;
  a->intact[gid] = intact;
}

START_TEST(test_distinct_objects_per_call) {
  enum { L = 8, N = 4 * L };
  uintptr_t ptr[N * OBJECTS];
  int intact[N];
  objects_args args = {ptr, intact};
  fpar_test_env e;
  size_t i, k, j;

  fpar_test_env_init(&e, 2);
  run_launch(&e, fpar_range1(N), fpar_range1(L), three_objects_kernel, &args);
  for (i = 0; i < N; i++) {
    const uintptr_t *mine = &ptr[i * OBJECTS],
                    *first = &ptr[i / L * L * OBJECTS];
    ck_assert_msg(intact[i], "work-item %zu saw an object overwritten", i);
    for (k = 0; k < OBJECTS; k++) {
      size_t align = object_align[k] ? object_align[k] : 16;
      ck_assert_msg(mine[k] == first[k],
                    "work-item %zu got another object %zu than work-item 0", i,
                    k);
      ck_assert_msg(mine[k] % align == 0, "object %zu is not %zu-aligned", k,
                    align);
      for (j = k + 1; j < OBJECTS; j++)
        ck_assert_msg(
            !ranges_overlap(mine[k], object_size[k], mine[j], object_size[j]),
            "objects %zu and %zu overlap", k, j);
    }
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Alignment ----------------------------------------------------------- */

typedef struct align_args {
  size_t align;
  uintptr_t *ptr; /* per work-item */
} align_args;

/* A 1-byte object first, so that the arena is not already aligned. */
static void aligned_object_kernel(fpar_item *it, void *p) {
  align_args *a = p;
  unsigned char *pad = fpar_group_local_memory(it, 1, 1);
  unsigned char *obj = fpar_group_local_memory(it, 3 * a->align, a->align);

  /* One writer: work-items that all wrote would race (racecheck). */
  if (fpar_local_linear_id(it) == 0) {
    pad[0] = 1;
    obj[3 * a->align - 1] = 1;
  }
  a->ptr[fpar_global_id(it, 0)] = (uintptr_t)obj;
}

static const size_t alignments[] = {1, 2, 8, 64, 256, 4096};

START_TEST(test_alignment_honoured) {
  enum { L = 4, N = 4 * L };
  uintptr_t ptr[N];
  align_args args = {alignments[_i], ptr};
  fpar_test_env e;
  size_t i;

  fpar_test_env_init(&e, 2);
  run_launch(&e, fpar_range1(N), fpar_range1(L), aligned_object_kernel, &args);
  for (i = 0; i < N; i++) {
    ck_assert_msg(ptr[i] % args.align == 0, "%p is not %zu-aligned",
                  (void *)ptr[i], args.align);
    ck_assert_uint_eq(ptr[i], ptr[i / L * L]);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Concurrent groups ----------------------------------------------- */

#define PRIVATE_ROUNDS 50

typedef struct private_args {
  size_t *foreign; /* per group: entries that held someone else's value */
} private_args;

/* Groups running at the same time on different workers each fill their
 * object with their own stamp, over and over; any stamp from another group
 * means two groups shared memory. */
static void private_object_kernel(fpar_item *it, void *p) {
  private_args *a = p;
  size_t lid = fpar_local_id(it, 0), n = fpar_local_range(it, 0);
  size_t group = fpar_group_id(it, 0), round, i, foreign = 0;
  size_t *obj = fpar_group_local_memory(it, n * sizeof *obj, 0);

  for (round = 0; round < PRIVATE_ROUNDS; round++) {
    size_t stamp = group * 1000 + round;
    obj[lid] = stamp;
    fpar_barrier(it);
    for (i = 0; i < n; i++)
      foreign += obj[i] != stamp;
    fpar_barrier(it);
  }
  if (foreign)
    __atomic_fetch_add(&a->foreign[group], foreign, __ATOMIC_RELAXED);
}

START_TEST(test_concurrent_groups_get_distinct_memory) {
  enum { L = 32, GROUPS = 16 };
  size_t foreign[GROUPS] = {0}, g;
  private_args args = {foreign};
  fpar_test_env e;

  fpar_test_env_init(&e, 2);
  run_launch(&e, fpar_range1(L * GROUPS), fpar_range1(L), private_object_kernel,
             &args);
  for (g = 0; g < GROUPS; g++)
    ck_assert_msg(foreign[g] == 0, "group %zu saw %zu foreign values", g,
                  foreign[g]);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- _for_overwrite ------------------------------------------------------ */

typedef struct swap_args {
  const uint32_t *in;
  uint32_t *out;
  uintptr_t *ptr; /* per work-item */
} swap_args;

/* Swaps neighbouring pairs through an object whose contents start
 * undefined: every slot is written before the barrier. */
static void swap_pairs_kernel(fpar_item *it, void *p) {
  swap_args *a = p;
  size_t lid = fpar_local_id(it, 0), n = fpar_local_range(it, 0);
  size_t gid = fpar_global_id(it, 0);
  uint32_t *tmp = fpar_group_local_memory_for_overwrite(it, n * sizeof *tmp, 0);

  a->ptr[gid] = (uintptr_t)tmp;
  tmp[lid] = a->in[gid];
  fpar_barrier(it);
  a->out[gid] = tmp[lid ^ 1];
}

START_TEST(test_for_overwrite_object) {
  enum { L = 16, N = 8 * L };
  uint32_t in[N], out[N];
  uintptr_t ptr[N];
  swap_args args = {in, out, ptr};
  fpar_test_env e;
  size_t i;

  for (i = 0; i < N; i++)
    in[i] = (uint32_t)(i * 2654435761u);
  fpar_test_env_init(&e, 2);
  run_launch(&e, fpar_range1(N), fpar_range1(L), swap_pairs_kernel, &args);
  for (i = 0; i < N; i++) {
    ck_assert_uint_eq(out[i], in[i ^ 1]);
    ck_assert_uint_eq(ptr[i], ptr[i / L * L]);
    ck_assert_uint_eq(ptr[i] % 16, 0);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- The sycl group_local_memory example ------------------------------ */

#define SYCL_WG 32

typedef struct sycl_args {
  int *even; /* per work-item: ref[2 * lid] after the barrier */
  int *odd;  /* per work-item: ref[2 * lid + 1], never written */
  int *mid;  /* per work-item: ref[SYCL_WG], written by work-item 16 */
} sycl_args;

/* int[64] per group of 32, as in sycl's group_local_memory<int[64]>. */
static void sycl_seed_kernel(fpar_item *it, void *p) {
  sycl_args *a = p;
  int *ref =
      fpar_group_local_memory(it, 2 * SYCL_WG * sizeof(int), _Alignof(int));
  size_t lid = fpar_local_linear_id(it), gid = fpar_global_linear_id(it);

  ref[2 * lid] = 42;
  fpar_barrier(it);
  a->even[gid] = ref[2 * lid];
  a->odd[gid] = ref[2 * lid + 1];
  a->mid[gid] = ref[SYCL_WG];
}

START_TEST(test_sycl_group_local_memory_example) {
  enum { N = 128 };
  int even[N], odd[N], mid[N];
  sycl_args args = {even, odd, mid};
  fpar_test_env e;
  size_t i;

  memset(even, 0xff, sizeof even);
  memset(odd, 0xff, sizeof odd);
  memset(mid, 0xff, sizeof mid);
  fpar_test_env_init(&e, 2);
  run_launch(&e, fpar_range1(N), fpar_range1(SYCL_WG), sycl_seed_kernel, &args);
  for (i = 0; i < N; i++) {
    ck_assert_int_eq(even[i], 42);
    ck_assert_int_eq(odd[i], 0);
    ck_assert_int_eq(mid[i], 42);
  }
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Launch-time local buffers ---------------------------------------- */

#define TILE_FLOATS 4 /* per work-item, like Aparapi's LocalFloatBuffer(4) */
#define INFO_BYTES 64

typedef struct tile_args {
  const float *in;     /* TILE_FLOATS per work-item */
  float *sum;          /* per work-item: sum of its group's whole tile */
  int *group_seen;     /* per work-item: the group id work-item 0 posted */
  size_t *local_size;  /* per work-item: fpar_local_range(it, 0) */
  uintptr_t *tile_ptr; /* per work-item */
  uintptr_t *info_ptr; /* per work-item */
} tile_args;

/* Buffer 0 holds TILE_FLOATS per work-item, buffer 1 a fixed INFO_BYTES.
 * Each work-item loads its slot of the tile; after the barrier every
 * work-item sums the whole tile and reads what work-item 0 posted. */
static void tile_sum_kernel(fpar_item *it, void *p) {
  tile_args *a = p;
  float *tile = fpar_local_buffer(it, 0);
  int *info = fpar_local_buffer(it, 1);
  size_t lid = fpar_local_id(it, 0), n = fpar_local_range(it, 0);
  size_t gid = fpar_global_id(it, 0), j;
  float sum = 0;

  for (j = 0; j < TILE_FLOATS; j++)
    tile[TILE_FLOATS * lid + j] = a->in[TILE_FLOATS * gid + j];
  if (lid == 0)
    info[INFO_BYTES / sizeof(int) - 1] = (int)fpar_group_id(it, 0);
  fpar_barrier(it);
  for (j = 0; j < TILE_FLOATS * n; j++)
    sum += tile[j];
  a->sum[gid] = sum;
  a->group_seen[gid] = info[INFO_BYTES / sizeof(int) - 1];
  a->local_size[gid] = n;
  a->tile_ptr[gid] = (uintptr_t)tile;
  a->info_ptr[gid] = (uintptr_t)info;
}

/* Runs tile_sum_kernel over n work-items in groups of local (maybe
 * FPAR_LOCAL_AUTO) and checks it against a serial computation.  Returns
 * the group size the launch ran with. */
static size_t check_tile_sum(fpar_test_env *e, size_t n, fpar_range local) {
  static const fpar_local_buffer_desc buffers[2] = {
      {0, TILE_FLOATS * sizeof(float), 0}, {INFO_BYTES, 0, 0}};
  float *in = malloc(TILE_FLOATS * n * sizeof *in);
  float *sum = malloc(n * sizeof *sum);
  int *group_seen = malloc(n * sizeof *group_seen);
  size_t *local_size = malloc(n * sizeof *local_size);
  uintptr_t *tile_ptr = malloc(n * sizeof *tile_ptr);
  uintptr_t *info_ptr = malloc(n * sizeof *info_ptr);
  tile_args args = {in, sum, group_seen, local_size, tile_ptr, info_ptr};
  fpar_launch_desc d;
  size_t i, j, l;

  ck_assert(in && sum && group_seen && local_size && tile_ptr && info_ptr);
  /* Small integers: float sums are exact in any order. */
  for (i = 0; i < TILE_FLOATS * n; i++)
    in[i] = (float)(i * 7 % 101);
  fpar_launch_desc_init(&d);
  d.name = "tile_sum";
  d.kernel = tile_sum_kernel;
  d.args = &args;
  d.global = fpar_range1(n);
  d.local = local;
  d.local_buffers = buffers;
  d.num_local_buffers = 2;
  run_desc(e, &d);

  l = local_size[0];
  ck_assert_uint_gt(l, 0);
  ck_assert_uint_eq(n % l, 0);
  if (local.size[0] != 0)
    ck_assert_uint_eq(l, local.size[0]);
  for (i = 0; i < n; i++) {
    size_t g = i / l;
    float serial = 0;
    for (j = TILE_FLOATS * g * l; j < TILE_FLOATS * (g + 1) * l; j++)
      serial += in[j];
    ck_assert_uint_eq(local_size[i], l);
    ck_assert_msg(sum[i] == serial,
                  "group size %zu: work-item %zu summed %g, serial %g", l, i,
                  (double)sum[i], (double)serial);
    ck_assert_int_eq(group_seen[i], (int)g);
    ck_assert_uint_eq(tile_ptr[i], tile_ptr[g * l]);
    ck_assert_uint_eq(info_ptr[i], info_ptr[g * l]);
    ck_assert_uint_eq(tile_ptr[i] % 64, 0);
    ck_assert_uint_eq(info_ptr[i] % 64, 0);
    /* The tile is TILE_FLOATS floats per work-item of this group size. */
    ck_assert_msg(!ranges_overlap(tile_ptr[i], TILE_FLOATS * l * sizeof(float),
                                  info_ptr[i], INFO_BYTES),
                  "group size %zu: the %zu-byte tile at %p overlaps buffer 1 "
                  "at %p",
                  l, TILE_FLOATS * l * sizeof(float), (void *)tile_ptr[i],
                  (void *)info_ptr[i]);
  }
  free(in);
  free(sum);
  free(group_seen);
  free(local_size);
  free(tile_ptr);
  free(info_ptr);
  return l;
}

START_TEST(test_local_buffers_tiled_sum) {
  fpar_test_env e;

  fpar_test_env_init(&e, 2);
  check_tile_sum(&e, 256, fpar_range1(32));
  check_tile_sum(&e, 96, fpar_range1(3));
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_local_buffers_with_auto_group_size) {
  fpar_test_env e;
  size_t big, small;

  fpar_test_env_init(&e, 2);
  big = check_tile_sum(&e, 4096, FPAR_LOCAL_AUTO);
  small = check_tile_sum(&e, 96, FPAR_LOCAL_AUTO);
  /* Two different choices, so the per-item buffer had to scale. */
  ck_assert_uint_ne(big, small);
  fpar_test_env_fini(&e);
}
END_TEST

static Suite *local_suite(void) {
  Suite *s = suite_create("local");
  TCase *tc;

  tc = fpar_test_case("group_local_memory");
  tcase_add_loop_test(tc, test_same_object_for_all_items, 0, 2);
  tcase_add_test(tc, test_zero_filled_at_every_group_start);
  tcase_add_test(tc, test_distinct_objects_per_call);
  tcase_add_loop_test(tc, test_alignment_honoured, 0,
                      sizeof alignments / sizeof alignments[0]);
  tcase_add_test(tc, test_for_overwrite_object);
  tcase_add_test(tc, test_sycl_group_local_memory_example);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("concurrency");
  tcase_add_test(tc, test_concurrent_groups_get_distinct_memory);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("local_buffers");
  tcase_add_test(tc, test_local_buffers_tiled_sum);
  tcase_add_test(tc, test_local_buffers_with_auto_group_size);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(local_suite());
}
