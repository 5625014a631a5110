#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Installs what the fuzz and callgrind targets need when it is missing:
# clang with libFuzzer (libclang-rt-14-dev) and valgrind (which brings
# valgrind/callgrind.h).  make all and make check need only gcc.
set -eu

missing=
command -v clang >/dev/null 2>&1 || missing=1
command -v valgrind >/dev/null 2>&1 || missing=1
[ -e /usr/include/valgrind/callgrind.h ] || missing=1
dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null |
	grep -q 'install ok installed' || missing=1
[ -z "$missing" ] && exit 0

pkgs="clang libclang-rt-14-dev valgrind"
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
echo "deps.sh: installing $pkgs" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get install -y $pkgs >&2 ||
	{ $sudo apt-get update >&2 && $sudo apt-get install -y $pkgs >&2; }
