/* SPDX-License-Identifier: MIT */
/** \file
 * fiberpar.h - GPU-style kernels on CPUs: the one public header.
 *
 * libfiberpar runs OpenCL/SYCL-style nd_range kernels (work-groups,
 * barriers, local memory) on plain CPUs with no special compiler.  Each
 * work-group runs on one worker thread pinned to a core; its work-items are
 * fibers that switch at barriers.
 *
 * Error rule (one rule for the whole API): every function that can fail
 * returns an int that is 0 on success or a negative FPAR_E* code.  Output
 * parameters are written only on success.  fpar_strerror() and
 * fpar_err_name() turn a code into text; fpar_last_error() gives the
 * detailed message of the last failed call on the calling thread.
 *
 * Names: public names are fpar_ (functions, types) and FPAR_ (macros,
 * constants); fpar__ and FPAR__ are the library's own.  Functions are named
 * object_action or object_property (fpar_runtime_create, fpar_queue_wait,
 * fpar_event_status).  Queries keep the names of the model they come from:
 * nd_range work-item queries OpenCL's (get_global_id(d) is
 * fpar_global_id(it, d)), and the group and item queries of scoped and
 * hierarchical parallelism SYCL's member functions after their type
 * (group::get_id(d) is fpar_group_get_id(g, d), s_item::get_global_id(d)
 * fpar_s_item_get_global_id(si, d)).  Queries are inline, and exported as
 * functions too (FPAR_QUERY).
 *
 * Compatibility: sized structs (fpar_runtime_opts, fpar_launch_desc) carry
 * the size of the caller's header; see FPAR_VERSION_MAJOR for what a
 * release may change.
 *
 * Dimension convention: ranges have 1 to 3 dimensions and dimension 0
 * varies fastest (as in OpenCL and CUDA).  Linear ids are
 * x + X * (y + Y * z).  Queries for a dimension beyond the range's
 * dimensionality return id 0 and size 1, as OpenCL does.
 *
 * Lifetimes:
 *  - a runtime lives until fpar_runtime_destroy(), which refuses
 *    (FPAR_EBUSY) while any of its queues exists;
 *  - a queue lives until fpar_queue_destroy(), which first waits for the
 *    launches submitted to it;
 *  - an event lives until fpar_event_release(), also after its queue and
 *    runtime are destroyed (it owns what it needs: waiting on it then
 *    returns its final status at once);
 *  - kernel args are the caller's: they must stay valid until the launch
 *    has finished (fpar_event_wait(), fpar_queue_wait()), unless the
 *    launch copies them (by value: fpar_launch_desc::args_size,
 *    fpar_parallel_for_by_value(), fpar_parallel_for_kernel_by_value());
 *  - launch descriptions, their names and their local-buffer descriptions
 *    are copied by fpar_launch(): they may be freed when it returns.
 * Calls that would wait from inside a kernel for work of the kernel's own
 * runtime fail with FPAR_EDEADLOCK instead of hanging; kernel-only calls
 * made outside a kernel fail with FPAR_ENOTKERNEL; a runtime inherited
 * through fork() fails every call in the child with FPAR_EFORK (create a
 * new runtime in the child).
 *
 * Threads: every call may be made from any thread, and calls on
 * different objects never need the caller's locking.  On the same object:
 *  - fpar_launch() and the other submissions may be called concurrently
 *    from several threads on the same queue or on several queues of one
 *    runtime: submission takes no lock, and all queues of a runtime feed
 *    one first-in first-out list, so launches run one after another in the
 *    order their submissions reached the list, whatever their queue;
 *  - fpar_queue_wait() and fpar_event_wait() may wait concurrently from
 *    several threads; a launch's fault is returned by the fpar_queue_wait()
 *    that first sees it (fpar_last_error() then gives its message), and by
 *    every fpar_event_wait() on its event;
 *  - a thread that waits (fpar_event_wait(), fpar_queue_wait(),
 *    fpar_queue_destroy()) runs work-groups of the launch being executed
 *    meanwhile, as OpenMP's master thread works in its team, unless it is
 *    itself running a kernel: kernels may run on any thread that waits,
 *    with the floating-point control state of the workers (see
 *    docs/launch-path.md);
 *  - fpar_event_status(), fpar_event_result(), fpar_event_error() and
 *    fpar_event_profile() only read, from any thread;
 *  - destroying or releasing an object (fpar_queue_destroy(),
 *    fpar_runtime_destroy(), fpar_event_release()) must not race with
 *    another call on that object: the caller orders it after them;
 *  - fpar_last_error() is per thread.
 * A kernel (or a group function) may submit launches, to its own runtime
 * or another.  On its own runtime they queue behind the running launch and
 * start after it has finished, so the kernel cannot wait for them: waiting
 * inside a kernel for work of its own runtime (fpar_event_wait(),
 * fpar_queue_wait(), fpar_queue_destroy()) returns FPAR_EDEADLOCK at once.
 * Waiting for another runtime's work works, and blocks the worker.
 *
 * Environment: the FIBERPAR_* variables (FIBERPAR_NUM_THREADS and the
 * others named at the fields of fpar_runtime_opts, FIBERPAR_TRACE,
 * FIBERPAR_PHASE; see docs/environment.md) and the MPI launchers'
 * local-rank variables override the program's options.  In
 * secure-execution mode (a setuid or setgid program, or one with file
 * capabilities: the kernel's AT_SECURE, or issetugid() where there is no
 * such flag) the library reads no environment variable at all: they are
 * ignored exactly as if the environment were empty, so the program's own
 * fpar_runtime_opts and the defaults apply and no trace is written, and
 * the library prints nothing about it unless the program's own options
 * ask for FPAR_DISPLAY_ALL.  In that mode it also removes the HWLOC_*
 * variables, which hwloc would obey, from the process's environment when
 * it is loaded.  docs/security.md has the whole threat model.
 *
 * This header includes no dependency headers; <fiberpar/uv.h> ties events
 * to a libuv loop.
 */
#ifndef FIBERPAR_H
#define FIBERPAR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Marks the functions the shared library exports. */
#if defined(__GNUC__)
#define FPAR_EXTERN __attribute__((visibility("default")))
#else
#define FPAR_EXTERN
#endif

/* The id and range queries of work-items and groups are inline for C and
 * C++ callers, and the library also exports each as a function of the same
 * name, for other languages (Fortran's bind(C), foreign function
 * interfaces) and for taking their address; lib/queries.c defines
 * FPAR_BUILD_QUERIES to emit them. */
/** Marks the queries: inline, and exported by the library. */
#if defined(FPAR_BUILD_QUERIES)
#define FPAR_QUERY FPAR_EXTERN
#elif defined(__GNUC__)
#define FPAR_QUERY extern __inline__ __attribute__((gnu_inline))
#else
#define FPAR_QUERY static inline
#endif

/* An initialiser that zeroes a whole struct: {0} in C, {} in C++ (where
 * -Wextra would name every member that {0} leaves out). */
/* clang-format off */
#ifdef __cplusplus
#define FPAR__ZERO_INIT {}
#else
#define FPAR__ZERO_INIT {0}
#endif
/* clang-format on */

/** \name The version of this header
 * \{ */
/** The version of this header.  Compatibility rule: releases with the same
 * major number (from 1.0 on) keep source and binary compatibility; a minor
 * release may add functions, error codes, enum values and members at the
 * end of the sized structs (fpar_runtime_opts, fpar_launch_desc), never
 * change or remove them; a patch release changes no interface.  Before
 * 1.0 a minor release may break either, and says so. */
#define FPAR_VERSION_MAJOR 0
#define FPAR_VERSION_MINOR 1 /**< see FPAR_VERSION_MAJOR */
#define FPAR_VERSION_PATCH 0 /**< see FPAR_VERSION_MAJOR */
#define FPAR__VERSION_STR(x) #x
#define FPAR__VERSION_XSTR(x) FPAR__VERSION_STR(x)
/** "MAJOR.MINOR.PATCH" */
#define FPAR_VERSION_STRING                                                    \
  FPAR__VERSION_XSTR(FPAR_VERSION_MAJOR)                                       \
  "." FPAR__VERSION_XSTR(FPAR_VERSION_MINOR) "." FPAR__VERSION_XSTR(           \
      FPAR_VERSION_PATCH)
/** FPAR_VERSION_MAJOR, _MINOR, _PATCH as one number, 10000 * major + 100 *
 *  minor + patch, for comparisons in \#if. */
#define FPAR_VERSION                                                           \
  (FPAR_VERSION_MAJOR * 10000 + FPAR_VERSION_MINOR * 100 + FPAR_VERSION_PATCH)
/** \} */

/* ------------------------------------------------------------------------
 * Errors
 * ---------------------------------------------------------------------- */

/** XX(name, value, message): the single table behind the FPAR_E* codes,
 * fpar_strerror() and fpar_err_name(). */
#define FPAR_ERRNO_MAP(XX)                                                     \
  XX(EINVAL, -1, "invalid argument")                                           \
  XX(ENOMEM, -2, "out of memory")                                              \
  XX(EDIM, -3, "a range must have 1, 2 or 3 dimensions")                       \
  XX(EEMPTY, -4, "a range has a zero-sized dimension")                         \
  XX(ENONDIV, -5, "the global range is not divisible by the local range")      \
  XX(EGROUPSIZE, -6, "the work-group size exceeds the runtime's limit")        \
  XX(ELOCALMEM, -7, "local memory request exceeds the worker's arena")         \
  XX(ENULLKERNEL, -8, "the kernel function is NULL")                           \
  XX(EDIVERGENCE, -9,                                                          \
     "barrier divergence: work-items of a group took different paths "         \
     "through a barrier")                                                      \
  XX(EBARRIER, -10, "work-items of a group wait at different barriers")        \
  XX(ESTACKOVERFLOW, -11, "a work-item overflowed its fiber stack")            \
  XX(EGROUPLOCAL, -12,                                                         \
     "work-items of a group disagree on a group-local memory object")          \
  XX(ELOCALBUF, -13, "no launch-time local buffer with that index")            \
  XX(EENV, -14, "invalid value in a FIBERPAR_* environment variable")          \
  XX(ETOPOLOGY, -15, "hardware topology discovery failed")                     \
  XX(ETHREAD, -16, "a worker thread could not be created")                     \
  XX(EBUSY, -17, "the object still has work or dependents")                    \
  XX(ESCOPE, -18, "a scoped-parallelism rule was broken")                      \
  XX(ENOTSUP, -19, "operation not supported by this build")                    \
  XX(EDEADLOCK, -20,                                                           \
     "waiting here would deadlock: the caller is a kernel of the runtime it "  \
     "waits for")                                                              \
  XX(ENOTKERNEL, -21, "called outside a running kernel or group function")     \
  XX(EFORK, -22,                                                               \
     "the runtime belongs to the parent process: create a new one after "      \
     "fork()")                                                                 \
  XX(EFPENV, -23,                                                              \
     "a kernel changed the floating-point control state its work-items "       \
     "share")

/** Error codes.  All are negative; 0 means success. */
typedef enum fpar_errno {
#define FPAR__ERRNO_ENUM(name, value, msg) FPAR_##name = value,
  FPAR_ERRNO_MAP(FPAR__ERRNO_ENUM)
#undef FPAR__ERRNO_ENUM
      FPAR_ERRNO_MAX = -24
} fpar_errno;

/**
 * \brief The version of the library in use (which may be newer than the
 *        header the program was built with).
 * \return FPAR_VERSION of the library.
 */
FPAR_EXTERN unsigned fpar_version(void);

/**
 * \brief The version of the library in use, as text.
 * \return a static string such as "0.1.0".
 */
FPAR_EXTERN const char *fpar_version_string(void);

/**
 * \brief Describe an error code.
 * \param err a value returned by a libfiberpar function.
 * \return a static string; "success" for 0, "unknown error" for codes not
 *         in the table.
 */
FPAR_EXTERN const char *fpar_strerror(int err);

/**
 * \brief Name an error code.
 * \param err a value returned by a libfiberpar function.
 * \return a static string such as "FPAR_ENONDIV".
 */
FPAR_EXTERN const char *fpar_err_name(int err);

/**
 * \brief Detailed message of the last failed call on this thread.
 * \return a thread-local string that names the offending values, e.g.
 *         "global range 1000 is not divisible by local range 64 in
 *         dimension 0"; "" if no call has failed on this thread.
 */
FPAR_EXTERN const char *fpar_last_error(void);

/* ------------------------------------------------------------------------
 * Runtime
 * ---------------------------------------------------------------------- */

/** How workers are placed (FIBERPAR_PIN=core|pu|numa|none|\<list\>).
 *
 *  Workers only ever run inside the process's allowed CPU set: its binding
 *  (taskset, mpirun --bind-to, Slurm's task binding and cgroup cpusets).
 *  The policy divides that set into places, and by default the runtime
 *  starts one worker per place; more workers than places share places
 *  (oversubscription, stated on stderr, see fpar_display).  A runtime
 *  created while another one runs in the same process takes the places the
 *  other left free first. */
typedef enum fpar_pin {
  FPAR_PIN_DEFAULT = 0, /**< FIBERPAR_PIN, else FPAR_PIN_CORE */
  FPAR_PIN_CORE,        /**< one worker per core, bound to the core */
  FPAR_PIN_PU,          /**< one worker per hardware thread, bound to it */
  FPAR_PIN_NONE,        /**< one worker per core, not bound */
  FPAR_PIN_NUMA,        /**< one worker per core, bound to all the CPUs of
                             the core's NUMA node (OMP_PLACES=numa_domains) */
  FPAR_PIN_LIST         /**< one worker per entry of
                             fpar_runtime_opts::places, bound to it */
} fpar_pin;

/** What fpar_runtime_create() prints to stderr about where its workers run
 *  (FIBERPAR_DISPLAY=1|0|warn). */
typedef enum fpar_display {
  FPAR_DISPLAY_DEFAULT = 0, /**< FIBERPAR_DISPLAY, else FPAR_DISPLAY_WARN */
  FPAR_DISPLAY_QUIET,       /**< nothing (FIBERPAR_DISPLAY=0) */
  FPAR_DISPLAY_WARN,        /**< one line when workers share a place:
                                 oversubscription, or places another runtime
                                 of the process uses (FIBERPAR_DISPLAY=warn) */
  FPAR_DISPLAY_ALL          /**< also the CPU set and every worker's place
                                 and NUMA node, like OMP_DISPLAY_AFFINITY,
                                 and a line with the version, workers,
                                 stack and local memory sizes, FP
                                 environment, SIMD instruction set and
                                 lanes, like OMP_DISPLAY_ENV
                                 (FIBERPAR_DISPLAY=1) */
} fpar_display;

/** Whose floating-point control state (rounding, flush-to-zero, exception
 *  masks: MXCSR and the x87 control word) a work-item sees after a barrier
 *  (FIBERPAR_FPENV=item|shared).  OpenCL C and SYCL kernels cannot change
 *  it, so by default work-items share it and the runtime checks it once
 *  per rendezvous. */
typedef enum fpar_fpenv {
  FPAR_FPENV_DEFAULT = 0, /**< FIBERPAR_FPENV, else FPAR_FPENV_SHARED */
  FPAR_FPENV_ITEM,        /**< its own: each fiber switch saves and restores
                               the control words (reading MXCSR costs about
                               4 ns on Zen 3), for kernels that set their
                               own rounding or flush-to-zero */
  FPAR_FPENV_SHARED       /**< the group's: switches leave the control words
                               alone; a kernel that leaves them changed at a
                               barrier or at its end fails the launch with
                               FPAR_EFPENV (checked when the last work-item
                               arrives) */
} fpar_fpenv;

/** Runtime options.  Zero fields mean "default".  Environment variables,
 *  when set, take precedence over these fields, except in
 *  secure-execution mode (setuid, setgid, file capabilities), where the
 *  library ignores them all and these fields and the defaults apply (see
 *  the file's description). */
typedef struct fpar_runtime_opts {
  /** sizeof(fpar_runtime_opts) in the caller's build, set by
   *  fpar_runtime_opts_init(): fields added by later versions of the
   *  library are then seen as 0 (their default) by it. */
  size_t size;
  /** Worker threads (FIBERPAR_NUM_THREADS); 0 = one per core (or PU). */
  unsigned num_threads;
  /** Pinning policy (FIBERPAR_PIN). */
  fpar_pin pin;
  /** Usable bytes of each fiber stack (FIBERPAR_STACK_SIZE); default
   *  64 KiB, rounded up to whole pages (fpar_runtime_stack_size() reports
   *  the rounded size).  A 1 MiB guard (address space, no memory) lies
   *  below each stack; an overflow fails the launch with
   *  FPAR_ESTACKOVERFLOW.  Compile kernels with -fstack-clash-protection
   *  (pkg-config --cflags fiberpar gives it) so that frames bigger than
   *  the guard are caught too. */
  size_t stack_size;
  /** Bytes of local memory per worker (FIBERPAR_LOCAL_MEM_SIZE); default
   *  1 MiB. */
  size_t local_mem_size;
  /** Largest work-group (work-items); default 4096. */
  size_t max_group_size;
  /** Microseconds an idle worker or waiting host thread spins before it
   *  sleeps (FIBERPAR_SPIN_US); default 50; 0: no spinning.  A host
   *  thread waiting on a CPU of no worker spins up to twice its previous
   *  wait after short waits (at most 1 ms).  Only time spent spinning
   *  counts, not time the thread was descheduled; a spinning thread
   *  gives its core away every few microseconds (docs/launch-path.md). */
  unsigned spin_us;
  /** Floating-point control state across barriers (FIBERPAR_FPENV). */
  fpar_fpenv fpenv;
  /** Items per sub-group of fpar_distribute_groups() and of hierarchical
   *  groups of FPAR_LOCAL_AUTO size; 0 = the CPU's single-precision SIMD
   *  width (16 with AVX-512, 8 with AVX, 4 with SSE or NEON). */
  unsigned subgroup_size;
  /** Most fiber stacks a worker keeps (FIBERPAR_MAX_STACKS), at least 3;
   *  0 = enough for the largest group, within the process's mapping budget
   *  where stack guards cost mappings (kernels before Linux 6.13).  A
   *  group with more fibers runs them on one shared stack, copying their
   *  frames at each switch: slower, never wrong. */
  size_t max_stacks;
  /** With FPAR_PIN_LIST: the places as OS CPU numbers, e.g. "0,2,4-7":
   *  each comma-separated entry is one place, so "4-7" is one place of four
   *  CPUs (write "4,5,6,7" for four places).  Every CPU must lie in the
   *  process's allowed set.  Read only by fpar_runtime_create(); a
   *  FIBERPAR_PIN list replaces it. */
  const char *places;
  /** What creation prints about placement (FIBERPAR_DISPLAY). */
  fpar_display display;
} fpar_runtime_opts;

/** A runtime: the worker threads and their memory. */
typedef struct fpar_runtime fpar_runtime;

/**
 * \brief Fill \p opts with defaults (all zero) and its size.  Inline, so
 *        that the size is that of the caller's header.
 * \param opts options to initialise.
 */
static inline void fpar_runtime_opts_init(fpar_runtime_opts *opts) {
  static const fpar_runtime_opts defaults = FPAR__ZERO_INIT;

  *opts = defaults;
  opts->size = sizeof *opts;
}

/**
 * \brief Discover the machine with hwloc and start the pinned workers.
 *
 * Each worker allocates its local-memory arena and fiber stacks on its own
 * NUMA node.  Values accept the suffixes K, M and G (powers of 1024).
 * \param rt receives the runtime.
 * \param opts options, or NULL for defaults.
 * \return 0, FPAR_EINVAL, FPAR_EENV (bad environment value), FPAR_ENOMEM,
 *         FPAR_ETOPOLOGY or FPAR_ETHREAD.
 */
FPAR_EXTERN int fpar_runtime_create(fpar_runtime **rt,
                                    const fpar_runtime_opts *opts);

/**
 * \brief Join the workers and free the runtime.
 *
 * Its queues must have been destroyed first (which waits for their work).
 * Events of its launches stay valid until released.
 * \param rt the runtime; NULL is ignored.
 * \return 0; FPAR_EBUSY (nothing destroyed) while queues still exist;
 *         FPAR_EFORK in a child process (the runtime is the parent's).
 */
FPAR_EXTERN int fpar_runtime_destroy(fpar_runtime *rt);

/**
 * \brief Number of worker threads.
 * \param rt the runtime.
 * \return the number of workers (at least 1).
 */
FPAR_EXTERN unsigned fpar_runtime_num_threads(const fpar_runtime *rt);

/**
 * \brief Bytes of local memory each worker's arena holds.
 * \param rt the runtime.
 * \return the arena size in bytes.
 */
FPAR_EXTERN size_t fpar_runtime_local_mem_size(const fpar_runtime *rt);

/**
 * \brief Usable bytes of each fiber stack.
 * \param rt the runtime.
 * \return the stack size in bytes.
 */
FPAR_EXTERN size_t fpar_runtime_stack_size(const fpar_runtime *rt);

/**
 * \brief Items per sub-group when groups are split (see
 *        fpar_distribute_groups()).
 * \param rt the runtime.
 * \return the sub-group size.
 */
FPAR_EXTERN unsigned fpar_runtime_subgroup_size(const fpar_runtime *rt);

/**
 * \brief Largest number of work-items in one work-group.
 * \param rt the runtime.
 * \return the limit.
 */
FPAR_EXTERN size_t fpar_runtime_max_group_size(const fpar_runtime *rt);

/**
 * \brief The CPUs the runtime's workers may use: the process's allowed CPU
 *        set (its binding), or this local rank's share of it (see
 *        FIBERPAR_PIN in docs/placement.md).
 * \param rt the runtime.
 * \param buf receives an OS CPU list such as "0-3,8", NUL-terminated.
 * \param size bytes at buf.
 * \return 0, or FPAR_EINVAL if buf is NULL or too small (the message says
 *         how many bytes the list needs); FPAR_EFORK in a forked child.
 */
FPAR_EXTERN int fpar_runtime_cpuset(const fpar_runtime *rt, char *buf,
                                    size_t size);

/**
 * \brief The CPUs worker \p worker is bound to (with FPAR_PIN_NONE: the
 *        CPUs it may run on, the runtime's whole set).
 * \param rt the runtime.
 * \param worker 0 .. fpar_runtime_num_threads() - 1.
 * \param buf receives an OS CPU list such as "2" or "0-3", NUL-terminated.
 * \param size bytes at buf.
 * \return 0, or FPAR_EINVAL for a worker out of range or a NULL or too small
 *         buf; FPAR_EFORK in a forked child.
 */
FPAR_EXTERN int fpar_runtime_worker_cpus(const fpar_runtime *rt,
                                         unsigned worker, char *buf,
                                         size_t size);

/**
 * \brief The NUMA node that holds a worker's memory (local-memory arena and
 *        fiber stacks).
 * \param rt the runtime.
 * \param worker 0 .. fpar_runtime_num_threads() - 1.
 * \param node receives the OS index of the node, or -1 when the worker is
 *        not bound or its place spans several nodes (memory then stays
 *        where the worker first touches it).
 * \return 0, or FPAR_EINVAL for a worker out of range or a NULL node;
 *         FPAR_EFORK in a forked child.
 */
FPAR_EXTERN int fpar_runtime_worker_numa_node(const fpar_runtime *rt,
                                              unsigned worker, int *node);

/**
 * \brief How many workers share the busiest place, counting the workers of
 *        the process's other runtimes that were live at creation.
 * \param rt the runtime.
 * \return 1 when every worker has its place to itself; more means
 *         oversubscription (stated on stderr at creation unless
 *         FIBERPAR_DISPLAY=0).  With FPAR_PIN_NONE: workers per core of the
 *         runtime's set, rounded up.
 */
FPAR_EXTERN unsigned fpar_runtime_oversubscription(const fpar_runtime *rt);

/**
 * \brief Count the cores, hardware threads (PUs) and NUMA nodes of the
 *        runtime's CPU set (fpar_runtime_cpuset()), as hwloc sees them.
 * \param rt the runtime.
 * \param cores receives the number of cores, or NULL.
 * \param pus receives the number of hardware threads, or NULL.
 * \param numa_nodes receives the number of NUMA nodes, or NULL.
 * \return 0; FPAR_EFORK in a forked child.
 */
FPAR_EXTERN int fpar_runtime_topology(const fpar_runtime *rt, unsigned *cores,
                                      unsigned *pus, unsigned *numa_nodes);

/* ------------------------------------------------------------------------
 * Ranges
 * ---------------------------------------------------------------------- */

/** A 1-, 2- or 3-dimensional extent.  Unused dimensions hold 1. */
typedef struct fpar_range {
  unsigned dims;  /**< 1, 2 or 3 */
  size_t size[3]; /**< extent per dimension; dimension 0 varies fastest */
} fpar_range;

/** \brief A 1-D range. \param x extent. \return the range. */
static inline fpar_range fpar_range1(size_t x) {
  fpar_range r = {1, {x, 1, 1}};
  return r;
}

/** \brief A 2-D range. \param x fastest extent. \param y extent.
 *  \return the range. */
static inline fpar_range fpar_range2(size_t x, size_t y) {
  fpar_range r = {2, {x, y, 1}};
  return r;
}

/** \brief A 3-D range. \param x fastest extent. \param y extent.
 *  \param z slowest extent. \return the range. */
static inline fpar_range fpar_range3(size_t x, size_t y, size_t z) {
  fpar_range r = {3, {x, y, z}};
  return r;
}

/** Local range "let the runtime choose" (like Aparapi): it picks a size
 *  that divides the global range.  A range whose extents are all 0, such as
 *  fpar_range1(0) or fpar_range3(0, 0, 0), means the same. */
#define FPAR_LOCAL_AUTO (fpar_range3(0, 0, 0))

/* ------------------------------------------------------------------------
 * Queues and events
 * ---------------------------------------------------------------------- */

/** An in-order submission queue. */
typedef struct fpar_queue fpar_queue;
/** Completion of one launch. */
typedef struct fpar_event fpar_event;

/** Queue flags. */
enum fpar_queue_flags {
  FPAR_QUEUE_IN_ORDER = 0 /**< launches run one after another (default) */
};

/** Where a launch is (fpar_event_status()): a state, kept apart from the
 *  error codes, which fpar_event_result() gives. */
typedef enum fpar_event_state {
  FPAR_QUEUED = 0,   /**< waiting behind earlier launches */
  FPAR_RUNNING = 1,  /**< its work-groups are executing */
  FPAR_COMPLETE = 2, /**< finished successfully */
  FPAR_FAILED = 3    /**< finished with a fault (fpar_event_result() gives
                          its code, fpar_event_error() its message) */
} fpar_event_state;

/**
 * \brief Create an in-order queue on a runtime.
 * \param rt the runtime.
 * \param flags FPAR_QUEUE_* bits.
 * \param q receives the queue.
 * \return 0, FPAR_EINVAL, FPAR_ENOMEM or FPAR_EFORK.
 */
FPAR_EXTERN int fpar_queue_create(fpar_runtime *rt, unsigned flags,
                                  fpar_queue **q);

/**
 * \brief Wait for every launch submitted to \p q so far, running
 *        work-groups of them meanwhile (see "Threads" above).
 * \param q the queue.
 * \return 0, or the error code of the first launch that failed since the
 *         previous fpar_queue_wait(), whose message (kernel, work-group,
 *         work-items, what happened) fpar_last_error() then gives, as
 *         fpar_event_error() would (the queue stays usable);
 *         FPAR_EDEADLOCK when called by a kernel of the queue's runtime
 *         while the queue has work; FPAR_EFORK in a forked child.
 */
FPAR_EXTERN int fpar_queue_wait(fpar_queue *q);

/**
 * \brief Wait for the queue's work, then free it.  Events of its launches
 *        stay valid until released.
 * \param q the queue; NULL is ignored.
 * \return 0; FPAR_EDEADLOCK or FPAR_EFORK as fpar_queue_wait() (the queue
 *         is then not destroyed).
 */
FPAR_EXTERN int fpar_queue_destroy(fpar_queue *q);

/**
 * \brief Block until the launch has finished.
 * \param ev the event (valid until released, also after its queue and
 *        runtime are destroyed).
 * \return 0, or the negative code of the kernel's fault; FPAR_EDEADLOCK
 *         when called by a kernel of the same runtime before the launch
 *         finished (it could never finish); FPAR_EFORK in a forked child.
 */
FPAR_EXTERN int fpar_event_wait(fpar_event *ev);

/**
 * \brief Poll a launch without blocking.
 * \param ev the event.
 * \param state receives FPAR_QUEUED, FPAR_RUNNING, FPAR_COMPLETE or
 *        FPAR_FAILED.
 * \return 0, or FPAR_EINVAL for a NULL argument.
 */
FPAR_EXTERN int fpar_event_status(const fpar_event *ev,
                                  fpar_event_state *state);

/**
 * \brief The outcome of a launch, without blocking.
 * \param ev the event.
 * \return 0 once it completed, the negative code of its fault once it
 *         failed, FPAR_EBUSY while it is queued or running, FPAR_EINVAL
 *         for a NULL event.
 */
FPAR_EXTERN int fpar_event_result(const fpar_event *ev);

/**
 * \brief The message of a failed launch.
 * \param ev the event.
 * \return a string naming the kernel, the group and the fault, valid until
 *         fpar_event_release(); NULL if the launch has not failed.
 */
FPAR_EXTERN const char *fpar_event_error(const fpar_event *ev);

/**
 * \brief Timestamps of a launch (always recorded; three clock reads per
 *        launch), in CLOCK_MONOTONIC nanoseconds.
 *
 * end_ns - start_ns is the launch's run time on the workers;
 * start_ns - submit_ns the time it waited behind earlier launches of the
 * runtime (about 0 when the runtime was idle).
 * \param ev a finished event (complete or failed).
 * \param submit_ns receives the time the launch was queued, or NULL.
 * \param start_ns receives the time it became the runtime's running
 *        launch, its work-groups handed to the workers (at submission when
 *        no earlier launch was queued, else when the one before it
 *        finished), or NULL.
 * \param end_ns receives the time its last work-group finished, or NULL.
 * \return 0; FPAR_EINVAL for a NULL event or one whose launch has not
 *         finished.
 */
FPAR_EXTERN int fpar_event_profile(const fpar_event *ev, uint64_t *submit_ns,
                                   uint64_t *start_ns, uint64_t *end_ns);

/**
 * \brief Drop the caller's reference; the launch itself is not affected.
 * \param ev the event; NULL is ignored.
 */
FPAR_EXTERN void fpar_event_release(fpar_event *ev);

/* ------------------------------------------------------------------------
 * nd_range kernels
 *
 * The normal way: FPAR_KERNEL defines a kernel together with its runner
 * (the loop over work-items into which the kernel inlines), and
 * fpar_parallel_for_kernel() launches it:
 *
 *   FPAR_KERNEL(twice, it, args) {
 *     float *x = args;
 *     size_t i = fpar_global_id(it, 0);
 *     x[i] = 2.0f * x[i];
 *   }
 *   ...
 *   err = fpar_parallel_for_kernel(q, fpar_range1(n), FPAR_LOCAL_AUTO,
 *                                  &twice, x, &ev);
 *
 * A barrier-free kernel so defined costs what the plain C loop costs, and
 * the compiler may vectorise it across work-items (see FPAR_KERNEL).
 * fpar_launch() takes the same kernel (fpar_launch_desc::def) with what
 * the short form leaves out: a name, global offsets, launch-time local
 * buffers, smaller last groups, a sub-group size.  fpar_parallel_for()
 * launches a bare kernel function, for kernels chosen at run time: every
 * work-item then costs an indirect call.  Phase kernels
 * (<fiberpar/phase.h>), lanes (<fiberpar/simd.h>), scoped and hierarchical
 * parallelism (<fiberpar/scoped.h>) are the other forms.
 * ---------------------------------------------------------------------- */

/** One work-item as a kernel sees it (struct fpar_item). */
typedef struct fpar_item fpar_item;

/** A kernel: called once per work-item. */
typedef void (*fpar_kernel_fn)(fpar_item *it, void *args);

/** Geometry of a launch as its work-items see it (read-only; read it
 *  through the queries).  Members may be added at the end. */
typedef struct fpar_nd_geometry {
  unsigned dims;          /**< 1, 2 or 3 */
  size_t global_range[3]; /**< work-items per dimension */
  /** Work-items of this group per dimension: the enqueued extent, or less
   *  for the last group of a dimension the enqueued extent does not
   *  divide.  (The runtime gives such groups a geometry of their own.) */
  size_t local_range[3];
  /** Groups per dimension: ceil(global_range / enqueued_local_range). */
  size_t group_range[3];
  /** Global id of the launch's first work-item (0 without an offset). */
  size_t global_offset[3];
  /** global_offset linearised, which fpar_global_linear_id() subtracts. */
  size_t offset_linear;
  /** The work-group extent the launch asked for. */
  size_t enqueued_local_range[3];
  /** Work-items per sub-group (<fiberpar/subgroup.h>). */
  size_t sub_group_size;
} fpar_nd_geometry;

struct fpar__group_run;

/** One work-item as a kernel sees it.  The fields are the library's:
 *  read them through the query functions below.  (Between work-items of a
 *  barrier-free group only local_id[0] changes, so running one costs one
 *  store and a call.) */
struct fpar_item {
  size_t local_id[3]; /**< id within the group */
  size_t origin[3];   /**< global id of the group's work-item (0,0,0) */
  size_t row_linear;  /**< local linear id of work-item (0, y, z) */
  size_t group_id[3]; /**< id of the group */
  const fpar_nd_geometry *geometry; /**< the launch's and group's ranges */
  struct fpar__group_run *run;      /**< the group's run (the library's) */
  unsigned local_calls;             /**< group-local objects requested so far */
  unsigned lanes; /**< lane kernels: work-items (x .. x+lanes-1, y, z);
                       1 for ordinary kernels */
};

/** \brief Global id. \param it the work-item. \param dim 0..2.
 *  \return the id, 0 for dim beyond the range. */
FPAR_QUERY size_t fpar_global_id(const fpar_item *it, unsigned dim) {
  return dim < 3 ? it->origin[dim] + it->local_id[dim] : 0;
}
/** \brief Id within the work-group. \param it the work-item.
 *  \param dim 0..2. \return the id, 0 for dim beyond the range. */
FPAR_QUERY size_t fpar_local_id(const fpar_item *it, unsigned dim) {
  return dim < 3 ? it->local_id[dim] : 0;
}
/** \brief Id of the work-group. \param it the work-item. \param dim 0..2.
 *  \return the id, 0 for dim beyond the range. */
FPAR_QUERY size_t fpar_group_id(const fpar_item *it, unsigned dim) {
  return dim < 3 ? it->group_id[dim] : 0;
}
/** \brief Global extent. \param it the work-item. \param dim 0..2.
 *  \return the extent, 1 for dim beyond the range. */
FPAR_QUERY size_t fpar_global_range(const fpar_item *it, unsigned dim) {
  return dim < 3 ? it->geometry->global_range[dim] : 1;
}
/** \brief Extent of this work-group (OpenCL get_local_size): the
 *  enqueued extent, or less in the last group of a dimension whose global
 *  extent it does not divide (see fpar_launch()).
 *  \param it the work-item. \param dim 0..2.
 *  \return the extent, 1 for dim beyond the range. */
FPAR_QUERY size_t fpar_local_range(const fpar_item *it, unsigned dim) {
  return dim < 3 ? it->geometry->local_range[dim] : 1;
}
/** \brief Work-group extent the launch asked for (OpenCL
 *  get_enqueued_local_size): fpar_local_range() of every group but the
 *  smaller last ones.  \param it the work-item. \param dim 0..2.
 *  \return the extent, 1 for dim beyond the range. */
FPAR_QUERY size_t fpar_enqueued_local_range(const fpar_item *it, unsigned dim) {
  return dim < 3 ? it->geometry->enqueued_local_range[dim] : 1;
}
/** \brief Number of work-groups: the global extent divided by the
 *  enqueued one, rounded up. \param it the work-item. \param dim 0..2.
 *  \return the count, 1 for dim beyond the range. */
FPAR_QUERY size_t fpar_group_range(const fpar_item *it, unsigned dim) {
  return dim < 3 ? it->geometry->group_range[dim] : 1;
}
/** \brief Global id of the launch's first work-item (OpenCL
 *  get_global_offset; fpar_launch_desc::global_offset).
 *  \param it the work-item. \param dim 0..2.
 *  \return the offset, 0 for dim beyond the range. */
FPAR_QUERY size_t fpar_global_offset(const fpar_item *it, unsigned dim) {
  return dim < 3 ? it->geometry->global_offset[dim] : 0;
}
/** \brief Number of dimensions of the launch. \param it the work-item.
 *  \return 1, 2 or 3. */
FPAR_QUERY unsigned fpar_work_dim(const fpar_item *it) {
  return it->geometry->dims;
}
/** \brief Linear global id (dimension 0 fastest) of the global id less
 *  the launch's offset, as OpenCL 2.0: 0 .. global volume - 1.
 *  \param it the work-item. \return the id. */
FPAR_QUERY size_t fpar_global_linear_id(const fpar_item *it) {
  const size_t *r = it->geometry->global_range;
  return fpar_global_id(it, 0) +
         r[0] * (fpar_global_id(it, 1) + r[1] * fpar_global_id(it, 2)) -
         it->geometry->offset_linear;
}
/** \brief Linear id within the group. \param it the work-item.
 *  \return the id. */
FPAR_QUERY size_t fpar_local_linear_id(const fpar_item *it) {
  return it->row_linear + it->local_id[0];
}
/** \brief Linear id of the group. \param it the work-item.
 *  \return the id. */
FPAR_QUERY size_t fpar_group_linear_id(const fpar_item *it) {
  const size_t *r = it->geometry->group_range;
  return it->group_id[0] + r[0] * (it->group_id[1] + r[1] * it->group_id[2]);
}

#define FPAR__STR2(x) #x
#define FPAR__STR(x) FPAR__STR2(x)

/**
 * \brief Work-group barrier with local and global memory fences.
 *
 * Every work-item of the group must reach the same barrier the same number
 * of times.  Breaking that fails the launch with FPAR_EDIVERGENCE or
 * FPAR_EBARRIER and a message naming the kernel, the group, the work-items
 * and the barriers' source lines, instead of hanging.
 *
 * fpar_barrier(it) is a macro that passes its own "file:line" to
 * fpar_barrier_at(): compilers duplicate and merge call instructions, so
 * only the source can tell two barriers apart.  The function fpar_barrier
 * (e.g. `(fpar_barrier)(it)` or through a pointer) works the same way but
 * has no site to check.  Called in a scoped or hierarchical group
 * function it fails that launch with FPAR_ENOTKERNEL.
 * \param it the calling work-item.
 * \return 0 inside a kernel; FPAR_ENOTKERNEL on a thread that runs no
 *         kernel.
 */
FPAR_EXTERN int(fpar_barrier)(fpar_item *it);
/** fpar_barrier() naming its own site, "file:line" (see the function).
 *  \param it the calling work-item. */
#define fpar_barrier(it) fpar_barrier_at((it), __FILE__ ":" FPAR__STR(__LINE__))

/**
 * \brief fpar_barrier() with an explicit site.
 * \param it the calling work-item.
 * \param site a string naming the barrier in the source (compared by
 *        content); NULL matches any barrier.
 * \return as fpar_barrier().
 */
FPAR_EXTERN int fpar_barrier_at(fpar_item *it, const char *site);

/* Memory model and atomics.
 *
 * The work-items of a group run on one worker thread, one at a time: in
 * fibers that switch at rendezvous (barriers, sub-group operations, the
 * return from the kernel), as a plain loop when no barrier is reached,
 * or as phase loops.  So:
 *  - fpar_barrier() orders every memory access of the group's work-items
 *    before it before every access after it, for local and global memory
 *    alike: it has the acquire and release semantics of OpenCL's
 *    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE) (stronger, in
 *    fact: all of a group's accesses happen in one thread's program order,
 *    and each switch is a call the compiler cannot move memory accesses
 *    across).  A sub-group operation orders its sub-group's accesses the
 *    same way.  No hardware fence is needed or issued.
 *  - Without a barrier, work-items of one group must not rely on the
 *    order in which they run (it is local-id order today, a loop or
 *    round-robin fibers), as in OpenCL.
 *  - C11 <stdatomic.h> operations (atomic_fetch_add, atomic_compare_
 *    exchange_...) are valid on local memory (group-local objects,
 *    launch-time local buffers, a phase kernel's local struct) and on
 *    global memory, on _Atomic objects or, with GCC and Clang, through the
 *    __atomic builtins on plain ones.  On local memory they are never
 *    contended by another thread (only the group touches it), so relaxed
 *    order is enough and costs about an ordinary read-modify-write.
 *  - Different groups run on different workers, concurrently and in no
 *    particular order: they may share global memory only through atomics
 *    (no barrier or other call orders one group's accesses against
 *    another's), and no ordering holds between groups but the one their
 *    atomics give (a group waiting for another group's flag can deadlock:
 *    nothing guarantees the other group runs at the same time).  A launch's
 *    completion (fpar_event_wait(), fpar_queue_wait(), a later launch of
 *    an in-order queue) orders every access of its kernels before what
 *    follows it: relaxed atomics suffice for counters and histograms read
 *    after the launch.
 */

/**
 * \brief Group-local object, zero-filled (sycl group_local_memory).
 *
 * The k-th call made by each work-item of a group returns the same object;
 * it is allocated from the worker's arena by the first caller and released
 * when the group ends.  All work-items must ask for the same size and
 * alignment, else the launch fails with FPAR_EGROUPLOCAL; a request the
 * arena cannot hold fails it with FPAR_ELOCALMEM.
 * \param it the calling work-item.
 * \param size bytes.
 * \param align alignment, a power of two up to FPAR_MAX_LOCAL_ALIGN (0
 *        means 16).
 * \return the object; NULL (FPAR_ENOTKERNEL in fpar_last_error()) on a
 *         thread that runs no kernel.
 */
FPAR_EXTERN void *fpar_group_local_memory(fpar_item *it, size_t size,
                                          size_t align);

/**
 * \brief Like fpar_group_local_memory() but the contents are undefined.
 * \param it the calling work-item.
 * \param size bytes.
 * \param align alignment, a power of two up to FPAR_MAX_LOCAL_ALIGN (0
 *        means 16).
 * \return as fpar_group_local_memory().
 */
FPAR_EXTERN void *
fpar_group_local_memory_for_overwrite(fpar_item *it, size_t size, size_t align);

/**
 * \brief A launch-time local buffer (OpenCL __local argument).
 * \param it the calling work-item.
 * \param k index into fpar_launch_desc::local_buffers.
 * \return the group's buffer k (contents undefined at group start); a k
 *         the launch does not have fails the launch with FPAR_ELOCALBUF;
 *         NULL (FPAR_ENOTKERNEL) on a thread that runs no kernel.
 */
FPAR_EXTERN void *fpar_local_buffer(fpar_item *it, unsigned k);

/**
 * \brief Point a runner's work-item at the call for local id \p x of its
 *        row.
 * \param it the runner's copy of the row's work-item.
 * \param x local id (dimension 0) of the call's first work-item.
 * \param lanes work-items of the call (1 but in lane kernels).
 * \param made group-local requests the call counts as made already (the
 *        runner's own, made once for the group).
 */
static inline void fpar_item_seek(fpar_item *it, size_t x, unsigned lanes,
                                  unsigned made) {
  it->local_id[0] = x;
  it->lanes = lanes;
  it->local_calls = made;
}

/**
 * \brief Start another call for the same work-item: its group-local
 *        requests count from 0 again.
 * \param it the work-item.
 */
static inline void fpar_item_new_call(fpar_item *it) {
  it->local_calls = 0;
}

/** A row runner: runs the kernel for the work-items of a work-group from
 *  it's local id (x, y, z) to (x_end - 1, y, z), then for the rows after
 *  it, (0 .. x_end - 1, y', z'), until the end of the group or of the rows
 *  it covers; on return it's local ids name the last row it ran.  (A
 *  runner of version 0.1 of this header ran one row and left it
 *  unchanged; the runtime calls it again for each row.)  Made by
 *  FPAR_KERNEL and FPAR_LANE_KERNEL. */
typedef void (*fpar_row_fn)(fpar_item *it, void *args, size_t x_end);

#if defined(__GNUC__)
#define FPAR__DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define FPAR__DEPRECATED(msg)
#endif
#define FPAR__UNUSED __attribute__((unused))
#define FPAR__ALWAYS_INLINE static inline __attribute__((always_inline))

/* How loops over work-items are marked.
 *
 * Work-items of a group that reach no barrier run in no particular order
 * (OpenCL and SYCL: such work-items may not depend on each other except
 * through atomics), so the runners that FPAR_KERNEL and
 * FPAR_DEFINE_ITEMS_ROW make may tell the compiler so, and it may
 * vectorise across work-items, as OpenCL compilers do.  With GCC and
 * FPAR_OPENMP_SIMD defined (pkg-config --cflags fiberpar and the CMake
 * target fiberpar::fiberpar give -fopenmp-simd -DFPAR_OPENMP_SIMD) or
 * under -fopenmp, the loop over a row is `#pragma omp simd`, which GCC
 * vectorises at -O2 too; otherwise `#pragma GCC ivdep`, which needs no
 * flag (GCC vectorises such loops at -O3, and at -O2 those its cheap cost
 * model accepts).  -fopenmp-simd needs no OpenMP runtime: it only makes
 * the compiler honour `omp simd` pragmas.  A loop the compiler cannot
 * vectorise (a call it cannot inline, such as fpar_barrier() or
 * fpar_group_local_memory(), an atomic operation) stays an ordinary loop,
 * in order.  Clang gets no mark: its `omp simd` and `vectorize(
 * assume_safety)` also cover the accesses to a work-item's own item
 * where that stays in memory (a kernel that indexes it by a variable),
 * and compute wrong results there (Clang 14); Clang vectorises the loops
 * it can prove safe. */
#if defined(__clang__) || !defined(__GNUC__)
#define FPAR__ITEMS_LOOP
#elif defined(_OPENMP) || defined(FPAR_OPENMP_SIMD)
#define FPAR__ITEMS_LOOP _Pragma("omp simd")
#else
#define FPAR__ITEMS_LOOP _Pragma("GCC ivdep")
#endif

/* Make *it the work-item at local id x of the row `row` stands for, one
 * member at a time (the compiler then keeps the item in registers, or in
 * vector registers across work-items). */
static inline void fpar__item_at(fpar_item *it, const fpar_item *row,
                                 size_t x) {
  it->local_id[0] = x;
  it->local_id[1] = row->local_id[1];
  it->local_id[2] = row->local_id[2];
  it->origin[0] = row->origin[0];
  it->origin[1] = row->origin[1];
  it->origin[2] = row->origin[2];
  it->group_id[0] = row->group_id[0];
  it->group_id[1] = row->group_id[1];
  it->group_id[2] = row->group_id[2];
  it->row_linear = row->row_linear;
  it->geometry = row->geometry;
  it->run = row->run;
  it->local_calls = 0;
  it->lanes = 1;
}

/* The loop over the rows of a group that a runner makes, from the row of
 * the runtime's item `at` to the end of the group, between
 * FPAR__ROWS_BEGIN and FPAR__ROWS_END: in it `row` is the item of the
 * row's first work-item and `x0` the local id the row starts at (at's in
 * the first row, 0 in the others).  Afterwards `at` names the last row,
 * as fpar_row_fn says; it is written only then, since a store through it
 * in the loop would make the compiler reload the kernel's arguments
 * (which it could alias) for every row. */
#define FPAR__ROWS_BEGIN(at, row, x0)                                          \
  {                                                                            \
    const size_t fpar_nx_ = (at)->geometry->local_range[0];                    \
    const size_t fpar_ny_ = (at)->geometry->local_range[1];                    \
    const size_t fpar_nz_ = (at)->geometry->local_range[2];                    \
    fpar_item row = *(at);                                                     \
    size_t x0 = row.local_id[0], fpar_y_ = row.local_id[1],                    \
           fpar_z_ = row.local_id[2];                                          \
    for (; fpar_z_ < fpar_nz_; fpar_z_++, fpar_y_ = 0)                         \
      for (; fpar_y_ < fpar_ny_; fpar_y_++, x0 = 0) {                          \
        row.local_id[1] = fpar_y_;                                             \
        row.local_id[2] = fpar_z_;                                             \
        row.row_linear = fpar_nx_ * (fpar_y_ + fpar_ny_ * fpar_z_);
#define FPAR__ROWS_END(at)                                                     \
  }                                                                            \
  (at)->local_id[0] = 0;                                                       \
  (at)->local_id[1] = fpar_ny_ - 1;                                            \
  (at)->local_id[2] = fpar_nz_ - 1;                                            \
  }

/* The runner of `kernel` (FPAR_KERNEL's): the work-items from it's to
 * the end of the group, each row one loop into which `kernel` inlines.
 * Each work-item gets an item of its own, in name_fpar_at_: declared
 * there rather than in the loop, it is an ordinary variable that the
 * compiler keeps in registers once `kernel` is inlined, where one declared
 * in an `omp simd` loop would become an array indexed by lane, which GCC
 * does not vectorise around a loop inside the kernel. */
#define FPAR__DEFINE_ROWS(name, kernel, attributes)                            \
  FPAR__ALWAYS_INLINE void name##_fpar_at_(const fpar_item *fpar_row_,         \
                                           size_t fpar_x_, void *fpar_args_) { \
    fpar_item fpar_one_;                                                       \
    fpar__item_at(&fpar_one_, fpar_row_, fpar_x_);                             \
    kernel(&fpar_one_, fpar_args_);                                            \
  }                                                                            \
  static attributes void name(fpar_item *fpar_it_, void *fpar_args_,           \
                              size_t fpar_x_end_) {                            \
    FPAR__ROWS_BEGIN(fpar_it_, fpar_row_, fpar_x0_)                            \
    size_t fpar_x_;                                                            \
    FPAR__ITEMS_LOOP                                                           \
    for (fpar_x_ = fpar_x0_; fpar_x_ < fpar_x_end_; fpar_x_++)                 \
      name##_fpar_at_(&fpar_row_, fpar_x_, fpar_args_);                        \
    FPAR__ROWS_END(fpar_it_)                                                   \
  }

/** Deprecated: FPAR_KERNEL defines a kernel with its runner, and
 *  fpar_launch_desc::def launches it.  Defines `static void name(...)`,
 *  the runner of `kernel`, a kernel function visible in this file (best
 *  `static inline`), for fpar_launch_desc::row beside
 *  fpar_launch_desc::kernel; it now runs the rest of the group, as
 *  FPAR_KERNEL's does.  Taking its address warns. */
#define FPAR_DEFINE_ROW(name, kernel)                                          \
  FPAR__DEFINE_ROWS(name, kernel,                                              \
                    FPAR__DEPRECATED("use FPAR_KERNEL and "                    \
                                     "fpar_launch_desc.def"))

/** A group of scoped or hierarchical parallelism (see
 *  <fiberpar/scoped.h>). */
typedef struct fpar_group fpar_group;
/** A work group's function (the kernel of fpar_parallel() and
 *  fpar_parallel_for_work_group()), also the body of
 *  fpar_distribute_groups(). */
typedef void (*fpar_group_fn)(fpar_group *g, void *args);

/** A launch-time local buffer: bytes + bytes_per_item * work-group size
 *  bytes per group, so Aparapi's LocalFloatBuffer(12) is
 *  {0, 12 * sizeof(float), 0}. */
typedef struct fpar_local_buffer_desc {
  size_t bytes;          /**< fixed part */
  size_t bytes_per_item; /**< part that scales with the group size */
  size_t align; /**< power of two up to FPAR_MAX_LOCAL_ALIGN; 0 means 64 */
} fpar_local_buffer_desc;

/** Most bytes of arguments a launch copies when it is submitted
 *  (fpar_launch_desc::args_size): 32 pointers or doubles. */
#define FPAR_MAX_ARGS_SIZE 256

/** Most launch-time local buffers one launch may have. */
#define FPAR_MAX_LOCAL_BUFFERS 16

/** Largest alignment of local memory (launch-time local buffers,
 *  group-local objects, memory requests): a page.  Larger alignments are
 *  rejected with FPAR_EINVAL or fail the launch. */
#define FPAR_MAX_LOCAL_ALIGN 4096

/* Inline fast paths of fpar_group_local_memory(),
 * fpar_group_local_memory_for_overwrite() and fpar_local_buffer().  A
 * running group keeps its objects and launch-time buffers where inline
 * code can read them, the view it->run points at, so that asking again
 * for an object that exists costs a few loads and compares instead of a
 * call, and a loop over work-items (a row runner, a phase loop) can hoist
 * the request and vectorize.  Creating an object, a request that differs
 * from the object's, and misuse take the functions (the macros keep their
 * names: (fpar_local_buffer)(it, k) calls the function), with a copy of
 * the item, so that the caller's item and view stay private to it (else
 * the compiler must assume the call changes them, in every iteration). */

/* The alignment of a group-local object asked for with alignment 0. */
#define FPAR__LOCAL_ALIGN_DEFAULT 16

/* A group-local object: the k-th request of the group's work-items. */
typedef struct fpar__local_obj {
  void *ptr;
  size_t size;
  size_t align;
  size_t owner; /* local linear id of the work-item that allocated it */
} fpar__local_obj;

/* What inline code reads of a running group (the library writes it): the
 * start of the group's run, or a copy of it (phase loops).  Internal: its
 * layout is not part of the API and may change in any release.  `abi`,
 * first, never moves: it is FPAR__GROUP_VIEW_ABI of the library that
 * wrote the view, which changes with the layout or with what phase
 * loops exchange with the library (version 3: the states-equal entry
 * after a phase's stops, <fiberpar/phase.h>; version 4: the collectives'
 * slots of the 8-byte types apart), and code compiled against
 * another version finds it different and calls the functions. */
#define FPAR__GROUP_VIEW_ABI 0x56570004u
typedef struct fpar__group_view {
  unsigned abi; /* FPAR__GROUP_VIEW_ABI: "VW", then the layout's version */
  void *local_buffers[FPAR_MAX_LOCAL_BUFFERS]; /* the launch's buffers */
  unsigned num_local_buffers;
  unsigned num_objects; /* objects[0 .. num_objects - 1] exist */
  fpar__local_obj *objects;
  struct fpar__group_run *run; /* the group's run itself */
  /* Collectives of phase kernels run as loops (FPAR_PHASE_GROUP, in
   * <fiberpar/group.h>): each call stores its value at its local linear id
   * in phase_slots, or phase_wide_slots for the 8-byte types (NULL when
   * the group does not run as phase loops), and names the collective in
   * *phase_op, the library's (a type of its own, so that the compiler sees
   * no store of a kernel's own changing it); between the phases the
   * library combines the slots, a scan in place, and a reduction's result
   * is phase_result's first bytes.  The two sizes have slots of their
   * own: a phase that reads a scan's results and deposits for a
   * collective of the other size must not overwrite results that the
   * work-items after it have yet to read. */
  void *phase_slots;
  uint64_t phase_result;
  uint16_t *phase_op;
  void *phase_wide_slots;
} fpar__group_view;

/* The group view of a work-item: NULL for an item the library did not
 * make, or one whose layout is not this header's. */
static inline const fpar__group_view *fpar__view(const fpar_item *it) {
  const fpar__group_view *v = (const fpar__group_view *)(const void *)it->run;

  return v != NULL && v->abi == FPAR__GROUP_VIEW_ABI ? v : NULL;
}

/* The view of a work-item's group when the group runs as phase loops (its
 * collectives' slots are there), else NULL. */
static inline const fpar__group_view *fpar__phase_view(const fpar_item *it) {
  const fpar__group_view *v = fpar__view(it);

  return v != NULL && v->phase_slots != NULL ? v : NULL;
}

/* Fill *copy with the group view of `from` and point `it` (a copy of
 * `from`) at it (phase loops: no store of the kernel can touch the copy,
 * so the compiler hoists its reads out of the loop).  Reading the view
 * from the other item keeps the compiler from seeing the copy's address
 * as a value the copy may hold, which would make it escape with any item
 * handed out of line.  Without a view of this layout the copy has no
 * objects and no buffers, and leads to the group's run. */
static inline void fpar__view_copy(const fpar_item *from, fpar_item *it,
                                   fpar__group_view *copy) {
  const fpar__group_view *v = fpar__view(from);

  if (v != NULL) {
    *copy = *v;
  } else {
    __builtin_memset(copy, 0, sizeof *copy);
    copy->abi = FPAR__GROUP_VIEW_ABI;
    copy->run = from->run;
  }
  it->run = (struct fpar__group_run *)(void *)copy;
}

/* The function behind a fast path (which: 0 fpar_local_buffer, 1
 * fpar_group_local_memory, 2 its _for_overwrite form). */
static __attribute__((unused, noinline, cold)) void *
fpar__local_slow(fpar_item *it, int which, size_t a, size_t b) {
  if (which == 0)
    return (fpar_local_buffer)(it, (unsigned)a);
  if (which == 1)
    return (fpar_group_local_memory)(it, a, b);
  return (fpar_group_local_memory_for_overwrite)(it, a, b);
}

/* Fill *call with a copy of `it` for a call out of line, made field by
 * field and pointing at the group's run (NULL without a view of this
 * layout: the library finds its group without it): neither `it` nor its
 * view (the copy of a phase loop) escapes, so the compiler keeps assuming
 * that no call changes them. */
static inline void fpar__item_call_copy(const fpar_item *it, fpar_item *call) {
  unsigned d;

  for (d = 0; d < 3; d++) {
    call->local_id[d] = it->local_id[d];
    call->origin[d] = it->origin[d];
    call->group_id[d] = it->group_id[d];
  }
  call->row_linear = it->row_linear;
  call->geometry = it->geometry;
  call->run = fpar__view(it) != NULL ? fpar__view(it)->run : NULL;
  call->local_calls = it->local_calls;
  call->lanes = it->lanes;
}

/* fpar__local_slow() for the item `it`, through a copy. */
static inline void *fpar__local_slow_copy(fpar_item *it, int which, size_t a,
                                          size_t b) {
  fpar_item call;
  void *p;

  fpar__item_call_copy(it, &call);
  p = fpar__local_slow(&call, which, a, b);
  it->local_calls = call.local_calls;
  return p;
}

/* Object it->local_calls if it exists with this size and alignment, else
 * the function (zero: fpar_group_local_memory's). */
static inline void *fpar__group_local_fast(fpar_item *it, size_t size,
                                           size_t align, int zero) {
  const fpar__group_view *v = fpar__view(it);
  unsigned k = it->local_calls;

  if (__builtin_expect(v != NULL && k < v->num_objects, 1) &&
      v->objects[k].size == size &&
      v->objects[k].align == (align != 0 ? align : FPAR__LOCAL_ALIGN_DEFAULT)) {
    it->local_calls = k + 1;
    return v->objects[k].ptr;
  }
  return fpar__local_slow_copy(it, zero ? 1 : 2, size, align);
}

/* Launch-time buffer k if the launch has it, else the function. */
static inline void *fpar__local_buffer_fast(fpar_item *it, unsigned k) {
  const fpar__group_view *v = fpar__view(it);

  if (__builtin_expect(v != NULL && k < v->num_local_buffers, 1))
    return v->local_buffers[k];
  return fpar__local_slow_copy(it, 0, k, 0);
}

/** fpar_group_local_memory() with its inline fast path (see the function).
 *  \param it the calling work-item. \param size bytes.
 *  \param align alignment. */
#define fpar_group_local_memory(it, size, align)                               \
  fpar__group_local_fast((it), (size), (align), 1)
/** fpar_group_local_memory_for_overwrite() with its inline fast path.
 *  \param it the calling work-item. \param size bytes.
 *  \param align alignment. */
#define fpar_group_local_memory_for_overwrite(it, size, align)                 \
  fpar__group_local_fast((it), (size), (align), 0)
/** fpar_local_buffer() with its inline fast path.
 *  \param it the calling work-item. \param k the buffer's index. */
#define fpar_local_buffer(it, k) fpar__local_buffer_fast((it), (k))

/** A kernel defined with its runners by FPAR_KERNEL, FPAR_LANE_KERNEL,
 *  FPAR_PHASE_KERNEL or FPAR_PHASE_LANE_KERNEL: a `static const` object
 *  the macro makes, passed by address to fpar_parallel_for_kernel() or
 *  set as fpar_launch_desc::def.  (Its members are the library's; struct
 *  fpar_kernel is in <fiberpar/phase.h>.) */
typedef struct fpar_kernel fpar_kernel;

/** How a phase kernel (FPAR_PHASE_KERNEL) runs (FIBERPAR_PHASE=loops|
 *  fibers|debug|loops-fused|loops-split|loops-scalar). */
typedef enum fpar_phase_mode {
  FPAR_PHASE_DEFAULT = 0, /**< FIBERPAR_PHASE, else FPAR_PHASE_LOOPS */
  /** Each phase as one loop over the work-items, in whichever of its
   *  forms (FUSED, SPLIT, SCALAR below) each worker measured fastest on
   *  its first groups of the kernel. */
  FPAR_PHASE_LOOPS,
  FPAR_PHASE_FIBERS, /**< each work-item a fiber, as a kernel with
                          fpar_barrier() (the reference) */
  FPAR_PHASE_DEBUG,  /**< loops in reverse order, per-item state and
                          stack poisoned, no inlining */
  /** As loops, in the form whose item loops fold where each call stopped
   *  into the group's check as they go (a lane kernel's only form). */
  FPAR_PHASE_LOOPS_FUSED,
  /** As loops, in the form that folds the calls' stops after each row's
   *  item loops: loops GCC vectorizes more often (a lane kernel runs its
   *  only form). */
  FPAR_PHASE_LOOPS_SPLIT,
  /** As loops, in the fused form compiled without loop vectorization:
   *  faster where vector loops gather and scatter for a few active
   *  work-items (a lane kernel, or a kernel built without GCC's
   *  optimization, runs its fused form). */
  FPAR_PHASE_LOOPS_SCALAR
} fpar_phase_mode;

/** fpar_launch_desc::flags. */
enum fpar_launch_flags {
  /** Refuse (FPAR_ENONDIV) a local range that does not divide the global
   *  range, instead of running smaller last groups: OpenCL's
   *  -cl-uniform-work-group-size, SYCL's nd_range rule (which
   *  fpar_parallel_for() keeps). */
  FPAR_LAUNCH_UNIFORM = 1u << 0
};

/** A full launch description.  Exactly one of def, kernel, scoped and
 *  hierarchical is set.  For a kernel, global and local are the nd_range;
 *  for a scoped or hierarchical group function, global is the number of
 *  work groups and local the group size (logical items for scoped groups,
 *  physical work-items or FPAR_LOCAL_AUTO for hierarchical ones). */
typedef struct fpar_launch_desc {
  /** sizeof(fpar_launch_desc) in the caller's build, set by
   *  fpar_launch_desc_init() (see fpar_runtime_opts::size). */
  size_t size;
  const char *name;      /**< kernel name for messages (copied); may be NULL */
  fpar_kernel_fn kernel; /**< the kernel, or NULL (see def) */
  /** The runner of kernel (see fpar_row_fn; made by the deprecated
   *  FPAR_DEFINE_ROW and FPAR_DEFINE_LANE_ROW), or NULL; def carries its
   *  own. */
  fpar_row_fn row;
  /** FPAR_SIMD_WIDTH for a FPAR_DEFINE_LANE_KERNEL kernel
   *  (<fiberpar/simd.h>); 0 otherwise. */
  unsigned lanes;
  fpar_group_fn scoped;       /**< group function of fpar_parallel() */
  fpar_group_fn hierarchical; /**< of fpar_parallel_for_work_group() */
  void *args;                 /**< passed to every call */
  fpar_range global;          /**< global range, or number of work groups */
  fpar_range local;           /**< FPAR_LOCAL_AUTO lets the runtime choose */
  const fpar_local_buffer_desc *local_buffers; /**< copied at submission */
  unsigned num_local_buffers;                  /**< entries of local_buffers */
  /** Instead of kernel, row and lanes: a kernel defined with its runners
   *  (FPAR_KERNEL...), whose name serves when name is NULL. */
  const fpar_kernel *def;
  fpar_phase_mode phase_mode; /**< for a phase kernel def only */
  /** Global id of the first work-item in each dimension, OpenCL's
   *  global_work_offset and SYCL 1.2.1's nd_range offset: the work-items
   *  are global_offset .. global_offset + global - 1, as fpar_global_id()
   *  reports them (fpar_global_linear_id() still counts from 0).  0 beyond
   *  the global range's dimensions; all 0 (no offset) for scoped and
   *  hierarchical launches.  A caller whose description is older than
   *  this member launches without an offset. */
  size_t global_offset[3];
  /** FPAR_LAUNCH_* bits; a caller whose description is older than this
   *  member gets FPAR_LAUNCH_UNIFORM, the rule it was built with. */
  unsigned flags;
  /** Work-items per sub-group of an nd_range kernel
   *  (<fiberpar/subgroup.h>), 1 to FPAR_MAX_SUB_GROUP_SIZE; 0 = the
   *  runtime's fpar_runtime_subgroup_size() (up to
   *  FPAR_MAX_SUB_GROUP_SIZE), or the lanes of a lane kernel, which
   *  accepts no other value. */
  unsigned subgroup_size;
  /** Arguments by value: when not 0, fpar_launch() copies the args_size
   *  bytes at args (at most FPAR_MAX_ARGS_SIZE) into the launch, and every
   *  call receives a pointer to that copy, aligned to 64 bytes, so that
   *  args need not outlive the call to fpar_launch() (OpenCL copies kernel
   *  arguments at enqueue, SYCL captures by value).  The copy is shared by
   *  all work-items of the launch: kernels only read it.  0 (and a caller
   *  whose description is older than this member): args is passed as
   *  given and must stay valid until the launch has finished. */
  size_t args_size;
} fpar_launch_desc;

/**
 * \brief Reset a launch description (all zero: local = FPAR_LOCAL_AUTO, no
 *        buffers) and set its size.  Inline, like fpar_runtime_opts_init().
 * \param d the description.
 */
static inline void fpar_launch_desc_init(fpar_launch_desc *d) {
  static const fpar_launch_desc defaults = FPAR__ZERO_INIT;

  *d = defaults;
  d->size = sizeof *d;
}

/* ---- Defining and launching a kernel: the normal way ------------------ */

/** Define the kernel `name`, a `static const fpar_kernel`, whose body
 *  follows as that of `void kernel(fpar_item *it, void *args)`:
 *
 *    FPAR_KERNEL(blur, it, args) { ... }
 *
 *  and launch it with fpar_parallel_for_kernel(q, global, local, &blur,
 *  args, &ev) or as fpar_launch_desc::def.
 *
 *  The macro also defines the kernel's runner, in this file: for every
 *  group that reaches no barrier, the runtime calls the body for
 *  work-item 0, then the runner once for the rest of the group, which
 *  loops over the group's rows (dimension 0 innermost, as a plain C loop
 *  nest would), with the body inlined.  So a barrier-free kernel costs
 *  what the plain loop costs, and where the compiler can vectorise the
 *  loop over a row across work-items, it does (see FPAR_OPENMP_SIMD above:
 *  build with `pkg-config --cflags fiberpar`, or -fopenmp-simd
 *  -DFPAR_OPENMP_SIMD, for GCC to do it at -O2).  This relies on the rule
 *  of OpenCL and SYCL that work-items between barriers do not depend on
 *  each other: one work-item must not read what another writes (nor two
 *  write the same place) without an atomic operation or a barrier between
 *  them.  Atomics, fpar_group_local_memory() (the k-th request of each
 *  work-item is object k), fpar_local_buffer(), every id and sub-group
 *  query work as in any kernel; a loop that calls a function the compiler
 *  cannot inline stays scalar.
 *
 *  The body may call fpar_barrier(): a group whose work-item 0 reaches one
 *  runs on fibers as usual (the runner is only for groups that reach
 *  none; a work-item of the runner's loop that reaches a barrier fails
 *  the launch with FPAR_EDIVERGENCE, as it would on fibers). */
#define FPAR_KERNEL(name, it, args)                                            \
  FPAR__ALWAYS_INLINE void name##_fpar_fn_(fpar_item *it FPAR__UNUSED,         \
                                           void *args FPAR__UNUSED);           \
  static void name##_fpar_kernel_(fpar_item *fpar_it_, void *fpar_args_) {     \
    name##_fpar_fn_(fpar_it_, fpar_args_);                                     \
  }                                                                            \
  FPAR__DEFINE_ROWS(name##_fpar_row_, name##_fpar_fn_, )                       \
  FPAR__KERNEL_DEF(name, name##_fpar_kernel_, name##_fpar_row_, 1)             \
  FPAR__ALWAYS_INLINE void name##_fpar_fn_(fpar_item *it FPAR__UNUSED,         \
                                           void *args FPAR__UNUSED)

/** Define the lane kernel `name` (needs <fiberpar/simd.h>): its body
 *  follows as that of `void body(fpar_lanes *lk, void *args)` and runs
 *  once per sub-group of FPAR_SIMD_WIDTH work-items along dimension 0, in
 *  vector form (FPAR_DEFINE_LANE_KERNEL); its runner runs the sub-groups
 *  of the rest of a group that reaches no barrier, inlined, the last one
 *  of each row masked. */
#define FPAR_LANE_KERNEL(name, lk, args)                                       \
  FPAR__ALWAYS_INLINE void name##_fpar_lanes_(fpar_lanes *lk FPAR__UNUSED,     \
                                              void *args FPAR__UNUSED);        \
  FPAR_DEFINE_LANE_KERNEL(name##_fpar_kernel_, name##_fpar_lanes_)             \
  FPAR__DEFINE_LANE_ROWS(name##_fpar_row_, name##_fpar_lanes_, )               \
  FPAR__KERNEL_DEF(name, name##_fpar_kernel_, name##_fpar_row_,                \
                   FPAR_SIMD_WIDTH)                                            \
  FPAR__ALWAYS_INLINE void name##_fpar_lanes_(fpar_lanes *lk FPAR__UNUSED,     \
                                              void *args FPAR__UNUSED)

/* The fpar_kernel of a kernel that is not a phase kernel. */
#define FPAR__KERNEL_DEF(name, fn, row, lanes)                                 \
  static const fpar_kernel name = {                                            \
      #name, __FILE__, fn, row, lanes, NULL, NULL, NULL, 0, 0, 0, 0, NULL};

/**
 * \brief Submit the kernel \p k (FPAR_KERNEL and friends) for every
 *        work-item of \p global in work-groups of \p local; returns at
 *        once.
 * \param q the queue.
 * \param global the global range.
 * \param local the work-group range, or FPAR_LOCAL_AUTO: then the
 *        runtime chooses groups that divide \p global, as long along
 *        dimension 0 as it can (whole rows, up to the runtime's
 *        max_group_size), several per worker.
 * \param k the kernel.
 * \param args passed to every call.
 * \param ev receives an event the caller must release, or NULL.
 * \return as fpar_launch(); groups are uniform, as with
 *         fpar_parallel_for().
 */
FPAR_EXTERN int fpar_parallel_for_kernel(fpar_queue *q, fpar_range global,
                                         fpar_range local, const fpar_kernel *k,
                                         void *args, fpar_event **ev);

/**
 * \brief fpar_parallel_for_kernel() with its arguments passed by value
 *        (as fpar_parallel_for_by_value()): the launch keeps a copy of
 *        the \p args_size bytes at \p args, which need not outlive the
 *        call.
 * \param q the queue.
 * \param global the global range.
 * \param local the work-group range, or FPAR_LOCAL_AUTO.
 * \param k the kernel; its calls receive a pointer to the launch's copy
 *        (64-byte aligned, shared by all work-items: read it only).
 * \param args the arguments to copy.
 * \param args_size their size in bytes, 1 to FPAR_MAX_ARGS_SIZE.
 * \param ev receives an event the caller must release, or NULL.
 * \return as fpar_launch(): FPAR_EINVAL for args_size 0 or above
 *         FPAR_MAX_ARGS_SIZE, or args NULL.
 */
FPAR_EXTERN int fpar_parallel_for_kernel_by_value(
    fpar_queue *q, fpar_range global, fpar_range local, const fpar_kernel *k,
    const void *args, size_t args_size, fpar_event **ev);

/* ---- Launching with a description, or a bare kernel function ---------- */

/**
 * \brief Submit an nd_range launch described by \p d; returns at once.
 *
 * Work-group sizes (the rule of OpenCL 2.0, which PoCL and DPC++ follow):
 * an explicit local range need not divide the global range.  The groups
 * are then ceil(global / local) per dimension, and the last group of a
 * dimension that does not divide is smaller: fpar_local_range() gives its
 * size, fpar_enqueued_local_range() the size asked for.  Such a group
 * runs fewer work-items (fewer fibers; its barriers wait for those only);
 * its launch-time local buffers keep the enqueued group's size.  With
 * FPAR_LAUNCH_UNIFORM in d->flags a non-dividing local range fails with
 * FPAR_ENONDIV instead, as fpar_parallel_for() and
 * fpar_parallel_for_kernel() always do: they are SYCL's nd_range, whose
 * local range must divide, so a launch through them always has groups of
 * one size.  A local range chosen by the runtime (FPAR_LOCAL_AUTO) always
 * divides.  The default is OpenCL's because fpar_launch() is the OpenCL
 * form (launch-time local buffers, offsets) and kernels written for
 * OpenCL 2.0 size their loops by fpar_local_range(); kernels that assume
 * equal groups ask for them.
 * \param q the queue.
 * \param d the description.
 * \param ev receives an event the caller must release, or NULL.
 * \return 0; FPAR_EINVAL (also for args_size above FPAR_MAX_ARGS_SIZE,
 *         or not 0 with args NULL), FPAR_EDIM, FPAR_EEMPTY, FPAR_ENONDIV,
 *         FPAR_EGROUPSIZE, FPAR_ELOCALMEM, FPAR_ENULLKERNEL or FPAR_ENOMEM
 *         for a launch that cannot run (nothing is submitted).
 */
FPAR_EXTERN int fpar_launch(fpar_queue *q, const fpar_launch_desc *d,
                            fpar_event **ev);

/**
 * \brief Submit kernel(it, args) for every work-item of \p global, in
 *        work-groups of \p local; returns at once.
 *
 * For a kernel function chosen at run time: every work-item costs an
 * indirect call, and the loop over work-items cannot vectorise; a kernel
 * defined with FPAR_KERNEL and launched with fpar_parallel_for_kernel()
 * costs what the plain C loop costs.
 *
 * As SYCL's nd_range: all groups have the size \p local, which must divide
 * \p global (else FPAR_ENONDIV), and there is no offset; fpar_launch()
 * offers offsets and smaller last groups.
 * \param q the queue.
 * \param global the global range.
 * \param local the work-group range, or FPAR_LOCAL_AUTO.
 * \param kernel the kernel.
 * \param args passed to every call.
 * \param ev receives an event the caller must release, or NULL.
 * \return as fpar_launch().
 */
FPAR_EXTERN int fpar_parallel_for(fpar_queue *q, fpar_range global,
                                  fpar_range local, fpar_kernel_fn kernel,
                                  void *args, fpar_event **ev);

/**
 * \brief fpar_parallel_for() with its arguments passed by value: the
 *        launch keeps a copy of the \p args_size bytes at \p args, which
 *        the caller may reuse or free as soon as the call returns (a loop
 *        that queues one launch per time step can keep its step's
 *        arguments in one local variable).
 * \param q the queue.
 * \param global the global range.
 * \param local the work-group range, or FPAR_LOCAL_AUTO.
 * \param kernel the kernel; it receives a pointer to the launch's copy
 *        (64-byte aligned, shared by all work-items: read it only).
 * \param args the arguments to copy.
 * \param args_size their size in bytes, 1 to FPAR_MAX_ARGS_SIZE.
 * \param ev receives an event the caller must release, or NULL.
 * \return as fpar_launch(): FPAR_EINVAL for args_size 0 or above
 *         FPAR_MAX_ARGS_SIZE, or args NULL.
 */
FPAR_EXTERN int fpar_parallel_for_by_value(fpar_queue *q, fpar_range global,
                                           fpar_range local,
                                           fpar_kernel_fn kernel,
                                           const void *args, size_t args_size,
                                           fpar_event **ev);

#ifdef __cplusplus
}
#endif

#include <fiberpar/phase.h>
#include <fiberpar/scoped.h>
/* Work-group collectives (broadcast, reduce, scan, any, all). */
#include <fiberpar/group.h>

/* Sub-groups and group copies. */
#include <fiberpar/async_copy.h>
#include <fiberpar/subgroup.h>

#endif /* FIBERPAR_H */
