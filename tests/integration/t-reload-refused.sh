#!/usr/bin/env bash
# Reloads that must be refused, under traffic: a file with a bad value, one
# with three independent errors (all three reported), a file that is not
# YAML, and files that change cold keys (a port, the queue count, the
# UMEM). Each is refused with its reason -- file:line:col for an
# invalid file, "restart required: <keys>" for a cold change -- through
# `xdplanectl reload` (exit 1) and through SIGHUP (logged); the generation
# and the running configuration stay as they were, and a sequenced UDP
# stream running through all of it loses nothing.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
tb_init
tb_build
CTL="$XDPLANE_BUILD/control/xdplanectl"
SOCK="$TB_DIR/ctl.sock"
CFG="$TB_DIR/gw.yaml"
UC="$XDPLANE_BUILD/tests/tools/udpcheck"

good() {
	cat <<YAML
ports:
  - interface: gw0
  - interface: gw1
    rate: 500Mbit
control: {socket: "$SOCK", metrics_listen: ""}
classes:
  - {name: roce, level: 1, ceil: 90%}
  - {name: default, level: 2}
rules:
  - {class: roce, match: {proto: udp, dport: 4791}}
default_class: default
YAML
}
good >"$CFG"
tb_start_gw gw "$CFG"

N=16000
tb_spawn recv B "$UC" recv --bind $TB_IP_B:9000 --expect $N --seed 2 --timeout-ms 5000 --json
RECV=$TB_LAST_PID
for _ in $(seq 50); do grep -q ready "$TB_DIR/recv.log" && break; sleep 0.1; done
tb_spawn send A "$UC" send --to $TB_IP_B:9000 --count $N --min 18 --max 800 --rate 2000 --seed 2
SEND=$TB_LAST_PID
sleep 0.5

gen() { "$CTL" -s "$SOCK" --json status | python3 -c 'import json,sys; s=json.load(sys.stdin)["config"]; print(s["generation"], s["reload"]["last_successful"])'; }
[ "$(gen)" = "1 True" ] || tb_fail "initial generation: $(gen)"

# refuse NAME EXPECTED_CODE EXPECTED_TEXT: the file in $CFG must be refused
refuse() {
	local rc=0
	"$CTL" -s "$SOCK" reload 2>"$TB_DIR/$1.err" >/dev/null || rc=$?
	[ $rc -eq 1 ] || tb_fail "$1: xdplanectl reload exit $rc ($(cat "$TB_DIR/$1.err"))"
	grep -q "$2" "$TB_DIR/$1.err" || tb_fail "$1: no '$2' in: $(cat "$TB_DIR/$1.err")"
	grep -qF "$3" "$TB_DIR/$1.err" || tb_fail "$1: no '$3' in: $(cat "$TB_DIR/$1.err")"
	[ "$(gen)" = "1 False" ] || tb_fail "$1: generation changed: $(gen)"
	# the same through SIGHUP: logged, nothing changes
	local before
	before=$(grep -c 'reload refused' "$TB_DIR/gw.log" || true)
	kill -HUP "$TB_GW_PID"
	for _ in $(seq 50); do
		[ "$(grep -c 'reload refused' "$TB_DIR/gw.log" || true)" -gt "$before" ] && break
		sleep 0.1
	done
	grep 'reload refused' "$TB_DIR/gw.log" | tail -n1 | grep -qF "$3" ||
		tb_fail "$1: SIGHUP refusal not logged with '$3'"
	[ "$(gen)" = "1 False" ] || tb_fail "$1: generation changed by SIGHUP: $(gen)"
	echo "  $1: $(head -c 300 "$TB_DIR/$1.err")" >&2
}

good | sed 's/rate: 500Mbit/rate: 500 parsecs/' >"$CFG"
refuse bad-rate invalid_config "gw.yaml:4:11: ports[1].rate"
# three independent errors: all three, in the order of the file, in the
# answer (the first as its message, the others as details) and the log
{ good | sed 's/rate: 500Mbit/rate: 500MBps/'; echo "queus: 2"; echo "poll: {busy_us: 20ms}"; } >"$CFG"
refuse three-errors invalid_config "gw.yaml:13:17: poll.busy_us: must be between 0 and 10000 microseconds"
for want in "gw.yaml:4:11: ports[1].rate: '500MBps' is bytes per second (4Gbit)" \
	"(and 2 more errors)" "gw.yaml:12:1: unknown key 'queus'"; do
	grep -qF "$want" "$TB_DIR/three-errors.err" ||
		tb_fail "three-errors: no '$want' in the answer: $(cat "$TB_DIR/three-errors.err")"
	grep 'reload refused' "$TB_DIR/gw.log" | tail -n3 | grep -qF "$want" ||
		tb_fail "three-errors: no '$want' in the log: $(grep 'reload refused' "$TB_DIR/gw.log" | tail -n3)"
done
printf 'ports: [\n  - interface: gw0\n' >"$CFG"
refuse not-yaml invalid_config "gw.yaml:"
good | sed 's/class: roce, match/class: nope, match/' >"$CFG"
refuse no-such-class invalid_config "nope"
good | sed 's/interface: gw0/interface: lo/' >"$CFG"
refuse port-change restart_required "restart required: ports[0].interface"
{ good; echo "queues: 2"; echo "umem: {frames: 65536}"; } >"$CFG"
refuse cold-keys restart_required "queues"
grep -q "umem.frames" "$TB_DIR/cold-keys.err" || tb_fail "cold-keys: umem.frames not named"
tb_pass "invalid files and cold changes refused with their reasons (API and SIGHUP)"

# the running configuration is the original: reloading it changes nothing
good >"$CFG"
"$CTL" -s "$SOCK" --json reload >"$TB_DIR/same.json" || tb_fail "reload of the running file"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["changes"] == [] and r["generation"] == 1 else 1)' \
	"$TB_DIR/same.json" || tb_fail "the running config changed: $(cat "$TB_DIR/same.json")"
[ "$(gen)" = "1 True" ] || tb_fail "after the good reload: $(gen)"

tb_wait_exit $SEND 60 || tb_fail "sender"
rc=0
tb_wait_exit $RECV 30 || rc=$?
res=$(grep -a '^{' "$TB_DIR/recv.log" | tail -n1)
[ "$(jq .ok <<<"$res")" -eq $N ] && [ $rc -eq 0 ] ||
	tb_fail "traffic during refused reloads: $(jq .ok <<<"$res") of $N delivered"
tb_pass "traffic unaffected: all $N datagrams delivered"
tb_stop_gw || tb_fail "daemon exit status $?"
