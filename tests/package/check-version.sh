#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# check-version.sh SRC VERSION XDPLANE XDPLANECTL (ctest unit.version):
# both programs' --version print the project's VERSION (project() in
# SRC/CMakeLists.txt, the one place it is set) and, when SRC is a git work
# tree, its `git describe --always --dirty --tags` as it is now:
#   xdplane 0.1.0 (git 75c67a7)
set -euo pipefail
src=$1 version=$2
shift 2
want_version=$(sed -n 's/^project(xdplane VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[ "$version" = "$want_version" ] ||
	{ echo "FAIL: built for $version, CMakeLists.txt says $want_version"; exit 1; }
suffix=""
if [ -e "$src/.git" ] && command -v git >/dev/null; then
	suffix=" (git $(git -C "$src" describe --always --dirty --tags))"
fi
rc=0
for prog in "$@"; do
	name=$(basename "$prog")
	got=$("$prog" --version)
	want="$name $version$suffix"
	if [ "$got" = "$want" ]; then
		echo "ok: $name --version: $got"
	else
		echo "FAIL: $name --version: '$got', want '$want'"
		rc=1
	fi
done
exit $rc
