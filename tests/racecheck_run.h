/* SPDX-License-Identifier: MIT */
/* racecheck_run.h - what the racecheck suites share: run one case of a
 * kernels program in a child whose standard error goes to a file, with
 * every ThreadSanitizer report kept (exit status 66 when there was one),
 * and check where a report's accesses are. */
#ifndef FPAR_TESTS_RACECHECK_RUN_H
#define FPAR_TESTS_RACECHECK_RUN_H

#include <sys/wait.h>

#include "testutil.h"

/* Run `prog name`; returns its standard error (to free) and *status its
 * exit status.  A child killed by a signal fails the test. */
static inline char *fpar_racecheck_run(const char *prog, const char *name,
                                       int *status) {
  char path[] = "/tmp/fpar_racecheck_XXXXXX";
  int fd = mkstemp(path), ws;
  pid_t pid;
  char *out;

  ck_assert_int_ge(fd, 0);
  pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    dup2(fd, 2);
    /* Every report, not just the first: none may be the runtime's. */
    setenv("TSAN_OPTIONS", "halt_on_error=0:exitcode=66", 1);
    execl(prog, prog, name, (char *)NULL);
    _exit(127);
  }
  close(fd);
  ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
  ck_assert_msg(WIFEXITED(ws), "%s: killed by signal %d", name,
                WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
  *status = WEXITSTATUS(ws);
  out = fpar_test_read_file(path);
  unlink(path);
  ck_assert_ptr_nonnull(out);
  return out;
}

/* Whether the top frame (#0) of every access of every report in out (the
 * line after "Read of size", "Previous write of size"...) is in `file`:
 * none inside the runtime.  Else that frame goes to bad.  The location of
 * a heap word ("Location is heap block of size ...") is followed by its
 * allocation's stack, the test program's: not an access. */
static inline int fpar_racecheck_top_frames_in(const char *out,
                                               const char *file, char *bad,
                                               size_t len) {
  const char *p = out;

  while ((p = strstr(p, " of size ")) != NULL) {
    const char *frame = strchr(p, '\n'), *end, *start = p;
    size_t n;

    if (frame == NULL)
      break;
    while (start > out && start[-1] != '\n')
      start--;
    frame++;
    if (strncmp(start, "  Location is ", sizeof "  Location is " - 1) == 0) {
      p = frame;
      continue;
    }
    end = strchr(frame, '\n');
    n = end != NULL ? (size_t)(end - frame) : strlen(frame);
    snprintf(bad, len, "%.*s", (int)n, frame);
    if (strstr(bad, "#0 ") == NULL || strstr(bad, file) == NULL)
      return 0;
    p = frame;
  }
  return 1;
}

#endif
