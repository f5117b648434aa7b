/* SPDX-License-Identifier: MIT */
/* test_security.c - what the library leaves to the process and its
 * children: the FIBERPAR_TRACE file (closed on exec, created 0644 under
 * the umask, reported in one line when it cannot be written, a pipe
 * works) and no executable memory of its own making.
 *
 * Run as `test_security --holds DEV INO` it is the child the fd test
 * starts: exit status 1 when one of its descriptors is that file. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "testutil.h"

#define GROUPS 4
#define ITEMS 32

/* Each group of 8 sums its work-items' global ids: each item leaves its
 * id in group-local memory, and after the barrier (so the group runs on
 * fibers) item 0 adds them up. */
static void sum_kernel(fpar_item *it, void *args) {
  unsigned *sums = args, *ids = fpar_group_local_memory(it, 8 * sizeof *ids, 0);
  size_t lid = fpar_local_linear_id(it), g = fpar_group_linear_id(it), k;

  ids[lid] = (unsigned)fpar_global_linear_id(it);
  fpar_barrier(it);
  if (lid == 0)
    for (sums[g] = 0, k = 0; k < 8; k++)
      sums[g] += ids[k];
}

/* One launch of sum_kernel on q: group g sums 8g .. 8g + 7. */
static void run_launch(fpar_queue *q) {
  unsigned sums[GROUPS];
  unsigned g;

  ck_assert_fpar_ok(fpar_parallel_for(q, fpar_range1(ITEMS), fpar_range1(8),
                                      sum_kernel, sums, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(q));
  for (g = 0; g < GROUPS; g++)
    ck_assert_uint_eq(sums[g], 64 * g + 28);
}

/* A fresh file name in TMPDIR for this test. */
static void temp_path(char *buf, size_t len, const char *what) {
  snprintf(buf, len, "%s/fpar_security_%ld_%s",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid(), what);
  unlink(buf);
}

/* The runtime's whole life with FIBERPAR_TRACE=path: create, one launch,
 * destroy; what it printed goes to out. */
static void traced_run(const char *path, char *out, size_t size) {
  fpar_test_stderr c;
  fpar_test_env e;

  ck_assert_int_eq(setenv("FIBERPAR_TRACE", path, 1), 0);
  ck_assert_int_eq(setenv("FIBERPAR_DISPLAY", "0", 1), 0);
  fpar_test_stderr_begin(&c);
  fpar_test_env_init(&e, 2);
  run_launch(e.q);
  fpar_test_env_fini(&e);
  fpar_test_stderr_end(&c, out, size);
}

/* Whether a descriptor of this process below 64K is the file dev:ino. */
static int holds(dev_t dev, ino_t ino) {
  long max = sysconf(_SC_OPEN_MAX);
  struct stat st;
  int fd;

  if (max < 0 || max > 65536)
    max = 65536;
  for (fd = 0; fd < max; fd++)
    if (fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino)
      return 1;
  return 0;
}

/* A program the host code starts with fork and exec after a traced
 * launch, while the runtime still holds the trace, does not hold it. */
START_TEST(test_trace_not_inherited) {
  char path[256], dev[32], ino[32], self[4096];
  struct stat st;
  fpar_test_env e;
  pid_t child;
  ssize_t n;
  int status;

  n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0)
    return; /* no /proc: nothing to start ourselves from */
  self[n] = '\0';
  temp_path(path, sizeof path, "inherit.json");
  ck_assert_int_eq(setenv("FIBERPAR_TRACE", path, 1), 0);
  fpar_test_env_init(&e, 2);
  run_launch(e.q);
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_msg(holds(st.st_dev, st.st_ino),
                "the runtime does not hold its trace open: the test would "
                "prove nothing");
  snprintf(dev, sizeof dev, "%ju", (uintmax_t)st.st_dev);
  snprintf(ino, sizeof ino, "%ju", (uintmax_t)st.st_ino);
  child = fork();
  ck_assert_int_ge(child, 0);
  if (child == 0) {
    execl(self, self, "--holds", dev, ino, (char *)NULL);
    _exit(127);
  }
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                "the started program holds the trace file (status %d)", status);
  fpar_test_env_fini(&e);
  unlink(path);
}
END_TEST

/* A new trace is 0644 under the umask (not fopen()'s 0666); an existing
 * file keeps its mode.  One runtime per test: the process's second would
 * write "file.1". */
static const struct {
  mode_t umask, existing, want; /* existing 0: no file before */
} modes[] = {{0, 0, 0644}, {027, 0, 0640}, {0, 0600, 0600}};

START_TEST(test_trace_mode) {
  char path[256], out[4096];
  struct stat st;

  temp_path(path, sizeof path, "mode.json");
  if (modes[_i].existing != 0) {
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(chmod(path, modes[_i].existing), 0);
  }
  umask(modes[_i].umask);
  traced_run(path, out, sizeof out);
  ck_assert_str_eq(out, "");
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_eq(st.st_mode & 07777, modes[_i].want);
  ck_assert_int_gt(st.st_size, 0);
  unlink(path);
}
END_TEST

/* Paths that cannot be written: one line names the path and the reason,
 * and the program runs on untraced. */
static const struct {
  int in_dir; /* path follows a fresh empty folder's name */
  const char *path;
  const char *said;
} unwritable[] = {
    {1, "", "cannot create \"%s\": Is a directory; tracing is off"},
    {1, "/missing/trace.json",
     "cannot create \"%s\": No such file or directory; tracing is off"},
    {0, "/dev/full", "could not write \"%s\": No space left on device"},
};

START_TEST(test_trace_unwritable) {
  char path[256], out[4096], want[512], dir[256] = "";

  if (unwritable[_i].in_dir) {
    temp_path(dir, sizeof dir, "dir");
    rmdir(dir);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
  } else if (access(unwritable[_i].path, W_OK) != 0) {
    return; /* no /dev/full here */
  }
  snprintf(path, sizeof path, "%s%s", dir, unwritable[_i].path);
  traced_run(path, out, sizeof out);
  snprintf(want, sizeof want, unwritable[_i].said, path);
  ck_assert_msg(strstr(out, want) != NULL, "stderr \"%s\" lacks \"%s\"", out,
                want);
  ck_assert_int_eq(fpar_test_count(out, "\n"), 1);
  ck_assert_int_eq(strncmp(out, "fiberpar: FIBERPAR_TRACE: ", 26), 0);
  if (unwritable[_i].in_dir)
    ck_assert_int_eq(rmdir(dir), 0); /* nothing was created in it */
}
END_TEST

/* FIBERPAR_TRACE=/dev/stdout with stdout a pipe: the trace arrives. */
START_TEST(test_trace_pipe) {
  char out[4096];
  static char got[1 << 16];
  size_t n = 0;
  ssize_t r;
  int p[2], saved = dup(1);

  ck_assert_int_eq(pipe(p), 0);
  fflush(stdout);
  ck_assert_int_ge(dup2(p[1], 1), 0);
  close(p[1]);
  traced_run("/dev/stdout", out, sizeof out);
  dup2(saved, 1);
  close(saved);
  while ((r = read(p[0], got + n, sizeof got - 1 - n)) > 0)
    n += (size_t)r;
  close(p[0]);
  got[n] = '\0';
  ck_assert_str_eq(out, "");
  ck_assert_int_eq(strncmp(got, "{\"displayTimeUnit\":\"ns\"", 23), 0);
  ck_assert_int_eq(fpar_test_count(got, "\"cat\":\"group\""), GROUPS);
  ck_assert_msg(n > 2 && got[n - 2] == '}', "unterminated trace");
}
END_TEST

/* The process's mappings, read from inside a kernel on a fiber: fiber
 * stacks, guards and the workers' alternate signal stacks all exist. */
static void maps_kernel(fpar_item *it, void *args) {
  char *buf = args;
  size_t n = 0;
  ssize_t r;
  int fd;

  fpar_barrier(it);
  if (fpar_global_linear_id(it) != 0)
    return;
  if ((fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)) < 0)
    return;
  while (n < (1 << 20) - 1 && (r = read(fd, buf + n, (1 << 20) - 1 - n)) > 0)
    n += (size_t)r;
  buf[n] = '\0';
  close(fd);
}

/* No executable mapping but the code of files (the program and its
 * libraries) and the kernel's own ([vdso], [vsyscall]). */
START_TEST(test_no_executable_memory) {
  char *maps = calloc(1, 1 << 20), *line, *save = NULL;
  fpar_test_env e;
  int lines = 0;

  ck_assert_ptr_nonnull(maps);
  fpar_test_env_init(&e, 2);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(ITEMS), fpar_range1(8),
                                      maps_kernel, maps, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  if (maps[0] == '\0') { /* no /proc */
    fpar_test_env_fini(&e);
    free(maps);
    return;
  }
  for (line = strtok_r(maps, "\n", &save); line != NULL;
       line = strtok_r(NULL, "\n", &save)) {
    char perms[8] = "", name[4096] = "";
    lines++;
    ck_assert_int_ge(sscanf(line, "%*s %7s %*s %*s %*s %4095s", perms, name),
                     1);
    if (perms[2] != 'x')
      continue;
    ck_assert_msg(name[0] == '/' || strcmp(name, "[vdso]") == 0 ||
                      strcmp(name, "[vsyscall]") == 0,
                  "executable memory not from a file: %s", line);
  }
  ck_assert_int_gt(lines, 10);
  fpar_test_env_fini(&e);
  free(maps);
}
END_TEST

static Suite *security_suite(void) {
  Suite *s = suite_create("security");
  TCase *tc = fpar_test_case("trace");

  tcase_add_test(tc, test_trace_not_inherited);
  tcase_add_loop_test(tc, test_trace_mode, 0, sizeof modes / sizeof *modes);
  tcase_add_loop_test(tc, test_trace_unwritable, 0,
                      sizeof unwritable / sizeof *unwritable);
  tcase_add_test(tc, test_trace_pipe);
  suite_add_tcase(s, tc);
  tc = fpar_test_case("memory");
  tcase_add_test(tc, test_no_executable_memory);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--holds") == 0)
    return holds((dev_t)strtoumax(argv[2], NULL, 10),
                 (ino_t)strtoumax(argv[3], NULL, 10));
  return fpar_test_run(security_suite());
}
