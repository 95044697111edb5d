#!/usr/bin/env bash
# DCQCN in the gateway, on the veth testbed. The egress towards hostB is
# shaped to 200 Mbit/s and the roce class runs DCQCN: RP per queue pair,
# driven by the CNPs the receivers return for the CE marks of our own CP
# (absorbed: the senders do not see them), and the NP on: the gateway
# also sends CNPs for its marks to the senders. hostA runs two synthetic RoCEv2 senders (UDP 4791 with a BTH,
# 150 Mbit/s each, QPs 0x111 and 0x112) towards two receivers on hostB
# (10.77.0.2 and .3) that ACK every 8th packet and answer CE-marked
# packets with CNPs. Shown:
#  - the per-flow rates the gateway reports converge: the two flows' R_C
#    (mean of 10 samples over 2 s) within 25 % of each other, and their
#    measured shares within 20 %;
#  - CNPs seen (from the receivers, on gw1) and sent (built by the
#    gateway's NP towards hostA) are counted, both senders' QPNs learned;
#  - every CNP the gateway generated passes the senders' own ICRC check,
#    carries the right QPN, and the senders saw exactly as many as the
#    gateway says it sent;
#  - the frame census at stop is clean.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
DUR=${DUR:-8}
tb_init
tb_build
CTL="$XDPLANE_BUILD/control/xdplanectl"
RP="$XDPLANE_BUILD/tests/tools/roce_peer"
SOCK="$TB_DIR/ctl.sock"
IP_B2=10.77.0.3
IP_A2=10.77.0.4
ip -n "$TB_B" addr add $IP_B2/24 dev b0
ip -n "$TB_A" addr add $IP_A2/24 dev a0
ip -n "$TB_A" neigh replace $TB_IP_B lladdr $TB_MAC_B dev a0 nud permanent
ip -n "$TB_A" neigh replace $IP_B2 lladdr $TB_MAC_B dev a0 nud permanent
ip -n "$TB_B" neigh replace $TB_IP_A lladdr $TB_MAC_A dev b0 nud permanent
ip -n "$TB_B" neigh replace $IP_A2 lladdr $TB_MAC_A dev b0 nud permanent

cat >"$TB_DIR/gw.yaml" <<YAML
ports:
  - interface: gw0
  - interface: gw1
    rate: 200Mbit
control: {socket: "$SOCK", metrics_listen: ""}
workers: {cpus: [0]}
dcqcn:
  profile: paper
  line_rate: 200Mbit
  rate_ai: 2Mbit
  rate_hai: 10Mbit
  min_rate: 5Mbit
  flow_key: qp
  cnp: absorb
  cp_loop: false
  np: {enabled: true}
classes:
  - {name: cnp, level: 0, ceil: 10%}
  - name: roce
    level: 1
    dcqcn: true
    ecn: {kmin: 15KB, kmax: 150KB, pmax: 10%, non_ect: pass}
  - {name: default, level: 2}
rules:
  - {class: cnp, match: {proto: udp, dport: 4791, bth_opcode: 0x81}}
  - {class: roce, match: {proto: udp, dport: 4791}}
default_class: default
YAML
tb_start_gw gw "$TB_DIR/gw.yaml"

RPN="taskset -c 1 $RP"
tb_spawn recv1 B $RPN recv --bind $TB_IP_B:4791 --peer-qpn 0x111 --ack-every 8 --cnp-on-ce --duration $((DUR + 2)) --json
tb_spawn recv2 B $RPN recv --bind $IP_B2:4791 --peer-qpn 0x112 --ack-every 8 --cnp-on-ce --duration $((DUR + 2)) --json
R1=$(cat "$TB_DIR/recv1.pid") R2=$(cat "$TB_DIR/recv2.pid")
sleep 0.5
tb_spawn send1 A $RPN send --from $TB_IP_A --to $TB_IP_B:4791 --qpn 0x111 --dqpn 0x201 --rate 150000000 --size 1024 \
	--duration $DUR --ifname a0 --json
tb_spawn send2 A $RPN send --from $IP_A2 --to $IP_B2:4791 --qpn 0x112 --dqpn 0x202 --rate 150000000 --size 1024 \
	--duration $DUR --ifname a0 --json
S1=$(cat "$TB_DIR/send1.pid") S2=$(cat "$TB_DIR/send2.pid")

# per-flow state after the flows have settled, and the shares over 2 s
# (R_C sampled 10 times over those 2 s: each flow's R_C is a sawtooth, and
# one snapshot can catch one flow just cut and the other just recovered)
sleep $((DUR / 2))
"$CTL" -s "$SOCK" --json flows >"$TB_DIR/flows0.json"
for i in $(seq 10); do
	sleep 0.2
	"$CTL" -s "$SOCK" --json flows >"$TB_DIR/rc$i.json"
done
cp "$TB_DIR/rc10.json" "$TB_DIR/flows1.json"
"$CTL" -s "$SOCK" flows >&2 || true
python3 - "$TB_DIR/flows0.json" "$TB_DIR/flows1.json" "$TB_DIR"/rc*.json <<'PY' || tb_fail "the two flows did not converge"
import json, sys
def load(p):
    v = json.load(open(p))
    v = v["flows"] if isinstance(v, dict) else v
    return {(f["dst"], f["dst_qpn"]): f for f in v if f["class"] == "roce" and f["port"] == "gw1"}
a, b = load(sys.argv[1]), load(sys.argv[2])
keys = [("10.77.0.2", 0x201), ("10.77.0.3", 0x202)]
for k in keys:
    if k not in a or k not in b:
        sys.exit(f"FAIL: flow {k} missing: {sorted(b)}")
share = [(b[k]["sent_bytes"] - a[k]["sent_bytes"]) * 8 / 2.0 for k in keys]
samples = [load(x) for x in sys.argv[3:]]
rc = [sum(s[k]["rc_bps"] for s in samples if k in s) /
      max(1, sum(1 for s in samples if k in s)) for k in keys]
print(f"  flow rates over 2 s: {share[0]/1e6:.1f} and {share[1]/1e6:.1f} Mbit/s; "
      f"R_C (mean of {len(samples)}) {rc[0]/1e6:.1f} and {rc[1]/1e6:.1f} Mbit/s; alpha "
      f"{b[keys[0]]['alpha']:.3f} {b[keys[1]]['alpha']:.3f}", file=sys.stderr)
ok = min(share) / max(share) >= 0.8 and min(rc) / max(rc) >= 0.75
for k in keys:
    if b[k]["sender_qpn"] is None:
        sys.exit(f"FAIL: sender QPN of {k} not learned")
sys.exit(0 if ok else 1)
PY

rc=0
for p in $S1 $S2; do tb_wait_exit "$p" $((DUR + 10)) || rc=$?; done
[ $rc -eq 0 ] || tb_fail "a sender failed ($rc)"
tb_wait_exit "$R1" 10 || true
tb_wait_exit "$R2" 10 || true
sleep 0.3
"$CTL" -s "$SOCK" --json stats gw1 >"$TB_DIR/stats.json"
tb_stop_gw || tb_fail "daemon exit status $?"
python3 - "$TB_DIR" <<'PY' || tb_fail "CNP accounting"
import json, sys, os
d = sys.argv[1]
def last_json(name):
    for line in reversed(open(os.path.join(d, name)).read().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    sys.exit(f"FAIL: no JSON from {name}")
st = json.load(open(os.path.join(d, "stats.json")))["ports"][0]["dcqcn"]
s1, s2 = last_json("send1.log"), last_json("send2.log")
r1, r2 = last_json("recv1.log"), last_json("recv2.log")
print(f"  gateway gw1: cnps_seen {st['cnps_seen']} absorbed {st['cnps_absorbed']} "
      f"sent {st['cnps_sent']} qpn_learned {st['qpn_learned']} flows {st['flows']}", file=sys.stderr)
for n, s in (("send1", s1), ("send2", s2)):
    print(f"  {n}: sent {s['sent_packets']} cnps {s['cnps_received']} icrc ok "
          f"{s['cnps_icrc_ok']} bad {s['cnps_icrc_bad']} bad_qpn {s['cnps_bad_qpn']}", file=sys.stderr)
print(f"  receivers: CE {r1['ce_marked']}+{r2['ce_marked']}, cnps sent "
      f"{r1['cnps_sent']}+{r2['cnps_sent']}", file=sys.stderr)
bad = []
if st["cnps_seen"] == 0: bad.append("no CNP seen from the receivers")
if st["cnps_absorbed"] != st["cnps_seen"]: bad.append("absorbed != seen")
if st["cnps_sent"] == 0: bad.append("the gateway sent no CNP")
if st["qpn_learned"] < 2: bad.append("sender QPNs not learned")
got = s1["cnps_received"] + s2["cnps_received"]
if got != st["cnps_sent"]: bad.append(f"senders got {got} CNPs, the gateway sent {st['cnps_sent']}")
for s in (s1, s2):
    if not s["icrc_checked"]: bad.append("ICRC not checked")
    if s["cnps_icrc_ok"] != s["cnps_received"] or s["cnps_icrc_bad"]: bad.append("bad ICRC")
    if s["cnps_bad_qpn"]: bad.append("CNP to the wrong QP")
    if s["cnps_received"] == 0: bad.append("a sender got no CNP")
if bad:
    sys.exit("FAIL: " + "; ".join(bad))
PY
missing=$(tb_stats gw.log 's["frames"]["missing"] + s["frames"]["doubles"] + s["frames"]["strays"]')
[ "$missing" -eq 0 ] || tb_fail "frame census: $missing"
tb_pass "DCQCN: flows converge, CNPs seen/sent counted, every generated CNP's ICRC and QPN right"
