#!/bin/sh
# SPDX-License-Identifier: MIT
# setuid_trace.sh - a setuid-root program that links libfiberpar lets its
# caller's environment decide nothing (issue 25).  As root: make a
# throwaway unprivileged user, install a setuid-root copy of
# tests/secure_launch (one launch), and run it as that user with
#   FIBERPAR_TRACE at a root-only file: the file stays byte for byte;
#   FIBERPAR_DISPLAY=1 and malformed values: no effect, nothing printed;
#   HWLOC_XMLFILE at that file, verbose: its text reaches no output;
#   HWLOC_PLUGINS_PATH at a folder with a library whose constructor
#     leaves a mark (needs a C compiler): no mark;
# and in each case the program still succeeds.  Controls run the same
# copy as root, where it is not privileged, to show that each variable
# does act outside secure mode.  The user and the files go at exit,
# also when a check fails.  Not root: skipped (exit 77), as under a
# plain `make check`; .ci/run runs it as root.
set -u
: "${top_builddir:=.}"
prog="$top_builddir/tests/secure_launch"
cc=${CC:-cc}

[ "$(id -u)" = 0 ] ||
  { echo "SKIP: needs root (to make a user and a setuid program)"; exit 77; }
for tool in useradd userdel setpriv cmp; do
  command -v "$tool" >/dev/null 2>&1 ||
    { echo "SKIP: no $tool"; exit 77; }
done
[ -x "$prog" ] || { echo "FAIL: no $prog (make check builds it)"; exit 1; }
if ldd "$prog" 2>/dev/null | grep -q libfiberpar; then
  echo "FAIL: $prog links the shared library, which a setuid copy would not"
  echo "      find; it must be linked with the library statically"
  exit 1
fi

user="fparsec$$"
work=$(mktemp -d /tmp/fpar_setuid.XXXXXX) || exit 1
cleanup() {
  userdel "$user" 2>/dev/null
  groupdel "$user" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
chmod 755 "$work"
useradd --system --no-create-home --user-group --shell /bin/false "$user" ||
  { echo "FAIL: useradd $user"; exit 1; }

# The setuid-root copy, where the user can run it, and root's own folder.
mkdir -m 755 "$work/bin" && cp "$prog" "$work/bin/tool" &&
  chown root:root "$work/bin/tool" && chmod 4755 "$work/bin/tool" || exit 1
mkdir -m 700 "$work/root" || exit 1
secret="$work/root/secret"
printf 'root-only: %s\n' "$user$$" >"$secret" && chmod 600 "$secret" &&
  cp -p "$secret" "$work/secret.orig" || exit 1

fail=0
# Run the copy as the user with the given environment; its output goes to
# $work/out.  Returns 1 (and fails the test) when it does not succeed;
# skips when it did not run as euid 0 (a nosuid mount would make the test
# meaningless).
as_user() {
  setpriv --reuid="$user" --regid="$user" --clear-groups \
    env "$@" "$work/bin/tool" >"$work/out" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL: as $user with $*: exit $rc"; cat "$work/out"; fail=1
    return 1
  fi
  if ! grep -q "euid 0$" "$work/out" || grep -q ", uid 0 euid" "$work/out"; then
    echo "SKIP: the setuid copy in $work did not run as euid 0 (is /tmp"
    echo "      mounted nosuid?); nothing was tested:"
    cat "$work/out"; exit 77
  fi
}
# The same copy run by root: not privileged, so the environment counts.
as_root() {
  env "$@" "$work/bin/tool" >"$work/out" 2>&1
}
# Fail the test with message $1 unless the command after it succeeds.
expect() {
  msg=$1; shift
  "$@" || { echo "FAIL: $msg"; cat "$work/out"; fail=1; return 1; }
}

# FIBERPAR_TRACE: root's file is not touched.
as_user FIBERPAR_TRACE="$secret" &&
  expect "FIBERPAR_TRACE changed root's file" cmp -s "$secret" "$work/secret.orig" &&
  expect "a trace file appeared beside it" test ! -e "$secret.1" &&
  echo "ok: FIBERPAR_TRACE at root's file left it as it was"
as_root FIBERPAR_TRACE="$work/root/control.json"
expect "control: FIBERPAR_TRACE wrote no trace as root" \
  grep -q traceEvents "$work/root/control.json"

# Other variables: a malformed one is not read, FIBERPAR_DISPLAY=1 makes
# it print nothing.
as_user FIBERPAR_DISPLAY=1 FIBERPAR_NUM_THREADS=x FIBERPAR_PHASE=x &&
  expect "the caller's variables made it print" \
    sh -c '! grep -q fiberpar "$1"' sh "$work/out" &&
  echo "ok: FIBERPAR_DISPLAY and malformed values had no effect"

# HWLOC_XMLFILE with verbose errors: the file's text is nowhere (the file
# as it was, should a check above have failed).
cp -p "$work/secret.orig" "$secret" || exit 1
as_user HWLOC_XMLFILE="$secret" HWLOC_XML_VERBOSE=1 &&
  expect "HWLOC_XMLFILE printed root's file" \
    sh -c '! grep -q "$1" "$2"' sh "$user$$" "$work/out" &&
  echo "ok: HWLOC_XMLFILE at root's file showed nothing of it"
as_root HWLOC_XMLFILE="$secret" HWLOC_XML_VERBOSE=1
grep -q "$user$$" "$work/out" ||
  echo "note: control: hwloc as root did not quote the file either"

# HWLOC_PLUGINS_PATH: no library of the caller's is loaded.
mkdir -m 755 "$work/plugins"
if printf '%s\n' '#include <fcntl.h>' \
    '__attribute__((constructor)) static void mark(void) {' \
    "  open(\"$work/mark\", O_CREAT | O_WRONLY, 0644);" '}' \
    >"$work/plugin.c" &&
  "$cc" -shared -fPIC -o "$work/plugins/hwloc_mark.so" "$work/plugin.c" \
    2>/dev/null; then
  as_root HWLOC_PLUGINS_PATH="$work/plugins"
  if [ -e "$work/mark" ]; then
    rm -f "$work/mark"
    as_user HWLOC_PLUGINS_PATH="$work/plugins" &&
      expect "HWLOC_PLUGINS_PATH loaded the caller's library as root" \
        test ! -e "$work/mark" &&
      echo "ok: HWLOC_PLUGINS_PATH loaded nothing"
  else
    echo "note: hwloc loads no plugins here (built without them): not tried"
  fi
else
  echo "note: no C compiler ($cc) for a plugin: HWLOC_PLUGINS_PATH not tried"
fi

[ $fail = 0 ] && echo "ok: the setuid copy obeyed none of its caller's variables"
exit $fail
