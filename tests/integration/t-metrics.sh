#!/usr/bin/env bash
# Prometheus /metrics on the running daemon:
#  - the exposition passes `promtool check metrics` (format and naming
#    lint), and its counters agree with the control API and the generator;
#  - 1,000 malformed, half-open, stalled and oversized connections at once
#    do not stop it: valid scrapes during the attack answer 200 within 2 s,
#    forwarding goes on without a loss (a sequenced UDP stream runs through
#    the attack), the control socket answers, and when the attackers go
#    the daemon's file descriptors return to where they were.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
command -v promtool >/dev/null || tb_fail "promtool missing (.ci/deps fetches it into /usr/local/bin from the Debian package prometheus)"
tb_init
tb_build
CTL="$XDPLANE_BUILD/control/xdplanectl"
SOCK="$TB_DIR/ctl.sock"
UC="$XDPLANE_BUILD/tests/tools/udpcheck"
ADDR=127.0.0.1:9470 # inside the gateway's namespace
ip -n "$TB_A" neigh replace $TB_IP_B lladdr $TB_MAC_B dev a0 nud permanent
ip -n "$TB_B" neigh replace $TB_IP_A lladdr $TB_MAC_A dev b0 nud permanent
ip netns exec "$TB_A" sysctl -qw net.ipv6.conf.a0.disable_ipv6=1
ip netns exec "$TB_B" sysctl -qw net.ipv6.conf.b0.disable_ipv6=1
cat >"$TB_DIR/gw.yaml" <<YAML
ports:
  - interface: gw0
  - interface: gw1
    rate: 1Gbit
control: {socket: "$SOCK", metrics_listen: "$ADDR"}
classes:
  - {name: roce, level: 1, ceil: 90%, ecn: {kmin: 30KB, kmax: 300KB, pmax: 1%}}
  - {name: default, level: 2}
rules:
  - {class: roce, match: {proto: udp, dport: 4791}}
default_class: default
YAML
ip -n "$TB_GW" link set lo up
tb_start_gw gw "$TB_DIR/gw.yaml"
grep -q "metrics: http://$ADDR/metrics" "$TB_DIR/gw.log" || tb_fail "metrics listener not logged"

scrape() { # scrape FILE -> HTTP status
	tb_exec GW curl -s --max-time 5 -o "$1" -w '%{http_code}' "http://$ADDR/metrics"
}
metric() { # metric FILE 'name{labels}' -> value
	awk -v k="$2" '$1 == k {print $2}' "$1"
}

# --- format, lint, agreement ---
N=10000
[ "$(scrape "$TB_DIR/m0.txt")" = 200 ] || tb_fail "GET /metrics"
tb_spawn recv B "$UC" recv --bind $TB_IP_B:4791 --expect $N --seed 9 --timeout-ms 3000 --json
RECV=$TB_LAST_PID
for _ in $(seq 50); do grep -q ready "$TB_DIR/recv.log" && break; sleep 0.1; done
ip netns exec "$TB_A" "$UC" send --to $TB_IP_B:4791 --count $N --min 100 --max 100 --rate 20000 --seed 9 ||
	tb_fail "sender"
tb_wait_exit $RECV 30 || tb_fail "receiver"
sleep 0.3
[ "$(scrape "$TB_DIR/m1.txt")" = 200 ] || tb_fail "GET /metrics"
promtool check metrics <"$TB_DIR/m1.txt" >"$TB_DIR/lint.txt" 2>&1 || {
	cat "$TB_DIR/lint.txt" >&2
	tb_fail "promtool check metrics failed"
}
[ ! -s "$TB_DIR/lint.txt" ] || { cat "$TB_DIR/lint.txt" >&2; tb_fail "promtool lint findings"; }
for k in 'xdplane_config_last_reload_successful' 'xdplane_config_generation'; do
	[ "$(metric "$TB_DIR/m1.txt" "$k")" = 1 ] || tb_fail "$k is not 1"
done
grep -q '^xdplane_build_info{' "$TB_DIR/m1.txt" || tb_fail "no xdplane_build_info"
grep -q '^xdplane_class_sojourn_seconds_bucket{' "$TB_DIR/m1.txt" || tb_fail "no sojourn histogram"
rx0=$(metric "$TB_DIR/m0.txt" 'xdplane_rx_packets_total{port="gw0",queue="0"}')
rx1=$(metric "$TB_DIR/m1.txt" 'xdplane_rx_packets_total{port="gw0",queue="0"}')
[ $((rx1 - rx0)) -eq $N ] || tb_fail "rx_packets_total{gw0} grew by $((rx1 - rx0)), sent $N"
api=$("$CTL" -s "$SOCK" --json stats gw0 | python3 -c 'import json,sys; print(json.load(sys.stdin)["ports"][0]["rx_packets"])')
[ "$api" = "$rx1" ] || tb_fail "metrics say $rx1 packets, the control API $api"
tb_pass "/metrics passes promtool lint, counts the $N datagrams, agrees with the control API"

# --- counters defined once (dataplane/run/gw_counters.def): every row of
# the schema is in the CLI's --json stats (the control API's JSON) and on
# /metrics with the same value, per queue or per port as the row says, and
# a port's per-queue counters add up to its JSON total. The JSON is read
# before and after the scrape: the scrape lies between the two. ---
"$XDPLANE_BUILD/tests/unit/test_counters" --schema >"$TB_DIR/schema.json" ||
	tb_fail "test_counters --schema (build the unit tests first)"
"$CTL" -s "$SOCK" --json stats >"$TB_DIR/j1.json" || tb_fail "stats --json"
[ "$(scrape "$TB_DIR/m3.txt")" = 200 ] || tb_fail "GET /metrics"
"$CTL" -s "$SOCK" --json stats >"$TB_DIR/j2.json" || tb_fail "stats --json"
python3 - "$TB_DIR/schema.json" "$TB_DIR/j1.json" "$TB_DIR/j2.json" "$TB_DIR/m3.txt" <<'PY' || tb_fail "the JSON and /metrics disagree on a counter of the schema"
import json, sys
schema, j1, j2 = (json.load(open(f)) for f in sys.argv[1:4])
prom, help_ = {}, set()
for line in open(sys.argv[4]):
    if line.startswith("# HELP "):
        help_.add(line.split()[2])
    elif not line.startswith("#") and line.strip():
        k, v = line.rsplit(" ", 1)
        prom[k] = float(v)
bad, n = [], 0

def at(obj, row, e):
    v = obj.get(row["group"], {}) if row["group"] else obj
    v = v.get(row["key"]) if isinstance(v, dict) else None
    if e is not None and v is not None:
        v = v[e] if row["shape"] == "array" else v.get(e)
    return v

def labels(base, row, e):
    l = list(base)
    if row["label"]:
        l.append(tuple(row["label"]))
    if e is not None and row["dim_label"]:
        l.append((row["dim_label"], e))
    return ",".join(f'{k}="{v}"' for k, v in l)

def compare(key, a, b, seconds):
    global n
    m = prom.get(key)
    if m is None:
        bad.append(f"/metrics has no {key}")
        return
    scale = 1e-9 if seconds else 1
    if not (a * scale * (1 - 1e-12) <= m <= b * scale * (1 + 1e-12)):
        bad.append(f"{key} = {m}, the JSON {a}..{b}")
    n += 1

def check(row, o1, o2, base):
    if row.get("histogram"):  # compared by _count: every bucket
        a, b = at(o1, row, None), at(o2, row, None)
        if a is None or b is None:
            bad.append(f"JSON has no {row['key']} ({base})")
        else:
            compare(f'{row["prom"]}_count{{{labels(base, row, None)}}}',
                    sum(a), sum(b), False)
        return
    for e in row["elements"] if row["elements"] is not None else [None]:
        idx = int(e) if row["shape"] == "array" else e
        a, b = at(o1, row, idx), at(o2, row, idx)
        if a is None or b is None:
            bad.append(f"JSON has no {row['group']}.{row['key']}[{e}] ({base})")
            continue
        compare(f'{row["prom"]}{{{labels(base, row, e)}}}', a, b, row["seconds"])

for p1 in j1["ports"]:
    p2 = next(p for p in j2["ports"] if p["name"] == p1["name"])
    for row in schema["port"]:
        if row["prom"] not in help_:
            bad.append(f"/metrics: no family {row['prom']}")
        if row["scope"] != "queue":
            check(row, p1, p2, [("port", p1["name"])])
            continue
        for q1, q2 in zip(p1["queues"], p2["queues"]):
            check(row, q1, q2, [("port", p1["name"]), ("queue", q1["queue"])])
        # the port's total is the sum of its queues (sum() on /metrics)
        if row["elements"] is None and at(p1, row, None) == at(p2, row, None):
            total = sum(at(q, row, None) for q in p2["queues"])
            if total != at(p2, row, None):
                bad.append(f"{p1['name']} {row['key']}: queues {total}, port {at(p2, row, None)}")
    for c1 in p1["classes"]:
        c2 = next(c for c in p2["classes"] if c["name"] == c1["name"])
        for row in schema["class"]:
            check(row, c1, c2, [("port", p1["name"]), ("class", c1["name"])])
for b in bad[:40]:
    print("  " + b, file=sys.stderr)
print(f"  {n} counter values compared, {len(bad)} disagree", file=sys.stderr)
sys.exit(1 if bad or n == 0 else 0)
PY
tb_pass "every counter of the schema: in stats --json and on /metrics, same value"

# --- 1,000 bad connections while forwarding ---
fds_before=$(ls /proc/"$TB_GW_PID"/fd | wc -l)
RATE=2000 M=20000
tb_spawn recv2 B "$UC" recv --bind $TB_IP_B:9000 --expect $M --seed 4 --timeout-ms 5000 --json
RECV=$TB_LAST_PID
for _ in $(seq 50); do grep -q ready "$TB_DIR/recv2.log" && break; sleep 0.1; done
tb_spawn send A "$UC" send --to $TB_IP_B:9000 --count $M --min 18 --max 400 --rate $RATE --seed 4
SEND=$TB_LAST_PID
cat >"$TB_DIR/attack.py" <<'PY'
import os, random, resource, socket, sys, time, urllib.request
host, port = sys.argv[1].split(":"); port = int(port)
resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
rnd = random.Random(1)
kinds = ["half-open", "garbage", "stalled-head", "oversize", "nul", "bad-method", "reset"]
held, counts, slow = [], {}, []
def scrape():
    t = time.monotonic()
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=5) as r:
        body = r.read()
        assert r.status == 200 and b"xdplane_build_info" in body
    return time.monotonic() - t
worst = 0.0
for i in range(1000):
    k = kinds[i % len(kinds)]
    s = socket.socket(); s.settimeout(2)
    s.connect((host, port))
    try:
        if k == "garbage":
            s.sendall(bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 600))))
        elif k == "stalled-head":
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        elif k == "oversize":
            s.sendall(b"GET /metrics HTTP/1.1\r\n" + b"X-A: " + b"a" * 9000 + b"\r\n")
        elif k == "nul":
            s.sendall(b"GET /\x00 HTTP/1.1\r\n\r\n")
        elif k == "bad-method":
            s.sendall(b"DELETE /metrics HTTP/1.1\r\n\r\n")
        elif k == "reset":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.close(); s = None
    except OSError:
        pass  # the daemon may already have answered and closed
    counts[k] = counts.get(k, 0) + 1
    if s:
        held.append(s)
    if i % 100 == 99:
        worst = max(worst, scrape())
print(f"  1000 connections ({counts}), {len(held)} held open; worst scrape {worst * 1000:.0f} ms",
      file=sys.stderr)
worst = max(worst, scrape())
if worst > 2.0:
    sys.exit(f"FAIL: a scrape took {worst:.2f} s during the attack")
for s in held:
    s.close()
PY
tb_exec GW python3 "$TB_DIR/attack.py" "$ADDR" || tb_fail "metrics did not keep answering under attack"
"$CTL" -s "$SOCK" status >/dev/null || tb_fail "control socket not answering after the attack"
tb_wait_exit $SEND 60 || tb_fail "sender"
rc=0
tb_wait_exit $RECV 30 || rc=$?
res=$(grep -a '^{' "$TB_DIR/recv2.log" | tail -n1)
[ "$(jq .ok <<<"$res")" -eq $M ] && [ $rc -eq 0 ] ||
	tb_fail "forwarding during the attack: $(jq .ok <<<"$res") of $M delivered"
tb_pass "1,000 bad connections: scrapes answered, all $M datagrams forwarded meanwhile"

# connections the daemon still holds time out (5 s idle, 10 s deadline)
for _ in $(seq 30); do
	fds=$(ls /proc/"$TB_GW_PID"/fd | wc -l)
	[ "$fds" -le "$fds_before" ] && break
	sleep 0.5
done
[ "$fds" -le "$fds_before" ] || tb_fail "daemon holds $fds fds, $fds_before before the attack"
[ "$(scrape "$TB_DIR/m2.txt")" = 200 ] || tb_fail "GET /metrics after the attack"
promtool check metrics <"$TB_DIR/m2.txt" >/dev/null 2>&1 || tb_fail "promtool after the attack"
tb_pass "file descriptors back to $fds (before: $fds_before)"

tb_stop_gw || tb_fail "daemon exit status $?"
python3 - "$TB_DIR/schema.json" "$(grep -a '^final-stats: ' "$TB_DIR/gw.log" | tail -n1 | sed 's/^final-stats: //')" <<'PY' || tb_fail "the final report lacks a counter of the schema"
import json, sys
schema, s = json.load(open(sys.argv[1])), json.loads(sys.argv[2])
miss = [f"{p['name']} {r['group']}.{r['key']}" for p in s["ports"] for r in schema["port"]
        if r["key"] not in (p.get(r["group"], {}) if r["group"] else p)]
miss += [f"{p['name']} queue {r['group']}.{r['key']}" for p in s["ports"] for q in p["queues"]
         for r in schema["port"] if r["scope"] != "port_only" and r["key"] not in (q.get(r["group"], {}) if r["group"] else q)]
print("  missing: " + ", ".join(miss) if miss else "  final-stats: every row of the schema", file=sys.stderr)
sys.exit(1 if miss else 0)
PY
tb_pass "the final report has every counter of the schema"
