#!/usr/bin/env bash
# Malformed frames on the wire, once with `malformed: drop` and
# once with `malformed: default` (forward in the default class):
#  - host A sends COUNT copies of every kind of tests/tools/badframes.py
#    (truncated Ethernet, VLAN, QinQ, IPv4 with bad IHL / total length /
#    version, IPv4 options, IPv6 truncated / lying payload length /
#    extension-header chains at, over and lying about the parser's limit,
#    truncated UDP / TCP / BTH, lying UDP lengths (udp_bad_len: below 8,
#    0 over IPv6, past the IP datagram; one shorter than the datagram is
#    well-formed), TCP data offsets < 5 and past the frame (tcp_bad_doff;
#    15 with the options present is well-formed), a UDP length cutting the
#    BTH, oversized frames) on a0 with AF_PACKET;
#  - the gateway's per-reason malformed counters of gw0 (xdplanectl stats
#    --json) move by exactly COUNT x the kinds of each reason, and no other
#    reason moves;
#  - host B counts the test frames with an XDP program before its stack
#    (xdp_count.bpf.c: truncated VLAN tags never reach a packet socket) and
#    captures them with a packet socket: with drop, no malformed frame
#    arrives and every well-formed one does; with default, every frame
#    arrives, byte-identical (all the kinds its stack lets a packet socket
#    see);
#  - meanwhile a udpcheck stream A -> B gets every datagram through intact;
#  - the daemon exits 0 (under the ASan+UBSan build, any read past a frame
#    fails the run).
# Frames that cannot be sent on veth, with the reason, are printed (runts
# under 14 bytes: AF_PACKET refuses or pads them; frames over the
# receiving veth's MTU + 18: veth drops them before XDP).
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
tb_init
# a0 and b0 take jumbo frames, the gateway's ports 1500: oversized frames
tb_build --mtu 9000 --gw-mtu 1500
CTL="$XDPLANE_BUILD/control/xdplanectl"
UC="$XDPLANE_BUILD/tests/tools/udpcheck"
BF="$XDPLANE_SOURCE/tests/tools/badframes.py"
COUNTER="$XDPLANE_BUILD/tests/tools/xdp_count.o"
COUNT=${MALFORMED_COUNT:-20}
[ -f "$COUNTER" ] || tb_die "missing $COUNTER (build first)"
ip -n "$TB_A" neigh replace $TB_IP_B lladdr $TB_MAC_B dev a0 nud permanent
ip -n "$TB_B" neigh replace $TB_IP_A lladdr $TB_MAC_A dev b0 nud permanent
ip netns exec "$TB_A" sysctl -qw net.ipv6.conf.a0.disable_ipv6=1
ip netns exec "$TB_B" sysctl -qw net.ipv6.conf.b0.disable_ipv6=1
# B: the counting program instead of xdp_pass
ip -n "$TB_B" link set dev b0 xdpdrv off
ip -n "$TB_B" link set dev b0 xdpdrv obj "$COUNTER" sec xdp || tb_die "xdp_count on b0"
COUNT_MAP=$(ip netns exec "$TB_B" bpftool -j prog show id "$(tb_xdp_prog B b0)" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["map_ids"][0])')

python3 "$BF" list >"$TB_DIR/kinds"

# What can be sent at all: runts below 14 bytes.
ip netns exec "$TB_A" python3 "$BF" probe-runt a0 | sed 's/^/  /' >&2

# counts FILE: the per-kind packet and byte counters of xdp_count as JSON
counts() {
	ip netns exec "$TB_B" bpftool -j map dump id "$COUNT_MAP" >"$1"
}

# run MODE: one gateway run with `malformed: MODE`.
run() {
	local mode=$1 sock="$TB_DIR/$1.sock"
	tb_config "$TB_DIR/$mode.yaml" "malformed: $mode" \
		"control: {socket: \"$sock\", metrics_listen: \"\"}"
	tb_start_gw "gw-$mode" "$TB_DIR/$mode.yaml"
	sleep 0.3
	# valid traffic all along: a paced stream, every datagram must arrive
	tb_spawn "uc-$mode" B "$UC" recv --bind $TB_IP_B:7000 --expect 3000 --seed 9 --timeout-ms 5000 --json
	local ucpid=$TB_LAST_PID
	for _ in $(seq 50); do grep -q ready "$TB_DIR/uc-$mode.log" && break; sleep 0.1; done
	tb_spawn "cap-$mode" B python3 "$BF" capture b0 "$TB_DIR/cap-$mode.txt"
	local cappid=$TB_LAST_PID
	for _ in $(seq 50); do grep -q ready "$TB_DIR/cap-$mode.log" && break; sleep 0.1; done
	counts "$TB_DIR/c0-$mode.json"
	"$CTL" -s "$sock" --json stats >"$TB_DIR/s0-$mode.json"
	tb_spawn "ucs-$mode" A "$UC" send --to $TB_IP_B:7000 --count 3000 --min 64 --max 1400 --rate 1000 --seed 9
	local ucspid=$TB_LAST_PID
	ip netns exec "$TB_A" python3 "$BF" send a0 $TB_MAC_B "$COUNT" "$TB_DIR/sent-$mode.txt" ||
		tb_fail "sending the malformed frames"
	tb_wait_exit "$ucspid" 30 || tb_fail "udpcheck sender"
	tb_wait_exit "$ucpid" 30 || tb_fail "valid stream during malformed frames ($mode): $(cat "$TB_DIR/uc-$mode.log")"
	sleep 0.5
	"$CTL" -s "$sock" --json stats >"$TB_DIR/s1-$mode.json"
	counts "$TB_DIR/c1-$mode.json"
	tb_kill "$cappid" TERM
	tb_wait_exit "$cappid" 5 || tb_fail "capture did not stop"
	tb_stop_gw "gw-$mode" || tb_fail "daemon ($mode) exited with status $? ($(tail -n 20 "$TB_DIR/gw-$mode.log"))"
	grep -qi 'AddressSanitizer\|runtime error' "$TB_DIR/gw-$mode.log" &&
		tb_fail "sanitizer report in the daemon's log ($mode)"
	python3 - "$mode" "$COUNT" "$TB_DIR" <<'PY' || tb_fail "malformed: $mode"
import collections, json, sys
mode, count, d = sys.argv[1], int(sys.argv[2]), sys.argv[3]
kinds = {}
for l in open(d + "/kinds"):
    i, name, verdict = l.split()
    kinds[int(i)] = (name, verdict)
sent = collections.defaultdict(list)
for l in open(d + "/sent-" + mode + ".txt"):
    i, h = l.split()
    sent[int(i)].append(h)
caught = collections.defaultdict(list)
for l in open(d + "/cap-" + mode + ".txt"):
    i, h = l.split()
    caught[int(i)].append(h)

def port(f, name):
    s = json.load(open(f))
    return next(p for p in s["ports"] if p["name"] == name)

def xdp(f):
    v = {}
    for e in json.load(open(f)):
        v[e["formatted"]["key"]] = e["formatted"]["value"]
    return v

s0, s1 = port(d + "/s0-" + mode + ".json", "gw0"), port(d + "/s1-" + mode + ".json", "gw0")
c0, c1 = xdp(d + "/c0-" + mode + ".json"), xdp(d + "/c1-" + mode + ".json")
bad = 0
# 1. the per-reason counters
want = collections.Counter()
for i, (name, verdict) in kinds.items():
    if verdict not in ("ok", "veth_drop"):
        want[verdict] += len(sent[i])
for reason in sorted(set(want) - set(s1["malformed"])):
    bad += 1
    print(f"  {mode:8s} malformed.{reason:18s} missing from the stats  <-- WRONG",
          file=sys.stderr)
for reason in s1["malformed"]:
    got = s1["malformed"][reason] - s0["malformed"][reason]
    ok = got == want[reason]
    bad += not ok
    print(f"  {mode:8s} malformed.{reason:18s} {got:5d}  expected {want[reason]:5d}"
          f"{'' if ok else '  <-- WRONG'}", file=sys.stderr)
dm = s1["drops"]["malformed"] - s0["drops"]["malformed"]
exp_dm = sum(want.values()) if mode == "drop" else 0
print(f"  {mode:8s} drops.malformed             {dm:5d}  expected {exp_dm:5d}", file=sys.stderr)
bad += dm != exp_dm
# 2. what B received, per kind: counted before its stack (XDP) and
#    captured by a packet socket (bytes compared)
for i, (name, verdict) in sorted(kinds.items()):
    n = len(sent[i])
    pk = c1.get(i, 0) - c0.get(i, 0)
    by = c1.get(256 + i, 0) - c0.get(256 + i, 0)
    if verdict == "veth_drop":
        exp = 0
    elif verdict == "ok":
        exp = n
    else:
        exp = 0 if mode == "drop" else n
    exp_bytes = sum(len(h) // 2 for h in sent[i]) if exp else 0
    ok = pk == exp and by == exp_bytes
    # byte-identical: every captured frame is one that was sent; the stack
    # frees truncated VLAN tags before any packet socket sees them
    if exp and not verdict.startswith("vlan_"):
        ok = ok and sorted(caught[i]) == sorted(sent[i])
    else:
        ok = ok and (exp or not caught[i])
    bad += not ok
    print(f"  {mode:8s} B got {name:30s} {pk:4d}/{n:<4d} bytes {by:6d}  "
          f"captured {len(caught[i]):4d}  expected {exp:4d}"
          f"{'' if ok else '  <-- WRONG'}", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	tb_pass "malformed: $mode: every reason counted exactly, policy obeyed, valid stream intact"
}

run drop
run default
tb_pass "malformed frames: counted by reason, dropped or forwarded byte-identical per policy"
