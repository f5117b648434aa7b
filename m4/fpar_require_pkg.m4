# SPDX-License-Identifier: MIT
# FPAR_REQUIRE_PKG(VARIABLE-PREFIX, MODULES, DEBIAN-PACKAGE)
# ----------------------------------------------------------
# PKG_CHECK_MODULES that stops configure with a message naming the Debian
# package to install when the dependency is missing.
AC_DEFUN([FPAR_REQUIRE_PKG], [
  PKG_CHECK_MODULES([$1], [$2], [], [
    AC_MSG_ERROR([libfiberpar needs $2, which pkg-config cannot find.
    On Debian or Ubuntu install it with:  apt-get install -y $3
    (pkg-config said: $$1_PKG_ERRORS)])
  ])
])
