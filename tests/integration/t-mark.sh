#!/usr/bin/env bash
# Marking for the fabric beyond (classes[].set_dscp, set_pcp) on the veth
# testbed with the real daemon. hostA sends hand-made frames raw on a0
# (tests/tools/markframes.py): IPv4 and IPv6, UDP and TCP, untagged,
# 802.1Q and QinQ, ECT(0) and CE, DSCP 8, to port 5001 (class "mark":
# set_dscp 46, set_pcp 5) and to port 5002 (class "default": no marking).
# hostB captures them on b0 (tags the kernel moved into metadata put back)
# and checks, frame by frame:
#  - class mark: DSCP 46, the ECN bits as sent, PCP 5 in the outer tag of
#    tagged frames (DEI, VID and the inner tag as sent), untagged frames
#    still untagged;
#  - class default: byte-identical;
#  - every IPv4 header checksum and every UDP/TCP checksum verifies (the
#    L4 checksums do not cover the DSCP: not one L4 byte changed);
#  - no other byte changed.
# Then the config is reloaded with set_dscp 34 and set_pcp removed: the
# next round leaves with DSCP 34 and the PCP as sent (hot on reload). The
# gateway's counters agree: dscp_rewritten, pcp_rewritten, pcp_untagged.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
TOOL="$XDPLANE_SOURCE/tests/tools/markframes.py"
CTL=$XDPLANE_BUILD/control/xdplanectl
N=48       # frames per round: 2 ports x 2 families x 2 protocols x 3 tag kinds x 2 ECN
MARKED=24  # to port 5001
TAGGED=16  # of which tagged (802.1Q or QinQ)
tb_init
tb_build

config() { # config MARKING_LINES
	cat <<YAML
ports:
  - interface: gw0
  - interface: gw1
workers: {cpus: [0]}
control: {socket: "$TB_DIR/gw.sock", metrics_listen: ""}
classes:
  - name: mark
    level: 1
$1
  - name: default
    level: 2
rules:
  - class: mark
    match: {dport: 5001}
default_class: default
YAML
}
config "    set_dscp: 46
    set_pcp: 5" >"$TB_DIR/mark.yaml"
ip netns exec "$TB_GW" "$XDPLANE_BUILD/control/xdplane" --dump-config -c "$TB_DIR/mark.yaml" |
	grep -A12 "name: 'mark'" | grep -q "set_pcp: 5" ||
	tb_fail "--dump-config does not show set_pcp"
tb_start_gw gw "$TB_DIR/mark.yaml"

# round TAG DSCP PCP: send a round, capture it on b0, check it
round() {
	local tag=$1 dscp=$2 pcp=$3
	tb_spawn "recv-$tag" B python3 "$TOOL" recv b0 $N "$tag" "$TB_DIR/got-$tag"
	local rx=$TB_LAST_PID
	for _ in $(seq 50); do grep -q ready "$TB_DIR/recv-$tag.log" && break; sleep 0.1; done
	ip netns exec "$TB_A" python3 "$TOOL" send a0 "$TB_MAC_B" "$TB_MAC_A" \
		"$TB_IP_A" "$TB_IP_B" "$TB_IP6_A" "$TB_IP6_B" "$tag" "$TB_DIR/sent-$tag"
	tb_wait_exit "$rx" 15 ||
		tb_fail "round $tag: $(wc -l <"$TB_DIR/got-$tag") of $N frames arrived"
	python3 "$TOOL" check "$TB_DIR/sent-$tag" "$TB_DIR/got-$tag" 5001 "$dscp" "$pcp" >&2 ||
		tb_fail "round $tag: frames not as expected (above)"
}

round 1 46 5
tb_pass "set_dscp 46, set_pcp 5: $N frames, IPv4/IPv6 UDP/TCP untagged/802.1Q/QinQ, checksums valid"

# hot reload: DSCP 34, PCP no longer set (the tags keep PCP 1 / 2)
config "    set_dscp: 34" >"$TB_DIR/mark.yaml"
"$CTL" -s "$TB_DIR/gw.sock" reload >"$TB_DIR/reload.txt" || tb_fail "reload refused: $(cat "$TB_DIR/reload.txt")"
"$CTL" -s "$TB_DIR/gw.sock" classes >"$TB_DIR/classes.txt" || tb_fail "xdplanectl classes"
round 2 34 -1
tb_pass "reload: set_dscp 34 and no set_pcp applied live"

tb_stop_gw || tb_fail "daemon exit status $?"
c() { tb_stats gw.log "[c for c in s['ports'][1]['classes'] if c['name'] == '$1'][0]['$2']"; }
[ "$(c mark dscp_rewritten)" -eq $((2 * MARKED)) ] ||
	tb_fail "mark dscp_rewritten $(c mark dscp_rewritten), want $((2 * MARKED))"
[ "$(c mark pcp_rewritten)" -eq $TAGGED ] ||
	tb_fail "mark pcp_rewritten $(c mark pcp_rewritten), want $TAGGED"
[ "$(c mark pcp_untagged)" -eq $((MARKED - TAGGED)) ] ||
	tb_fail "mark pcp_untagged $(c mark pcp_untagged), want $((MARKED - TAGGED))"
[ "$(c mark remark_invalid)" -eq 0 ] || tb_fail "mark remark_invalid $(c mark remark_invalid)"
[ "$(c default dscp_rewritten)" -eq 0 ] && [ "$(c default pcp_rewritten)" -eq 0 ] ||
	tb_fail "the default class rewrote frames"
tb_pass "counters: dscp_rewritten $(c mark dscp_rewritten), pcp_rewritten $(c mark pcp_rewritten), pcp_untagged $(c mark pcp_untagged)"
