/* SPDX-License-Identifier: MIT */
/* test_simd.c - the SIMD lane layer of <fiberpar/simd.h> against scalar
 * models, at the width this file is compiled for.
 *
 * The build runs this file twice: at the machine's width (-march=native)
 * and forced scalar (FPAR_SIMD_FORCE_SCALAR, one lane); it also compiles at
 * 8 lanes (-mavx2 -mfma) and 4 lanes (plain x86-64).  Every test is written
 * in terms of FPAR_SIMD_WIDTH and checks each lane against an independent
 * scalar reference: the operators and helpers, masks, memory access next to
 * a PROT_NONE page (so that touching a lane that is off faults), reductions
 * over every mask pattern, sub-group shuffles and scans, and the SLEEF math
 * in ULPs against long double libm, lane by lane and through the array API.
 */
#include <fiberpar/simd.h>

#include <float.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "testutil.h"

/* The lane count under test. */
#define W FPAR_SIMD_WIDTH

/* Number of mask patterns of W lanes: all of them are tried (65536 at 16
 * lanes, which still takes a fraction of a second). */
#define NMASKS (1u << W)

/* The longest array of the array API tests: three calls and one element of
 * the widest table fpar_math_f32() may pick (16 lanes), whatever the width
 * of this file. */
#define ARRAY_MAX (3 * 16 + 1)

/* Number of random inputs per math function and precision. */
#define MATH_SAMPLES 100000

/* Assertions that cost nothing while they hold.  In forked mode Check
 * reports every passing ck_assert to the parent (a write per call), far
 * too slow for loops over millions of lanes, so the loops test first and
 * call Check only to fail. */
#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    if (!(cond))                                                               \
      ck_assert_msg(cond, __VA_ARGS__);                                        \
  } while (0)
#define EXPECT_TRUE(cond) EXPECT(cond, "%s", #cond)
#define EXPECT_INT_EQ(a, b)                                                    \
  EXPECT((intmax_t)(a) == (intmax_t)(b), "%s = %jd, want %s = %jd", #a,        \
         (intmax_t)(a), #b, (intmax_t)(b))
#define EXPECT_UINT_EQ(a, b)                                                   \
  EXPECT((uintmax_t)(a) == (uintmax_t)(b), "%s = %ju, want %s = %ju", #a,      \
         (uintmax_t)(a), #b, (uintmax_t)(b))

/* Failures collected to be reported at once, for tests whose cases are
 * independent findings. */
typedef struct fail_log {
  char text[2048];
  size_t len;
  int count;
} fail_log;

static void fail_add(fail_log *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void fail_add(fail_log *f, const char *fmt, ...) {
  va_list ap;

  if (f->count++ > 0 && f->len + 2 < sizeof f->text)
    f->len += (size_t)snprintf(f->text + f->len, sizeof f->text - f->len, "; ");
  if (f->len + 1 < sizeof f->text) {
    va_start(ap, fmt);
    f->len +=
        (size_t)vsnprintf(f->text + f->len, sizeof f->text - f->len, fmt, ap);
    va_end(ap);
  }
  if (f->len >= sizeof f->text)
    f->len = sizeof f->text - 1;
}

#define FAIL_LOG_ASSERT(f)                                                     \
  ck_assert_msg((f).count == 0, "%d failure(s): %s", (f).count, (f).text)

/* ---- Helpers: random numbers, bits, masks ------------------------------- */

static uint64_t rng_state = 1;

/* Restart the generator (xorshift64*), so that every test is repeatable. */
static void rng_seed(uint64_t seed) {
  rng_state = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
}

static uint64_t rng_next(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dull;
}

static uint32_t rng_u32(void) {
  return (uint32_t)(rng_next() >> 32);
}

/* A uniform double in [0, 1). */
static double rng_unit(void) {
  return (double)(rng_next() >> 11) * 0x1p-53;
}

static double rng_uniform(double lo, double hi) {
  return lo + (hi - lo) * rng_unit();
}

/* A uniform integer in [lo, hi]. */
static int rng_int(int lo, int hi) {
  return lo + (int)(rng_next() % (uint64_t)(hi - lo + 1));
}

/* A magnitude whose logarithm is uniform in [log2 lo, log2 hi]. */
static double rng_logmag(double lo, double hi) {
  double v = exp2(rng_uniform(log2(lo), log2(hi)));

  return v < lo ? lo : v > hi ? hi : v;
}

static double rng_sign(double x) {
  return rng_next() & 1 ? -x : x;
}

static uint32_t f32_bits(float x) {
  uint32_t u;

  memcpy(&u, &x, sizeof u);
  return u;
}

static uint64_t f64_bits(double x) {
  uint64_t u;

  memcpy(&u, &x, sizeof u);
  return u;
}

/* Equal bit for bit, or both NaN (whose payloads the models don't fix). */
static int same_f32(float a, float b) {
  return isnan(a) ? isnan(b) != 0 : f32_bits(a) == f32_bits(b);
}

static int same_f64(double a, double b) {
  return isnan(a) ? isnan(b) != 0 : f64_bits(a) == f64_bits(b);
}

/* The mask whose lane i is on where bit i of bits is set. */
static fpar_vmask mask_from_bits(uint32_t bits) {
  fpar_vmask m;

  for (int i = 0; i < W; i++)
    m[i] = (bits >> i) & 1 ? -1 : 0;
  return m;
}

/* The libm functions, called through pointers so that the compiler cannot
 * replace them by its own expansion: they are the references. */
static float (*volatile libm_fminf)(float, float) = fminf;
static float (*volatile libm_fmaxf)(float, float) = fmaxf;
static double (*volatile libm_fmin)(double, double) = fmin;
static double (*volatile libm_fmax)(double, double) = fmax;
static float (*volatile libm_fmaf)(float, float, float) = fmaf;
static double (*volatile libm_fma)(double, double, double) = fma;
static float (*volatile libm_sqrtf)(float) = sqrtf;
static double (*volatile libm_sqrt)(double) = sqrt;

/* Inputs that exercise the corners of float and double arithmetic. */
static const float corner_f32[] = {
    0.0f,    -0.0f,    1.0f,     -1.0f,        0.5f,          -2.0f,
    3.0f,    FLT_MIN,  -FLT_MIN, FLT_TRUE_MIN, -FLT_TRUE_MIN, FLT_MIN / 4,
    FLT_MAX, -FLT_MAX, INFINITY, -INFINITY,    NAN,           -NAN,
    1e-30f,  1e30f,    0.1f,     16777216.0f,  16777217.0f};
static const double corner_f64[] = {0.0,           -0.0,
                                    1.0,           -1.0,
                                    0.5,           -2.0,
                                    3.0,           DBL_MIN,
                                    -DBL_MIN,      DBL_TRUE_MIN,
                                    -DBL_TRUE_MIN, DBL_MIN / 4,
                                    DBL_MAX,       -DBL_MAX,
                                    INFINITY,      -INFINITY,
                                    NAN,           -NAN,
                                    1e-300,        1e300,
                                    0.1,           9007199254740993.0};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A float for operator tests: a corner value one time in eight, else a
 * random magnitude over the whole range with a random sign. */
static float pool_f32(void) {
  if (rng_next() % 8 == 0)
    return corner_f32[rng_next() % COUNT(corner_f32)];
  return (float)rng_sign(rng_logmag(FLT_TRUE_MIN, FLT_MAX));
}

static double pool_f64(void) {
  if (rng_next() % 8 == 0)
    return corner_f64[rng_next() % COUNT(corner_f64)];
  return rng_sign(rng_logmag(DBL_TRUE_MIN, DBL_MAX));
}

/* An int32 biased towards the wrap-around corners. */
static int32_t pool_i32(void) {
  static const int32_t corner[] = {
      0, 1, -1, INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1};

  if (rng_next() % 4 == 0)
    return corner[rng_next() % COUNT(corner)];
  return (int32_t)rng_u32();
}

/* ---- Construction and masks --------------------------------------------- */

START_TEST(test_splat_iota) {
  static const float fs[] = {0.0f,         -0.0f,    1.5f, -FLT_MAX,
                             FLT_TRUE_MIN, INFINITY, NAN};
  static const int32_t is[] = {0, -1, INT32_MIN, INT32_MAX, 12345};
  fpar_vi32 iota = fpar_vi32_iota();

  for (size_t k = 0; k < COUNT(fs); k++) {
    fpar_vf32 f = fpar_vf32_splat(fs[k]);
    fpar_vf64 d = fpar_vf64_splat((double)fs[k]);

    for (int i = 0; i < W; i++) {
      EXPECT(same_f32(f[i], fs[k]), "vf32_splat(%a) lane %d = %a",
             (double)fs[k], i, (double)f[i]);
      EXPECT(same_f64(d[i], (double)fs[k]), "vf64_splat(%a) lane %d = %a",
             (double)fs[k], i, d[i]);
    }
  }
  for (size_t k = 0; k < COUNT(is); k++) {
    fpar_vi32 v = fpar_vi32_splat(is[k]);
    fpar_vu32 u = fpar_vu32_splat((uint32_t)is[k]);

    for (int i = 0; i < W; i++) {
      EXPECT_INT_EQ(v[i], is[k]);
      EXPECT_UINT_EQ(u[i], (uint32_t)is[k]);
    }
  }
  for (int i = 0; i < W; i++)
    EXPECT_INT_EQ(iota[i], i);
}
END_TEST

/* Check any, all and count of m against its on lanes, counted here. */
static void check_mask_queries(fpar_vmask m, const char *what) {
  unsigned on = 0;

  for (int i = 0; i < W; i++) {
    EXPECT(m[i] == 0 || m[i] == -1, "%s: lane %d is %d, not 0/-1", what, i,
           (int)m[i]);
    on += m[i] != 0;
  }
  EXPECT(fpar_vmask_count(m) == on, "%s: count %u, want %u", what,
         fpar_vmask_count(m), on);
  EXPECT(fpar_vmask_any(m) == (on > 0), "%s: any %d with %u on", what,
         fpar_vmask_any(m), on);
  EXPECT(fpar_vmask_all(m) == (on == W), "%s: all %d with %u on", what,
         fpar_vmask_all(m), on);
}

START_TEST(test_vmask_first) {
  /* Every n from 0 to W, then counts beyond W (all lanes on). */
  const unsigned beyond[] = {W + 1, 2 * W, 1000, INT32_MAX};

  for (unsigned n = 0; n <= W; n++) {
    fpar_vmask m = fpar_vmask_first(n);

    for (int i = 0; i < W; i++)
      EXPECT(m[i] == ((unsigned)i < n ? -1 : 0), "vmask_first(%u) lane %d = %d",
             n, i, (int)m[i]);
    check_mask_queries(m, "vmask_first");
  }
  for (size_t k = 0; k < COUNT(beyond); k++)
    EXPECT(fpar_vmask_count(fpar_vmask_first(beyond[k])) == W,
           "vmask_first(%u) has %u lanes on, want %d", beyond[k],
           fpar_vmask_count(fpar_vmask_first(beyond[k])), W);
}
END_TEST

/* The documentation promises lanes 0..n-1 for any unsigned n; the
 * implementation compares with (int32_t)n, so counts of 2^31 and more
 * turn every lane off. */
START_TEST(test_vmask_first_huge) {
  const unsigned huge[] = {0x80000000u, 0xfffffffeu, UINT_MAX};

  for (size_t k = 0; k < COUNT(huge); k++)
    EXPECT(fpar_vmask_count(fpar_vmask_first(huge[k])) == W,
           "vmask_first(%#x) has %u lanes on, want %d", huge[k],
           fpar_vmask_count(fpar_vmask_first(huge[k])), W);
}
END_TEST

START_TEST(test_mask_queries) {
  for (uint32_t bits = 0; bits < NMASKS; bits++)
    check_mask_queries(mask_from_bits(bits), "mask pattern");
}
END_TEST

/* ---- Lane-wise arithmetic ----------------------------------------------- */

/* The operators and comparisons of float vectors against the same scalar
 * operation on each lane (one operation per statement, so that nothing is
 * contracted into an fma). */
START_TEST(test_f32_operators) {
  rng_seed(1);
  for (int rep = 0; rep < 4000; rep++) {
    fpar_vf32 a, b, sum, dif, prod, quot, neg;
    fpar_vi32 eq, ne, lt, le, gt, ge;

    for (int i = 0; i < W; i++) {
      a[i] = pool_f32();
      b[i] = rng_next() % 16 == 0 ? a[i] : pool_f32();
    }
    sum = a + b, dif = a - b, prod = a * b, quot = a / b, neg = -a;
    eq = a == b;
    ne = a != b;
    lt = a < b;
    le = a <= b;
    gt = a > b;
    ge = a >= b;
    for (int i = 0; i < W; i++) {
      float x = a[i], y = b[i];
      volatile float s = x + y, d = x - y, p = x * y, q = x / y;

      EXPECT(same_f32(sum[i], s) && same_f32(dif[i], d) &&
                 same_f32(prod[i], p) && same_f32(quot[i], q) &&
                 f32_bits(neg[i]) == (f32_bits(x) ^ 0x80000000u),
             "lane %d: a=%a b=%a: + %a - %a * %a / %a neg %a", i, (double)x,
             (double)y, (double)sum[i], (double)dif[i], (double)prod[i],
             (double)quot[i], (double)neg[i]);
      EXPECT(eq[i] == -(x == y) && ne[i] == -(x != y) && lt[i] == -(x < y) &&
                 le[i] == -(x <= y) && gt[i] == -(x > y) && ge[i] == -(x >= y),
             "lane %d: comparisons of %a and %a", i, (double)x, (double)y);
    }
  }
}
END_TEST

START_TEST(test_f64_operators) {
  rng_seed(2);
  for (int rep = 0; rep < 4000; rep++) {
    fpar_vf64 a, b, sum, dif, prod, quot;
    fpar_vmask lt;

    for (int i = 0; i < W; i++) {
      a[i] = pool_f64();
      b[i] = rng_next() % 16 == 0 ? a[i] : pool_f64();
    }
    sum = a + b, dif = a - b, prod = a * b, quot = a / b;
    lt = fpar_vf64_lt(a, b);
    __typeof__(a == b) eq = a == b, ge = a >= b;
    for (int i = 0; i < W; i++) {
      double x = a[i], y = b[i];
      volatile double s = x + y, d = x - y, p = x * y, q = x / y;

      EXPECT(same_f64(sum[i], s) && same_f64(dif[i], d) &&
                 same_f64(prod[i], p) && same_f64(quot[i], q),
             "lane %d: a=%a b=%a: + %a - %a * %a / %a", i, x, y, sum[i], dif[i],
             prod[i], quot[i]);
      EXPECT(lt[i] == -(x < y) && eq[i] == -(int64_t)(x == y) &&
                 ge[i] == -(int64_t)(x >= y),
             "lane %d: comparisons of %a and %a", i, x, y);
    }
  }
}
END_TEST

/* select is a bit blend: lanes come from a or b unchanged (NaN payloads
 * and signed zeros included). */
START_TEST(test_select) {
  rng_seed(3);
  for (int rep = 0; rep < 2000; rep++) {
    fpar_vmask m = mask_from_bits(rng_u32());
    fpar_vf32 fa, fb, fr;
    fpar_vf64 da, db, dr;
    fpar_vi32 ia, ib, ir;
    fpar_vu32 ua, ub, ur;

    for (int i = 0; i < W; i++) {
      fa[i] = pool_f32(), fb[i] = pool_f32();
      da[i] = pool_f64(), db[i] = pool_f64();
      ia[i] = pool_i32(), ib[i] = pool_i32();
      ua[i] = rng_u32(), ub[i] = rng_u32();
    }
    fr = fpar_vf32_select(m, fa, fb);
    dr = fpar_vf64_select(m, da, db);
    ir = fpar_vi32_select(m, ia, ib);
    ur = fpar_vu32_select(m, ua, ub);
    for (int i = 0; i < W; i++) {
      EXPECT_UINT_EQ(f32_bits(fr[i]), f32_bits(m[i] ? fa[i] : fb[i]));
      EXPECT(f64_bits(dr[i]) == f64_bits(m[i] ? da[i] : db[i]),
             "vf64_select lane %d", i);
      EXPECT_INT_EQ(ir[i], m[i] ? ia[i] : ib[i]);
      EXPECT_UINT_EQ(ur[i], m[i] ? ua[i] : ub[i]);
    }
  }
}
END_TEST

/* abs clears the sign bit and nothing else (-0 gives +0, -NaN a NaN with
 * the same payload and no sign); the int32 abs wraps at INT32_MIN. */
START_TEST(test_abs) {
  rng_seed(4);
  for (int rep = 0; rep < 2000; rep++) {
    fpar_vf32 f, fr;
    fpar_vf64 d, dr;
    fpar_vi32 v, vr;

    for (int i = 0; i < W; i++) {
      /* Random bit patterns cover every class, NaN payloads included. */
      uint32_t fb = rep % 2 ? rng_u32() : f32_bits(pool_f32());
      uint64_t db = rep % 2 ? rng_next() : f64_bits(pool_f64());

      memcpy(&f[i], &fb, sizeof fb);
      memcpy(&d[i], &db, sizeof db);
      v[i] = pool_i32();
    }
    fr = fpar_vf32_abs(f);
    dr = fpar_vf64_abs(d);
    vr = fpar_vi32_abs(v);
    for (int i = 0; i < W; i++) {
      EXPECT(f32_bits(fr[i]) == (f32_bits(f[i]) & 0x7fffffffu),
             "vf32_abs(%#x) = %#x", f32_bits(f[i]), f32_bits(fr[i]));
      EXPECT(f64_bits(dr[i]) == (f64_bits(d[i]) & 0x7fffffffffffffffull),
             "vf64_abs(%#llx) = %#llx", (unsigned long long)f64_bits(d[i]),
             (unsigned long long)f64_bits(dr[i]));
      EXPECT_UINT_EQ((uint32_t)vr[i],
                     v[i] < 0 ? 0u - (uint32_t)v[i] : (uint32_t)v[i]);
    }
  }
}
END_TEST

/* Whether r is fmin/fmax's answer want for a and b: bit for bit, except
 * that for zeros of opposite signs C (F.10.9.2) lets fmin and fmax return
 * either zero. */
static int minmax_ok_f32(float r, float want, float a, float b) {
  if (a == 0 && b == 0 && signbit(a) != signbit(b))
    return r == 0;
  return same_f32(r, want);
}

static int minmax_ok_f64(double r, double want, double a, double b) {
  if (a == 0 && b == 0 && signbit(a) != signbit(b))
    return r == 0;
  return same_f64(r, want);
}

START_TEST(test_minmax) {
  rng_seed(5);
  for (int rep = 0; rep < 4000; rep++) {
    fpar_vf32 fa, fb, fmn, fmx;
    fpar_vf64 da, db, dmn, dmx;

    for (int i = 0; i < W; i++) {
      /* Equal magnitudes of both signs, NaNs and zeros come often. */
      fa[i] = pool_f32();
      fb[i] = rng_next() % 4 == 0 ? -fa[i] : pool_f32();
      da[i] = pool_f64();
      db[i] = rng_next() % 4 == 0 ? -da[i] : pool_f64();
    }
    fmn = fpar_vf32_min(fa, fb), fmx = fpar_vf32_max(fa, fb);
    dmn = fpar_vf64_min(da, db), dmx = fpar_vf64_max(da, db);
    for (int i = 0; i < W; i++) {
      EXPECT(minmax_ok_f32(fmn[i], libm_fminf(fa[i], fb[i]), fa[i], fb[i]) &&
                 minmax_ok_f32(fmx[i], libm_fmaxf(fa[i], fb[i]), fa[i], fb[i]),
             "vf32 min/max(%a, %a) = %a, %a", (double)fa[i], (double)fb[i],
             (double)fmn[i], (double)fmx[i]);
      EXPECT(minmax_ok_f64(dmn[i], libm_fmin(da[i], db[i]), da[i], db[i]) &&
                 minmax_ok_f64(dmx[i], libm_fmax(da[i], db[i]), da[i], db[i]),
             "vf64 min/max(%a, %a) = %a, %a", da[i], db[i], dmn[i], dmx[i]);
    }
  }
}
END_TEST

/* fma rounds once: against libm's fmaf/fma on random and corner inputs,
 * and on products whose rounding error the addend exposes (c = -fl(a*b),
 * where a*b+c rounded twice is 0 but the fused result is the error). */
START_TEST(test_fma) {
  int differs = 0;

  rng_seed(6);
  for (int rep = 0; rep < 4000; rep++) {
    int exposed = rep % 2;
    fpar_vf32 a, b, c, r;
    fpar_vf64 da, db, dc, dr;

    for (int i = 0; i < W; i++) {
      if (exposed) {
        volatile float p;
        volatile double dp;

        a[i] = (float)rng_uniform(1, 2), b[i] = (float)rng_uniform(1, 2);
        p = a[i] * b[i];
        c[i] = -p;
        da[i] = rng_uniform(1, 2), db[i] = rng_uniform(1, 2);
        dp = da[i] * db[i];
        dc[i] = -dp;
      } else {
        a[i] = pool_f32(), b[i] = pool_f32(), c[i] = pool_f32();
        da[i] = pool_f64(), db[i] = pool_f64(), dc[i] = pool_f64();
      }
    }
    r = fpar_vf32_fma(a, b, c);
    dr = fpar_vf64_fma(da, db, dc);
    for (int i = 0; i < W; i++) {
      float want = libm_fmaf(a[i], b[i], c[i]);
      double dwant = libm_fma(da[i], db[i], dc[i]);
      volatile float p = a[i] * b[i];
      volatile float twice = p + c[i];

      differs += exposed && want != twice;
      EXPECT(same_f32(r[i], want), "vf32_fma(%a, %a, %a) = %a, want %a",
             (double)a[i], (double)b[i], (double)c[i], (double)r[i],
             (double)want);
      EXPECT(same_f64(dr[i], dwant), "vf64_fma(%a, %a, %a) = %a, want %a",
             da[i], db[i], dc[i], dr[i], dwant);
    }
  }
  /* The exposed cases must really tell one rounding from two. */
  ck_assert_int_gt(differs, 100 * W);
}
END_TEST

/* Conversions: f32 -> i32 truncates (in range), i32 -> f32 and f64 -> f32
 * round to nearest even, f32 -> f64 is exact; vf64_lt gives a mask. */
START_TEST(test_conversions) {
  static const float trunc_corner[] = {
      0.5f,  -0.5f, 1.9999999f,    -1.9999999f,    2.5f,
      -2.5f, -0.0f, 2147483520.0f, -2147483648.0f, 16777217.0f};
  static const int32_t round_corner[] = {16777217,  16777219,  -16777217,
                                         INT32_MAX, INT32_MIN, 2147483584};
  static const double narrow_corner[] = {
      1 + 0x1p-24, 1 + 3 * 0x1p-24, 1e39,         -1e39, 1e-46, 0x1p-150,
      0x1.8p-150,  DBL_MAX,         DBL_TRUE_MIN, 0.1,   NAN,   -INFINITY};

  rng_seed(7);
  for (int rep = 0; rep < 4000; rep++) {
    fpar_vf32 f, fi, fn;
    fpar_vi32 i32, ti;
    fpar_vf64 d, wide;
    fpar_vmask lt;

    for (int i = 0; i < W; i++) {
      size_t k = (size_t)rep * W + (size_t)i;

      f[i] = k < COUNT(trunc_corner) ? trunc_corner[k]
             : rep % 2 ? (float)rng_uniform(-2147483520.0, 2147483520.0)
                       : (float)rng_uniform(-1000, 1000);
      i32[i] = k < COUNT(round_corner) ? round_corner[k] : pool_i32();
      d[i] = k < COUNT(narrow_corner) ? narrow_corner[k] : pool_f64();
    }
    ti = fpar_vi32_from_vf32(f);
    fi = fpar_vf32_from_vi32(i32);
    wide = fpar_vf64_from_vf32(f);
    fn = fpar_vf32_from_vf64(d);
    lt = fpar_vf64_lt(wide, d);
    for (int i = 0; i < W; i++) {
      volatile float rounded = (float)i32[i], narrowed = (float)d[i];

      EXPECT(ti[i] == (int32_t)f[i], "vi32_from_vf32(%a) = %d", (double)f[i],
             (int)ti[i]);
      EXPECT(same_f32(fi[i], rounded), "vf32_from_vi32(%d) = %a", (int)i32[i],
             (double)fi[i]);
      EXPECT(same_f64(wide[i], (double)f[i]), "vf64_from_vf32(%a) = %a",
             (double)f[i], wide[i]);
      EXPECT(same_f32(fn[i], narrowed), "vf32_from_vf64(%a) = %a", d[i],
             (double)fn[i]);
      EXPECT_INT_EQ(lt[i], -(wide[i] < d[i]));
    }
  }
}
END_TEST

/* The int32 and uint32 operators and helpers.  Signed +, -, *, unary -
 * and << take operands that do not overflow (overflow is undefined, as in
 * C); wrap-around is checked on uint32, where it is defined, against
 * uint32_t arithmetic.  Comparisons, bit operations, >> (arithmetic on
 * int32, logical on uint32), min and max see the whole range. */
START_TEST(test_int_ops) {
  rng_seed(8);
  for (int rep = 0; rep < 4000; rep++) {
    fpar_vi32 a, b, p, q, s, sum, dif, prod, neg, shl, shr, mn, mx, lt, ge;
    fpar_vu32 ua, ub, us, usum, udif, uprod, uneg, ushl, ushr, umn, umx;
    fpar_vi32 ult;

    for (int i = 0; i < W; i++) {
      a[i] = pool_i32(), b[i] = rep % 8 ? pool_i32() : a[i];
      p[i] = rng_int(-32768, 32767), q[i] = rng_int(-32768, 32767);
      s[i] = rng_int(0, 31);
      ua[i] = (uint32_t)pool_i32(), ub[i] = rep % 8 ? rng_u32() : ua[i];
      us[i] = (uint32_t)rng_int(0, 31);
    }
    sum = p + q, dif = p - q, prod = p * q, neg = -p;
    shl = fpar_vi32_abs(p) << (s & 15);
    shr = a >> s, lt = a < b, ge = a >= b;
    mn = fpar_vi32_min(a, b), mx = fpar_vi32_max(a, b);
    usum = ua + ub, udif = ua - ub, uprod = ua * ub, uneg = -ua;
    ushl = ua << us, ushr = ua >> us, ult = ua < ub;
    umn = fpar_vu32_min(ua, ub), umx = fpar_vu32_max(ua, ub);
    for (int i = 0; i < W; i++) {
      int32_t x = p[i], y = q[i];

      EXPECT_INT_EQ(sum[i], x + y);
      EXPECT_INT_EQ(dif[i], x - y);
      EXPECT_INT_EQ(prod[i], x * y);
      EXPECT_INT_EQ(neg[i], -x);
      EXPECT_INT_EQ(shl[i], (x < 0 ? -x : x) << (s[i] & 15));
      EXPECT_INT_EQ(shr[i], a[i] >> s[i]); /* arithmetic in GCC */
      EXPECT_UINT_EQ((uint32_t)(a & b)[i], (uint32_t)a[i] & (uint32_t)b[i]);
      EXPECT_UINT_EQ((uint32_t)(a | b)[i], (uint32_t)a[i] | (uint32_t)b[i]);
      EXPECT_UINT_EQ((uint32_t)(a ^ b)[i], (uint32_t)a[i] ^ (uint32_t)b[i]);
      EXPECT_INT_EQ((~a)[i], ~a[i]);
      EXPECT_INT_EQ(lt[i], -(a[i] < b[i]));
      EXPECT_INT_EQ(ge[i], -(a[i] >= b[i]));
      EXPECT_INT_EQ(mn[i], a[i] < b[i] ? a[i] : b[i]);
      EXPECT_INT_EQ(mx[i], a[i] > b[i] ? a[i] : b[i]);
      EXPECT_UINT_EQ(usum[i], ua[i] + ub[i]);
      EXPECT_UINT_EQ(udif[i], ua[i] - ub[i]);
      EXPECT_UINT_EQ(uprod[i], ua[i] * ub[i]);
      EXPECT_UINT_EQ(uneg[i], 0u - ua[i]);
      EXPECT_UINT_EQ(ushl[i], ua[i] << us[i]);
      EXPECT_UINT_EQ(ushr[i], ua[i] >> us[i]); /* logical */
      EXPECT_INT_EQ(ult[i], -(ua[i] < ub[i]));
      EXPECT_UINT_EQ(umn[i], ua[i] < ub[i] ? ua[i] : ub[i]);
      EXPECT_UINT_EQ(umx[i], ua[i] > ub[i] ? ua[i] : ub[i]);
    }
  }
}
END_TEST

/* ---- Memory: loads, stores, masks and gathers --------------------------- */

/* Two pages, the second PROT_NONE: data ending at `end` is followed by
 * memory that faults when touched. */
typedef struct guard_page {
  char *map;
  size_t page;
} guard_page;

/* Map the pages and return the end of the accessible one. */
static char *guard_open(guard_page *g) {
  g->page = (size_t)sysconf(_SC_PAGESIZE);
  g->map = mmap(NULL, 2 * g->page, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  EXPECT(g->map != MAP_FAILED, "mmap failed");
  EXPECT_INT_EQ(mprotect(g->map + g->page, g->page, PROT_NONE), 0);
  return g->map + g->page;
}

static void guard_close(guard_page *g) {
  munmap(g->map, 2 * g->page);
}

/* The guard page faults when touched, as the memory tests assume (this
 * test passes by dying of SIGSEGV). */
START_TEST(test_guard_faults) {
  guard_page g;
  volatile char *end = guard_open(&g);

  (void)end[0];
}
END_TEST

/* The memory checks of one vector type T of elements E (GEN makes a random
 * element), in a macro because the four types share them.  With first(n)
 * masks for n = 0..W the data ends at the end of the page, so the lanes
 * from n on lie in the PROT_NONE page and a masked load, store or gather
 * that touched them would crash the test; loaded and gathered off lanes
 * must be 0.  Unmasked loads and stores run at every byte offset up to the
 * page end.  Every mask pattern is then checked in the middle of a buffer:
 * stores leave the off lanes and the neighbours unchanged, and the off
 * lanes of a gather index the guard page. */
#define DEFINE_MEMORY_CHECK(T, E, GEN)                                         \
  static E T##_elem(void) {                                                    \
    return GEN;                                                                \
  }                                                                            \
  static int T##_same(E a, E b) {                                              \
    return memcmp(&a, &b, sizeof a) == 0;                                      \
  }                                                                            \
  static void T##_check_memory(void) {                                         \
    guard_page g;                                                              \
    char *end = guard_open(&g);                                                \
    E *page_end = (E *)(void *)end, *data = page_end - 64;                     \
    const E zero = 0, sentinel = (E)77;                                        \
    for (unsigned n = 0; n <= W; n++) {                                        \
      fpar_vmask m = fpar_vmask_first(n);                                      \
      E *p = page_end - n, src[W];                                             \
      fpar_vi32 idx;                                                           \
      T v;                                                                     \
      for (unsigned i = 0; i < n; i++)                                         \
        p[i] = T##_elem();                                                     \
      v = T##_load_mask(p, m);                                                 \
      for (unsigned i = 0; i < W; i++)                                         \
        EXPECT(T##_same(v[i], i < n ? p[i] : zero),                            \
               #T "_load_mask tail n=%u lane %u", n, i);                       \
      for (unsigned i = 0; i < W; i++)                                         \
        idx[i] = i < n ? rng_int(0, (int)n - 1) : (int)(n + 16 + i);           \
      v = T##_gather(p, idx, m);                                               \
      for (unsigned i = 0; i < W; i++)                                         \
        EXPECT(T##_same(v[i], i < n ? p[idx[i]] : zero),                       \
               #T "_gather tail n=%u lane %u", n, i);                          \
      for (unsigned i = 0; i < W; i++)                                         \
        src[i] = T##_elem();                                                   \
      for (unsigned i = 0; i < n; i++)                                         \
        p[i] = sentinel;                                                       \
      T##_store_mask(p, T##_load(src), m);                                     \
      for (unsigned i = 0; i < n; i++)                                         \
        EXPECT(T##_same(p[i], src[i]), #T "_store_mask tail n=%u lane %u", n,  \
               i);                                                             \
    }                                                                          \
    for (size_t off = 0; off <= sizeof(E); off++) {                            \
      char *p = end - off - W * sizeof(E);                                     \
      E src[W], back[W];                                                       \
      for (unsigned i = 0; i < W; i++)                                         \
        src[i] = T##_elem();                                                   \
      memcpy(p, src, sizeof src);                                              \
      T##_store(back, T##_load((const E *)(void *)p));                         \
      EXPECT(memcmp(back, src, sizeof src) == 0,                               \
             #T "_load at %zu bytes before the page end", off + sizeof src);   \
      memset(p, 0, sizeof src);                                                \
      T##_store((E *)(void *)p, T##_load(src));                                \
      EXPECT(memcmp(p, src, sizeof src) == 0,                                  \
             #T "_store at %zu bytes before the page end", off + sizeof src);  \
    }                                                                          \
    for (unsigned i = 0; i < 64; i++)                                          \
      data[i] = T##_elem();                                                    \
    for (uint32_t bits = 0; bits < NMASKS; bits++) {                           \
      fpar_vmask m = mask_from_bits(bits);                                     \
      E buf[W + 2], src[W];                                                    \
      fpar_vi32 idx;                                                           \
      T v;                                                                     \
      for (unsigned i = 0; i < W + 2; i++)                                     \
        buf[i] = sentinel;                                                     \
      for (unsigned i = 0; i < W; i++) {                                       \
        src[i] = T##_elem();                                                   \
        idx[i] = m[i] ? rng_int(0, 63) : 64 + 16 + (int)i;                     \
      }                                                                        \
      T##_store_mask(buf + 1, T##_load(src), m);                               \
      for (unsigned i = 0; i < W + 2; i++) {                                   \
        int on = i >= 1 && i <= W && m[i - 1];                                 \
        EXPECT(T##_same(buf[i], on ? src[i - 1] : sentinel),                   \
               #T "_store_mask mask %#x element %u", bits, i);                 \
      }                                                                        \
      v = T##_load_mask(src, m);                                               \
      for (unsigned i = 0; i < W; i++)                                         \
        EXPECT(T##_same(v[i], m[i] ? src[i] : zero),                           \
               #T "_load_mask mask %#x lane %u", bits, i);                     \
      v = T##_gather(data, idx, m);                                            \
      for (unsigned i = 0; i < W; i++)                                         \
        EXPECT(T##_same(v[i], m[i] ? data[idx[i]] : zero),                     \
               #T "_gather mask %#x lane %u", bits, i);                        \
    }                                                                          \
    guard_close(&g);                                                           \
  }

DEFINE_MEMORY_CHECK(fpar_vf32, float, (float)rng_sign(rng_logmag(1e-30, 1e30)))
DEFINE_MEMORY_CHECK(fpar_vf64, double, rng_sign(rng_logmag(1e-300, 1e300)))
DEFINE_MEMORY_CHECK(fpar_vi32, int32_t, pool_i32())
DEFINE_MEMORY_CHECK(fpar_vu32, uint32_t, rng_u32())

START_TEST(test_memory_f32) {
  rng_seed(10);
  fpar_vf32_check_memory();
}
END_TEST

START_TEST(test_memory_f64) {
  rng_seed(11);
  fpar_vf64_check_memory();
}
END_TEST

START_TEST(test_memory_i32) {
  rng_seed(12);
  fpar_vi32_check_memory();
}
END_TEST

START_TEST(test_memory_u32) {
  rng_seed(13);
  fpar_vu32_check_memory();
}
END_TEST

/* ---- Reductions and scans: scalar models -------------------------------- */

enum fold_op { FOLD_ADD, FOLD_MIN, FOLD_MAX };

/* The model of a masked reduction or scan: the on lanes of v (bit i of
 * bits) below lane `end`, combined in lane order starting from the first
 * of them, or the identity when there is none (0, +inf for min, -inf for
 * max).  min and max are libm's fminf and fmaxf: a NaN loses to a number,
 * and only NaNs combine into a NaN. */
static float fold_f32(enum fold_op op, const float *v, uint32_t bits, int end) {
  float acc = op == FOLD_ADD ? 0.0f : op == FOLD_MIN ? INFINITY : -INFINITY;
  int first = 1;

  for (int i = 0; i < end; i++) {
    if (!((bits >> i) & 1))
      continue;
    if (first)
      acc = v[i], first = 0;
    else if (op == FOLD_ADD)
      acc = acc + v[i];
    else
      acc = op == FOLD_MIN ? libm_fminf(acc, v[i]) : libm_fmaxf(acc, v[i]);
  }
  return acc;
}

static double fold_f64(enum fold_op op, const double *v, uint32_t bits,
                       int end) {
  double acc = op == FOLD_ADD ? 0.0 : op == FOLD_MIN ? INFINITY : -INFINITY;
  int first = 1;

  for (int i = 0; i < end; i++) {
    if (!((bits >> i) & 1))
      continue;
    if (first)
      acc = v[i], first = 0;
    else if (op == FOLD_ADD)
      acc = acc + v[i];
    else
      acc = op == FOLD_MIN ? libm_fmin(acc, v[i]) : libm_fmax(acc, v[i]);
  }
  return acc;
}

/* The integer model: sums wrap modulo 2^32; the identities are 0,
 * INT32_MAX and INT32_MIN (signed) or 0, UINT32_MAX and 0 (unsigned). */
static uint32_t fold_int(enum fold_op op, int is_signed, const uint32_t *v,
                         uint32_t bits, int end) {
  uint32_t acc = op == FOLD_ADD   ? 0
                 : op == FOLD_MIN ? (is_signed ? INT32_MAX : UINT32_MAX)
                 : is_signed      ? (uint32_t)INT32_MIN
                                  : 0;

  for (int i = 0; i < end; i++) {
    int less, greater;

    if (!((bits >> i) & 1))
      continue;
    less = is_signed ? (int32_t)v[i] < (int32_t)acc : v[i] < acc;
    greater = is_signed ? (int32_t)v[i] > (int32_t)acc : v[i] > acc;
    if (op == FOLD_ADD)
      acc += v[i];
    else if ((op == FOLD_MIN && less) || (op == FOLD_MAX && greater))
      acc = v[i];
  }
  return acc;
}

static const char *const fold_name[] = {"add", "min", "max"};

/* A float whose sums are exact in any order: a small integer, now and
 * then an infinity (sums with both infinities are NaN in any order). */
static float exact_f32(void) {
  if (rng_next() % 16 == 0)
    return rng_next() & 1 ? INFINITY : -INFINITY;
  return (float)rng_int(-1000, 1000);
}

/* Reductions of float and double vectors for every mask pattern. */
START_TEST(test_reduce_float) {
  rng_seed(14);
  for (uint32_t bits = 0; bits < NMASKS; bits++) {
    fpar_vmask m = mask_from_bits(bits);
    float v[W];
    double d[W];
    fpar_vf32 fv;
    fpar_vf64 dv;
    float fr[3];
    double dr[3];

    for (int i = 0; i < W; i++)
      v[i] = exact_f32(), d[i] = exact_f32() * 0x1p60;
    fv = fpar_vf32_load(v);
    dv = fpar_vf64_load(d);
    fr[FOLD_ADD] = fpar_vf32_reduce_add(fv, m);
    fr[FOLD_MIN] = fpar_vf32_reduce_min(fv, m);
    fr[FOLD_MAX] = fpar_vf32_reduce_max(fv, m);
    dr[FOLD_ADD] = fpar_vf64_reduce_add(dv, m);
    dr[FOLD_MIN] = fpar_vf64_reduce_min(dv, m);
    dr[FOLD_MAX] = fpar_vf64_reduce_max(dv, m);
    for (int op = FOLD_ADD; op <= FOLD_MAX; op++) {
      float fw = fold_f32(op, v, bits, W);
      double dw = fold_f64(op, d, bits, W);

      EXPECT(same_f32(fr[op], fw), "vf32_reduce_%s mask %#x = %a, %a",
             fold_name[op], bits, (double)fr[op], (double)fw);
      EXPECT(same_f64(dr[op], dw), "vf64_reduce_%s mask %#x = %a, %a",
             fold_name[op], bits, dr[op], dw);
    }
  }
}
END_TEST

/* Reductions of int32 and uint32 vectors for every mask pattern, with
 * values near the wrap-around corners. */
START_TEST(test_reduce_int) {
  rng_seed(15);
  for (uint32_t bits = 0; bits < NMASKS; bits++) {
    fpar_vmask m = mask_from_bits(bits);
    uint32_t v[W], u[W];
    fpar_vi32 iv;
    fpar_vu32 uv;
    uint32_t ir[3], ur[3];

    for (int i = 0; i < W; i++)
      v[i] = (uint32_t)pool_i32(), u[i] = (uint32_t)pool_i32();
    iv = fpar_vi32_load((const int32_t *)v);
    uv = fpar_vu32_load(u);
    ir[FOLD_ADD] = (uint32_t)fpar_vi32_reduce_add(iv, m);
    ir[FOLD_MIN] = (uint32_t)fpar_vi32_reduce_min(iv, m);
    ir[FOLD_MAX] = (uint32_t)fpar_vi32_reduce_max(iv, m);
    ur[FOLD_ADD] = fpar_vu32_reduce_add(uv, m);
    ur[FOLD_MIN] = fpar_vu32_reduce_min(uv, m);
    ur[FOLD_MAX] = fpar_vu32_reduce_max(uv, m);
    for (int op = FOLD_ADD; op <= FOLD_MAX; op++) {
      EXPECT(ir[op] == fold_int(op, 1, v, bits, W),
             "vi32_reduce_%s mask %#x = %d, want %d", fold_name[op], bits,
             (int)ir[op], (int)fold_int(op, 1, v, bits, W));
      EXPECT(ur[op] == fold_int(op, 0, u, bits, W),
             "vu32_reduce_%s mask %#x = %u, want %u", fold_name[op], bits,
             ur[op], fold_int(op, 0, u, bits, W));
    }
  }
}
END_TEST

/* The identities of empty masks, spelled out. */
START_TEST(test_reduce_identities) {
  fpar_vmask none = fpar_vmask_first(0);
  fpar_vf32 f = fpar_vf32_splat(5);
  fpar_vf64 d = fpar_vf64_splat(5);
  fpar_vi32 i = fpar_vi32_splat(5);
  fpar_vu32 u = fpar_vu32_splat(5);

  EXPECT_TRUE(same_f32(fpar_vf32_reduce_add(f, none), 0.0f));
  EXPECT_TRUE(same_f32(fpar_vf32_reduce_min(f, none), INFINITY));
  EXPECT_TRUE(same_f32(fpar_vf32_reduce_max(f, none), -INFINITY));
  EXPECT_TRUE(same_f64(fpar_vf64_reduce_add(d, none), 0.0));
  EXPECT_TRUE(same_f64(fpar_vf64_reduce_min(d, none), INFINITY));
  EXPECT_TRUE(same_f64(fpar_vf64_reduce_max(d, none), -INFINITY));
  EXPECT_INT_EQ(fpar_vi32_reduce_add(i, none), 0);
  EXPECT_INT_EQ(fpar_vi32_reduce_min(i, none), INT32_MAX);
  EXPECT_INT_EQ(fpar_vi32_reduce_max(i, none), INT32_MIN);
  EXPECT_UINT_EQ(fpar_vu32_reduce_add(u, none), 0);
  EXPECT_UINT_EQ(fpar_vu32_reduce_min(u, none), UINT32_MAX);
  EXPECT_UINT_EQ(fpar_vu32_reduce_max(u, none), 0);
}
END_TEST

/* Check the six float scans of v under mask bits against the model:
 * inclusive lane i combines the on lanes up to i, exclusive lane i those
 * before i (lane 0 gets the identity). */
static void check_scans_f32(const float *v, uint32_t bits) {
  fpar_vmask m = mask_from_bits(bits);
  fpar_vf32 fv = fpar_vf32_load(v), got[6];

  got[0] = fpar_vf32_scan_add(fv, m);
  got[1] = fpar_vf32_scan_min(fv, m);
  got[2] = fpar_vf32_scan_max(fv, m);
  got[3] = fpar_vf32_exscan_add(fv, m);
  got[4] = fpar_vf32_exscan_min(fv, m);
  got[5] = fpar_vf32_exscan_max(fv, m);
  for (int k = 0; k < 6; k++)
    for (int i = 0; i < W; i++) {
      float want = fold_f32(k % 3, v, bits, k < 3 ? i + 1 : i);

      EXPECT(same_f32(got[k][i], want),
             "vf32_%sscan_%s mask %#x lane %d = %a, want %a", k < 3 ? "" : "ex",
             fold_name[k % 3], bits, i, (double)got[k][i], (double)want);
    }
}

static void check_scans_i32(const uint32_t *v, uint32_t bits) {
  fpar_vmask m = mask_from_bits(bits);
  fpar_vi32 iv = fpar_vi32_load((const int32_t *)v), got[6];

  got[0] = fpar_vi32_scan_add(iv, m);
  got[1] = fpar_vi32_scan_min(iv, m);
  got[2] = fpar_vi32_scan_max(iv, m);
  got[3] = fpar_vi32_exscan_add(iv, m);
  got[4] = fpar_vi32_exscan_min(iv, m);
  got[5] = fpar_vi32_exscan_max(iv, m);
  for (int k = 0; k < 6; k++)
    for (int i = 0; i < W; i++) {
      uint32_t want = fold_int(k % 3, 1, v, bits, k < 3 ? i + 1 : i);

      EXPECT((uint32_t)got[k][i] == want,
             "vi32_%sscan_%s mask %#x lane %d = %d, want %d", k < 3 ? "" : "ex",
             fold_name[k % 3], bits, i, (int)got[k][i], (int)want);
    }
}

START_TEST(test_scan_f32) {
  rng_seed(16);
  for (uint32_t bits = 0; bits < NMASKS; bits++) {
    float v[W];

    for (int i = 0; i < W; i++)
      v[i] = exact_f32();
    check_scans_f32(v, bits);
  }
}
END_TEST

START_TEST(test_scan_i32) {
  rng_seed(17);
  for (uint32_t bits = 0; bits < NMASKS; bits++) {
    uint32_t v[W];

    for (int i = 0; i < W; i++)
      v[i] = (uint32_t)pool_i32();
    check_scans_i32(v, bits);
  }
}
END_TEST

/* NaN lanes lose to numbers in min/max reductions and scans: with the
 * lowest on lane a number, every prefix that has an on lane has a number. */
START_TEST(test_reduce_nan_loses) {
  rng_seed(18);
  for (uint32_t bits = 1; bits < NMASKS; bits++) {
    int lowest = __builtin_ctz(bits);
    float v[W];
    double d[W];
    fpar_vmask m = mask_from_bits(bits);

    for (int i = 0; i < W; i++) {
      int nan = i != lowest && rng_next() % 3 == 0;

      v[i] = nan ? NAN : exact_f32();
      d[i] = nan ? NAN : (double)exact_f32();
    }
    EXPECT_TRUE(same_f32(fpar_vf32_reduce_min(fpar_vf32_load(v), m),
                         fold_f32(FOLD_MIN, v, bits, W)));
    EXPECT_TRUE(same_f32(fpar_vf32_reduce_max(fpar_vf32_load(v), m),
                         fold_f32(FOLD_MAX, v, bits, W)));
    EXPECT_TRUE(same_f64(fpar_vf64_reduce_min(fpar_vf64_load(d), m),
                         fold_f64(FOLD_MIN, d, bits, W)));
    EXPECT_TRUE(same_f64(fpar_vf64_reduce_max(fpar_vf64_load(d), m),
                         fold_f64(FOLD_MAX, d, bits, W)));
    check_scans_f32(v, bits);
  }
}
END_TEST

/* The fmin and fmax of <fiberpar/simd.h> between equal operands (-0 and
 * +0): the first.  (C leaves the choice open; glibc's x86-64 fminf
 * gives the second, so libm cannot be the model here.) */
static double fmin_first(double a, double b) {
  return b < a || isnan(a) ? b : a;
}

static double fmax_first(double a, double b) {
  return b > a || isnan(a) ? b : a;
}

/* fold_f64 with those rules: min or max of the on lanes before end. */
static double fold_first(enum fold_op op, const double *v, uint32_t bits,
                         int end) {
  double acc = op == FOLD_MIN ? INFINITY : -INFINITY;
  int first = 1;

  for (int i = 0; i < end; i++) {
    if (!((bits >> i) & 1))
      continue;
    if (first)
      acc = v[i], first = 0;
    else
      acc = op == FOLD_MIN ? fmin_first(acc, v[i]) : fmax_first(acc, v[i]);
  }
  return acc;
}

/* Zeros of both signs and NaN in every mask pattern: the reductions and
 * scans combine lanes in trees, not one by one, and must still give the
 * first of equal lanes, as a fold of the lanes in order does. */
START_TEST(test_reduce_signed_zeros) {
  static const double pool[] = {0.0, -0.0, 0.0, -0.0, 1.0, -1.0, NAN};

  rng_seed(19);
  /* Several vectors per mask where there are few masks. */
  for (uint32_t trial = 0; trial < NMASKS * (W <= 8 ? 32 : 1); trial++) {
    uint32_t bits = trial % NMASKS;
    fpar_vmask m = mask_from_bits(bits);
    float v[W];
    double d[W];
    fpar_vf32 fv, got[4];
    fpar_vf64 dv;

    for (int i = 0; i < W; i++) {
      d[i] = pool[rng_next() % COUNT(pool)];
      v[i] = (float)d[i];
    }
    fv = fpar_vf32_load(v);
    dv = fpar_vf64_load(d);
    for (int op = FOLD_MIN; op <= FOLD_MAX; op++) {
      double want = fold_first(op, d, bits, W);
      float fr = op == FOLD_MIN ? fpar_vf32_reduce_min(fv, m)
                                : fpar_vf32_reduce_max(fv, m);
      double dr = op == FOLD_MIN ? fpar_vf64_reduce_min(dv, m)
                                 : fpar_vf64_reduce_max(dv, m);

      EXPECT(same_f32(fr, (float)want), "vf32_reduce_%s mask %#x = %a, want %a",
             fold_name[op], bits, (double)fr, want);
      EXPECT(same_f64(dr, want), "vf64_reduce_%s mask %#x = %a, want %a",
             fold_name[op], bits, dr, want);
    }
    got[0] = fpar_vf32_scan_min(fv, m);
    got[1] = fpar_vf32_scan_max(fv, m);
    got[2] = fpar_vf32_exscan_min(fv, m);
    got[3] = fpar_vf32_exscan_max(fv, m);
    for (int k = 0; k < 4; k++)
      for (int i = 0; i < W; i++) {
        int op = k % 2 ? FOLD_MAX : FOLD_MIN;
        float want = (float)fold_first(op, d, bits, k < 2 ? i + 1 : i);

        EXPECT(same_f32(got[k][i], want),
               "vf32_%sscan_%s mask %#x lane %d = %a, want %a",
               k < 2 ? "" : "ex", fold_name[op], bits, i, (double)got[k][i],
               (double)want);
      }
  }
}
END_TEST

/* When every on lane is NaN, the fmin/fmax of those lanes is NaN (fmin
 * returns a NaN only when both operands are NaNs), not the identity of an
 * empty mask: reduce_min over {NaN} is NaN, and so is every scan lane
 * whose prefix has on lanes, all NaN. */
START_TEST(test_reduce_all_nan) {
  static const char *const what[] = {"vf32_reduce", "vf64_reduce", "vf32_scan",
                                     "vf32_exscan"};
  fail_log f = {.count = 0};
  int seen[4] = {0};
  float v[W];
  double d[W];

  for (int i = 0; i < W; i++)
    v[i] = NAN, d[i] = NAN;
  for (uint32_t bits = 1; bits < NMASKS; bits++) {
    fpar_vmask m = mask_from_bits(bits);
    fpar_vf32 fv = fpar_vf32_load(v), scan[2][2];
    fpar_vf64 dv = fpar_vf64_load(d);
    float fr[2] = {fpar_vf32_reduce_min(fv, m), fpar_vf32_reduce_max(fv, m)};
    double dr[2] = {fpar_vf64_reduce_min(dv, m), fpar_vf64_reduce_max(dv, m)};

    scan[0][0] = fpar_vf32_scan_min(fv, m);
    scan[0][1] = fpar_vf32_scan_max(fv, m);
    scan[1][0] = fpar_vf32_exscan_min(fv, m);
    scan[1][1] = fpar_vf32_exscan_max(fv, m);
    for (int op = 0; op < 2; op++) {
      if (!isnan(fr[op]) && !seen[0]++)
        fail_add(&f, "%s_%s(NaN lanes, mask %#x) = %a", what[0],
                 fold_name[op + 1], bits, (double)fr[op]);
      if (!isnan(dr[op]) && !seen[1]++)
        fail_add(&f, "%s_%s(NaN lanes, mask %#x) = %a", what[1],
                 fold_name[op + 1], bits, dr[op]);
      for (int ex = 0; ex < 2; ex++)
        for (int i = 0; i < W; i++) {
          float want = fold_f32(op + 1, v, bits, ex ? i : i + 1);

          if (!same_f32(scan[ex][op][i], want) && !seen[2 + ex]++)
            fail_add(&f, "%s_%s(NaN lanes, mask %#x) lane %d = %a, want %a",
                     what[2 + ex], fold_name[op + 1], bits, i,
                     (double)scan[ex][op][i], (double)want);
        }
    }
  }
  FAIL_LOG_ASSERT(f);
}
END_TEST

/* ---- Sub-group operations ----------------------------------------------- */

/* Random float and int32 vectors whose lanes are all different (the low
 * four bits of each hold its lane number), so that a value tells which
 * lane it came from.  The floats are finite, of every magnitude; lane 0 of
 * the float vector is -0.0 one time in four, whose sign must survive. */
static void random_lanes(fpar_vf32 *f, fpar_vi32 *v) {
  for (int i = 0; i < W; i++) {
    float x = (float)rng_sign(rng_logmag(1e-30, 1e30));
    uint32_t bits = (f32_bits(x) & ~15u) | (uint32_t)i;

    memcpy(&(*f)[i], &bits, sizeof bits);
    (*v)[i] = (int32_t)(((uint32_t)pool_i32() & ~15u) | (uint32_t)i);
  }
  if (rng_next() % 4 == 0)
    (*f)[0] = -0.0f;
}

/* Check that lane i of (f, v) after an operation holds lane src[i] of the
 * originals (f0, v0). */
static void check_moved(const char *what, unsigned arg, fpar_vf32 f0,
                        fpar_vi32 v0, fpar_vf32 f, fpar_vi32 v,
                        const int *src) {
  for (int i = 0; i < W; i++) {
    EXPECT(f32_bits(f[i]) == f32_bits(f0[src[i]]) ||
               (isnan(f[i]) && isnan(f0[src[i]])),
           "vf32_%s(%u) lane %d = %a, want lane %d = %a", what, arg, i,
           (double)f[i], src[i], (double)f0[src[i]]);
    EXPECT(v[i] == v0[src[i]], "vi32_%s(%u) lane %d = %d, want %d", what, arg,
           i, (int)v[i], (int)v0[src[i]]);
  }
}

START_TEST(test_broadcast) {
  fpar_vf32 f;
  fpar_vi32 v;

  rng_seed(19);
  random_lanes(&f, &v);
  for (unsigned lane = 0; lane < W; lane++) {
    int src[W];

    for (int i = 0; i < W; i++)
      src[i] = (int)lane;
    check_moved("broadcast", lane, f, v, fpar_vf32_broadcast(f, lane),
                fpar_vi32_broadcast(v, lane), src);
  }
}
END_TEST

/* Shuffles by random index vectors, negative and huge indices included:
 * lane i gets lane idx[i] mod W (the mathematical modulo). */
START_TEST(test_shuffle) {
  rng_seed(20);
  for (int rep = 0; rep < 2000; rep++) {
    fpar_vf32 f;
    fpar_vi32 v, idx;
    int src[W];

    random_lanes(&f, &v);
    for (int i = 0; i < W; i++) {
      idx[i] = rep % 2 ? (int32_t)rng_u32() : rng_int(-3 * W, 3 * W);
      src[i] = ((idx[i] % W) + W) % W;
    }
    check_moved("shuffle", (unsigned)rep, f, v, fpar_vf32_shuffle(f, idx),
                fpar_vi32_shuffle(v, idx), src);
  }
}
END_TEST

START_TEST(test_shuffle_xor) {
  fpar_vf32 f;
  fpar_vi32 v;

  rng_seed(21);
  random_lanes(&f, &v);
  for (unsigned mask = 0; mask < W; mask++) {
    int src[W];

    for (int i = 0; i < W; i++)
      src[i] = i ^ (int)mask;
    check_moved("shuffle_xor", mask, f, v, fpar_vf32_shuffle_xor(f, mask),
                fpar_vi32_shuffle_xor(v, mask), src);
  }
}
END_TEST

/* shuffle_up/down by every delta from 0 to 2W: lanes whose source is out
 * of range keep their own value. */
START_TEST(test_shuffle_up_down) {
  fpar_vf32 f;
  fpar_vi32 v;

  rng_seed(22);
  random_lanes(&f, &v);
  for (unsigned delta = 0; delta <= 2 * W; delta++) {
    int up[W], down[W];

    for (int i = 0; i < W; i++) {
      up[i] = i - (int)delta >= 0 ? i - (int)delta : i;
      down[i] = i + (int)delta < W ? i + (int)delta : i;
    }
    check_moved("shuffle_up", delta, f, v, fpar_vf32_shuffle_up(f, delta),
                fpar_vi32_shuffle_up(v, delta), up);
    check_moved("shuffle_down", delta, f, v, fpar_vf32_shuffle_down(f, delta),
                fpar_vi32_shuffle_down(v, delta), down);
  }
}
END_TEST

/* ---- Math: the error measure -------------------------------------------- */

/* Error of the result r in ULPs of the exact value ref (a long double with
 * 11 more bits than double), for a format of `mant` significand bits and
 * normal exponents emin..emax.  The ULP is that of ref's binade (of the
 * smallest normal binade for denormal and zero refs), as in SLEEF's own
 * tester.  A finite ref beyond the largest finite value counts as 2^(emax
 * + 1), and so does an infinite r, so that overflowing to infinity costs
 * nothing where the rounded ref is infinite.  NaN must match NaN, and an
 * infinite or zero ref (exact: long double neither overflows nor
 * underflows here) must come back as itself, with its sign. */
static double ulp_error(long double r, long double ref, int mant, int emin,
                        int emax) {
  long double over = ldexpl(1, emax + 1);
  int e;

  if (isnan(r) || isnan(ref))
    return isnan(r) && isnan(ref) ? 0 : INFINITY;
  if (isinf(ref) || ref == 0)
    return r == ref && signbit(r) == signbit(ref) ? 0 : INFINITY;
  if (isinf(r))
    r = copysignl(over, r);
  if (fabsl(ref) > over)
    ref = copysignl(over, ref);
  e = ilogbl(ref);
  e = e < emin ? emin : e > emax ? emax : e;
  return (double)(fabsl(r - ref) / ldexpl(1, e - (mant - 1)));
}

static double ulp_error_f32(float r, long double ref) {
  return ulp_error(r, ref, FLT_MANT_DIG, FLT_MIN_EXP - 1, FLT_MAX_EXP - 1);
}

static double ulp_error_f64(double r, long double ref) {
  return ulp_error(r, ref, DBL_MANT_DIG, DBL_MIN_EXP - 1, DBL_MAX_EXP - 1);
}

/* What the bounds allow beyond SLEEF's documented ULPs: the error of the
 * reference itself.  glibc's long double functions are within a few ULPs
 * of 64 bits, i.e. 2^-40 of a float ULP (the slack just absorbs the
 * subtraction) and at most about 2^-9 of a double ULP. */
#define SLACK_F32 0x1p-20
#define SLACK_F64 0x1p-8

/* The error measure itself, on cases worked out by hand. */
START_TEST(test_ulp_measure) {
  EXPECT_TRUE(ulp_error_f32(1 + 0x1p-23f, 1.0L) == 1);
  EXPECT_TRUE(ulp_error_f32(1 - 0x1p-24f, 1.0L) == 0.5);
  EXPECT_TRUE(ulp_error_f32(1.0f, 1 - 0x1p-25L) == 0.5);
  EXPECT_TRUE(ulp_error_f32(2 * FLT_TRUE_MIN, FLT_TRUE_MIN) == 1);
  EXPECT_TRUE(ulp_error_f32(0.0f, 0x1p-150L) == 0.5);
  EXPECT_TRUE(ulp_error_f32(INFINITY, 0x1p200L) == 0);
  EXPECT_TRUE(ulp_error_f32(FLT_MAX, 0x1p200L) == 1);
  EXPECT_TRUE(ulp_error_f32(INFINITY, FLT_MAX) == 1);
  EXPECT_TRUE(ulp_error_f32(-FLT_MAX, -INFINITY) == INFINITY);
  EXPECT_TRUE(ulp_error_f32(FLT_TRUE_MIN, 0.0L) == INFINITY);
  EXPECT_TRUE(ulp_error_f32(-0.0f, 0.0L) == INFINITY);
  EXPECT_TRUE(ulp_error_f32(NAN, NAN) == 0);
  EXPECT_TRUE(ulp_error_f32(1.0f, NAN) == INFINITY);
  EXPECT_TRUE(ulp_error_f32(NAN, 1.0L) == INFINITY);
  EXPECT_TRUE(ulp_error_f64(1 + 0x1p-52, 1.0L) == 1);
  EXPECT_TRUE(ulp_error_f64(DBL_TRUE_MIN, 0x1p-1075L) == 0.5);
  EXPECT_TRUE(ulp_error_f64(INFINITY, 0x1p1100L) == 0);
  EXPECT_TRUE(ulp_error_f64(INFINITY, -INFINITY) == INFINITY);
}
END_TEST

/* ---- Math: the functions under test and their references ----------------- */

typedef void (*vm_f32_fn)(float *out, const float *x, const float *y);
typedef void (*vm_f64_fn)(double *out, const double *x, const double *y);
typedef long double (*ref_fn)(long double x, long double y);

/* W lanes of the public vector function (y is pow's second operand). */
#define VM_WRAP_UNARY(name)                                                    \
  static void vm32_##name(float *out, const float *x, const float *y) {        \
    (void)y;                                                                   \
    fpar_vf32_store(out, fpar_vf32_##name(fpar_vf32_load(x)));                 \
  }                                                                            \
  static void vm64_##name(double *out, const double *x, const double *y) {     \
    (void)y;                                                                   \
    fpar_vf64_store(out, fpar_vf64_##name(fpar_vf64_load(x)));                 \
  }
VM_WRAP_UNARY(sin)
VM_WRAP_UNARY(cos)
VM_WRAP_UNARY(tan)
VM_WRAP_UNARY(exp)
VM_WRAP_UNARY(exp2)
VM_WRAP_UNARY(log)
VM_WRAP_UNARY(log2)
VM_WRAP_UNARY(sqrt)
VM_WRAP_UNARY(rsqrt)
VM_WRAP_UNARY(erf)
VM_WRAP_UNARY(tanh)

static void vm32_pow(float *out, const float *x, const float *y) {
  fpar_vf32_store(out, fpar_vf32_pow(fpar_vf32_load(x), fpar_vf32_load(y)));
}

static void vm64_pow(double *out, const double *x, const double *y) {
  fpar_vf64_store(out, fpar_vf64_pow(fpar_vf64_load(x), fpar_vf64_load(y)));
}

/* The references, in long double. */
#define REF_UNARY(name, expr)                                                  \
  static long double ref_##name(long double x, long double y) {                \
    (void)y;                                                                   \
    return expr;                                                               \
  }
REF_UNARY(sin, sinl(x))
REF_UNARY(cos, cosl(x))
REF_UNARY(tan, tanl(x))
REF_UNARY(exp, expl(x))
REF_UNARY(exp2, exp2l(x))
REF_UNARY(log, logl(x))
REF_UNARY(log2, log2l(x))
REF_UNARY(sqrt, sqrtl(x))
REF_UNARY(rsqrt, 1.0L / sqrtl(x))
REF_UNARY(erf, erfl(x))
REF_UNARY(tanh, tanhl(x))

static long double ref_pow(long double x, long double y) {
  return powl(x, y);
}

/* Where random inputs come from. */
typedef enum domain_kind {
  DOM_UNIFORM,  /* uniform in [lo, hi] */
  DOM_LOGMAG,   /* log-uniform magnitude in [lo, hi], either sign */
  DOM_POSITIVE, /* log-uniform in [lo, hi] */
  DOM_NEAR1,    /* 1 + d, |d| log-uniform in [lo, hi], either sign */
  DOM_POW       /* pow pairs: |log2 x| up to lo, |y log2 x| up to hi */
} domain_kind;

typedef struct domain {
  domain_kind kind;
  double lo, hi;
} domain;

/* One function: its op, the public vector functions, the reference, the
 * bound in ULPs, the largest |x| of SLEEF's documented domain (0 for no
 * limit; beyond it SLEEF's trigonometry returns arbitrary values), and two
 * input domains per precision, each giving half the samples. */
typedef struct math_row {
  const char *name;
  fpar_math_op op;
  vm_f32_fn vf32;
  vm_f64_fn vf64;
  ref_fn ref;
  double ulps;
  double max_arg32, max_arg64;
  domain d32[2], d64[2];
} math_row;

#define FMIN_DEN 0x1p-149
#define DMIN_DEN 0x1p-1074

/* SLEEF's u10 functions are documented within 1.0 ULP (the trigonometric
 * ones for |x| <= 1e28 in float and 1e299 in double), sqrt within 0.5 ULP
 * (correctly rounded); rsqrt is 1/sqrt rounded twice, within 1.5 ULP. */
static const math_row math_rows[] = {
    {"sin",
     FPAR_MATH_sin,
     vm32_sin,
     vm64_sin,
     ref_sin,
     1.0,
     1e28,
     1e299,
     {{DOM_LOGMAG, 1e-30, 1e28}, {DOM_UNIFORM, -10, 10}},
     {{DOM_LOGMAG, 1e-300, 1e299}, {DOM_UNIFORM, -10, 10}}},
    {"cos",
     FPAR_MATH_cos,
     vm32_cos,
     vm64_cos,
     ref_cos,
     1.0,
     1e28,
     1e299,
     {{DOM_LOGMAG, 1e-30, 1e28}, {DOM_UNIFORM, -10, 10}},
     {{DOM_LOGMAG, 1e-300, 1e299}, {DOM_UNIFORM, -10, 10}}},
    {"tan",
     FPAR_MATH_tan,
     vm32_tan,
     vm64_tan,
     ref_tan,
     1.0,
     1e28,
     1e299,
     {{DOM_LOGMAG, 1e-30, 1e28}, {DOM_UNIFORM, -10, 10}},
     {{DOM_LOGMAG, 1e-300, 1e299}, {DOM_UNIFORM, -10, 10}}},
    {"exp",
     FPAR_MATH_exp,
     vm32_exp,
     vm64_exp,
     ref_exp,
     1.0,
     0,
     0,
     {{DOM_UNIFORM, -105, 90}, {DOM_LOGMAG, 1e-10, 1}},
     {{DOM_UNIFORM, -746, 710}, {DOM_LOGMAG, 1e-20, 1}}},
    {"exp2",
     FPAR_MATH_exp2,
     vm32_exp2,
     vm64_exp2,
     ref_exp2,
     1.0,
     0,
     0,
     {{DOM_UNIFORM, -151, 129}, {DOM_LOGMAG, 1e-10, 1}},
     {{DOM_UNIFORM, -1076, 1025}, {DOM_LOGMAG, 1e-20, 1}}},
    {"log",
     FPAR_MATH_log,
     vm32_log,
     vm64_log,
     ref_log,
     1.0,
     0,
     0,
     {{DOM_POSITIVE, FMIN_DEN, FLT_MAX}, {DOM_NEAR1, 0x1p-24, 0.5}},
     {{DOM_POSITIVE, DMIN_DEN, DBL_MAX}, {DOM_NEAR1, 0x1p-53, 0.5}}},
    {"log2",
     FPAR_MATH_log2,
     vm32_log2,
     vm64_log2,
     ref_log2,
     1.0,
     0,
     0,
     {{DOM_POSITIVE, FMIN_DEN, FLT_MAX}, {DOM_NEAR1, 0x1p-24, 0.5}},
     {{DOM_POSITIVE, DMIN_DEN, DBL_MAX}, {DOM_NEAR1, 0x1p-53, 0.5}}},
    {"pow",
     FPAR_MATH_pow,
     vm32_pow,
     vm64_pow,
     ref_pow,
     1.0,
     0,
     0,
     {{DOM_POW, 30, 150}, {DOM_POW, 30, 150}},
     {{DOM_POW, 200, 1080}, {DOM_POW, 200, 1080}}},
    {"sqrt",
     FPAR_MATH_sqrt,
     vm32_sqrt,
     vm64_sqrt,
     ref_sqrt,
     0.5,
     0,
     0,
     {{DOM_POSITIVE, FMIN_DEN, FLT_MAX}, {DOM_UNIFORM, 0, 4}},
     {{DOM_POSITIVE, DMIN_DEN, DBL_MAX}, {DOM_UNIFORM, 0, 4}}},
    {"rsqrt",
     FPAR_MATH_rsqrt,
     vm32_rsqrt,
     vm64_rsqrt,
     ref_rsqrt,
     1.5,
     0,
     0,
     {{DOM_POSITIVE, FMIN_DEN, FLT_MAX}, {DOM_UNIFORM, 0, 4}},
     {{DOM_POSITIVE, DMIN_DEN, DBL_MAX}, {DOM_UNIFORM, 0, 4}}},
    {"erf",
     FPAR_MATH_erf,
     vm32_erf,
     vm64_erf,
     ref_erf,
     1.0,
     0,
     0,
     {{DOM_LOGMAG, 1e-30, 10}, {DOM_UNIFORM, -5, 5}},
     {{DOM_LOGMAG, 1e-300, 30}, {DOM_UNIFORM, -7, 7}}},
    {"tanh",
     FPAR_MATH_tanh,
     vm32_tanh,
     vm64_tanh,
     ref_tanh,
     1.0,
     0,
     0,
     {{DOM_LOGMAG, 1e-30, 20}, {DOM_UNIFORM, -10, 10}},
     {{DOM_LOGMAG, 1e-300, 40}, {DOM_UNIFORM, -20, 20}}},
};

#define MATH_ROWS ((int)COUNT(math_rows))

/* One random input of domain d (in double; float callers round it), y
 * for pow.  pow draws half its pairs with x log-uniform and y scaled to
 * the exponent budget, a quarter with x near 1 and large y, a quarter
 * with negative x and integer y; budgets a little beyond the format's
 * range also reach overflow, underflow and denormal results. */
static double sample(const domain *d, double *y) {
  double x, r;

  *y = 1;
  switch (d->kind) {
  case DOM_UNIFORM:
    return rng_uniform(d->lo, d->hi);
  case DOM_LOGMAG:
    return rng_sign(rng_logmag(d->lo, d->hi));
  case DOM_POSITIVE:
    return rng_logmag(d->lo, d->hi);
  case DOM_NEAR1:
    return 1 + rng_sign(rng_logmag(d->lo, d->hi));
  case DOM_POW:
    r = rng_unit();
    if (r < 0.5) {
      x = exp2(rng_uniform(-d->lo, d->lo));
      *y = rng_uniform(-1, 1) * d->hi / fmax(fabs(log2(x)), 1);
    } else if (r < 0.75) {
      x = rng_uniform(0.5, 2);
      *y = rng_uniform(-d->hi, d->hi);
    } else {
      x = -exp2(rng_uniform(-d->hi / 16, d->hi / 16));
      *y = rng_int(-15, 15);
    }
    return x;
  }
  return 0;
}

/* Inputs of special interest (the bulk adds to them): zeros, denormals,
 * the extremes, infinities, NaN, values near 1 for log, at the overflow
 * and underflow thresholds of exp and exp2, near multiples of pi/2, large
 * trigonometric arguments inside SLEEF's domain, and pow's corners. */
static const float special_f32[] = {
    0.0f,         -0.0f,        FLT_TRUE_MIN, -FLT_TRUE_MIN, FLT_MIN / 2,
    FLT_MIN,      -FLT_MIN,     FLT_MAX,      -FLT_MAX,      INFINITY,
    -INFINITY,    NAN,          1.0f,         -1.0f,         0.5f,
    -0.5f,        2.0f,         -2.0f,        3.0f,          -3.0f,
    1.0f / 3,     2.5f,         -2.5f,        -8.0f,         1 - 0x1p-24f,
    1 + 0x1p-23f, 1 - 0x1p-21f, 1 + 0x1p-20f, 1e6f,          -1e6f,
    1e10f,        -1e10f,       1e28f,        -1e28f,        3.14159274f,
    1.57079637f,  -4.71238899f, 88.7228394f,  88.7228241f,   -87.3365479f,
    -103.972076f, -104.0f,      127.0f,       128.0f,        -149.0f,
    -150.0f,      10.0f,        -10.0f,       0x1p-60f,      -0x1p-60f,
    4.0f,         9.0f};
static const double special_f64[] = {0.0,
                                     -0.0,
                                     DBL_TRUE_MIN,
                                     -DBL_TRUE_MIN,
                                     DBL_MIN / 2,
                                     DBL_MIN,
                                     -DBL_MIN,
                                     DBL_MAX,
                                     -DBL_MAX,
                                     INFINITY,
                                     -INFINITY,
                                     NAN,
                                     1.0,
                                     -1.0,
                                     0.5,
                                     -0.5,
                                     2.0,
                                     -2.0,
                                     3.0,
                                     -3.0,
                                     1.0 / 3,
                                     2.5,
                                     -2.5,
                                     -8.0,
                                     1 - 0x1p-53,
                                     1 + 0x1p-52,
                                     1 - 0x1p-50,
                                     1 + 0x1p-49,
                                     1e6,
                                     -1e6,
                                     1e22,
                                     -1e22,
                                     1e299,
                                     -1e299,
                                     3.141592653589793,
                                     1.5707963267948966,
                                     -4.71238898038469,
                                     709.782712893384,
                                     709.78271289338397,
                                     -708.3964185322641,
                                     -745.1332191019411,
                                     -746.0,
                                     1023.0,
                                     1024.0,
                                     -1074.0,
                                     -1075.0,
                                     10.0,
                                     -10.0,
                                     0x1p-500,
                                     -0x1p-500,
                                     4.0,
                                     9.0};

#define NSPECIAL32 ((int)COUNT(special_f32))
#define NSPECIAL64 ((int)COUNT(special_f64))

/* The worst error seen and where, over many lanes. */
typedef struct math_stats {
  double worst;
  long double x, y, r, ref;
  int lane;
  long checked;
} math_stats;

static void stats_add(math_stats *s, double err, long double x, long double y,
                      long double r, long double ref, int lane) {
  s->checked++;
  if (err > s->worst || (s->worst == 0 && s->checked == 1)) {
    s->worst = err;
    s->x = x, s->y = y, s->r = r, s->ref = ref, s->lane = lane;
  }
}

/* Whether the exact value ref is finite and in the top 2^-24 of the
 * format's range.  SLEEF 3.5's double exp and pow return +inf there
 * (their overflow thresholds are a little low); test_math_near_overflow
 * checks such results on its own, and the other tests leave them out so
 * that they keep checking everything else. */
static int near_overflow(long double ref, long double max) {
  return fabsl(ref) >= max * (1 - 0x1p-24L) && fabsl(ref) <= max;
}

/* Run W-lane calls of row's float function over n inputs (n a multiple
 * of W) and measure each lane, skipping arguments beyond SLEEF's domain. */
static void measure_f32(const math_row *row, const float *x, const float *y,
                        int n, math_stats *s) {
  for (int k = 0; k < n; k += W) {
    float out[W];

    row->vf32(out, x + k, y + k);
    for (int i = 0; i < W; i++) {
      long double ref = row->ref(x[k + i], y[k + i]);

      if ((row->max_arg32 == 0 || !(fabsf(x[k + i]) > row->max_arg32)) &&
          !near_overflow(ref, FLT_MAX))
        stats_add(s, ulp_error_f32(out[i], ref), x[k + i], y[k + i], out[i],
                  ref, i);
    }
  }
}

static void measure_f64(const math_row *row, const double *x, const double *y,
                        int n, math_stats *s) {
  for (int k = 0; k < n; k += W) {
    double out[W];

    row->vf64(out, x + k, y + k);
    for (int i = 0; i < W; i++) {
      long double ref = row->ref(x[k + i], y[k + i]);

      if ((row->max_arg64 == 0 || !(fabs(x[k + i]) > row->max_arg64)) &&
          !near_overflow(ref, DBL_MAX))
        stats_add(s, ulp_error_f64(out[i], ref), x[k + i], y[k + i], out[i],
                  ref, i);
    }
  }
}

static void stats_assert(const math_row *row, const char *type,
                         const char *inputs, const math_stats *s,
                         double bound) {
  if (getenv("FPAR_TEST_VERBOSE"))
    printf("W=%d %s %-5s %-8s worst %.4f ULP over %ld lanes at x=%La y=%La\n",
           W, type, row->name, inputs, s->worst, s->checked, s->x, s->y);
  EXPECT(s->worst <= bound,
         "%s %s (%s inputs): %.4f ULP > %.4f at x=%La y=%La lane %d: "
         "got %La, want %La",
         type, row->name, inputs, s->worst, bound, s->x, s->y, s->lane, s->r,
         s->ref);
}

/* Every function in float: the random inputs in order (so every lane
 * position sees them), then every special input in every lane position
 * (for pow, every pair of special inputs in every lane position). */
START_TEST(test_math_f32) {
  const math_row *row = &math_rows[_i];
  static float x[MATH_SAMPLES], y[MATH_SAMPLES];
  float sx[W], sy[W];
  math_stats bulk = {0}, spec = {0};
  int pairs = row->op == FPAR_MATH_pow ? NSPECIAL32 : 1;

  rng_seed(100 + (uint64_t)_i);
  for (int k = 0; k < MATH_SAMPLES; k++) {
    double dy, dx = sample(&row->d32[k % 2], &dy);

    x[k] = (float)dx, y[k] = (float)dy;
  }
  measure_f32(row, x, y, MATH_SAMPLES, &bulk);
  stats_assert(row, "f32", "random", &bulk, row->ulps + SLACK_F32);
  for (int a = 0; a < NSPECIAL32; a++)
    for (int b = 0; b < pairs; b++) {
      for (int i = 0; i < W; i++) {
        sx[i] = special_f32[(a + i) % NSPECIAL32];
        sy[i] = special_f32[(b + 3 * i) % NSPECIAL32];
      }
      measure_f32(row, sx, sy, W, &spec);
    }
  stats_assert(row, "f32", "special", &spec, row->ulps + SLACK_F32);
}
END_TEST

START_TEST(test_math_f64) {
  const math_row *row = &math_rows[_i];
  static double x[MATH_SAMPLES], y[MATH_SAMPLES];
  double sx[W], sy[W];
  math_stats bulk = {0}, spec = {0};
  int pairs = row->op == FPAR_MATH_pow ? NSPECIAL64 : 1;

  rng_seed(200 + (uint64_t)_i);
  for (int k = 0; k < MATH_SAMPLES; k++)
    x[k] = sample(&row->d64[k % 2], &y[k]);
  measure_f64(row, x, y, MATH_SAMPLES, &bulk);
  stats_assert(row, "f64", "random", &bulk, row->ulps + SLACK_F64);
  for (int a = 0; a < NSPECIAL64; a++)
    for (int b = 0; b < pairs; b++) {
      for (int i = 0; i < W; i++) {
        sx[i] = special_f64[(a + i) % NSPECIAL64];
        sy[i] = special_f64[(b + 3 * i) % NSPECIAL64];
      }
      measure_f64(row, sx, sy, W, &spec);
    }
  stats_assert(row, "f64", "special", &spec, row->ulps + SLACK_F64);
}
END_TEST

/* sqrt is correctly rounded: bit for bit libm's sqrtf and sqrt, which
 * IEEE 754 fixes, over random positive inputs of every binade. */
START_TEST(test_math_sqrt_exact) {
  rng_seed(300);
  for (int k = 0; k < MATH_SAMPLES / W; k++) {
    fpar_vf32 f, fr;
    fpar_vf64 d, dr;

    for (int i = 0; i < W; i++) {
      f[i] = (float)rng_logmag(FMIN_DEN, FLT_MAX);
      d[i] = rng_logmag(DMIN_DEN, DBL_MAX);
    }
    fr = fpar_vf32_sqrt(f);
    dr = fpar_vf64_sqrt(d);
    for (int i = 0; i < W; i++) {
      EXPECT(same_f32(fr[i], libm_sqrtf(f[i])), "vf32_sqrt(%a) = %a, want %a",
             (double)f[i], (double)fr[i], (double)libm_sqrtf(f[i]));
      EXPECT(same_f64(dr[i], libm_sqrt(d[i])), "vf64_sqrt(%a) = %a, want %a",
             d[i], dr[i], libm_sqrt(d[i]));
    }
  }
}
END_TEST

/* Results C99 Annex F (and IEEE 754 for rsqrt) fixes exactly: NaN for
 * NaN, the signed zeros and infinities, pow's special cases. */
typedef struct exact_case {
  fpar_math_op op;
  double x, y, want; /* want NaN: any NaN */
} exact_case;

static const exact_case exact_cases[] = {
    {FPAR_MATH_sin, 0.0, 0, 0.0},
    {FPAR_MATH_sin, -0.0, 0, -0.0},
    {FPAR_MATH_sin, INFINITY, 0, NAN},
    {FPAR_MATH_sin, -INFINITY, 0, NAN},
    {FPAR_MATH_sin, NAN, 0, NAN},
    {FPAR_MATH_cos, 0.0, 0, 1.0},
    {FPAR_MATH_cos, -0.0, 0, 1.0},
    {FPAR_MATH_cos, INFINITY, 0, NAN},
    {FPAR_MATH_cos, NAN, 0, NAN},
    {FPAR_MATH_tan, -0.0, 0, -0.0},
    {FPAR_MATH_tan, 0.0, 0, 0.0},
    {FPAR_MATH_tan, -INFINITY, 0, NAN},
    {FPAR_MATH_tan, NAN, 0, NAN},
    {FPAR_MATH_exp, -INFINITY, 0, 0.0},
    {FPAR_MATH_exp, INFINITY, 0, INFINITY},
    {FPAR_MATH_exp, 0.0, 0, 1.0},
    {FPAR_MATH_exp, -0.0, 0, 1.0},
    {FPAR_MATH_exp, NAN, 0, NAN},
    {FPAR_MATH_exp, 1e4, 0, INFINITY},
    {FPAR_MATH_exp, -1e4, 0, 0.0},
    {FPAR_MATH_exp2, -INFINITY, 0, 0.0},
    {FPAR_MATH_exp2, INFINITY, 0, INFINITY},
    {FPAR_MATH_exp2, 0.0, 0, 1.0},
    {FPAR_MATH_exp2, NAN, 0, NAN},
    {FPAR_MATH_exp2, 1e4, 0, INFINITY},
    {FPAR_MATH_exp2, -1e4, 0, 0.0},
    {FPAR_MATH_log, 0.0, 0, -INFINITY},
    {FPAR_MATH_log, -0.0, 0, -INFINITY},
    {FPAR_MATH_log, -1.0, 0, NAN},
    {FPAR_MATH_log, -INFINITY, 0, NAN},
    {FPAR_MATH_log, 1.0, 0, 0.0},
    {FPAR_MATH_log, INFINITY, 0, INFINITY},
    {FPAR_MATH_log, NAN, 0, NAN},
    {FPAR_MATH_log2, 0.0, 0, -INFINITY},
    {FPAR_MATH_log2, -0.0, 0, -INFINITY},
    {FPAR_MATH_log2, -1.0, 0, NAN},
    {FPAR_MATH_log2, 1.0, 0, 0.0},
    {FPAR_MATH_log2, INFINITY, 0, INFINITY},
    {FPAR_MATH_log2, NAN, 0, NAN},
    {FPAR_MATH_pow, 2.0, 0.0, 1.0},
    {FPAR_MATH_pow, -2.0, -0.0, 1.0},
    {FPAR_MATH_pow, NAN, 0.0, 1.0},
    {FPAR_MATH_pow, INFINITY, -0.0, 1.0},
    {FPAR_MATH_pow, 0.0, 0.0, 1.0},
    {FPAR_MATH_pow, 1.0, NAN, 1.0},
    {FPAR_MATH_pow, 1.0, INFINITY, 1.0},
    {FPAR_MATH_pow, 1.0, -INFINITY, 1.0},
    {FPAR_MATH_pow, -1.0, INFINITY, 1.0},
    {FPAR_MATH_pow, -1.0, -INFINITY, 1.0},
    {FPAR_MATH_pow, -8.0, 1.0 / 3, NAN},
    {FPAR_MATH_pow, -2.0, 0.5, NAN},
    {FPAR_MATH_pow, NAN, 1.0, NAN},
    {FPAR_MATH_pow, 2.0, NAN, NAN},
    {FPAR_MATH_pow, 0.0, -1.0, INFINITY},
    {FPAR_MATH_pow, -0.0, -1.0, -INFINITY},
    {FPAR_MATH_pow, -0.0, -2.0, INFINITY},
    {FPAR_MATH_pow, 0.0, -INFINITY, INFINITY},
    {FPAR_MATH_pow, 0.0, 3.0, 0.0},
    {FPAR_MATH_pow, -0.0, 3.0, -0.0},
    {FPAR_MATH_pow, -0.0, 2.0, 0.0},
    {FPAR_MATH_pow, -0.0, 0.5, 0.0},
    {FPAR_MATH_pow, 0.5, -INFINITY, INFINITY},
    {FPAR_MATH_pow, 2.0, -INFINITY, 0.0},
    {FPAR_MATH_pow, 0.5, INFINITY, 0.0},
    {FPAR_MATH_pow, 2.0, INFINITY, INFINITY},
    {FPAR_MATH_pow, -INFINITY, 3.0, -INFINITY},
    {FPAR_MATH_pow, -INFINITY, 2.0, INFINITY},
    {FPAR_MATH_pow, -INFINITY, -3.0, -0.0},
    {FPAR_MATH_pow, -INFINITY, -2.0, 0.0},
    {FPAR_MATH_pow, INFINITY, -1.0, 0.0},
    {FPAR_MATH_pow, INFINITY, 0.5, INFINITY},
    {FPAR_MATH_sqrt, -0.0, 0, -0.0},
    {FPAR_MATH_sqrt, 0.0, 0, 0.0},
    {FPAR_MATH_sqrt, -1.0, 0, NAN},
    {FPAR_MATH_sqrt, -INFINITY, 0, NAN},
    {FPAR_MATH_sqrt, INFINITY, 0, INFINITY},
    {FPAR_MATH_sqrt, NAN, 0, NAN},
    {FPAR_MATH_sqrt, 4.0, 0, 2.0},
    {FPAR_MATH_rsqrt, 0.0, 0, INFINITY},
    {FPAR_MATH_rsqrt, -0.0, 0, -INFINITY},
    {FPAR_MATH_rsqrt, INFINITY, 0, 0.0},
    {FPAR_MATH_rsqrt, -1.0, 0, NAN},
    {FPAR_MATH_rsqrt, NAN, 0, NAN},
    {FPAR_MATH_rsqrt, 4.0, 0, 0.5},
    {FPAR_MATH_erf, INFINITY, 0, 1.0},
    {FPAR_MATH_erf, -INFINITY, 0, -1.0},
    {FPAR_MATH_erf, 0.0, 0, 0.0},
    {FPAR_MATH_erf, -0.0, 0, -0.0},
    {FPAR_MATH_erf, NAN, 0, NAN},
    {FPAR_MATH_tanh, INFINITY, 0, 1.0},
    {FPAR_MATH_tanh, -INFINITY, 0, -1.0},
    {FPAR_MATH_tanh, 0.0, 0, 0.0},
    {FPAR_MATH_tanh, -0.0, 0, -0.0},
    {FPAR_MATH_tanh, NAN, 0, NAN},
};

static const math_row *row_of(fpar_math_op op) {
  for (int k = 0; k < MATH_ROWS; k++)
    if (math_rows[k].op == op)
      return &math_rows[k];
  ck_abort_msg("no row for op %d", (int)op);
  return NULL;
}

/* Each exact case in each lane position, the other lanes holding 1.5. */
START_TEST(test_math_exact_cases) {
  for (size_t c = 0; c < COUNT(exact_cases); c++) {
    const exact_case *e = &exact_cases[c];
    const math_row *row = row_of(e->op);

    for (int lane = 0; lane < W; lane++) {
      float fx[W], fy[W], fo[W];
      double dx[W], dy[W], dout[W];

      for (int i = 0; i < W; i++)
        fx[i] = fy[i] = 1.5f, dx[i] = dy[i] = 1.5;
      fx[lane] = (float)e->x, fy[lane] = (float)e->y;
      dx[lane] = e->x, dy[lane] = e->y;
      row->vf32(fo, fx, fy);
      row->vf64(dout, dx, dy);
      EXPECT(same_f32(fo[lane], (float)e->want),
             "f32 %s(%a, %a) lane %d = %a, want %a", row->name, e->x, e->y,
             lane, (double)fo[lane], e->want);
      EXPECT(same_f64(dout[lane], e->want),
             "f64 %s(%a, %a) lane %d = %a, want %a", row->name, e->x, e->y,
             lane, dout[lane], e->want);
    }
  }
}
END_TEST

/* Inputs whose results are finite and in the top binade, most of them
 * within 2^-24 of the largest finite value: a 1-ULP function returns a
 * finite value, not infinity. */
typedef struct edge_case {
  fpar_math_op op;
  double x, y;
} edge_case;

static const edge_case edge_f32[] = {
    {FPAR_MATH_exp, 88.7228317, 0},
    {FPAR_MATH_exp2, 127.999992, 0},
    {FPAR_MATH_exp2, 127.99999, 0},
    {FPAR_MATH_pow, FLT_MAX, 1 - 0x1p-24},
    {FPAR_MATH_pow, FLT_MAX, 1 - 0x1p-23},
    {FPAR_MATH_pow, 2, 127.999992},
};
static const edge_case edge_f64[] = {
    {FPAR_MATH_exp, 709.7827128933839, 0},
    {FPAR_MATH_exp, 709.782712893384, 0},
    {FPAR_MATH_exp, 709.7827128, 0},
    {FPAR_MATH_exp2, 1023.9999999999999, 0},
    {FPAR_MATH_exp2, 1023.99999999, 0},
    {FPAR_MATH_pow, DBL_MAX, 1 - 0x1p-53},
    {FPAR_MATH_pow, DBL_MAX, 1 - 0x1p-40},
    {FPAR_MATH_pow, DBL_MAX, 1 - 0x1p-30},
    {FPAR_MATH_pow, 2, 1023.9999999999999},
    {FPAR_MATH_pow, 2, 1023.99999999},
};

/* The result of a near-overflow case in one lane (1.5 in the others) and
 * its error in ULPs. */
static double edge_run(const edge_case *e, int dbl, int lane, double *r,
                       long double *ref) {
  const math_row *row = row_of(e->op);
  float fx[W], fy[W], fo[W];
  double dx[W], dy[W], dout[W];

  for (int i = 0; i < W; i++)
    fx[i] = fy[i] = 1.5f, dx[i] = dy[i] = 1.5;
  if (dbl) {
    dx[lane] = e->x, dy[lane] = e->y;
    row->vf64(dout, dx, dy);
    *ref = row->ref(e->x, e->y);
    *r = dout[lane];
    EXPECT(*ref >= DBL_MAX / 2 && *ref <= DBL_MAX, "ref %La", *ref);
    return ulp_error_f64(dout[lane], *ref);
  }
  fx[lane] = (float)e->x, fy[lane] = (float)e->y;
  row->vf32(fo, fx, fy);
  *ref = row->ref(fx[lane], fy[lane]);
  *r = fo[lane];
  EXPECT(*ref >= FLT_MAX / 2 && *ref <= FLT_MAX, "ref %La", *ref);
  return ulp_error_f32(fo[lane], *ref);
}

/* Each near-overflow case in each lane, in float and double, within the
 * bound or (double exp and pow, as documented) +inf; the failing cases are
 * reported together. */
START_TEST(test_math_near_overflow) {
  fail_log f = {.count = 0};

  for (size_t c = 0; c < COUNT(edge_f32) + COUNT(edge_f64); c++) {
    int dbl = c >= COUNT(edge_f32), bad = 0;
    const edge_case *e = dbl ? &edge_f64[c - COUNT(edge_f32)] : &edge_f32[c];
    double bound = row_of(e->op)->ulps + (dbl ? SLACK_F64 : SLACK_F32), r;
    long double ref;

    for (int lane = 0; lane < W; lane++) {
      double err = edge_run(e, dbl, lane, &r, &ref);
      /* Documented in simd.h: SLEEF 3.5's double exp and pow may give
       * +inf for results within 2^-16 (relative) of DBL_MAX. */
      int documented = dbl &&
                       (e->op == FPAR_MATH_exp || e->op == FPAR_MATH_pow) &&
                       isinf(r) && r > 0 && ref >= DBL_MAX * (1 - 0x1p-16L);
      bad += err > bound && !documented;
    }
    if (bad)
      fail_add(&f, "%s %s(%a, %a) = %a, want %La (in %d of %d lanes)",
               dbl ? "f64" : "f32", row_of(e->op)->name,
               dbl ? e->x : (double)(float)e->x,
               dbl ? e->y : (double)(float)e->y, r, ref, bad, W);
  }
  FAIL_LOG_ASSERT(f);
}
END_TEST

/* The relative error of fpar_vf32_rsqrt_fast at x against 1/sqrt(x). */
static double rsqrt_fast_error(float r, float x) {
  long double s = sqrtl(x);

  return (double)fabsl(((long double)r - 1.0L / s) * s);
}

/* fpar_vf32_rsqrt_fast over positive normal floats of every binade (and
 * powers of two, the estimate's edge cases): relative error at most 2^-21
 * after the Newton step, exactly 1/sqrt with one lane. */
START_TEST(test_rsqrt_fast) {
  double worst = 0, at = 0;

  rng_seed(301);
  for (int k = 0; k < MATH_SAMPLES / W; k++) {
    fpar_vf32 x, r;

    for (int i = 0; i < W; i++)
      x[i] = k % 8 == 0 ? ldexpf(1, rng_int(FLT_MIN_EXP - 1, FLT_MAX_EXP - 1))
                        : (float)rng_logmag(FLT_MIN, FLT_MAX);
    r = fpar_vf32_rsqrt_fast(x);
    for (int i = 0; i < W; i++) {
      double err = rsqrt_fast_error(r[i], x[i]);

      if (W == 1)
        EXPECT(same_f32(r[i], 1.0f / libm_sqrtf(x[i])),
               "rsqrt_fast(%a) = %a, not 1/sqrtf", (double)x[i], (double)r[i]);
      if (err > worst)
        worst = err, at = x[i];
    }
  }
  if (getenv("FPAR_TEST_VERBOSE"))
    printf("W=%d rsqrt_fast worst relative error 2^%.2f at %a\n", W,
           log2(worst), at);
  EXPECT(worst <= 0x1p-21, "rsqrt_fast: relative error %g (2^%.2f) at %a",
         worst, log2(worst), at);
}
END_TEST

/* fpar_vf32_rsqrt_fast at the edges of its domain, where 1/sqrt is exact
 * or representable: +-0 give +-inf, +inf gives +0, NaN and negative
 * numbers NaN, and denormals (whose reciprocal square roots are normal)
 * keep the 2^-21 relative error.  The one-lane build computes 1/sqrt and
 * gets all of them right; every width must. */
START_TEST(test_rsqrt_fast_edges) {
  static const float in[] = {0.0f,
                             -0.0f,
                             INFINITY,
                             NAN,
                             -1.0f,
                             FLT_TRUE_MIN,
                             3 * FLT_TRUE_MIN,
                             FLT_MIN / 2,
                             FLT_MIN / 3,
                             FLT_MIN - FLT_TRUE_MIN};
  static const float exact[] = {INFINITY, -INFINITY, 0.0f, NAN, NAN};
  fail_log f = {.count = 0};

  for (size_t k = 0; k < COUNT(in); k++) {
    int bad = 0;
    float got = 0;

    for (int lane = 0; lane < W; lane++) {
      fpar_vf32 x = fpar_vf32_splat(2), r;
      int ok;

      x[lane] = in[k];
      r = fpar_vf32_rsqrt_fast(x);
      ok = k < COUNT(exact) ? same_f32(r[lane], exact[k])
                            : rsqrt_fast_error(r[lane], in[k]) <= 0x1p-21;
      if (!ok)
        got = r[lane], bad++;
    }
    if (bad)
      fail_add(&f, "rsqrt_fast(%a) = %a, want %La (in %d of %d lanes)",
               (double)in[k], (double)got,
               k < COUNT(exact) ? (long double)exact[k] : 1 / sqrtl(in[k]), bad,
               W);
  }
  FAIL_LOG_ASSERT(f);
}
END_TEST

/* ---- The array API ------------------------------------------------------- */

/* A canary no function writes: a NaN with a payload. */
#define CANARY32 0x7fc0dea1u
#define CANARY64 0x7ff8deadbeef0001ull

/* fpar_math_f32 for every length 0..ARRAY_MAX (whole calls and tails of
 * whichever table the CPU gets), operands one element off a vector
 * boundary for odd n, y NULL for some unary calls: each element within
 * the row's bound of the reference, nothing written past out[n - 1]. */
START_TEST(test_math_array_f32) {
  const math_row *row = &math_rows[_i];
  float x[ARRAY_MAX + 1], y[ARRAY_MAX + 1], out[ARRAY_MAX + 4];
  math_stats s = {0};

  rng_seed(400 + (uint64_t)_i);
  for (int k = 0; k <= ARRAY_MAX; k++) {
    double dy, dx = sample(&row->d32[k % 2], &dy);

    x[k] = k % 11 == 5 ? special_f32[k % NSPECIAL32] : (float)dx;
    y[k] = (float)dy;
  }
  for (int n = 0; n <= ARRAY_MAX; n++) {
    int shift = n % 2;
    const float *yp = row->op == FPAR_MATH_pow || n % 3 != 0 ? y + shift : NULL;

    for (int k = 0; k < ARRAY_MAX + 4; k++)
      memcpy(&out[k], &(uint32_t){CANARY32}, sizeof(float));
    ck_assert_fpar_ok(fpar_math_f32(row->op, out, x + shift, yp, (size_t)n));
    for (int k = 0; k < n; k++) {
      float xi = x[shift + k], yi = yp ? yp[k] : xi;
      long double ref = row->ref(xi, yi);

      if ((row->max_arg32 == 0 || !(fabsf(xi) > row->max_arg32)) &&
          !near_overflow(ref, FLT_MAX))
        stats_add(&s, ulp_error_f32(out[k], ref), xi, yi, out[k], ref, k);
    }
    for (int k = n; k < ARRAY_MAX + 4; k++)
      EXPECT(f32_bits(out[k]) == CANARY32,
             "fpar_math_f32(%s, n=%d) wrote out[%d]", row->name, n, k);
  }
  stats_assert(row, "f32", "array", &s, row->ulps + SLACK_F32);
}
END_TEST

START_TEST(test_math_array_f64) {
  const math_row *row = &math_rows[_i];
  double x[ARRAY_MAX + 1], y[ARRAY_MAX + 1], out[ARRAY_MAX + 4];
  math_stats s = {0};

  rng_seed(500 + (uint64_t)_i);
  for (int k = 0; k <= ARRAY_MAX; k++) {
    double dx = sample(&row->d64[k % 2], &y[k]);

    x[k] = k % 11 == 5 ? special_f64[k % NSPECIAL64] : dx;
  }
  for (int n = 0; n <= ARRAY_MAX; n++) {
    int shift = n % 2;
    const double *yp =
        row->op == FPAR_MATH_pow || n % 3 != 0 ? y + shift : NULL;

    for (int k = 0; k < ARRAY_MAX + 4; k++)
      memcpy(&out[k], &(uint64_t){CANARY64}, sizeof(double));
    ck_assert_fpar_ok(fpar_math_f64(row->op, out, x + shift, yp, (size_t)n));
    for (int k = 0; k < n; k++) {
      double xi = x[shift + k], yi = yp ? yp[k] : xi;
      long double ref = row->ref(xi, yi);

      if ((row->max_arg64 == 0 || !(fabs(xi) > row->max_arg64)) &&
          !near_overflow(ref, DBL_MAX))
        stats_add(&s, ulp_error_f64(out[k], ref), xi, yi, out[k], ref, k);
    }
    for (int k = n; k < ARRAY_MAX + 4; k++)
      EXPECT(f64_bits(out[k]) == CANARY64,
             "fpar_math_f64(%s, n=%d) wrote out[%d]", row->name, n, k);
  }
  stats_assert(row, "f64", "array", &s, row->ulps + SLACK_F64);
}
END_TEST

/* Unknown operations and NULL arrays are FPAR_EINVAL and write nothing;
 * unary operations take y NULL. */
START_TEST(test_math_array_errors) {
  static const fpar_math_op bad_ops[] = {FPAR_MATH_COUNT,
                                         (fpar_math_op)(FPAR_MATH_COUNT + 1),
                                         (fpar_math_op)-1, (fpar_math_op)1000};
  float xf[4] = {1, 2, 3, 4}, of[4] = {0};
  double xd[4] = {1, 2, 3, 4}, od[4] = {0};

  for (size_t k = 0; k < COUNT(bad_ops); k++) {
    ck_assert_fpar_err(fpar_math_f32(bad_ops[k], of, xf, xf, 4), FPAR_EINVAL);
    ck_assert_fpar_err(fpar_math_f64(bad_ops[k], od, xd, xd, 4), FPAR_EINVAL);
    ck_assert_fpar_err(fpar_math_f32(bad_ops[k], of, xf, xf, 0), FPAR_EINVAL);
    ck_assert_fpar_err(fpar_math_f64(bad_ops[k], od, xd, xd, 0), FPAR_EINVAL);
  }
  for (int op = 0; op < FPAR_MATH_COUNT; op++) {
    ck_assert_fpar_err(fpar_math_f32(op, NULL, xf, xf, 4), FPAR_EINVAL);
    ck_assert_fpar_err(fpar_math_f32(op, of, NULL, xf, 4), FPAR_EINVAL);
    ck_assert_fpar_err(fpar_math_f64(op, NULL, xd, xd, 4), FPAR_EINVAL);
    ck_assert_fpar_err(fpar_math_f64(op, od, NULL, xd, 4), FPAR_EINVAL);
  }
  ck_assert_fpar_err(fpar_math_f32(FPAR_MATH_pow, of, xf, NULL, 4),
                     FPAR_EINVAL);
  ck_assert_fpar_err(fpar_math_f64(FPAR_MATH_pow, od, xd, NULL, 4),
                     FPAR_EINVAL);
  for (int k = 0; k < 4; k++)
    EXPECT_TRUE(of[k] == 0 && od[k] == 0);
  ck_assert_fpar_ok(fpar_math_f32(FPAR_MATH_sqrt, of, xf, NULL, 4));
  ck_assert_fpar_ok(fpar_math_f64(FPAR_MATH_sqrt, od, xd, NULL, 4));
  EXPECT_TRUE(of[3] == 2.0f && od[3] == 2.0);
}
END_TEST

/* fpar_math_isa names one of the four tables, the same one every time,
 * and never an instruction set this CPU lacks. */
START_TEST(test_math_isa) {
  const char *isa = fpar_math_isa();

  ck_assert_ptr_nonnull(isa);
  EXPECT(strcmp(isa, "avx512f") == 0 || strcmp(isa, "avx2") == 0 ||
             strcmp(isa, "sse2") == 0 || strcmp(isa, "scalar") == 0,
         "fpar_math_isa() = \"%s\"", isa);
  ck_assert_str_eq(fpar_math_isa(), isa);
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (strcmp(isa, "avx512f") == 0)
    EXPECT_TRUE(__builtin_cpu_supports("avx512f"));
  if (strcmp(isa, "avx2") == 0)
    EXPECT_TRUE(__builtin_cpu_supports("avx2") &&
                __builtin_cpu_supports("fma"));
#endif
}
END_TEST

/* ---- The suite ----------------------------------------------------------- */

static Suite *simd_suite(void) {
  Suite *s = suite_create("simd");
  TCase *tc;

  tc = fpar_test_case("construct");
  tcase_add_test(tc, test_splat_iota);
  tcase_add_test(tc, test_vmask_first);
  tcase_add_test(tc, test_vmask_first_huge);
  tcase_add_test(tc, test_mask_queries);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("arith");
  tcase_add_test(tc, test_f32_operators);
  tcase_add_test(tc, test_f64_operators);
  tcase_add_test(tc, test_select);
  tcase_add_test(tc, test_abs);
  tcase_add_test(tc, test_minmax);
  tcase_add_test(tc, test_fma);
  tcase_add_test(tc, test_conversions);
  tcase_add_test(tc, test_int_ops);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("memory");
  tcase_add_test_raise_signal(tc, test_guard_faults, SIGSEGV);
  tcase_add_test(tc, test_memory_f32);
  tcase_add_test(tc, test_memory_f64);
  tcase_add_test(tc, test_memory_i32);
  tcase_add_test(tc, test_memory_u32);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("reduce");
  tcase_add_test(tc, test_reduce_float);
  tcase_add_test(tc, test_reduce_int);
  tcase_add_test(tc, test_reduce_identities);
  tcase_add_test(tc, test_reduce_nan_loses);
  tcase_add_test(tc, test_reduce_signed_zeros);
  tcase_add_test(tc, test_reduce_all_nan);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("subgroup");
  tcase_add_test(tc, test_broadcast);
  tcase_add_test(tc, test_shuffle);
  tcase_add_test(tc, test_shuffle_xor);
  tcase_add_test(tc, test_shuffle_up_down);
  tcase_add_test(tc, test_scan_f32);
  tcase_add_test(tc, test_scan_i32);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("math");
  tcase_add_test(tc, test_ulp_measure);
  tcase_add_loop_test(tc, test_math_f32, 0, MATH_ROWS);
  tcase_add_loop_test(tc, test_math_f64, 0, MATH_ROWS);
  tcase_add_test(tc, test_math_sqrt_exact);
  tcase_add_test(tc, test_math_exact_cases);
  tcase_add_test(tc, test_math_near_overflow);
  tcase_add_test(tc, test_rsqrt_fast);
  tcase_add_test(tc, test_rsqrt_fast_edges);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("math_array");
  tcase_add_loop_test(tc, test_math_array_f32, 0, MATH_ROWS);
  tcase_add_loop_test(tc, test_math_array_f64, 0, MATH_ROWS);
  tcase_add_test(tc, test_math_array_errors);
  tcase_add_test(tc, test_math_isa);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  if (!fpar_test_cpu_runs_build())
    return 77;
  return fpar_test_run(simd_suite());
}
