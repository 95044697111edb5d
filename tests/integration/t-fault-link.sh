#!/usr/bin/env bash
# Link down and up under traffic, of each gateway port (gw0, gw1) and of
# each host-side peer (a0, b0), while timestamped UDP streams run A->B and
# B->A (tests/lib/gapmeter.py, RATE datagrams/s each way). For each flap:
#  - forwarding resumes within 1 s of link up, both directions: the first
#    datagram *sent* after `ip link set up` returned is received less than
#    1 s later (CLOCK_MONOTONIC is shared by the namespaces);
#  - while down, frames are counted where they go: every datagram missing
#    in the fault window is covered by a counter (the sender's failed sends,
#    the veths' kernel drop counters, the daemon's drops by reason) -- none
#    vanishes silently -- and the daemon's own accounting per direction
#    (rx = rx drops + class drops + tx + in flight, faultlib.py) holds with
#    in flight bounded by what its queues and rings can hold;
#  - no datagram is lost outside the fault windows;
#  - while a gateway port is down, its egress does not spin on failed TX
#    kicks (ENETDOWN): at most ~100 per second (a 10 ms back-off);
# and at the end: the daemon logged every flap (rtnetlink: "port gw0: link
# down" / "link up"; a host peer's flap takes its gateway port's carrier),
# still runs, exits 0, accounting exact (in flight 0), and the frame census
# finds every UMEM frame once.
# The hosts use permanent neighbour entries: ARP retransmit timers (1 s)
# would otherwise decide the recovery time, not the gateway.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
RATE=${RATE:-1000}
DOWN_S=${DOWN_S:-2}
tb_init
tb_build
CFG="$TB_DIR/gw.yaml"
tb_config "$CFG" "failure_mode: open"
tb_start_gw gw "$CFG"

neigh() { # static neighbours on both hosts (re-added after an admin down)
	ip -n "$TB_A" neigh replace $TB_IP_B lladdr $TB_MAC_B dev a0 nud permanent
	ip -n "$TB_B" neigh replace $TB_IP_A lladdr $TB_MAC_A dev b0 nud permanent
}
neigh
GM="$XDPLANE_SOURCE/tests/lib/gapmeter.py"
tb_spawn rab B python3 "$GM" recv --bind $TB_IP_B:9100 --out "$TB_DIR/ab.txt"
tb_spawn rba A python3 "$GM" recv --bind $TB_IP_A:9101 --out "$TB_DIR/ba.txt"
for _ in $(seq 50); do
	grep -q ready "$TB_DIR/rab.log" && grep -q ready "$TB_DIR/rba.log" && break
	sleep 0.1
done
DUR=$((4 * (DOWN_S + 4) + 6))
tb_spawn sab A python3 "$GM" send --to $TB_IP_B:9100 --rate "$RATE" --duration $DUR
SAB=$TB_LAST_PID
tb_spawn sba B python3 "$GM" send --to $TB_IP_A:9101 --rate "$RATE" --duration $DUR
SBA=$TB_LAST_PID
sleep 2

export TB_A TB_B TB_GW TB_DIR DOWN_S RATE
python3 - "$TB_DIR/gw.sock" <<'PY' || tb_fail "link flaps"
import json, os, subprocess, sys, time
sys.path.insert(0, os.environ["XDPLANE_SOURCE"] + "/tests/lib")
from xdpctl import Ctl
import faultlib as fl
import gapmeter as gm

ctl = Ctl(sys.argv[1])
ns = {"A": os.environ["TB_A"], "B": os.environ["TB_B"], "GW": os.environ["TB_GW"]}
down_s = float(os.environ["DOWN_S"])
rate = float(os.environ["RATE"])
# what the daemon's queues and rings may hold per direction: class queue
# (2048 packets) + handoff ring (4096) + a batch, defaults. The counters
# of the two ports are read one after the other while frames move: a
# frame counted at TX but not yet at RX in the snapshot makes it negative,
# by at most what moves in that instant (SKEW).
BOUND = 2048 + 4096 + 64
SKEW = 64

def ip(*a):
    subprocess.run(["ip", *a], check=True)

def kernel_drops():
    """tx_dropped + rx_dropped summed over the four veths."""
    tot = 0
    for n, dev in (("A", "a0"), ("GW", "gw0"), ("GW", "gw1"), ("B", "b0")):
        j = json.loads(subprocess.run(["ip", "-n", ns[n], "-s", "-j", "link", "show", dev],
                                      check=True, capture_output=True, text=True).stdout)
        s = j[0]["stats64"]
        tot += s["rx"]["dropped"] + s["tx"]["dropped"]
    return tot

def daemon_drops(st):
    tot = 0
    for p in st["ports"]:
        tot += fl.rx_drops(p) + fl.class_drops(p)
        x = p["xsk"]
        tot += x["rx_dropped"] + x["rx_ring_full"] + x["rx_fill_ring_empty_descs"]
        tot += p["xdp"]["failclosed_drop"] + p["xdp"]["failopen_error"]
    return tot

def check_identity(st, when):
    for src, dst in (("gw0", "gw1"), ("gw1", "gw0")):
        f = fl.in_flight(st, src, dst)
        if not -SKEW <= f <= BOUND:
            sys.exit(f"FAIL: {when}: {fl.describe(st, src, dst)}: outside [-{SKEW}, {BOUND}]")

windows, flaps = [], []
for where, dev in (("GW", "gw0"), ("GW", "gw1"), ("A", "a0"), ("B", "b0")):
    st0 = ctl.call("stats")
    check_identity(st0, f"before {dev} down")
    k0, d0 = kernel_drops(), daemon_drops(st0)
    t_down = time.monotonic_ns()
    ip("-n", ns[where], "link", "set", dev, "down")
    time.sleep(down_s)
    mid = ctl.call("stats")
    check_identity(mid, f"while {dev} down")
    if where == "GW":
        # the egress of the down port backs off (10 ms) after a failed TX
        # kick instead of retrying on every pass of its worker
        ke = fl.port(mid, dev)["tx_kick_errors"] - fl.port(st0, dev)["tx_kick_errors"]
        bound = int(150 * down_s) + 20
        print(f"{dev} down: {ke} failed TX kicks in {down_s:.0f} s (bound {bound})", flush=True)
        if ke > bound:
            sys.exit(f"FAIL: {dev} down: {ke} failed TX kicks in {down_s} s: spinning")
    ip("-n", ns[where], "link", "set", dev, "up")
    t_up = time.monotonic_ns()
    if where != "GW":
        subprocess.run(["ip", "-n", ns["A"], "neigh", "replace", "10.77.0.2", "lladdr",
                        "02:77:00:00:00:0b", "dev", "a0", "nud", "permanent"], check=True)
        subprocess.run(["ip", "-n", ns["B"], "neigh", "replace", "10.77.0.1", "lladdr",
                        "02:77:00:00:00:0a", "dev", "b0", "nud", "permanent"], check=True)
    time.sleep(3)
    st1 = ctl.call("stats")
    check_identity(st1, f"after {dev} up")
    flaps.append((dev, t_down, t_up, kernel_drops() - k0, daemon_drops(st1) - d0))
    windows.append((t_down - 50_000_000, t_up + 1_000_000_000))
    print(f"{dev}: down {down_s:.0f} s; {fl.describe(mid, 'gw1', 'gw0')} while down",
          flush=True)
time.sleep(1)
with open(os.environ["TB_DIR"] + "/flaps.json", "w") as f:
    json.dump({"flaps": flaps, "windows": windows}, f)
PY

sleep 1
tb_kill $SAB
tb_kill $SBA
sleep 0.5
tb_kill "$(cat "$TB_DIR/rab.pid")"
tb_kill "$(cat "$TB_DIR/rba.pid")"
sleep 0.5
python3 - <<'PY' || tb_fail "recovery or accounting"
import json, os, sys
sys.path.insert(0, os.environ["XDPLANE_SOURCE"] + "/tests/lib")
import gapmeter as gm
d = os.environ["TB_DIR"]
fl = json.load(open(d + "/flaps.json"))
rows = {"A->B": gm.load(d + "/ab.txt"), "B->A": gm.load(d + "/ba.txt")}
bad = []
for dev, t_down, t_up, kdrops, ddrops in fl["flaps"]:
    lost_all = failed_all = 0
    for name, r in rows.items():
        first = gm.first_after(r, t_up)
        lo, hi = t_down - 50_000_000, t_up + 1_000_000_000
        lost, failed = gm.losses(r, lo, hi)
        lost_all += lost
        failed_all += failed
        rec = (first - t_up) / 1e6 if first else float("inf")
        print(f"{dev} flap, {name}: first datagram {rec:.1f} ms after link up; "
              f"in the window {lost} lost, {failed} failed sends", file=sys.stderr)
        if rec > 1000:
            bad.append(f"{dev}: {name} resumed {rec:.0f} ms after link up (> 1000)")
    print(f"{dev} flap: {lost_all} lost on the way; counted: kernel veth drops "
          f"{kdrops}, daemon drops {ddrops}", file=sys.stderr)
    if lost_all > kdrops + ddrops:
        bad.append(f"{dev}: {lost_all} datagrams lost but only {kdrops + ddrops} "
                   "counted (kernel + daemon): frames vanished")
for name, r in rows.items():
    out = gm.losses_outside(r, fl["windows"])
    print(f"{name}: {len(r)} received, {out} lost outside the fault windows",
          file=sys.stderr)
    if out:
        bad.append(f"{name}: {out} datagrams lost outside the fault windows")
if bad:
    sys.exit("FAIL: " + "; ".join(bad))
PY
tb_pass "4 link flaps: forwarding resumed within 1 s, every lost frame counted"
# the daemon saw each flap (rtnetlink): gw0 lost its link with gw0 and a0
for p in gw0 gw1; do
	d=$(grep -c "port $p: link down" "$TB_DIR/gw.log" || true)
	u=$(grep -c "port $p: link up" "$TB_DIR/gw.log" || true)
	[ "$d" -eq 2 ] && [ "$u" -eq 2 ] || tb_fail "$p: $d link-down and $u link-up log lines, expected 2 each"
done
tb_pass "every flap logged (link down / link up, 2 per port)"

tb_stop_gw || tb_fail "daemon exit status $?"
for dir in "gw0 gw1" "gw1 gw0"; do
	set -- $dir
	f=$(tb_stats gw.log "__import__('sys').path.insert(0, '$XDPLANE_SOURCE/tests/lib') or __import__('faultlib').in_flight(s, '$1', '$2')")
	[ "$f" -eq 0 ] || tb_fail "$1->$2: $f frames unaccounted at stop"
done
missing=$(tb_stats gw.log 's["frames"]["missing"] + s["frames"]["doubles"] + s["frames"]["strays"]')
[ "$missing" -eq 0 ] || tb_fail "frame census: $missing frames missing or doubled"
tb_pass "accounting exact at stop, frame census clean"
