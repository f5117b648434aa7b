/* SPDX-License-Identifier: MIT */
/** \file
 * fiberpar/simd.h - SIMD lanes: vector types, operations, SLEEF math,
 * sub-group operations and lane-form kernels.
 *
 * The lane count W (FPAR_SIMD_WIDTH) follows the instruction set of the
 * file that includes this header: 16 with AVX-512F, 8 with AVX2, 4 with
 * SSE2 (any x86-64), 1 elsewhere or when FPAR_SIMD_FORCE_SCALAR is defined.
 * Compile kernels with -march=native to get the machine's width.  Every
 * vector type has W lanes (fpar_vf64 spans two registers); a mask is an
 * fpar_vi32 whose lanes are -1 (on) or 0 (off).
 *
 * The vector types are GCC/Clang vector extensions: +, -, *, /, unary -,
 * &, |, ^, ~, <<, >> and the comparisons (which give a mask) work on them
 * directly, and v[i] reads lane i.
 *
 * Math (sin, cos, tan, exp, exp2, log, log2, pow, sqrt, rsqrt, erf, tanh)
 * goes through SLEEF's functions for the width's instruction set, with
 * SLEEF's 1-ULP accuracy (sqrt 0.5 ULP); rsqrt is 1/sqrt (at most 1.5 ULP)
 * and fpar_vf32_rsqrt_fast a hardware estimate refined by Newton (about
 * 2^-22 relative error).  Known limit of SLEEF 3.5: double exp and pow
 * may return +inf for results within 2^-16 (relative) of DBL_MAX (measured:
 * exp from about 2^-23, pow from about 2^-16.5 below it).
 */
#ifndef FIBERPAR_SIMD_H
#define FIBERPAR_SIMD_H

#include <fiberpar.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && !defined(FPAR_SIMD_FORCE_SCALAR)
#include <immintrin.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* GCC's notes on vector ABIs (-Wpsabi) are off inside this header: its
 * functions are inline and have no ABI. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

/** \def FPAR_SIMD_WIDTH
 *  W, the lanes of every vector type: 16 with AVX-512F, 8 with AVX2, 4
 *  with SSE2 (x86-64), 1 elsewhere or with FPAR_SIMD_FORCE_SCALAR, chosen
 *  by the flags of the including file. */
#if defined(FPAR_SIMD_FORCE_SCALAR)
#define FPAR_SIMD_WIDTH 1
#elif defined(__AVX512F__)
#define FPAR_SIMD_WIDTH 16
#elif defined(__AVX2__)
#define FPAR_SIMD_WIDTH 8
#elif defined(__SSE2__) && defined(__x86_64__)
#define FPAR_SIMD_WIDTH 4
#else
#define FPAR_SIMD_WIDTH 1
#endif

/** W lanes of float. */
typedef float fpar_vf32 __attribute__((vector_size(4 * FPAR_SIMD_WIDTH)));
/** W lanes of double (two registers' worth). */
typedef double fpar_vf64 __attribute__((vector_size(8 * FPAR_SIMD_WIDTH)));
/** W lanes of int32_t. */
typedef int32_t fpar_vi32 __attribute__((vector_size(4 * FPAR_SIMD_WIDTH)));
/** W lanes of uint32_t. */
typedef uint32_t fpar_vu32 __attribute__((vector_size(4 * FPAR_SIMD_WIDTH)));
typedef int64_t fpar__vi64 __attribute__((vector_size(8 * FPAR_SIMD_WIDTH)));
/** A mask: an fpar_vi32 whose lanes are -1 (on) or 0 (off). */
typedef fpar_vi32 fpar_vmask;

/* The same types at byte alignment, for loads and stores at any address.
 * A vector access may alias its element type only (GCC and Clang treat
 * vector types so), unlike memcpy, whose stores may alias anything:
 * through memcpy a kernel's store made the compiler reload every argument
 * of the kernel for the next sub-group. */
typedef float fpar__vf32_u
    __attribute__((vector_size(4 * FPAR_SIMD_WIDTH), aligned(1)));
typedef double fpar__vf64_u
    __attribute__((vector_size(8 * FPAR_SIMD_WIDTH), aligned(1)));
typedef int32_t fpar__vi32_u
    __attribute__((vector_size(4 * FPAR_SIMD_WIDTH), aligned(1)));
typedef uint32_t fpar__vu32_u
    __attribute__((vector_size(4 * FPAR_SIMD_WIDTH), aligned(1)));

#define FPAR__SIMD static inline __attribute__((always_inline))

/* The zero vector of type T.  Compound literals are an extension in C++:
 * __extension__ keeps -Wpedantic quiet there. */
#define FPAR__VZERO(T) (__extension__(T){0})

/* ---- Construction, loads and stores ------------------------------------ */

/** \brief Every lane x. \param x the value. \return the vector. */
FPAR__SIMD fpar_vf32 fpar_vf32_splat(float x) {
  return x - FPAR__VZERO(fpar_vf32);
}
/** \brief Every lane x. \param x the value. \return the vector. */
FPAR__SIMD fpar_vf64 fpar_vf64_splat(double x) {
  return x - FPAR__VZERO(fpar_vf64);
}
/** \brief Every lane x. \param x the value. \return the vector. */
FPAR__SIMD fpar_vi32 fpar_vi32_splat(int32_t x) {
  return x - FPAR__VZERO(fpar_vi32);
}
/** \brief Every lane x. \param x the value. \return the vector. */
FPAR__SIMD fpar_vu32 fpar_vu32_splat(uint32_t x) {
  return x - FPAR__VZERO(fpar_vu32);
}

/** \brief The lane indices 0, 1, ..., W-1. \return the vector. */
FPAR__SIMD fpar_vi32 fpar_vi32_iota(void) {
#if FPAR_SIMD_WIDTH == 1
  /* GCC 12 at -O1 takes the store into a lone lane for a read of an
   * uninitialized vector (-Wmaybe-uninitialized). */
  return FPAR__VZERO(fpar_vi32);
#else
  fpar_vi32 v;
  for (int i = 0; i < FPAR_SIMD_WIDTH; i++)
    v[i] = i;
  return v;
#endif
}

/** \brief Lanes 0..n-1 on, the others off. \param n active lanes.
 *  \return the mask. */
FPAR__SIMD fpar_vmask fpar_vmask_first(unsigned n) {
  return fpar_vi32_iota() <
         fpar_vi32_splat((int32_t)(n < FPAR_SIMD_WIDTH ? n : FPAR_SIMD_WIDTH));
}

/* Masked memory access in the instruction set's own instructions where it
 * has them (AVX-512: every element type; AVX2: 32-bit elements). */
#if FPAR_SIMD_WIDTH == 16
#define FPAR__MASK_BITS(m)                                                     \
  _mm512_cmpneq_epi32_mask((__m512i)(m), _mm512_setzero_si512())
#define FPAR__MASKED_LOAD32(T, p, m)                                           \
  return (T)_mm512_maskz_loadu_epi32(FPAR__MASK_BITS(m), (p))
#define FPAR__MASKED_STORE32(p, v, m)                                          \
  _mm512_mask_storeu_epi32((p), FPAR__MASK_BITS(m), (__m512i)(v))
#define FPAR__MASKED_GATHER32(T, base, idx, m)                                 \
  return (T)_mm512_mask_i32gather_epi32(                                       \
      _mm512_setzero_si512(), FPAR__MASK_BITS(m), (__m512i)(idx), (base), 4)
#elif FPAR_SIMD_WIDTH == 8
#define FPAR__MASKED_LOAD32(T, p, m)                                           \
  return (T)_mm256_maskload_ps((const float *)(p), (__m256i)(m))
#define FPAR__MASKED_STORE32(p, v, m)                                          \
  _mm256_maskstore_ps((float *)(p), (__m256i)(m), (__m256)(v))
#define FPAR__MASKED_GATHER32(T, base, idx, m)                                 \
  return (T)_mm256_mask_i32gather_ps(_mm256_setzero_ps(),                      \
                                     (const float *)(base), (__m256i)(idx),    \
                                     (__m256)(m), 4)
#endif

/* fpar_vf64 spans two registers under AVX-512, a vector GCC 12 keeps in
 * memory for loops over its lanes and stores through the stack: its
 * store, min, max and fma take its halves apart where the compiler can
 * (__builtin_shufflevector: GCC 12, Clang).  Measured on a Xeon, a
 * daxpy in L2 with fpar_vf64_fma: 0.46 ns per element before, 0.13
 * after, a plain `omp simd` loop 0.11. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define FPAR__SIMD_SPLITS_VF64 (FPAR_SIMD_WIDTH == 16)
#endif
#endif
#ifndef FPAR__SIMD_SPLITS_VF64
#define FPAR__SIMD_SPLITS_VF64 0
#endif

#if FPAR__SIMD_SPLITS_VF64
typedef double fpar__vf64_half __attribute__((vector_size(64)));
#define FPAR__VF64_LO(v)                                                       \
  ((__m512d)__builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7))
#define FPAR__VF64_HI(v)                                                       \
  ((__m512d)__builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15))
#define FPAR__VF64_JOIN(lo, hi)                                                \
  __builtin_shufflevector((fpar__vf64_half)(lo), (fpar__vf64_half)(hi), 0, 1,  \
                          2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#endif

/* Unaligned loads and stores, and masked ones that touch no memory for
 * lanes that are off (their loaded value is 0).  U is T at byte alignment;
 * ELEM32 selects the instruction-set path for 32-bit element types; STORE
 * stores v at p. */
#define FPAR__SIMD_STORE(U, p, v) (*(U *)(void *)(p) = (v))
#if FPAR__SIMD_SPLITS_VF64
#define FPAR__SIMD_STORE_VF64(U, p, v)                                         \
  (_mm512_storeu_pd((p), FPAR__VF64_LO(v)),                                    \
   _mm512_storeu_pd((p) + 8, FPAR__VF64_HI(v)))
#else
#define FPAR__SIMD_STORE_VF64 FPAR__SIMD_STORE
#endif
#define FPAR__SIMD_MEMORY(T, U, E, ELEM32, STORE)                              \
  /** \brief Load W elements (any alignment). \param p the first.              \
   *  \return the vector. */                                                   \
  FPAR__SIMD T T##_load(const E *p) {                                          \
    return *(const U *)(const void *)p;                                        \
  }                                                                            \
  /** \brief Store W elements (any alignment). \param p the first.             \
   *  \param v the vector. */                                                  \
  FPAR__SIMD void T##_store(E *p, T v) {                                       \
    STORE(U, p, v);                                                            \
  }                                                                            \
  /** \brief Load the lanes that are on; the others are 0 and their memory     \
   *  is not read. \param p lane 0's element. \param m the mask.               \
   *  \return the vector. */                                                   \
  FPAR__SIMD T T##_load_mask(const E *p, fpar_vmask m) {                       \
    FPAR__IF_ELEM32(ELEM32, FPAR__MASKED_LOAD32(T, p, m));                     \
    T v = {0};                                                                 \
    for (int i = 0; i < FPAR_SIMD_WIDTH; i++)                                  \
      if (m[i])                                                                \
        v[i] = p[i];                                                           \
    return v;                                                                  \
  }                                                                            \
  /** \brief Store the lanes that are on; the others' memory is not            \
   *  written. \param p lane 0's element. \param v the vector.                 \
   *  \param m the mask. */                                                    \
  FPAR__SIMD void T##_store_mask(E *p, T v, fpar_vmask m) {                    \
    FPAR__IF_ELEM32(ELEM32, {                                                  \
      FPAR__MASKED_STORE32(p, v, m);                                           \
      return;                                                                  \
    });                                                                        \
    for (int i = 0; i < FPAR_SIMD_WIDTH; i++)                                  \
      if (m[i])                                                                \
        p[i] = v[i];                                                           \
  }                                                                            \
  /** \brief Lane i reads base[idx[i]] where the mask is on (0 elsewhere).     \
   *  \param base the array. \param idx element indices. \param m the mask.    \
   *  \return the vector. */                                                   \
  FPAR__SIMD T T##_gather(const E *base, fpar_vi32 idx, fpar_vmask m) {        \
    FPAR__IF_ELEM32(ELEM32, FPAR__MASKED_GATHER32(T, base, idx, m));           \
    T v = {0};                                                                 \
    for (int i = 0; i < FPAR_SIMD_WIDTH; i++)                                  \
      if (m[i])                                                                \
        v[i] = base[idx[i]];                                                   \
    return v;                                                                  \
  }

/* FPAR__IF_ELEM32(1, code) is code where the instruction set has masked
 * 32-bit access, else nothing. */
#if FPAR_SIMD_WIDTH == 16 || FPAR_SIMD_WIDTH == 8
#define FPAR__IF_ELEM32(e, code) FPAR__IF_ELEM32_##e(code)
#define FPAR__IF_ELEM32_1(code) code
#define FPAR__IF_ELEM32_0(code)
#else
#define FPAR__IF_ELEM32(e, code)
#endif
FPAR__SIMD_MEMORY(fpar_vf32, fpar__vf32_u, float, 1, FPAR__SIMD_STORE)
FPAR__SIMD_MEMORY(fpar_vf64, fpar__vf64_u, double, 0, FPAR__SIMD_STORE_VF64)
FPAR__SIMD_MEMORY(fpar_vi32, fpar__vi32_u, int32_t, 1, FPAR__SIMD_STORE)
FPAR__SIMD_MEMORY(fpar_vu32, fpar__vu32_u, uint32_t, 1, FPAR__SIMD_STORE)

/* ---- Masks --------------------------------------------------------------- */

/* The mask as W bits, lane i in bit i. */
FPAR__SIMD unsigned fpar__vmask_bits(fpar_vmask m) {
#if FPAR_SIMD_WIDTH == 16
  unsigned bits = _mm512_cmpneq_epi32_mask((__m512i)m, _mm512_setzero_si512());
#if defined(__GNUC__) && !defined(__clang__)
  /* Through a general register: GCC 12 at -O1 with -fsanitize=thread or
   * -fsanitize=address spilled the mask with a 16-bit store and reloaded
   * it as the 64 bits of a sub-group ballot, upper bits garbage. */
  __asm__("" : "+r"(bits));
#endif
  return bits;
#elif FPAR_SIMD_WIDTH == 8
  return (unsigned)_mm256_movemask_ps((__m256)m);
#elif FPAR_SIMD_WIDTH == 4
  return (unsigned)_mm_movemask_ps((__m128)m);
#else
  return m[0] != 0;
#endif
}

/** \brief Whether any lane is on. \param m the mask. \return 0 or 1. */
FPAR__SIMD int fpar_vmask_any(fpar_vmask m) {
  return fpar__vmask_bits(m) != 0;
}
/** \brief Whether every lane is on. \param m the mask. \return 0 or 1. */
FPAR__SIMD int fpar_vmask_all(fpar_vmask m) {
  return fpar__vmask_bits(m) == (1u << FPAR_SIMD_WIDTH) - 1;
}
/** \brief Number of lanes on. \param m the mask. \return the count. */
FPAR__SIMD unsigned fpar_vmask_count(fpar_vmask m) {
  return (unsigned)__builtin_popcount(fpar__vmask_bits(m));
}

/* ---- Arithmetic beyond the operators ------------------------------------ */

/* fmin and fmax of two scalars, inline: a NaN loses to a number, and
 * equal operands (-0 and +0) give the first (C leaves the choice open;
 * glibc's x86-64 fminf/fmaxf give the second, which is why the tests
 * accept either zero against libm).  GCC 12 emits a call to libm for
 * __builtin_fminf unless -ffinite-math-only: sixteen calls for one
 * AVX-512 vector, where these compares vectorize to a compare, a masked
 * compare and a blend. */
#define FPAR__SIMD_FMIN_FMAX(E, t)                                             \
  FPAR__SIMD E fpar__##t##_fmin(E a, E b) {                                    \
    return b < a || __builtin_isnan(a) ? b : a;                                \
  }                                                                            \
  FPAR__SIMD E fpar__##t##_fmax(E a, E b) {                                    \
    return b > a || __builtin_isnan(a) ? b : a;                                \
  }
FPAR__SIMD_FMIN_FMAX(float, f32)
FPAR__SIMD_FMIN_FMAX(double, f64)

/* Lane-wise min, max and fma of whole vectors, which the public
 * operations below call: loops over the lanes, which GCC vectorizes, or
 * (AVX-512, 32-bit lanes) the instruction set's own instructions.  GCC 12
 * vectorizes a loop at the tuning's preferred width, 256 bits for every
 * Intel -march with AVX-512 (Skylake-AVX512 to Sapphire Rapids), and puts
 * the two halves of a 512-bit result together through the stack: a
 * store-forwarding stall in each operation, which made pathfinder's lane
 * form 1.4x slower than its OpenMP loop on an AVX-512 Xeon. */
#define FPAR__SIMD_LANE_MIN_MAX(T, P, FMIN, FMAX)                              \
  FPAR__SIMD T P##_min(T a, T b) {                                             \
    T r;                                                                       \
    for (int i = 0; i < FPAR_SIMD_WIDTH; i++)                                  \
      r[i] = FMIN(a[i], b[i]);                                                 \
    return r;                                                                  \
  }                                                                            \
  FPAR__SIMD T P##_max(T a, T b) {                                             \
    T r;                                                                       \
    for (int i = 0; i < FPAR_SIMD_WIDTH; i++)                                  \
      r[i] = FMAX(a[i], b[i]);                                                 \
    return r;                                                                  \
  }
#define FPAR__SIMD_LANE_FMA(T, P, FMA)                                         \
  FPAR__SIMD T P##_fma(T a, T b, T c) {                                        \
    T r;                                                                       \
    for (int i = 0; i < FPAR_SIMD_WIDTH; i++)                                  \
      r[i] = FMA(a[i], b[i], c[i]);                                            \
    return r;                                                                  \
  }
/* ?: of two integers, the integer loops' FMIN and FMAX. */
#define FPAR__SIMD_LESSER(a, b) ((a) < (b) ? (a) : (b))
#define FPAR__SIMD_GREATER(a, b) ((a) > (b) ? (a) : (b))

#if FPAR_SIMD_WIDTH == 16
/* Every lane of a masked operation: the unmasked integer min and max
 * leave their pass-through operand undefined, which GCC 12 reports as used
 * uninitialized in C++ (-Wuninitialized). */
#define FPAR__ALL_LANES ((__mmask16)0xffff)
/* The scalar fmin and fmax rule (fpar__f32_fmin, fpar__f64_fmin) on one
 * register of ps or pd lanes: b where `b cmp a` (_CMP_LT_OQ for fmin,
 * _CMP_GT_OQ for fmax) or a is NaN, else a.  A macro, since the compare
 * takes its predicate as an immediate. */
#define FPAR__AVX512_FMIN_FMAX(sfx, a, b, cmp)                                 \
  _mm512_mask_blend_##sfx(_mm512_cmp_##sfx##_mask((b), (a), (cmp)) |           \
                              _mm512_cmp_##sfx##_mask((a), (a), _CMP_UNORD_Q), \
                          (a), (b))
FPAR__SIMD fpar_vf32 fpar__vf32_lanes_min(fpar_vf32 a, fpar_vf32 b) {
  return (fpar_vf32)FPAR__AVX512_FMIN_FMAX(ps, (__m512)a, (__m512)b,
                                           _CMP_LT_OQ);
}
FPAR__SIMD fpar_vf32 fpar__vf32_lanes_max(fpar_vf32 a, fpar_vf32 b) {
  return (fpar_vf32)FPAR__AVX512_FMIN_FMAX(ps, (__m512)a, (__m512)b,
                                           _CMP_GT_OQ);
}
FPAR__SIMD fpar_vf32 fpar__vf32_lanes_fma(fpar_vf32 a, fpar_vf32 b,
                                          fpar_vf32 c) {
  return (fpar_vf32)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
}
FPAR__SIMD fpar_vi32 fpar__vi32_lanes_min(fpar_vi32 a, fpar_vi32 b) {
  return (fpar_vi32)_mm512_maskz_min_epi32(FPAR__ALL_LANES, (__m512i)a,
                                           (__m512i)b);
}
FPAR__SIMD fpar_vi32 fpar__vi32_lanes_max(fpar_vi32 a, fpar_vi32 b) {
  return (fpar_vi32)_mm512_maskz_max_epi32(FPAR__ALL_LANES, (__m512i)a,
                                           (__m512i)b);
}
FPAR__SIMD fpar_vu32 fpar__vu32_lanes_min(fpar_vu32 a, fpar_vu32 b) {
  return (fpar_vu32)_mm512_maskz_min_epu32(FPAR__ALL_LANES, (__m512i)a,
                                           (__m512i)b);
}
FPAR__SIMD fpar_vu32 fpar__vu32_lanes_max(fpar_vu32 a, fpar_vu32 b) {
  return (fpar_vu32)_mm512_maskz_max_epu32(FPAR__ALL_LANES, (__m512i)a,
                                           (__m512i)b);
}
#else
FPAR__SIMD_LANE_MIN_MAX(fpar_vf32, fpar__vf32_lanes, fpar__f32_fmin,
                        fpar__f32_fmax)
FPAR__SIMD_LANE_FMA(fpar_vf32, fpar__vf32_lanes, __builtin_fmaf)
FPAR__SIMD_LANE_MIN_MAX(fpar_vi32, fpar__vi32_lanes, FPAR__SIMD_LESSER,
                        FPAR__SIMD_GREATER)
FPAR__SIMD_LANE_MIN_MAX(fpar_vu32, fpar__vu32_lanes, FPAR__SIMD_LESSER,
                        FPAR__SIMD_GREATER)
#endif

#if FPAR__SIMD_SPLITS_VF64
/* fmin and fmax of 8 doubles, as fpar__f64_fmin and fpar__f64_fmax. */
FPAR__SIMD __m512d fpar__m512d_fmin(__m512d a, __m512d b) {
  return FPAR__AVX512_FMIN_FMAX(pd, a, b, _CMP_LT_OQ);
}
FPAR__SIMD __m512d fpar__m512d_fmax(__m512d a, __m512d b) {
  return FPAR__AVX512_FMIN_FMAX(pd, a, b, _CMP_GT_OQ);
}
FPAR__SIMD fpar_vf64 fpar__vf64_lanes_min(fpar_vf64 a, fpar_vf64 b) {
  return FPAR__VF64_JOIN(fpar__m512d_fmin(FPAR__VF64_LO(a), FPAR__VF64_LO(b)),
                         fpar__m512d_fmin(FPAR__VF64_HI(a), FPAR__VF64_HI(b)));
}
FPAR__SIMD fpar_vf64 fpar__vf64_lanes_max(fpar_vf64 a, fpar_vf64 b) {
  return FPAR__VF64_JOIN(fpar__m512d_fmax(FPAR__VF64_LO(a), FPAR__VF64_LO(b)),
                         fpar__m512d_fmax(FPAR__VF64_HI(a), FPAR__VF64_HI(b)));
}
FPAR__SIMD fpar_vf64 fpar__vf64_lanes_fma(fpar_vf64 a, fpar_vf64 b,
                                          fpar_vf64 c) {
  return FPAR__VF64_JOIN(
      _mm512_fmadd_pd(FPAR__VF64_LO(a), FPAR__VF64_LO(b), FPAR__VF64_LO(c)),
      _mm512_fmadd_pd(FPAR__VF64_HI(a), FPAR__VF64_HI(b), FPAR__VF64_HI(c)));
}
#else
FPAR__SIMD_LANE_MIN_MAX(fpar_vf64, fpar__vf64_lanes, fpar__f64_fmin,
                        fpar__f64_fmax)
FPAR__SIMD_LANE_FMA(fpar_vf64, fpar__vf64_lanes, __builtin_fma)
#endif

/* Lane i of the result is lane i ^ d of v (d a power of two below W): the
 * exchange of the min and max reductions' trees, one permute for a
 * constant d. */
#if defined(__clang__) || FPAR_SIMD_WIDTH == 1
#define FPAR__SIMD_SWAP(T, P, I)                                               \
  FPAR__SIMD T P##_swap(T v, int d) {                                          \
    T r;                                                                       \
    for (int i = 0; i < FPAR_SIMD_WIDTH; i++)                                  \
      r[i] = v[i ^ d];                                                         \
    return r;                                                                  \
  }
#else
#define FPAR__SIMD_SWAP(T, P, I)                                               \
  FPAR__SIMD T P##_swap(T v, int d) {                                          \
    return __builtin_shuffle(                                                  \
        v, __builtin_convertvector(fpar_vi32_iota() ^ d, I));                  \
  }
#endif
FPAR__SIMD_SWAP(fpar_vf32, fpar__vf32, fpar_vi32)
FPAR__SIMD_SWAP(fpar_vf64, fpar__vf64, fpar__vi64)
FPAR__SIMD_SWAP(fpar_vi32, fpar__vi32, fpar_vi32)
FPAR__SIMD_SWAP(fpar_vu32, fpar__vu32, fpar_vu32)
#undef FPAR__SIMD_SWAP

/* What the lanes that are off hold in a float min or max reduction or
 * scan: NaN, which the fmin rule passes over.  Under -ffinite-math-only
 * the compilers fold that rule's NaN test away, and a NaN would win:
 * there the infinity that loses to every value (and no NaN can occur). */
#if defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__
#define FPAR__FMIN_FILL(E) ((E)__builtin_inf())
#define FPAR__FMAX_FILL(E) (-(E)__builtin_inf())
#else
#define FPAR__FMIN_FILL(E) ((E)__builtin_nan(""))
#define FPAR__FMAX_FILL(E) ((E)__builtin_nan(""))
#endif

/* v with lane 0 holding OP of all its lanes in lane order: log2(W) steps,
 * step d combining lane i with lane i + d (i ^ d) for the lanes i that
 * are multiples of 2d, so that each combines two neighbouring runs, the
 * earlier first.  For an associative OP (min and max, also the fmin and
 * fmax rule with its first-of-equals and NaN-loses) lane 0 is then the
 * left-to-right fold, in four permutes and four OPs at W = 16 instead of
 * fifteen dependent scalar steps and their branches (a branch per lane
 * that random data mispredicts: 57 ns per AVX-512 vector, AMD Zen 5).
 * Unrolled for the reason fpar_vT_scan_add says. */
#define FPAR__SIMD_TREE(v, P, OP)                                              \
  _Pragma("GCC unroll 4") for (int d = 1; d < FPAR_SIMD_WIDTH; d *= 2) {       \
    v = OP(v, P##_swap(v, d));                                                 \
  }

/* select, abs, min, max (IEEE fmin/fmax: a NaN loses to a number), fma
 * (one rounding), and horizontal reductions over the lanes that are on. */
#define FPAR__SIMD_FLOAT_OPS(T, E, I, P, MAGNITUDE)                            \
  /** \brief a where the mask is on, else b. \param m the mask.                \
   *  \param a on value. \param b off value. \return the blend. */             \
  FPAR__SIMD T T##_select(fpar_vmask m, T a, T b) {                            \
    I mm = __builtin_convertvector(m, I);                                      \
    return (T)(((I)a & mm) | ((I)b & ~mm));                                    \
  }                                                                            \
  /** \brief |v|. \param v the vector. \return its magnitude. */               \
  FPAR__SIMD T T##_abs(T v) {                                                  \
    return (T)((I)v & (FPAR__VZERO(I) + MAGNITUDE));                           \
  }                                                                            \
  /** \brief Lane-wise fmin. \param a a vector. \param b a vector.             \
   *  \return the minima. */                                                   \
  FPAR__SIMD T T##_min(T a, T b) {                                             \
    return P##_lanes_min(a, b);                                                \
  }                                                                            \
  /** \brief Lane-wise fmax. \param a a vector. \param b a vector.             \
   *  \return the maxima. */                                                   \
  FPAR__SIMD T T##_max(T a, T b) {                                             \
    return P##_lanes_max(a, b);                                                \
  }                                                                            \
  /** \brief a * b + c with one rounding. \param a factor. \param b factor.    \
   *  \param c addend. \return the result. */                                  \
  FPAR__SIMD T T##_fma(T a, T b, T c) {                                        \
    return P##_lanes_fma(a, b, c);                                             \
  }                                                                            \
  /** \brief Sum of the lanes that are on (0 if none). \param v the vector.    \
   *  \param m the mask. \return the sum. */                                   \
  FPAR__SIMD E T##_reduce_add(T v, fpar_vmask m) {                             \
    E s = 0;                                                                   \
    for (int i = 0; i < FPAR_SIMD_WIDTH; i++)                                  \
      if (m[i])                                                                \
        s += v[i];                                                             \
    return s;                                                                  \
  }                                                                            \
  /** \brief fmin of the lanes that are on (+inf if none; NaN if all are       \
   *  NaN).                                                                    \
   *  \param v the vector. \param m the mask. \return the minimum. */          \
  FPAR__SIMD E T##_reduce_min(T v, fpar_vmask m) {                             \
    T s = T##_select(m, v, T##_splat(FPAR__FMIN_FILL(E)));                     \
    FPAR__SIMD_TREE(s, P, P##_lanes_min)                                       \
    return fpar_vmask_any(m) ? s[0] : (E)__builtin_inf();                      \
  }                                                                            \
  /** \brief fmax of the lanes that are on (-inf if none; NaN if all are       \
   *  NaN).                                                                    \
   *  \param v the vector. \param m the mask. \return the maximum. */          \
  FPAR__SIMD E T##_reduce_max(T v, fpar_vmask m) {                             \
    T s = T##_select(m, v, T##_splat(FPAR__FMAX_FILL(E)));                     \
    FPAR__SIMD_TREE(s, P, P##_lanes_max)                                       \
    return fpar_vmask_any(m) ? s[0] : -(E)__builtin_inf();                     \
  }
FPAR__SIMD_FLOAT_OPS(fpar_vf32, float, fpar_vi32, fpar__vf32, 0x7fffffff)
FPAR__SIMD_FLOAT_OPS(fpar_vf64, double, fpar__vi64, fpar__vf64,
                     0x7fffffffffffffffll)

/* Integer select, abs, min, max and reductions.  min and max are loops of
 * ?: over the lanes, which GCC 12 turns into one vpminsd/vpmaxsd (SSE4.1,
 * AVX2), or AVX-512's own (see FPAR__SIMD_LANE_MIN_MAX); a select of a
 * comparison became a compare and two masked XORs under AVX-512, where
 * comparisons give mask registers. */
#define FPAR__SIMD_INT_OPS(T, E, P)                                            \
  /** \brief a where the mask is on, else b. \param m the mask.                \
   *  \param a on value. \param b off value. \return the blend. */             \
  FPAR__SIMD T T##_select(fpar_vmask m, T a, T b) {                            \
    return (a & (T)m) | (b & ~(T)m);                                           \
  }                                                                            \
  /** \brief Lane-wise minimum. \param a a vector. \param b a vector.          \
   *  \return the minima. */                                                   \
  FPAR__SIMD T T##_min(T a, T b) {                                             \
    return P##_lanes_min(a, b);                                                \
  }                                                                            \
  /** \brief Lane-wise maximum. \param a a vector. \param b a vector.          \
   *  \return the maxima. */                                                   \
  FPAR__SIMD T T##_max(T a, T b) {                                             \
    return P##_lanes_max(a, b);                                                \
  }                                                                            \
  /** \brief Sum of the lanes that are on (wrapping). \param v the vector.     \
   *  \param m the mask. \return the sum. */                                   \
  FPAR__SIMD E T##_reduce_add(T v, fpar_vmask m) {                             \
    uint32_t s = 0;                                                            \
    for (int i = 0; i < FPAR_SIMD_WIDTH; i++)                                  \
      if (m[i])                                                                \
        s += (uint32_t)v[i];                                                   \
    return (E)s;                                                               \
  }                                                                            \
  /** \brief Minimum of the lanes that are on (the type's maximum if none).    \
   *  \param v the vector. \param m the mask. \return the minimum. */          \
  FPAR__SIMD E T##_reduce_min(T v, fpar_vmask m) {                             \
    /* Lanes that are off hold the type's maximum. */                          \
    T s = T##_select(m, v,                                                     \
                     T##_splat((E) ~(E)0 > 0 ? (E) ~(E)0 : (E)((~0u) >> 1)));  \
    FPAR__SIMD_TREE(s, P, P##_lanes_min)                                       \
    return s[0];                                                               \
  }                                                                            \
  /** \brief Maximum of the lanes that are on (the type's minimum if none).    \
   *  \param v the vector. \param m the mask. \return the maximum. */          \
  FPAR__SIMD E T##_reduce_max(T v, fpar_vmask m) {                             \
    T s = T##_select(m, v, T##_splat((E) ~(E)0 > 0 ? (E)0 : (E)(1u << 31)));   \
    FPAR__SIMD_TREE(s, P, P##_lanes_max)                                       \
    return s[0];                                                               \
  }
FPAR__SIMD_INT_OPS(fpar_vi32, int32_t, fpar__vi32)
FPAR__SIMD_INT_OPS(fpar_vu32, uint32_t, fpar__vu32)

/** \brief |v| (wrapping at INT32_MIN). \param v the vector.
 *  \return the magnitudes. */
FPAR__SIMD fpar_vi32 fpar_vi32_abs(fpar_vi32 v) {
  return fpar_vi32_select(v < 0, (fpar_vi32)(-(fpar_vu32)v), v);
}

/** \brief Convert lanes. \param v the vector. \return the converted one. */
FPAR__SIMD fpar_vf32 fpar_vf32_from_vi32(fpar_vi32 v) {
  return __builtin_convertvector(v, fpar_vf32);
}
/** \brief Convert lanes, truncating. \param v the vector.
 *  \return the converted one. */
FPAR__SIMD fpar_vi32 fpar_vi32_from_vf32(fpar_vf32 v) {
  return __builtin_convertvector(v, fpar_vi32);
}
/** \brief Widen lanes. \param v the vector. \return the converted one. */
FPAR__SIMD fpar_vf64 fpar_vf64_from_vf32(fpar_vf32 v) {
  return __builtin_convertvector(v, fpar_vf64);
}
/** \brief Narrow lanes (rounding). \param v the vector.
 *  \return the converted one. */
FPAR__SIMD fpar_vf32 fpar_vf32_from_vf64(fpar_vf64 v) {
  return __builtin_convertvector(v, fpar_vf32);
}
/** \brief Compare doubles into an fpar_vmask. \param a a vector.
 *  \param b a vector. \return a < b per lane. */
FPAR__SIMD fpar_vmask fpar_vf64_lt(fpar_vf64 a, fpar_vf64 b) {
  return __builtin_convertvector(a < b, fpar_vi32);
}

/* ---- Math through SLEEF -------------------------------------------------- */

/** The math functions: XX(name, arity). */
#define FPAR_MATH_OPS(XX)                                                      \
  XX(sin, 1)                                                                   \
  XX(cos, 1)                                                                   \
  XX(tan, 1)                                                                   \
  XX(exp, 1)                                                                   \
  XX(exp2, 1)                                                                  \
  XX(log, 1)                                                                   \
  XX(log2, 1)                                                                  \
  XX(pow, 2)                                                                   \
  XX(sqrt, 1)                                                                  \
  XX(rsqrt, 1)                                                                 \
  XX(erf, 1)                                                                   \
  XX(tanh, 1)

/** Math operations of fpar_math_f32() / fpar_math_f64(). */
typedef enum fpar_math_op {
#define FPAR__MATH_ENUM(name, arity) FPAR_MATH_##name,
  FPAR_MATH_OPS(FPAR__MATH_ENUM)
#undef FPAR__MATH_ENUM
      FPAR_MATH_COUNT
} fpar_math_op;

/**
 * \brief out[i] = op(x[i]) (or op(x[i], y[i]) for pow) for i < n, with the
 *        widest vector unit of this CPU (chosen at run time).
 * \param op the operation.
 * \param out results.
 * \param x first operands.
 * \param y second operands for pow, else ignored (may be NULL).
 * \param n elements.
 * \return 0, or FPAR_EINVAL for an unknown op or NULL arrays.
 */
FPAR_EXTERN int fpar_math_f32(fpar_math_op op, float *out, const float *x,
                              const float *y, size_t n);
/** \brief fpar_math_f32() in double precision. \param op the operation.
 *  \param out results. \param x first operands. \param y second operands
 *  (pow). \param n elements. \return 0 or FPAR_EINVAL. */
FPAR_EXTERN int fpar_math_f64(fpar_math_op op, double *out, const double *x,
                              const double *y, size_t n);
/** \brief The instruction set fpar_math_f32() uses on this CPU.
 *  \return "avx512f", "avx2", "sse2" or "scalar". */
FPAR_EXTERN const char *fpar_math_isa(void);
/** \brief The lanes (elements per vector call) of the instruction set
 *         fpar_math_isa() names, as FPAR_SIMD_WIDTH is for code built with
 *         it.
 *  \return 16 (avx512f), 8 (avx2), 4 (sse2) or 1 (scalar). */
FPAR_EXTERN unsigned fpar_math_lanes(void);

/**
 * The width-specific entry points behind the lane math below, part of the
 * library's interface: for each operation NAME of FPAR_MATH_OPS, T f32 or
 * f64 and W 1, 4, 8 or 16,
 *
 *     void fpar_vm_NAME_T_xW(T *out, const T *x, const T *y);
 *
 * computes out[i] = NAME(x[i]) (pow: NAME(x[i], y[i]); y is ignored by the
 * others and may be NULL) for i < W, with SLEEF's code for the instruction
 * set of that width (x16: AVX-512F, x8: AVX2, x4: SSE2, x1: plain C) at
 * the accuracy stated above.  Call a width only on a CPU that has its
 * instruction set (fpar_math_isa()); the lane functions of this header
 * call the width they were compiled for.
 */
#define FPAR__VM_NAME(name, t, w) FPAR__VM_NAME_(name, t, w)
#define FPAR__VM_NAME_(name, t, w) fpar_vm_##name##_##t##_x##w
#define FPAR__VM_DECLARE(name, arity)                                          \
  FPAR_EXTERN void FPAR__VM_NAME(name, f32, FPAR_SIMD_WIDTH)(                  \
      float *out, const float *x, const float *y);                             \
  FPAR_EXTERN void FPAR__VM_NAME(name, f64, FPAR_SIMD_WIDTH)(                  \
      double *out, const double *x, const double *y);
FPAR_MATH_OPS(FPAR__VM_DECLARE)
#undef FPAR__VM_DECLARE

/* The math functions are statement expressions rather than inline
 * functions: lane vectors wider than the vector registers would be passed
 * in memory, which GCC remarks on at every function that does it. */
#define FPAR__VM_CALL(name, t, T, E, x, y)                                     \
  __extension__({                                                              \
    T fpar_vm_x_ = (x), fpar_vm_y_ = (y), fpar_vm_r_;                          \
    FPAR__VM_NAME(name, t, FPAR_SIMD_WIDTH)                                    \
    ((E *)&fpar_vm_r_, (const E *)&fpar_vm_x_, (const E *)&fpar_vm_y_);        \
    fpar_vm_r_;                                                                \
  })
#define FPAR__VF32(name, x, y) FPAR__VM_CALL(name, f32, fpar_vf32, float, x, y)
#define FPAR__VF64(name, x, y) FPAR__VM_CALL(name, f64, fpar_vf64, double, x, y)

/* Lane-wise math through SLEEF: each lane of the result is the function
 * of the same lanes of the operands, at the accuracy stated at the top of
 * this header. */
/** \brief sin(x) in each lane (float). */
#define fpar_vf32_sin(x) FPAR__VF32(sin, (x), (x))
/** \brief cos(x) in each lane (float). */
#define fpar_vf32_cos(x) FPAR__VF32(cos, (x), (x))
/** \brief tan(x) in each lane (float). */
#define fpar_vf32_tan(x) FPAR__VF32(tan, (x), (x))
/** \brief exp(x) in each lane (float). */
#define fpar_vf32_exp(x) FPAR__VF32(exp, (x), (x))
/** \brief exp2(x) in each lane (float). */
#define fpar_vf32_exp2(x) FPAR__VF32(exp2, (x), (x))
/** \brief log(x) in each lane (float). */
#define fpar_vf32_log(x) FPAR__VF32(log, (x), (x))
/** \brief log2(x) in each lane (float). */
#define fpar_vf32_log2(x) FPAR__VF32(log2, (x), (x))
/** \brief pow(x, y) in each lane (float). */
#define fpar_vf32_pow(x, y) FPAR__VF32(pow, (x), (y))
/** \brief sqrt(x) in each lane (float). */
#define fpar_vf32_sqrt(x) fpar__vf32_sqrt_inline(x)
/** \brief 1/sqrt(x) in each lane (float). */
#define fpar_vf32_rsqrt(x) (1.0f / fpar__vf32_sqrt_inline(x))
/** \brief erf(x) in each lane (float). */
#define fpar_vf32_erf(x) FPAR__VF32(erf, (x), (x))
/** \brief tanh(x) in each lane (float). */
#define fpar_vf32_tanh(x) FPAR__VF32(tanh, (x), (x))
/** \brief sin(x) in each lane (double). */
#define fpar_vf64_sin(x) FPAR__VF64(sin, (x), (x))
/** \brief cos(x) in each lane (double). */
#define fpar_vf64_cos(x) FPAR__VF64(cos, (x), (x))
/** \brief tan(x) in each lane (double). */
#define fpar_vf64_tan(x) FPAR__VF64(tan, (x), (x))
/** \brief exp(x) in each lane (double). */
#define fpar_vf64_exp(x) FPAR__VF64(exp, (x), (x))
/** \brief exp2(x) in each lane (double). */
#define fpar_vf64_exp2(x) FPAR__VF64(exp2, (x), (x))
/** \brief log(x) in each lane (double). */
#define fpar_vf64_log(x) FPAR__VF64(log, (x), (x))
/** \brief log2(x) in each lane (double). */
#define fpar_vf64_log2(x) FPAR__VF64(log2, (x), (x))
/** \brief pow(x, y) in each lane (double). */
#define fpar_vf64_pow(x, y) FPAR__VF64(pow, (x), (y))
/** \brief sqrt(x) in each lane (double). */
#define fpar_vf64_sqrt(x) FPAR__VF64(sqrt, (x), (x))
/** \brief 1/sqrt(x) in each lane (double). */
#define fpar_vf64_rsqrt(x) FPAR__VF64(rsqrt, (x), (x))
/** \brief erf(x) in each lane (double). */
#define fpar_vf64_erf(x) FPAR__VF64(erf, (x), (x))
/** \brief tanh(x) in each lane (double). */
#define fpar_vf64_tanh(x) FPAR__VF64(tanh, (x), (x))

/* sqrt is exactly rounded in hardware, as SLEEF's u05 sqrt: the inline
 * instruction gives the same results without a call. */
FPAR__SIMD fpar_vf32 fpar__vf32_sqrt_inline(fpar_vf32 x) {
#if FPAR_SIMD_WIDTH == 16
  return (fpar_vf32)_mm512_sqrt_ps((__m512)x);
#elif FPAR_SIMD_WIDTH == 8
  return (fpar_vf32)_mm256_sqrt_ps((__m256)x);
#elif FPAR_SIMD_WIDTH == 4
  return (fpar_vf32)_mm_sqrt_ps((__m128)x);
#else
  return FPAR__VF32(sqrt, x, x);
#endif
}

/** \brief Approximate 1/sqrt(x) in registers: the hardware estimate and
 *  one Newton step (about 2^-22 relative error) for normal x up to 2^127;
 *  exact 1/sqrt for other inputs and where the build has no estimate
 *  instruction.  \param x the operand.
 *  \return the estimates. */
FPAR__SIMD fpar_vf32 fpar_vf32_rsqrt_fast(fpar_vf32 x) {
#if FPAR_SIMD_WIDTH == 16
  fpar_vf32 y = (fpar_vf32)_mm512_rsqrt14_ps((__m512)x);
#elif FPAR_SIMD_WIDTH == 8
  fpar_vf32 y = (fpar_vf32)_mm256_rsqrt_ps((__m256)x);
#elif FPAR_SIMD_WIDTH == 4
  fpar_vf32 y = (fpar_vf32)_mm_rsqrt_ps((__m128)x);
#else
  fpar_vf32 y = fpar_vf32_splat(1.0f / __builtin_sqrtf(x[0]));
  return y;
#endif
#if FPAR_SIMD_WIDTH > 1
  y = y * (1.5f - 0.5f * x * y * y);
  {
    /* Zeros, infinities, NaN and denormals are outside the estimate's
     * range: those lanes get the exact 1/sqrt. */
    fpar_vmask normal = (x >= 0x1p-126f) & (x <= 0x1p127f);
    if (!fpar_vmask_all(normal))
      y = fpar_vf32_select(normal, y, 1.0f / fpar__vf32_sqrt_inline(x));
  }
  return y;
#endif
}

/* ---- Sub-group operations (lanes of one register) ------------------------ */

/** \brief Lane i gets v[idx[i] mod W]. \param v the vector.
 *  \param idx source lanes. \return the permutation. */
FPAR__SIMD fpar_vf32 fpar_vf32_shuffle(fpar_vf32 v, fpar_vi32 idx) {
#if defined(__clang__) || FPAR_SIMD_WIDTH == 1
  fpar_vf32 r;
  for (int i = 0; i < FPAR_SIMD_WIDTH; i++)
    r[i] = v[idx[i] & (FPAR_SIMD_WIDTH - 1)];
  return r;
#else
  return __builtin_shuffle(v, idx);
#endif
}
/** \brief Lane i gets v[idx[i] mod W]. \param v the vector.
 *  \param idx source lanes. \return the permutation. */
FPAR__SIMD fpar_vi32 fpar_vi32_shuffle(fpar_vi32 v, fpar_vi32 idx) {
  return (fpar_vi32)fpar_vf32_shuffle((fpar_vf32)v, idx);
}

/* broadcast, shuffle_xor, shuffle_up/down and scans for one element type;
 * ADD is its lane-vector addition; in a min or max scan a lane that is off
 * holds MIN_FILL or MAX_FILL, and MIN_ID and MAX_ID are the results over
 * no lanes. */
#define FPAR__SIMD_SUBGROUP(T, E, SHUF, ADD, MIN_FILL, MIN_ID, MAX_FILL,       \
                            MAX_ID)                                            \
  /** \brief Every lane gets v[lane]. \param v the vector.                     \
   *  \param lane 0..W-1. \return the broadcast. */                            \
  FPAR__SIMD T T##_broadcast(T v, unsigned lane) {                             \
    return v[lane] - FPAR__VZERO(T);                                           \
  }                                                                            \
  /** \brief Lane i gets v[i ^ mask]. \param v the vector.                     \
   *  \param mask lane-index bits to flip. \return the exchange. */            \
  FPAR__SIMD T T##_shuffle_xor(T v, unsigned mask) {                           \
    return SHUF(v, fpar_vi32_iota() ^ (int32_t)mask);                          \
  }                                                                            \
  /** \brief Lane i gets v[i - delta]; lanes below delta keep their own.       \
   *  \param v the vector. \param delta the shift. \return the shifted. */     \
  FPAR__SIMD T T##_shuffle_up(T v, unsigned delta) {                           \
    fpar_vi32 i = fpar_vi32_iota(), src = i - (int32_t)delta;                  \
    return T##_select(src >= 0, SHUF(v, src), v);                              \
  }                                                                            \
  /** \brief Lane i gets v[i + delta]; lanes from W - delta keep their own.    \
   *  \param v the vector. \param delta the shift. \return the shifted. */     \
  FPAR__SIMD T T##_shuffle_down(T v, unsigned delta) {                         \
    fpar_vi32 i = fpar_vi32_iota(), src = i + (int32_t)delta;                  \
    return T##_select(src < FPAR_SIMD_WIDTH, SHUF(v, src), v);                 \
  }                                                                            \
  /** \brief Inclusive prefix sum over the lanes that are on (off lanes        \
   *  add 0 and get the running value). \param v the vector.                   \
   *  \param m the mask. \return the scan. */                                  \
  FPAR__SIMD T T##_scan_add(T v, fpar_vmask m) {                               \
    v = T##_select(m, v, FPAR__VZERO(T));                                      \
    /* Unrolled (log2 of the widest W steps), so that each step's shift is     \
     * a constant: at -O2 GCC 12 keeps the loop, and every step then builds    \
     * its shuffle's indices and mask at run time, four times the work. */     \
    _Pragma("GCC unroll 4") for (int d = 1; d < FPAR_SIMD_WIDTH; d *= 2) {     \
      v = ADD(v, T##_select(fpar_vi32_iota() >= d, T##_shuffle_up(v, d),       \
                            FPAR__VZERO(T)));                                  \
    }                                                                          \
    return v;                                                                  \
  }                                                                            \
  /** \brief Exclusive prefix sum (lane 0 gets 0). \param v the vector.        \
   *  \param m the mask. \return the scan. */                                  \
  FPAR__SIMD T T##_exscan_add(T v, fpar_vmask m) {                             \
    T s = T##_scan_add(v, m);                                                  \
    return T##_select(fpar_vi32_iota() > 0, T##_shuffle_up(s, 1),              \
                      FPAR__VZERO(T));                                         \
  }                                                                            \
  FPAR__SIMD_SCAN(T, min, MIN_FILL, MIN_ID)                                    \
  FPAR__SIMD_SCAN(T, max, MAX_FILL, MAX_ID)

/* Inclusive and exclusive min or max scans: lane i combines the lanes that
 * are on up to (inclusive) or before (exclusive) it, starting from the
 * first of them, as fmin/fmax of a set do (so NaN lanes lose, unless all
 * are NaN); lanes with nothing to combine get ID, the result of the
 * reduction over no lanes.  Lanes that are off hold FILL, which every
 * step passes over (FPAR__FMIN_FILL and FPAR__FMAX_FILL for floats, ID for
 * integers), and log2(W) steps
 * each combine lane i - d (the earlier) with lane i.  min and max (the
 * fmin rule's first-of-equals too) are associative, so that is the
 * left-to-right fold, in four permutes and four operations at W = 16
 * instead of a scalar loop with a branch per lane (64 ns per AVX-512
 * vector, AMD Zen 5). */
#define FPAR__SIMD_SCAN(T, OP, FILL, ID)                                       \
  /** \brief Inclusive prefix OP over the lanes that are on.                   \
   *  \param v the vector. \param m the mask. \return the scan. */             \
  FPAR__SIMD T T##_scan_##OP(T v, fpar_vmask m) {                              \
    unsigned bits = fpar__vmask_bits(m);                                       \
    int first = bits != 0 ? __builtin_ctz(bits) : FPAR_SIMD_WIDTH;             \
    T s = T##_select(m, v, T##_splat(FILL));                                   \
    _Pragma("GCC unroll 4") for (int d = 1; d < FPAR_SIMD_WIDTH; d *= 2) {     \
      /* Lanes below d take their own value twice: OP(x, x) is x. */           \
      s = T##_##OP(T##_shuffle_up(s, d), s);                                   \
    }                                                                          \
    return T##_select(fpar_vi32_iota() >= first, s, T##_splat(ID));            \
  }                                                                            \
  /** \brief Exclusive prefix OP (lane 0 gets the identity).                   \
   *  \param v the vector. \param m the mask. \return the scan. */             \
  FPAR__SIMD T T##_exscan_##OP(T v, fpar_vmask m) {                            \
    T s = T##_scan_##OP(v, m);                                                 \
    return T##_select(fpar_vi32_iota() > 0, T##_shuffle_up(s, 1),              \
                      T##_splat(ID));                                          \
  }

/* Integer lane arithmetic without signed overflow. */
FPAR__SIMD fpar_vi32 fpar__vi32_add(fpar_vi32 a, fpar_vi32 b) {
  return (fpar_vi32)((fpar_vu32)a + (fpar_vu32)b);
}
#define FPAR__VF32_ADD(a, b) ((a) + (b))

FPAR__SIMD_SUBGROUP(fpar_vf32, float, fpar_vf32_shuffle, FPAR__VF32_ADD,
                    FPAR__FMIN_FILL(float), __builtin_inff(),
                    FPAR__FMAX_FILL(float), -__builtin_inff())
FPAR__SIMD_SUBGROUP(fpar_vi32, int32_t, fpar_vi32_shuffle, fpar__vi32_add,
                    INT32_MAX, INT32_MAX, INT32_MIN, INT32_MIN)

/* ---- Lane-form nd_range kernels ----------------------------------------- */

/** One sub-group of an nd_range launch as W lanes: work-items (x0 + i, y,
 *  z) for lanes i that are on. */
typedef struct fpar_lanes {
  fpar_item *it;        /**< lane 0: fpar_barrier, group-local memory, and
                             the scalar queries of dimensions 1 and 2 */
  size_t global_first;  /**< global id (dimension 0) of lane 0 */
  fpar_vi32 local_id0;  /**< local ids along dimension 0 */
  fpar_vi32 global_id0; /**< global ids along dimension 0 (32-bit) */
  fpar_vmask mask;      /**< lanes that are work-items */
  unsigned active;      /**< lanes on (W but in a masked last sub-group) */
} fpar_lanes;

/** Body of a lane-form kernel. */
typedef void (*fpar_lanes_fn)(fpar_lanes *lk, void *args);

/** \brief The sub-group whose first work-item is \p it (a call of a lane
 *  kernel). \param lk receives the sub-group. \param it the item the
 *  runtime passed. */
FPAR__SIMD void fpar_lanes_init(fpar_lanes *lk, fpar_item *it) {
  lk->it = it;
  lk->global_first = it->origin[0] + it->local_id[0];
  lk->active = it->lanes;
  lk->local_id0 = fpar_vi32_iota() + (int32_t)it->local_id[0];
  lk->global_id0 = lk->local_id0 + (int32_t)it->origin[0];
  lk->mask = fpar_vmask_first(it->lanes);
}

/** Define `static void name(fpar_item *, void *)`, the kernel to launch for
 *  `body`, a function taking (fpar_lanes *, void *args) visible in this file
 *  (best static inline).  Launch it with fpar_launch_desc.kernel = name and
 *  .lanes = FPAR_SIMD_WIDTH: the runtime then runs one fiber per sub-group
 *  of W work-items along dimension 0, and fpar_barrier(lk->it) costs one
 *  switch per W work-items.  FPAR_LANE_KERNEL (<fiberpar.h>) defines
 *  such a kernel together with its runner, which makes groups that reach
 *  no barrier cost no call per sub-group: prefer it; this form is for a
 *  body launched through fpar_launch_desc.kernel. */
#define FPAR_DEFINE_LANE_KERNEL(name, body)                                    \
  static void name(fpar_item *fpar_it_, void *fpar_args_) {                    \
    fpar_lanes fpar_lk_;                                                       \
    fpar_lanes_init(&fpar_lk_, fpar_it_);                                      \
    body(&fpar_lk_, fpar_args_);                                               \
  }

/* The runner of the lane kernel `body` (FPAR_LANE_KERNEL's): `body` once
 * per sub-group from it's local id to the end of the group, row by row,
 * the last sub-group of each row masked, inlined into the loop (so that a
 * group that reaches no barrier costs no call per sub-group, which
 * matters for kernels of a few nanoseconds per sub-group such as
 * stencils).  The body is in vector form already: the sub-groups of a row
 * share one item, as the calls of a fiber do. */
#define FPAR__DEFINE_LANE_ROWS(name, body, attributes)                         \
  static attributes void name(fpar_item *fpar_it_, void *fpar_args_,           \
                              size_t fpar_x_end_) {                            \
    fpar_lanes fpar_lk_;                                                       \
    FPAR__ROWS_BEGIN(fpar_it_, fpar_row_, fpar_x_)                             \
    /* Full sub-groups, where the body sees W active lanes as a constant,      \
     * then the masked rest. */                                                \
    for (; fpar_x_ + FPAR_SIMD_WIDTH <= fpar_x_end_;                           \
         fpar_x_ += FPAR_SIMD_WIDTH) {                                         \
      fpar_item_seek(&fpar_row_, fpar_x_, FPAR_SIMD_WIDTH, 0);                 \
      fpar_lanes_init(&fpar_lk_, &fpar_row_);                                  \
      body(&fpar_lk_, fpar_args_);                                             \
    }                                                                          \
    if (fpar_x_ < fpar_x_end_) {                                               \
      fpar_item_seek(&fpar_row_, fpar_x_, (unsigned)(fpar_x_end_ - fpar_x_),   \
                     0);                                                       \
      fpar_lanes_init(&fpar_lk_, &fpar_row_);                                  \
      body(&fpar_lk_, fpar_args_);                                             \
    }                                                                          \
    FPAR__ROWS_END(fpar_it_)                                                   \
  }

/** Deprecated: FPAR_LANE_KERNEL defines a lane kernel with its runner,
 *  and fpar_launch_desc::def launches it.  Defines `static void
 *  name(fpar_item *, void *, size_t)`, the runner of the lane kernel
 *  `body` (as FPAR_DEFINE_LANE_KERNEL's), for fpar_launch_desc::row beside
 *  the FPAR_DEFINE_LANE_KERNEL kernel; it now runs the rest of the group,
 *  as FPAR_LANE_KERNEL's does.  Taking its address warns. */
#define FPAR_DEFINE_LANE_ROW(name, body)                                       \
  FPAR__DEFINE_LANE_ROWS(name, body,                                           \
                         FPAR__DEPRECATED("use FPAR_LANE_KERNEL and "          \
                                          "fpar_launch_desc.def"))

/* Sub-group operations of a lane kernel: over its active lanes. */
/** \brief Sub-group sum. \param lk the sub-group. \param v values.
 *  \return the sum over active lanes. */
FPAR__SIMD float fpar_sub_group_reduce_add_vf32(const fpar_lanes *lk,
                                                fpar_vf32 v) {
  return fpar_vf32_reduce_add(v, lk->mask);
}
/** \brief Sub-group minimum. \param lk the sub-group. \param v values.
 *  \return the minimum over active lanes. */
FPAR__SIMD float fpar_sub_group_reduce_min_vf32(const fpar_lanes *lk,
                                                fpar_vf32 v) {
  return fpar_vf32_reduce_min(v, lk->mask);
}
/** \brief Sub-group maximum. \param lk the sub-group. \param v values.
 *  \return the maximum over active lanes. */
FPAR__SIMD float fpar_sub_group_reduce_max_vf32(const fpar_lanes *lk,
                                                fpar_vf32 v) {
  return fpar_vf32_reduce_max(v, lk->mask);
}
/** \brief Whether the predicate holds in any active lane.
 *  \param lk the sub-group. \param pred a mask. \return 0 or 1. */
FPAR__SIMD int fpar_sub_group_any_vmask(const fpar_lanes *lk, fpar_vmask pred) {
  return fpar_vmask_any(pred & lk->mask);
}
/** \brief Whether the predicate holds in every active lane.
 *  \param lk the sub-group. \param pred a mask. \return 0 or 1. */
FPAR__SIMD int fpar_sub_group_all_vmask(const fpar_lanes *lk, fpar_vmask pred) {
  return fpar_vmask_all(pred | ~lk->mask);
}

/* The sub-group queries of <fiberpar/subgroup.h> work on lane 0's item:
 * fpar_sub_group_id(lk->it), fpar_num_sub_groups(lk->it),
 * fpar_sub_group_size(lk->it) (= lk->active) and
 * fpar_sub_group_max_size(lk->it) (= W, the launch's lanes; a lane kernel
 * built with W = 1 is an ordinary kernel: give it subgroup_size 1 to make
 * each call its sub-group).  These are the per-lane ones. */
/** \brief The lanes' sub-group local ids (fpar_sub_group_local_id() as a
 *  lane vector): 0 .. W-1. \param lk the sub-group.
 *  \return the ids. */
FPAR__SIMD fpar_vi32 fpar_sub_group_local_id_vi32(const fpar_lanes *lk) {
  (void)lk;
  return fpar_vi32_iota();
}
/** \brief The sub-group's votes (fpar_sub_group_ballot() of the lane
 *  form): bit i is set when \p pred is on in active lane i.
 *  \param lk the sub-group. \param pred a mask. \return the bits. */
FPAR__SIMD uint64_t fpar_sub_group_ballot_vmask(const fpar_lanes *lk,
                                                fpar_vmask pred) {
  return fpar__vmask_bits(pred & lk->mask);
}

/* ---- Lane bodies for item loops (scoped, hierarchical, OCCA inner) ------ */

/** W consecutive logical items of a row of the innermost group. */
typedef struct fpar_lane_block {
  const fpar_s_item *si; /**< the row's first item: ids of dimensions 1
                              and 2 (its dimension-0 ids are the row's) */
  size_t first;          /**< local id (dimension 0) of lane 0 */
  size_t global_first;   /**< global id (dimension 0) of lane 0 */
  fpar_vi32 local_id0;   /**< innermost local ids along dimension 0 */
  fpar_vi32 global_id0;  /**< global ids along dimension 0 (32-bit) */
  fpar_vmask mask;       /**< lanes that are items (the row's tail) */
} fpar_lane_block;

/** Body of fpar_distribute_lanes(). */
typedef void (*fpar_lane_fn)(const fpar_lane_block *b, void *ctx);

/** Define `static void name(fpar_s_item *, void *, size_t)`, a runner that
 *  runs `body` (taking (const fpar_lane_block *, void *ctx), visible in
 *  this file) once per block of W items of each row of the group, the last
 *  block of a row masked; give it to fpar_distribute_items_rows() or
 *  fpar_parallel_for_work_item_rows().  Given x_end 0 it runs the block
 *  at si alone, so that FIBERPAR_SCHEDULE and racecheck move and check
 *  each block on its own (see fpar_s_row_fn); a block stays one call,
 *  since a body may combine its lanes (a sub-group's sum). */
#define FPAR_DEFINE_LANES_ROW(name, body)                                      \
  static void name(fpar_s_item *fpar_si_, void *fpar_ctx_,                     \
                   size_t fpar_x_end_) {                                       \
    fpar_lane_block fpar_b_;                                                   \
    FPAR__S_ROWS_BEGIN(fpar_si_, fpar_row_, fpar_x_, fpar_x_end_,              \
                       FPAR_SIMD_WIDTH)                                        \
    size_t fpar_base_ = fpar_row_.global_id[0] - fpar_row_.local_id[0];        \
    fpar_b_.si = &fpar_row_;                                                   \
    for (; fpar_x_ < fpar_x_end_; fpar_x_ += FPAR_SIMD_WIDTH) {                \
      size_t fpar_left_ = fpar_x_end_ - fpar_x_;                               \
      fpar_b_.first = fpar_x_;                                                 \
      fpar_b_.global_first = fpar_base_ + fpar_x_;                             \
      fpar_b_.local_id0 = fpar_vi32_iota() + (int32_t)fpar_x_;                 \
      fpar_b_.global_id0 = fpar_b_.local_id0 + (int32_t)fpar_base_;            \
      fpar_b_.mask =                                                           \
          fpar_vmask_first(fpar_left_ < FPAR_SIMD_WIDTH ? (unsigned)fpar_left_ \
                                                        : FPAR_SIMD_WIDTH);    \
      body(&fpar_b_, fpar_ctx_);                                               \
    }                                                                          \
    FPAR__S_ROWS_END(fpar_row_, fpar_x_)                                       \
  }

typedef struct fpar__lane_call {
  fpar_lane_fn fn;
  void *ctx;
} fpar__lane_call;

FPAR__SIMD void fpar__lane_call_body(const fpar_lane_block *b, void *p) {
  const fpar__lane_call *c = (const fpar__lane_call *)p;
  c->fn(b, c->ctx);
}
FPAR_DEFINE_LANES_ROW(fpar__lane_call_row, fpar__lane_call_body)

/**
 * \brief fpar_distribute_items() in blocks of W lanes: fn runs once per
 *        block of W logical items of a row of \p g, the last block of a
 *        row masked.  (FPAR_DEFINE_LANES_ROW with
 *        fpar_distribute_items_rows() inlines the body instead of calling
 *        it through a pointer.)
 * \param g the innermost group.
 * \param fn the body.
 * \param ctx passed to fn.
 */
static inline void fpar_distribute_lanes(fpar_group *g, fpar_lane_fn fn,
                                         void *ctx) {
  fpar__lane_call c = {fn, ctx};
  fpar_distribute_items_rows(g, fpar__lane_call_row, &c);
}

/**
 * \brief fpar_parallel_for_work_item() in blocks of W lanes.
 * \param g the work group.
 * \param fn the body, once per block of W physical items of a row.
 * \param ctx passed to fn.
 */
static inline void
fpar_parallel_for_work_item_lanes(fpar_group *g, fpar_lane_fn fn, void *ctx) {
  fpar__lane_call c = {fn, ctx};
  fpar_parallel_for_work_item_rows(g, fpar__lane_call_row, &c);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
/* Where W doubles are wider than the vector registers (8 with AVX2 but not
 * AVX-512F, 4 without AVX), GCC notes once per file that returning an
 * fpar_vf64 "changes the ABI": a note on the inline functions above, which
 * GCC reports after the header, at a place in the including file, where
 * the pragma above cannot reach it (it is emitted when the functions are
 * compiled into their callers).  Only in those builds, the note stays off
 * for the rest of the including file, so that -Werror builds of lane code
 * keep working; elsewhere -Wpsabi is the includer's. */
#if FPAR_SIMD_WIDTH == 8 && !defined(__AVX512F__) ||                           \
    FPAR_SIMD_WIDTH == 4 && !defined(__AVX__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
#endif

#ifdef __cplusplus
}
#endif

/* Work-group collectives of lane kernels. */
#include <fiberpar/group_lanes.h>

#endif /* FIBERPAR_SIMD_H */
