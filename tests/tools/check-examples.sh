#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The scheduler hooks of config/examples/ do what xdplanectl(8) says
# (ctest unit.scheduler_examples):
#  - the Slurm prolog and epilog parse (bash -n) and, run with a fake
#    scontrol, getent and logger, register the job's nodes as the fewest
#    prefixes with the DSCP, class and GPU count, unregister the job,
#    treat an unknown job as done, log any other refusal and never fail
#    the job (exit 0);
#  - the prolog's command line passes the real xdplanectl's checks (it
#    gets as far as connecting), as do the Kubernetes Jobs' commands;
#  - the Kubernetes manifests parse as YAML (when python3 has the yaml
#    module; said when it is not).
# Usage: check-examples.sh SOURCE_DIR XDPLANECTL
set -euo pipefail
src=$1 ctl=$2
ex=$src/config/examples
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }

bash -n "$ex/slurm/prolog.sh" && bash -n "$ex/slurm/epilog.sh" &&
	ok "the Slurm hooks parse" || bad "bash -n of the Slurm hooks"

# fakes: four nodes on 10.1.0.4..7 and one on 10.1.0.9, 16 GPUs
mkdir "$dir/bin"
cat >"$dir/bin/scontrol" <<'FAKE'
#!/bin/sh
case "$1 $2" in
"show hostnames") echo n4; echo n5; echo n6; echo n7; echo n9 ;;
"show job") echo "   AllocTRES=cpu=64,mem=1T,node=5,billing=64,gres/gpu=16" ;;
esac
FAKE
cat >"$dir/bin/getent" <<'FAKE'
#!/bin/sh
n=${2#n}
printf '10.1.0.%s STREAM %s\n10.1.0.%s DGRAM\n' "$n" "$2" "$n"
FAKE
cat >"$dir/bin/logger" <<'FAKE'
#!/bin/sh
echo "$*" >>"$LOGGED"
FAKE
# a control that records its arguments and answers as told
cat >"$dir/bin/fakectl" <<'FAKE'
#!/bin/sh
echo "$*" >>"$CALLED"
[ -z "$ANSWER" ] && exit 0
echo "$ANSWER" >&2
exit 1
FAKE
chmod +x "$dir/bin/"*
run() { # run HOOK [ENV=VALUE...]: the hook's status
	local hook=$1
	shift
	rm -f "$dir/called" "$dir/logged"
	env PATH="$dir/bin:$PATH" CALLED="$dir/called" LOGGED="$dir/logged" \
		SLURM_JOB_ID=77 SLURM_JOB_NODELIST='n[4-7],n9' "$@" \
		bash "$ex/slurm/$hook" >/dev/null 2>&1
}

want="job-register slurm/77 --prefix 10.1.0.4/30 --prefix 10.1.0.9/32 --dscp 26 --class roce --gpus 16"
run prolog.sh XDPLANECTL=fakectl ANSWER= XDPLANE_DSCP=26 XDPLANE_CLASS=roce &&
	[ "$(cat "$dir/called")" = "$want" ] && [ ! -e "$dir/logged" ] &&
	ok "prolog: $want" ||
	bad "prolog called '$(cat "$dir/called" 2>/dev/null)', want '$want'"
run prolog.sh XDPLANECTL=fakectl ANSWER="xdplanectl: conflict: job-register: prefix 10.1.0.4/30 overlaps job 'x'" &&
	grep -q "job 77: xdplanectl: conflict" "$dir/logged" &&
	ok "prolog: a refusal is logged, the job goes on (exit 0)" ||
	bad "prolog: a refusal is not logged or fails the job"
run epilog.sh XDPLANECTL=fakectl ANSWER= &&
	[ "$(cat "$dir/called")" = "job-unregister slurm/77" ] &&
	ok "epilog: job-unregister slurm/77" ||
	bad "epilog called '$(cat "$dir/called" 2>/dev/null)'"
run epilog.sh XDPLANECTL=fakectl ANSWER="xdplanectl: not_found: job-unregister: no registered job 'slurm/77'" &&
	[ ! -e "$dir/logged" ] && ok "epilog: an unknown job is not an error" ||
	bad "epilog: an unknown job was logged or failed"
run epilog.sh XDPLANECTL=fakectl ANSWER="xdplanectl: unavailable: jobs are off" &&
	grep -q "jobs are off" "$dir/logged" && ok "epilog: other refusals are logged" ||
	bad "epilog: a refusal is not logged"

# the real CLI: arguments it accepts get as far as the (absent) socket,
# exit 3; a usage error would be exit 2
sock=$dir/none.sock
run prolog.sh XDPLANECTL="$ctl -s $sock" XDPLANE_DSCP=26 XDPLANE_CLASS=roce &&
	grep -q "cannot connect to $sock" "$dir/logged" &&
	ok "prolog: xdplanectl takes its arguments" ||
	bad "prolog: xdplanectl refused its arguments: $(cat "$dir/logged" 2>/dev/null)"
for m in "$ex"/kubernetes/*.yaml; do
	# the command: the "- word" items under command:, or [a, b] on its line
	mapfile -t argv < <(awk '
		/command: \[/ { gsub(/.*\[|\].*/, ""); n = split($0, a, ", *");
			for (i = 1; i <= n; i++) print a[i]; exit }
		/command:$/ { on = 1; next }
		on && /^ *- / { sub(/^ *- /, ""); gsub(/"/, ""); print; next }
		on { exit }' "$m")
	rc=0
	"$ctl" -s "$sock" "${argv[@]:1}" >/dev/null 2>&1 || rc=$?
	if [ "${argv[0]:-}" = xdplanectl ] && [ "$rc" -eq 3 ]; then
		ok "$(basename "$m"): xdplanectl ${argv[*]:1}"
	else
		bad "$(basename "$m"): '${argv[*]}' exit $rc, want xdplanectl and 3"
	fi
	if python3 -c 'import yaml' 2>/dev/null; then
		python3 -c 'import sys, yaml; list(yaml.safe_load_all(open(sys.argv[1])))' "$m" &&
			ok "$(basename "$m") is YAML" || bad "$(basename "$m") is not YAML"
	else
		echo "note: python3 has no yaml module: $(basename "$m") not parsed"
	fi
done
exit $fail
