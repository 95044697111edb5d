#!/usr/bin/env bash
# The control socket and xdplanectl against the running daemon:
#  - `xdplanectl stats --json` totals agree exactly with what the traffic
#    generator sent and received, both directions, packets and bytes, per
#    port and per class;
#  - every verb answers (human tables and --json), `watch` refreshes;
#  - bad requests get JSON errors and the daemon keeps serving;
#  - a client without permission is refused: by the file mode (connect()
#    fails, exit 3) and, when the file mode would let it in, by the
#    daemon's credential check (JSON error "permission", exit 1).
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
tb_init
tb_build
CTL="$XDPLANE_BUILD/control/xdplanectl"
SOCK="$TB_DIR/ctl.sock"
UC="$XDPLANE_BUILD/tests/tools/udpcheck"
# exact counts: no ARP, no IPv6 chatter on the wire during the test
ip -n "$TB_A" neigh replace $TB_IP_B lladdr $TB_MAC_B dev a0 nud permanent
ip -n "$TB_B" neigh replace $TB_IP_A lladdr $TB_MAC_A dev b0 nud permanent
ip netns exec "$TB_A" sysctl -qw net.ipv6.conf.a0.disable_ipv6=1
ip netns exec "$TB_B" sysctl -qw net.ipv6.conf.b0.disable_ipv6=1

cat >"$TB_DIR/gw.yaml" <<YAML
ports:
  - interface: gw0
  - interface: gw1
control: {socket: "$SOCK", metrics_listen: ""}
classes:
  - {name: roce, level: 1}
  - {name: default, level: 2}
rules:
  - {class: roce, match: {proto: udp, dport: 4791}}
default_class: default
YAML
tb_start_gw gw "$TB_DIR/gw.yaml"
sleep 0.5

jget() { python3 -c 'import json,sys; s=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

# --- totals agree with the generator ---
N=20000 M=7000 PAY=100 FRAME=142 # 14 + 20 + 8 + 100
before=$("$CTL" -s "$SOCK" --json stats)
send_recv() { # FROM TO_IP COUNT PORT
	local to=$2 n=$3 port=$4 rns
	rns=$([ "$1" = A ] && echo B || echo A)
	tb_spawn "recv$port" $rns "$UC" recv --bind "$to:$port" --expect "$n" --seed 5 --timeout-ms 3000 --json
	local pid=$TB_LAST_PID
	for _ in $(seq 50); do grep -q ready "$TB_DIR/recv$port.log" && break; sleep 0.1; done
	ip netns exec "$(tb_ns "$1")" "$UC" send --to "$to:$port" --count "$n" --min $PAY --max $PAY --rate 20000 --seed 5 ||
		tb_fail "sender $1 -> $to"
	tb_wait_exit "$pid" 30 || tb_fail "receiver on $to:$port did not get all $n ($(cat "$TB_DIR/recv$port.log"))"
}
send_recv A $TB_IP_B $N 9000
send_recv B $TB_IP_A $M 4791
sleep 0.3
after=$("$CTL" -s "$SOCK" --json stats)
python3 - "$before" "$after" $N $M $FRAME <<'PY' || tb_fail "stats --json disagree with the generator"
import json, sys
b, a = json.loads(sys.argv[1]), json.loads(sys.argv[2])
n, m, frame = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
def p(s, name): return next(x for x in s["ports"] if x["name"] == name)
def c(s, port, cls): return next(x for x in p(s, port)["classes"] if x["name"] == cls)
def d(f): return f(a) - f(b)
want = {
    "gw0 rx_packets": (d(lambda s: p(s, "gw0")["rx_packets"]), n),
    "gw0 rx_bytes": (d(lambda s: p(s, "gw0")["rx_bytes"]), n * frame),
    "gw1 tx_packets": (d(lambda s: p(s, "gw1")["tx_packets"]), n),
    "gw1 tx_bytes": (d(lambda s: p(s, "gw1")["tx_bytes"]), n * frame),
    "gw1 rx_packets": (d(lambda s: p(s, "gw1")["rx_packets"]), m),
    "gw0 tx_packets": (d(lambda s: p(s, "gw0")["tx_packets"]), m),
    "gw1/default sent": (d(lambda s: c(s, "gw1", "default")["sent_packets"]), n),
    "gw0/roce sent": (d(lambda s: c(s, "gw0", "roce")["sent_packets"]), m),
    "gw0/roce sent_bytes": (d(lambda s: c(s, "gw0", "roce")["sent_bytes"]), m * frame),
    "queue 0 of gw0 rx": (d(lambda s: p(s, "gw0")["queues"][0]["rx_packets"]), n),
}
bad = 0
for k, (got, exp) in want.items():
    print(f"  {k:22s} {got:10d}  expected {exp:10d}", file=sys.stderr)
    bad += got != exp
sys.exit(1 if bad else 0)
PY
tb_pass "stats --json: $N + $M datagrams counted exactly (packets, bytes, ports, queue, classes)"

# --- every verb ---
"$CTL" -s "$SOCK" status >"$TB_DIR/status.txt" || tb_fail "status"
grep -q gw0 "$TB_DIR/status.txt" || tb_fail "status table names no port"
[ "$("$CTL" -s "$SOCK" --json status | jget 's["config"]["generation"]')" = 1 ] || tb_fail "status generation"
[ "$("$CTL" -s "$SOCK" --json status | jget 's["bind_mode"]')" = copy ] || tb_fail "status bind_mode"
"$CTL" -s "$SOCK" stats >/dev/null || tb_fail "stats"
"$CTL" -s "$SOCK" stats gw1 | grep -q gw1 || tb_fail "stats gw1"
"$CTL" -s "$SOCK" classes | grep -q roce || tb_fail "classes"
[ "$("$CTL" -s "$SOCK" --json flows | jget 'len(s) if isinstance(s, list) else len(s.get("flows", []))')" = 0 ] ||
	tb_fail "flows"
"$CTL" -s "$SOCK" log-level debug >/dev/null || tb_fail "log-level"
"$CTL" -s "$SOCK" watch --interval 0.3 --count 3 >"$TB_DIR/watch.txt" || tb_fail "watch"
[ "$(grep -c gw0 "$TB_DIR/watch.txt")" -ge 3 ] || tb_fail "watch did not refresh 3 times"
rc=0
"$CTL" -s "$SOCK" congestion gw9 roce 2>"$TB_DIR/cong.err" || rc=$?
[ $rc -eq 1 ] && grep -q bad_request "$TB_DIR/cong.err" || tb_fail "congestion on a missing port: status $rc"
rc=0
"$CTL" -s "$SOCK" frobnicate 2>/dev/null || rc=$?
[ $rc -eq 2 ] || tb_fail "unknown verb: status $rc, expected 2"
tb_pass "status, stats, classes, flows, log-level, watch, congestion checks"

# --- bad requests: JSON errors, the session and the daemon survive ---
python3 - "$SOCK" <<'PY' || tb_fail "bad requests"
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rwb")
def rpc(raw):
    f.write(raw + b"\n"); f.flush()
    return json.loads(f.readline())
r = rpc(b'{"command":"stats"}')
assert not r["ok"] and r["error"]["code"] == "handshake", r
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rwb")
assert rpc(b'{"hello":"t","version":1}')["ok"]
for raw, code in [(b'{not json', "parse"), (b'[1,2]', "parse"), (b'\x00\xff\xfe', "parse"),
                  (b'{"command":"nope"}', "unknown_command"),
                  (b'{"command":"stats","args":{"port":7}}', "bad_request"),
                  (b'{"command":"congestion","args":{"port":"gw1","class":"roce","severity":1.5}}', "bad_request")]:
    r = rpc(raw)
    assert not r["ok"] and r["error"]["code"] == code, (raw, r)
r = rpc(b'{"command":"status","id":42}')
assert r["ok"] and r["id"] == 42, r
print("  bad requests answered with JSON errors, session still usable", file=sys.stderr)
PY
tb_pass "malformed requests: JSON errors, no crash"

# --- hostile requests: over-long lines, binary garbage, deep
# nesting, huge numbers, a request that never ends, more clients than the
# daemon serves: refused, and the daemon answers the next client ---
python3 - "$SOCK" <<'PY' || tb_fail "hostile requests"
import json, os, socket, sys, time
path = sys.argv[1]
def conn():
    s = socket.socket(socket.AF_UNIX); s.connect(path); s.settimeout(15)
    f = s.makefile("rwb")
    return s, f
def rpc(f, raw):
    f.write(raw + b"\n"); f.flush()
    return json.loads(f.readline())
def fresh_status():
    s, f = conn()
    assert rpc(f, b'{"hello":"t","version":1}')["ok"]
    r = rpc(f, b'{"command":"status"}')
    assert r["ok"], r
    s.close()
s, f = conn()
assert rpc(f, b'{"hello":"t","version":1}')["ok"]
# 1. a line over the 65536-byte limit: "too_long", the rest of the line is
#    discarded, the session goes on
r = rpc(f, b'{"command":"status","pad":"' + b"x" * 200000 + b'"}')
assert not r["ok"] and r["error"]["code"] == "too_long", r
assert rpc(f, b'{"command":"status"}')["ok"]
# 2. binary garbage (no newline inside), 4 KiB at a time
for i in range(8):
    junk = bytes(b for b in os.urandom(4096) if b != 10)
    r = rpc(f, junk)
    assert not r["ok"] and r["error"]["code"] == "parse", r
# 3. deep nesting: 30,000 levels, inside the line limit
for raw in (b"[" * 30000 + b"]" * 30000,
            b'{"command":"stats","args":' + b'{"a":' * 10000 + b"1" + b"}" * 10001):
    r = rpc(f, raw)
    assert not r["ok"] and r["error"]["code"] in ("parse", "bad_request"), r
# 4. huge numbers: ids and arguments past every integer type
for raw in (b'{"command":"status","id":1' + b"0" * 400 + b"}",
            b'{"command":"status","id":1e999}',
            b'{"command":"status","id":-1e999}',
            b'{"command":"congestion","args":{"port":"gw1","class":"roce","severity":1e999}}',
            b'{"command":"congestion","args":{"port":"gw1","class":"roce","severity":0.5,"prefix":"10.0.0.0/99999999999999999999"}}',
            b'{"command":"stats","args":{"port":"' + b"g" * 5000 + b'"}}',
            b'{"command":"log-level","args":{"level":18446744073709551617}}'):
    r = rpc(f, raw)
    assert isinstance(r.get("ok"), bool), (raw[:60], r)
assert rpc(f, b'{"command":"status"}')["ok"]
s.close()
# 5. a request that never ends: 60,000 bytes, no newline, then silence;
#    the daemon serves others meanwhile and closes the stalled connection
#    by its handshake deadline (10 s)
stall, _ = conn()
stall.sendall(b'{"hello":"' + b"a" * 60000)
t0 = time.time()
fresh_status()
stall.settimeout(20)
try:
    got = stall.recv(65536)
    while got and not got.endswith(b"\n"):
        got += stall.recv(65536)
    rest = stall.recv(65536)
except socket.timeout:
    raise AssertionError("a stalled request was never closed")
assert rest == b"", rest
waited = time.time() - t0
assert 5 < waited < 20, waited
stall.close()
# 6. more clients than the daemon serves (32) at once, all silent: the
#    extra ones are closed or refused, a new client is served afterwards
many = [conn()[0] for _ in range(40)]
time.sleep(0.5)
for m in many:
    m.close()
time.sleep(0.3)
fresh_status()
print(f"  too_long, garbage, nesting, huge numbers refused; stalled request closed "
      f"after {waited:.1f} s; 40 idle clients; daemon still serving", file=sys.stderr)
PY
tb_pass "hostile requests refused, the daemon answers the next client"

# --- permissions ---
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
chmod 0711 "$TB_DIR" # nobody may reach the socket file, not list the dir
rc=0
$NOBODY "$CTL" -s "$SOCK" status 2>"$TB_DIR/perm1.err" || rc=$?
[ $rc -eq 3 ] && grep -qi "permission denied" "$TB_DIR/perm1.err" ||
	tb_fail "mode 0660 socket: nobody got status $rc ($(cat "$TB_DIR/perm1.err"))"
# a member of the control group (here the daemon's own, root's) is let in,
# as its primary group (SO_PEERCRED) or a supplementary one
# (SO_PEERGROUPS)
setpriv --reuid=65534 --regid=0 --clear-groups "$CTL" -s "$SOCK" status >/dev/null 2>"$TB_DIR/perm-g1.err" ||
	tb_fail "control group as primary group refused: $(cat "$TB_DIR/perm-g1.err")"
setpriv --reuid=65534 --regid=65534 --groups=0 "$CTL" -s "$SOCK" status >/dev/null 2>"$TB_DIR/perm-g2.err" ||
	tb_fail "control group as supplementary group refused: $(cat "$TB_DIR/perm-g2.err")"
chmod 0666 "$SOCK" # now only the daemon's credential check stands
rc=0
$NOBODY "$CTL" -s "$SOCK" status 2>"$TB_DIR/perm2.err" || rc=$?
[ $rc -eq 1 ] && grep -q permission "$TB_DIR/perm2.err" ||
	tb_fail "credential check: nobody got status $rc ($(cat "$TB_DIR/perm2.err"))"
grep -q "control socket: refused uid 65534" "$TB_DIR/gw.log" || tb_fail "refusal not logged"
"$CTL" -s "$SOCK" status >/dev/null || tb_fail "root refused after the refusals"
tb_pass "clients without permission refused (file mode: exit 3; credentials: exit 1)"

tb_stop_gw || tb_fail "daemon exit status $?"
[ ! -e "$SOCK" ] || tb_fail "control socket left behind after stop"
missing=$(tb_stats gw.log 's["frames"]["missing"] + s["frames"]["doubles"]')
[ "$missing" -eq 0 ] || tb_fail "frame census: $missing"
tb_pass "clean stop, socket removed, census clean"
