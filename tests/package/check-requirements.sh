#!/usr/bin/env bash
# The README's "Requirements" table against the build (ctest
# unit.readme_requirements):
#  - its first column is exactly what the CMake files look for: every
#    pkg_check_modules() module ("pkg-config NAME"), find_package(NAME),
#    find_library(VAR NAME) ("find_library(NAME)") and
#    find_program(VAR NAME) ("find_program(NAME)"), no more, no less;
#  - its run-time column is exactly the Debian package's Depends
#    (config/CMakeLists.txt, XDPLANE_DEB_DEPENDS, given as $2);
#  - every build package it names is installed by .ci/deps.
# Usage: check-requirements.sh SOURCE_DIR "DEPENDS;LIST"
set -euo pipefail
src=$1
depends=$2
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- what CMake looks for ---
find "$src" \( -name .git -o -name 'build*' -o -name results \) -prune -o \
	\( -name CMakeLists.txt -o -name '*.cmake' \) -print |
	grep -v '/config/cpack-check.cmake$' | sort >"$tmp/files"
[ -s "$tmp/files" ] || { echo "FAIL: no CMake files under $src"; exit 1; }
# one call per line: join each file, then split at the calls
xargs cat <"$tmp/files" | sed 's/#.*//' | tr '\n' ' ' |
	grep -oE '(pkg_check_modules|find_package|find_library|find_program)\([^)]*\)' |
	while read -r call; do
		name=${call%%(*}
		read -r -a args <<<"$(echo "${call#*(}" | tr -d ')')"
		case $name in
		pkg_check_modules)
			for a in "${args[@]:1}"; do
				case $a in
				REQUIRED | QUIET | IMPORTED_TARGET | GLOBAL | NO_CMAKE_PATH | NO_CMAKE_ENVIRONMENT_PATH) ;;
				*) echo "pkg-config ${a%%[<>=]*}" ;;
				esac
			done
			;;
		find_package) echo "find_package(${args[0]})" ;;
		find_library | find_program) echo "$name(${args[1]})" ;;
		esac
	done | sort -u >"$tmp/cmake"

# --- the README's table ---
awk '/^## Requirements/ { on = 1; next } /^## / { on = 0 } on' "$src/README.md" \
	>"$tmp/section"
grep -q . "$tmp/section" || { echo "FAIL: README.md has no '## Requirements' section"; exit 1; }
# rows whose first cell is `...` and that have 4 cells: the library table
awk -F'|' 'NF >= 6 && $2 ~ /`/ { print }' "$tmp/section" >"$tmp/rows"
sed -E 's/^\| *`([^`]*)`.*/\1/' "$tmp/rows" | sort -u >"$tmp/readme"
if ! diff -u "$tmp/cmake" "$tmp/readme" >"$tmp/diff"; then
	bad "README Requirements table (+) and the CMake files (-) disagree:"
	grep '^[-+][^-+]' "$tmp/diff" | sed 's/^/    /'
else
	echo "ok: README Requirements = what CMake looks for ($(wc -l <"$tmp/cmake") entries)"
fi

# --- run time: the package's Depends ---
awk -F'|' '{ print $5 }' "$tmp/rows" | tr ',' '\n' | tr -d ' ' |
	grep -v '^—*$' | grep -v '^-*$' | sort -u >"$tmp/rt"
echo "$depends" | tr ';, ' '\n\n\n' | grep . | sort -u >"$tmp/deps"
if ! diff -u "$tmp/deps" "$tmp/rt" >"$tmp/diff"; then
	bad "README run-time column (+) and the package's Depends (-) disagree:"
	grep '^[-+][^-+]' "$tmp/diff" | sed 's/^/    /'
else
	echo "ok: README run-time column = Depends: $(paste -sd' ' "$tmp/deps")"
fi

# --- build packages: installed by .ci/deps ---
n=0
for p in $(awk -F'|' '{ print $4 }' "$tmp/rows" | tr ',' ' '); do
	n=$((n + 1))
	grep -qE "(^|[[:space:](])$p([[:space:])]|$)" "$src/.ci/deps" ||
		bad "README names build package $p, which .ci/deps does not install"
done
[ $n -gt 0 ] || bad "no build packages in the README table"
[ $fail -ne 0 ] || echo "ok: the $n build packages are in .ci/deps"
exit $fail
