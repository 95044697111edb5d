#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The job table on the running daemon (jobs: {mode: observe}), as a
# scheduler's hooks and an operator use it:
#  - two registrations (xdplanectl job-register, the prolog's verb), listed
#    by xdplanectl jobs as a table (row by row) and as JSON (every field);
#  - an overlapping registration refused with the table's reason (exit 1,
#    conflict), a registration on the same hosts with a distinct DSCP
#    accepted, one beyond jobs.max_registered refused (table_full), a
#    class that is not configured refused with the nearest one named;
#  - /metrics: xdplane_job_info per job and the table's counters;
#  - the read-only socket lists and refuses job-register and
#    job-unregister (read_only), changing nothing;
#  - job-unregister (the epilog's verb), again: not_found;
#  - reload: jobs.idle live with the registrations kept, mode off drops
#    the table (the verbs answer unavailable), observe makes an empty one.
# Feeding passive jobs from the dataplane's flows is not part of the
# daemon yet: only registrations are exercised.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
CTL="$XDPLANE_BUILD/control/xdplanectl"
ADDR=127.0.0.1:19477
tb_init
tb_build
SOCK="$TB_DIR/ctl.sock"
RO="$SOCK.ro"
write_cfg() { # JOBS
	cat >"$TB_DIR/gw.yaml" <<YAML
ports:
  - interface: gw0
  - interface: gw1
    rate: 1Gbit
control: {socket: "$SOCK", metrics_listen: "$ADDR", readonly_group: "48613"}
classes:
  - {name: roce, level: 1}
  - {name: default, level: 2}
rules:
  - {class: roce, match: {proto: udp, dport: 4791}}
default_class: default
jobs: {$1}
YAML
}
write_cfg "mode: observe, max_registered: 3"
tb_start_gw gw "$TB_DIR/gw.yaml"
grep -q "jobs: observe, 3 registered and 64 passive slots" "$TB_DIR/gw.log" ||
	tb_fail "no job table logged at start"

# --- registrations, listed ---
out=$("$CTL" -s "$SOCK" job-register train-a --prefix 10.1.0.0/16 --dscp 26 --class roce --gpus 16) ||
	tb_fail "job-register train-a"
[ "$out" = "job train-a registered" ] || tb_fail "job-register train-a said '$out'"
"$CTL" -s "$SOCK" job-register slurm/4712 --prefix 10.2.0.0/24 --prefix fd00:2::/64 --gpus 8 >/dev/null ||
	tb_fail "job-register slurm/4712"
"$CTL" -s "$SOCK" jobs >"$TB_DIR/jobs.txt" || tb_fail "xdplanectl jobs"
cat "$TB_DIR/jobs.txt" >&2
head -n1 "$TB_DIR/jobs.txt" | grep -Eq '^JOB +SOURCE +HOSTS +DSCP +CLASS +GPUS +FLOWS +CREATED +LAST_SEEN$' ||
	tb_fail "jobs: header $(head -n1 "$TB_DIR/jobs.txt")"
grep -Eq '^train-a +registered +10\.1\.0\.0/16 +26 +roce +16 +0 ' "$TB_DIR/jobs.txt" ||
	tb_fail "jobs: no row for train-a"
grep -Eq '^slurm/4712 +registered +10\.2\.0\.0/24,fd00:2::/64 +- +- +8 +0 ' "$TB_DIR/jobs.txt" ||
	tb_fail "jobs: no row for slurm/4712"
grep -q '^jobs: observe, 2 registered (of 3), 0 passive (of 64), 0 hosts$' "$TB_DIR/jobs.txt" ||
	tb_fail "jobs: summary $(tail -n1 "$TB_DIR/jobs.txt")"
"$CTL" -s "$SOCK" --json jobs >"$TB_DIR/jobs.json" || tb_fail "jobs --json"
jq -e '.mode == "observe" and .registered == 2 and (.jobs | length) == 2
	and .jobs[0].id == "train-a" and .jobs[0].source == "registered"
	and .jobs[0].prefixes == ["10.1.0.0/16"] and .jobs[0].dscp == 26
	and .jobs[0].class == "roce" and .jobs[0].gpus == 16
	and .jobs[1].id == "slurm/4712" and .jobs[1].prefixes == ["10.2.0.0/24", "fd00:2::/64"]
	and .jobs[1].dscp == null and .jobs[1].class == null and .jobs[1].gpus == 8
	and .jobs[0].created_unix > 1.7e9 and .jobs[0].last_seen_unix >= .jobs[0].created_unix
	and .counters.registered == 2' "$TB_DIR/jobs.json" >/dev/null ||
	tb_fail "jobs --json: $(cat "$TB_DIR/jobs.json")"
tb_pass "two jobs registered, listed as a table and as JSON"

# --- refusals ---
refused() { # WANT_RC MESSAGE ARGS...
	local want=$1 msg=$2 rc=0
	shift 2
	"$CTL" "$@" >/dev/null 2>"$TB_DIR/refused.err" || rc=$?
	[ $rc -eq "$want" ] && grep -qF -- "$msg" "$TB_DIR/refused.err" ||
		tb_fail "$*: exit $rc, want $want and '$msg': $(cat "$TB_DIR/refused.err")"
	echo "  $(head -n1 "$TB_DIR/refused.err")" >&2
}
refused 1 "xdplanectl: conflict: job-register: prefix 10.1.7.0/24 overlaps job 'train-a' (10.1.0.0/16); give both jobs distinct dscp values" \
	-s "$SOCK" job-register train-c --prefix 10.1.7.0/24
"$CTL" -s "$SOCK" job-register train-c --prefix 10.1.7.0/24 --dscp 34 >/dev/null ||
	tb_fail "train-c on train-a's hosts with another DSCP refused"
refused 1 "xdplanectl: table_full: job-register: job table full: 3 registered jobs" \
	-s "$SOCK" job-register train-d --prefix 10.4.0.0/16
refused 1 "did you mean 'roce'?" -s "$SOCK" job-register train-a --prefix 10.1.0.0/16 --class rcoe
grep -qF "job-register: no class 'rcoe'; the classes are: roce, default" "$TB_DIR/refused.err" ||
	tb_fail "unknown class: $(cat "$TB_DIR/refused.err")"
refused 2 "job-register: give the job's hosts (--prefix P) or its DSCP (--dscp N)" \
	-s "$SOCK" job-register train-e
[ "$("$CTL" -s "$SOCK" --json jobs | jq -c '[.registered, .counters.refused, .counters.full_registered]')" = "[3,1,1]" ] ||
	tb_fail "after the refusals: $("$CTL" -s "$SOCK" --json jobs | jq -c '.counters')"
tb_pass "overlap refused (conflict), shared hosts with distinct DSCPs accepted, full table and unknown class refused"

# --- /metrics ---
tb_exec GW curl -s --max-time 5 -o "$TB_DIR/metrics.txt" "http://$ADDR/metrics" || tb_fail "GET /metrics"
for line in 'xdplane_job_info{job="train-a",source="registered",class="roce"} 1' \
	'xdplane_job_info{job="slurm/4712",source="registered",class=""} 1' \
	'xdplane_jobs{source="registered"} 3' \
	'xdplane_job_registrations_total{result="new"} 3' \
	'xdplane_job_registrations_total{result="refused"} 1' \
	'xdplane_job_table_full_total{table="registered"} 1' \
	'# TYPE xdplane_job_info gauge'; do
	grep -qxF "$line" "$TB_DIR/metrics.txt" || tb_fail "/metrics lacks: $line"
done
tb_pass "/metrics: xdplane_job_info per job, the table's counters"

# --- the read-only socket ---
"$CTL" -s "$RO" jobs >/dev/null || tb_fail "jobs on the read-only socket"
refused 1 "read_only" -s "$RO" job-register train-f --prefix 10.6.0.0/16
refused 1 "read_only" -s "$RO" job-unregister train-a
refused 2 "job-register changes the daemon; the read-only socket (-r) refuses it" \
	-s "$SOCK" -r job-register train-f --prefix 10.6.0.0/16
[ "$("$CTL" -s "$SOCK" --json jobs | jq -c '[.jobs[].id]')" = '["train-a","slurm/4712","train-c"]' ] ||
	tb_fail "the read-only socket changed the table"
tb_pass "read-only socket: jobs listed, job-register and job-unregister refused (read_only)"

# --- unregister ---
out=$("$CTL" -s "$SOCK" job-unregister slurm/4712) || tb_fail "job-unregister"
[ "$out" = "job slurm/4712 unregistered" ] || tb_fail "job-unregister said '$out'"
refused 1 "xdplanectl: not_found: job-unregister: no registered job 'slurm/4712'" \
	-s "$SOCK" job-unregister slurm/4712
[ "$("$CTL" -s "$SOCK" --json jobs | jq -c '[.jobs[].id]')" = '["train-a","train-c"]' ] ||
	tb_fail "after job-unregister: $("$CTL" -s "$SOCK" --json jobs | jq -c '[.jobs[].id]')"
"$CTL" -s "$SOCK" job-register slurm/4713 --prefix 10.5.0.0/16 >/dev/null ||
	tb_fail "the freed slot was not taken"
tb_pass "job-unregister frees the slot; again: not_found"

# --- reload ---
write_cfg "mode: observe, max_registered: 3, idle: 30s"
"$CTL" -s "$SOCK" reload >/dev/null || tb_fail "reload jobs.idle"
[ "$("$CTL" -s "$SOCK" --json jobs | jq '.registered')" = 3 ] || tb_fail "a reload of idle lost registrations"
write_cfg "mode: off, max_registered: 3, idle: 30s"
"$CTL" -s "$SOCK" --json reload | jq -e '.changes == ["jobs.mode"]' >/dev/null || tb_fail "reload to off"
refused 1 "xdplanectl: unavailable: jobs are off (jobs.mode: off)" -s "$SOCK" jobs
refused 1 "unavailable: jobs are off" -s "$SOCK" job-register train-a --prefix 10.1.0.0/16
tb_exec GW curl -s --max-time 5 -o "$TB_DIR/metrics2.txt" "http://$ADDR/metrics" || tb_fail "GET /metrics"
grep -q '^xdplane_job' "$TB_DIR/metrics2.txt" && tb_fail "job families with jobs off"
write_cfg "mode: observe, max_registered: 3, idle: 30s"
"$CTL" -s "$SOCK" reload >/dev/null || tb_fail "reload to observe"
[ "$("$CTL" -s "$SOCK" --json jobs | jq '.registered')" = 0 ] || tb_fail "observe again: not an empty table"
write_cfg "mode: observe, max_registered: 4, idle: 30s"
refused 1 "xdplanectl: restart_required: restart required: jobs.max_registered" -s "$SOCK" reload
tb_pass "reload: idle live, off drops the table (unavailable, no metrics), observe makes an empty one, bounds cold"

tb_stop_gw || tb_fail "daemon exit status $?"
tb_pass "clean stop"
