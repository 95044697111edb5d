#!/usr/bin/env bash
# The documentation a newcomer reads first stays readable (ctest
# unit.docs_readable):
#  - README.md's first command (the first line of its first ```sh block)
#    is within its first 40 lines, on the first screen;
#  - no paragraph of README.md or of a Markdown file under docs/ has more
#    than 120 words. A paragraph is a run of non-blank lines outside code
#    fences; each table row, list item and heading counts on its own.
# Usage: check-docs.sh SOURCE_DIR [FILE...] (default: README.md and
# docs/**/*.md of SOURCE_DIR; the first FILE is taken as the README).
set -euo pipefail
src=$1
shift
if [ $# -eq 0 ]; then
	set -- "$src/README.md"
	while IFS= read -r f; do set -- "$@" "$f"; done \
		< <(find "$src/docs" -name '*.md' 2>/dev/null | sort)
fi
fail=0

first=$(awk '/^```(sh|bash)$/ { getline; print FNR; exit }' "$1")
if [ -z "$first" ]; then
	echo "FAIL: $1 has no sh block"
	fail=1
elif [ "$first" -gt 40 ]; then
	echo "FAIL: $1: the first command is on line $first; at most 40"
	fail=1
else
	echo "ok: $1: the first command is on line $first"
fi

if ! awk -v max=120 '
	function flush() {
		if (n > max) { printf "FAIL: %s:%d: a paragraph of %d words; at most %d\n", sf, start, n, max; bad++ }
		n = 0
	}
	FNR == 1 { flush(); fence = 0 }
	/^```/ { flush(); fence = !fence; next }
	fence { next }
	/^[[:space:]]*$/ { flush(); next }
	/^\|/ || /^[[:space:]]*([-*]|[0-9]+\.) / || /^#/ { flush() }
	{ if (n == 0) { start = FNR; sf = FILENAME } n += NF }
	END { flush(); exit bad > 0 }' "$@"; then
	fail=1
else
	echo "ok: no paragraph over 120 words in $# files"
fi
exit $fail
