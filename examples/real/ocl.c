/* SPDX-License-Identifier: MIT */
/* ocl.c - the OpenCL host side of the real-kernel suite: the first CPU
 * device, programs built once from the embedded .cl sources, buffers over
 * host memory, kernel arguments, launches and maps.  Built without OpenCL
 * (configure --with-opencl=no, or none found), opening says so and the
 * pocl column is skipped. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "real.h"

#ifdef REAL_OPENCL

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

/* Objects made since the last reset, released together. */
#define REAL_OCL_MAX 64

struct real_clbuf {
  cl_mem mem;
  size_t size;
};

struct real_clk {
  real_ocl *o;
  cl_kernel k;
  const char *name;
};

typedef struct real_clprog {
  const char *name;
  cl_program p;
} real_clprog;

struct real_ocl {
  cl_platform_id platform;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue q;
  char describe[640]; /* platform version, device name, units */
  real_clprog progs[REAL_OCL_MAX];
  unsigned nprogs;
  real_clk kernels[REAL_OCL_MAX];
  unsigned nkernels;
  real_clbuf bufs[REAL_OCL_MAX];
  unsigned nbufs;
};

/* The name of an OpenCL error code, for messages. */
static const char *cl_name(cl_int e) {
  switch (e) {
#define REAL_CL_CASE(x)                                                        \
  case x:                                                                      \
    return #x;
    REAL_CL_CASE(CL_DEVICE_NOT_FOUND)
    REAL_CL_CASE(CL_OUT_OF_RESOURCES)
    REAL_CL_CASE(CL_OUT_OF_HOST_MEMORY)
    REAL_CL_CASE(CL_BUILD_PROGRAM_FAILURE)
    REAL_CL_CASE(CL_INVALID_VALUE)
    REAL_CL_CASE(CL_INVALID_PLATFORM)
    REAL_CL_CASE(CL_INVALID_DEVICE)
    REAL_CL_CASE(CL_INVALID_BUFFER_SIZE)
    REAL_CL_CASE(CL_INVALID_HOST_PTR)
    REAL_CL_CASE(CL_INVALID_KERNEL_NAME)
    REAL_CL_CASE(CL_INVALID_ARG_INDEX)
    REAL_CL_CASE(CL_INVALID_ARG_VALUE)
    REAL_CL_CASE(CL_INVALID_ARG_SIZE)
    REAL_CL_CASE(CL_INVALID_KERNEL_ARGS)
    REAL_CL_CASE(CL_INVALID_WORK_DIMENSION)
    REAL_CL_CASE(CL_INVALID_WORK_GROUP_SIZE)
    REAL_CL_CASE(CL_INVALID_WORK_ITEM_SIZE)
    REAL_CL_CASE(CL_INVALID_GLOBAL_WORK_SIZE)
#undef REAL_CL_CASE
  case -1001:
    return "CL_PLATFORM_NOT_FOUND_KHR (no OpenCL platform installed)";
  default:
    return "an OpenCL error";
  }
}

int real_ocl_open(real_ocl **op, char *why, size_t len) {
  cl_platform_id platforms[8];
  cl_uint n = 0, i;
  cl_int e;
  real_ocl *o;
  char pver[256], dname[256];
  cl_uint units = 0;

  e = clGetPlatformIDs(8, platforms, &n);
  if (e != CL_SUCCESS || n == 0) {
    snprintf(why, len, "no OpenCL platform (clGetPlatformIDs: %d %s)", e,
             e != CL_SUCCESS ? cl_name(e) : "none listed");
    return -1;
  }
  o = calloc(1, sizeof *o);
  if (o == NULL) {
    snprintf(why, len, "out of memory");
    return -1;
  }
  for (i = 0; i < n && i < 8; i++)
    if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_CPU, 1, &o->device, NULL) ==
        CL_SUCCESS) {
      o->platform = platforms[i];
      break;
    }
  if (o->platform == NULL) {
    snprintf(why, len, "no CPU device on the %u OpenCL platform(s)", n);
    free(o);
    return -1;
  }
  o->ctx = clCreateContext(NULL, 1, &o->device, NULL, NULL, &e);
  if (e == CL_SUCCESS)
    o->q = clCreateCommandQueue(o->ctx, o->device, 0, &e);
  if (e != CL_SUCCESS) {
    snprintf(why, len, "no OpenCL context or queue (%d %s)", e, cl_name(e));
    if (o->ctx != NULL)
      clReleaseContext(o->ctx);
    free(o);
    return -1;
  }
  if (clGetPlatformInfo(o->platform, CL_PLATFORM_VERSION, sizeof pver, pver,
                        NULL) != CL_SUCCESS)
    strcpy(pver, "?");
  if (clGetDeviceInfo(o->device, CL_DEVICE_NAME, sizeof dname, dname, NULL) !=
      CL_SUCCESS)
    strcpy(dname, "?");
  clGetDeviceInfo(o->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units,
                  NULL);
  snprintf(o->describe, sizeof o->describe, "%s, device %s, %u compute units",
           pver, dname, units);
  *op = o;
  return 0;
}

void real_ocl_reset(real_ocl *o) {
  unsigned i;

  clFinish(o->q);
  for (i = 0; i < o->nkernels; i++)
    clReleaseKernel(o->kernels[i].k);
  for (i = 0; i < o->nbufs; i++)
    clReleaseMemObject(o->bufs[i].mem);
  for (i = 0; i < o->nprogs; i++)
    clReleaseProgram(o->progs[i].p);
  o->nkernels = o->nbufs = o->nprogs = 0;
}

void real_ocl_close(real_ocl *o) {
  real_ocl_reset(o);
  clReleaseCommandQueue(o->q);
  clReleaseContext(o->ctx);
  free(o);
}

const char *real_ocl_describe(const real_ocl *o) {
  return o->describe;
}

/* The program name, built on first use. */
static cl_program program(real_ocl *o, const char *name) {
  const char *src = real_cl_source(name);
  char log[4096];
  unsigned i;
  cl_int e;
  cl_program p;

  for (i = 0; i < o->nprogs; i++)
    if (strcmp(o->progs[i].name, name) == 0)
      return o->progs[i].p;
  if (src == NULL || o->nprogs == REAL_OCL_MAX) {
    fprintf(stderr, "real: no OpenCL source for %s\n", name);
    return NULL;
  }
  p = clCreateProgramWithSource(o->ctx, 1, &src, NULL, &e);
  if (e != CL_SUCCESS) {
    fprintf(stderr, "real: %s.cl: clCreateProgramWithSource: %d %s\n", name, e,
            cl_name(e));
    return NULL;
  }
  e = clBuildProgram(p, 1, &o->device, "", NULL, NULL);
  if (e != CL_SUCCESS) {
    log[0] = '\0';
    clGetProgramBuildInfo(p, o->device, CL_PROGRAM_BUILD_LOG, sizeof log, log,
                          NULL);
    log[sizeof log - 1] = '\0';
    fprintf(stderr, "real: %s.cl does not build (%d %s):\n%s\n", name, e,
            cl_name(e), log);
    clReleaseProgram(p);
    return NULL;
  }
  o->progs[o->nprogs].name = name;
  o->progs[o->nprogs++].p = p;
  return p;
}

real_clk *real_ocl_kernel(real_ocl *o, const char *name, const char *kname) {
  cl_program p = program(o, name);
  real_clk *k;
  cl_int e;

  if (p == NULL)
    return NULL;
  if (o->nkernels == REAL_OCL_MAX) {
    fprintf(stderr, "real: too many OpenCL kernels\n");
    return NULL;
  }
  k = &o->kernels[o->nkernels];
  k->k = clCreateKernel(p, kname, &e);
  if (e != CL_SUCCESS) {
    fprintf(stderr, "real: %s.cl: no kernel %s (%d %s)\n", name, kname, e,
            cl_name(e));
    return NULL;
  }
  k->o = o;
  k->name = kname;
  o->nkernels++;
  return k;
}

real_clbuf *real_ocl_buffer(real_ocl *o, void *host, size_t n) {
  real_clbuf *b;
  cl_int e;

  if (o->nbufs == REAL_OCL_MAX) {
    fprintf(stderr, "real: too many OpenCL buffers\n");
    return NULL;
  }
  b = &o->bufs[o->nbufs];
  b->mem = clCreateBuffer(o->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n,
                          host, &e);
  if (e != CL_SUCCESS) {
    fprintf(stderr, "real: clCreateBuffer of %zu bytes: %d %s\n", n, e,
            cl_name(e));
    return NULL;
  }
  b->size = n;
  o->nbufs++;
  return b;
}

int real_ocl_args(real_clk *k, const char *fmt, ...) {
  va_list ap;
  cl_uint i;
  cl_int e = CL_SUCCESS;

  va_start(ap, fmt);
  for (i = 0; fmt[i] != '\0' && e == CL_SUCCESS; i++) {
    switch (fmt[i]) {
    case 'b': {
      real_clbuf *b = va_arg(ap, real_clbuf *);
      e = clSetKernelArg(k->k, i, sizeof b->mem, &b->mem);
      break;
    }
    case 'i': {
      cl_int x = va_arg(ap, int);
      e = clSetKernelArg(k->k, i, sizeof x, &x);
      break;
    }
    case 'u': {
      cl_uint x = va_arg(ap, unsigned);
      e = clSetKernelArg(k->k, i, sizeof x, &x);
      break;
    }
    case 'f': {
      cl_float x = (cl_float)va_arg(ap, double);
      e = clSetKernelArg(k->k, i, sizeof x, &x);
      break;
    }
    case 'l':
      e = clSetKernelArg(k->k, i, va_arg(ap, size_t), NULL);
      break;
    default:
      e = CL_INVALID_VALUE;
    }
  }
  va_end(ap);
  if (e != CL_SUCCESS) {
    fprintf(stderr, "real: %s: argument %u: %d %s\n", k->name, i - 1, e,
            cl_name(e));
    return -1;
  }
  return 0;
}

int real_ocl_enqueue(real_clk *k, unsigned dims, const size_t *global,
                     const size_t *local) {
  cl_int e = clEnqueueNDRangeKernel(k->o->q, k->k, dims, NULL, global, local, 0,
                                    NULL, NULL);

  if (e != CL_SUCCESS) {
    fprintf(stderr, "real: enqueue %s: %d %s\n", k->name, e, cl_name(e));
    return -1;
  }
  return 0;
}

int real_ocl_finish(real_ocl *o) {
  cl_int e = clFinish(o->q);

  if (e != CL_SUCCESS) {
    fprintf(stderr, "real: clFinish: %d %s\n", e, cl_name(e));
    return -1;
  }
  return 0;
}

void *real_ocl_map(real_ocl *o, real_clbuf *b, size_t off, size_t n,
                   int write) {
  cl_int e;
  void *p = clEnqueueMapBuffer(o->q, b->mem, CL_TRUE,
                               write ? CL_MAP_WRITE : CL_MAP_READ, off, n, 0,
                               NULL, NULL, &e);

  if (e != CL_SUCCESS) {
    fprintf(stderr, "real: clEnqueueMapBuffer: %d %s\n", e, cl_name(e));
    return NULL;
  }
  return p;
}

int real_ocl_unmap(real_ocl *o, real_clbuf *b, void *p) {
  cl_int e = clEnqueueUnmapMemObject(o->q, b->mem, p, 0, NULL, NULL);

  if (e != CL_SUCCESS) {
    fprintf(stderr, "real: clEnqueueUnmapMemObject: %d %s\n", e, cl_name(e));
    return -1;
  }
  return 0;
}

#else /* no OpenCL in this build: opening says so, nothing else runs */

int real_ocl_open(real_ocl **o, char *why, size_t len) {
  (void)o;
  snprintf(why, len,
           "this build has no OpenCL (configure found none, or "
           "--with-opencl=no; Debian: apt-get install pocl-opencl-icd "
           "ocl-icd-opencl-dev)");
  return -1;
}

void real_ocl_reset(real_ocl *o) {
  (void)o;
}

void real_ocl_close(real_ocl *o) {
  (void)o;
}

const char *real_ocl_describe(const real_ocl *o) {
  (void)o;
  return "none";
}

real_clk *real_ocl_kernel(real_ocl *o, const char *name, const char *kname) {
  (void)o, (void)name, (void)kname;
  return NULL;
}

real_clbuf *real_ocl_buffer(real_ocl *o, void *host, size_t n) {
  (void)o, (void)host, (void)n;
  return NULL;
}

int real_ocl_args(real_clk *k, const char *fmt, ...) {
  (void)k, (void)fmt;
  return -1;
}

int real_ocl_enqueue(real_clk *k, unsigned dims, const size_t *global,
                     const size_t *local) {
  (void)k, (void)dims, (void)global, (void)local;
  return -1;
}

int real_ocl_finish(real_ocl *o) {
  (void)o;
  return -1;
}

void *real_ocl_map(real_ocl *o, real_clbuf *b, size_t off, size_t n,
                   int write) {
  (void)o, (void)b, (void)off, (void)n, (void)write;
  return NULL;
}

int real_ocl_unmap(real_ocl *o, real_clbuf *b, void *p) {
  (void)o, (void)b, (void)p;
  return -1;
}

#endif
