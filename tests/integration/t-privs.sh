#!/usr/bin/env bash
# Privileges of the running daemon (xdplane(8), PRIVILEGES):
#  - every thread shows CapEff = CapPrm = CapBnd = the run-time set
#    (CAP_NET_ADMIN; plus CAP_BPF only before Linux 5.19 with
#    kernel.unprivileged_bpf_disabled set), CapInh = CapAmb = 0 and
#    NoNewPrivs = 1;
#  - forwarding works after the drop, and goes on after a reload;
#  - a clean stop exits 0, detaches the XDP programs (netlink, with
#    CAP_NET_ADMIN only) and removes the control socket;
#  - the same with `user: nobody`: every thread runs as nobody, with
#    nobody's groups, and a reload re-reads the file as nobody.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
tb_init
tb_build

CAP_NET_ADMIN=12
CAP_BPF=39

# The documented run-time set, as /proc prints it (16 hex digits).
expected_caps() {
	local mask=$((1 << CAP_NET_ADMIN)) rel major minor unpriv
	rel=$(uname -r)
	major=${rel%%.*}
	minor=${rel#*.}
	minor=${minor%%[!0-9]*}
	unpriv=$(cat /proc/sys/kernel/unprivileged_bpf_disabled 2>/dev/null || echo 0)
	if { [ "$major" -lt 5 ] || { [ "$major" -eq 5 ] && [ "$minor" -lt 19 ]; }; } &&
		[ "$unpriv" != 0 ]; then
		mask=$((mask | (1 << CAP_BPF)))
	fi
	printf '%016x' "$mask"
}
WANT_CAPS=$(expected_caps)
ZERO=0000000000000000

pings() { # pings COUNT: replies received A -> B at 20/s
	ip netns exec "$TB_A" ping -c "$1" -i 0.05 -W 1 "$TB_IP_B" 2>/dev/null |
		sed -n 's/.* \([0-9]*\) received.*/\1/p' || true
}

# status_field FILE KEY: the value(s) of "KEY:" in a /proc status file.
status_field() {
	awk -v k="$2:" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$1"
}

# norm_list: whitespace-separated numbers -> sorted, one space apart.
norm_list() {
	xargs -n1 | sort -n | xargs
}

# check_threads PID UID GID GROUPS: every thread of PID has the run-time
# capability sets, no_new_privs, and the given ids ("0 0 0 0" form).
check_threads() {
	local pid=$1 ids_u="$2 $2 $2 $2" ids_g="$3 $3 $3 $3" groups=$4
	local st n=0 v
	for st in /proc/"$pid"/task/*/status; do
		[ -r "$st" ] || continue
		n=$((n + 1))
		for k in CapEff CapPrm CapBnd; do
			v=$(status_field "$st" $k)
			[ "$v" = "$WANT_CAPS" ] || tb_fail "$st: $k $v, want $WANT_CAPS"
		done
		for k in CapInh CapAmb; do
			v=$(status_field "$st" $k)
			[ "$v" = "$ZERO" ] || tb_fail "$st: $k $v, want $ZERO"
		done
		v=$(status_field "$st" NoNewPrivs)
		[ "$v" = 1 ] || tb_fail "$st: NoNewPrivs $v"
		v=$(status_field "$st" Uid | tr -s ' \t' ' ')
		[ "$v" = "$ids_u" ] || tb_fail "$st: Uid $v, want $ids_u"
		v=$(status_field "$st" Gid | tr -s ' \t' ' ')
		[ "$v" = "$ids_g" ] || tb_fail "$st: Gid $v, want $ids_g"
		v=$(status_field "$st" Groups | norm_list)
		[ "$v" = "$groups" ] || tb_fail "$st: Groups '$v', want '$groups'"
	done
	# The control thread and at least one worker.
	[ $n -ge 2 ] || tb_fail "only $n thread(s) seen"
	echo $n
}

# run_case NAME UID GID GROUPS [config lines...]
run_case() {
	local name=$1 uid=$2 gid=$3 groups=$4 n rc=0
	shift 4
	# the socket's directory does not exist: the daemon creates it, owned
	# by the user it runs as, so that it can remove its socket at exit
	local CTL_SOCK="$TB_DIR/run-$name/ctl.sock"
	tb_config "$TB_DIR/$name.yaml" "control: {socket: \"$CTL_SOCK\", metrics_listen: \"\"}" "$@"
	chmod 0644 "$TB_DIR/$name.yaml"
	tb_start_gw "$name" "$TB_DIR/$name.yaml"
	n=$(check_threads "$TB_GW_PID" "$uid" "$gid" "$groups")
	[ -n "$(tb_xdp_prog GW gw0)" ] || tb_fail "$name: no XDP program on gw0"
	[ "$(pings 20)" -eq 20 ] || tb_fail "$name: ping through the gateway after the drop"
	# A reload re-reads the file with the reduced privileges.
	kill -HUP "$TB_GW_PID"
	sleep 1
	kill -0 "$TB_GW_PID" 2>/dev/null || tb_fail "$name: daemon died on SIGHUP"
	[ -S "$CTL_SOCK" ] || tb_fail "$name: no control socket $CTL_SOCK"
	"$XDPLANE_BUILD/control/xdplanectl" -s "$CTL_SOCK" reload >"$TB_DIR/$name.reload" 2>&1 ||
		tb_fail "$name: xdplanectl reload: $(cat "$TB_DIR/$name.reload")"
	[ "$(pings 20)" -eq 20 ] || tb_fail "$name: ping after reload"
	check_threads "$TB_GW_PID" "$uid" "$gid" "$groups" >/dev/null
	tb_stop_gw || rc=$?
	[ $rc -eq 0 ] || tb_fail "$name: clean stop exit status $rc"
	[ -z "$(tb_xdp_prog GW gw0)$(tb_xdp_prog GW gw1)" ] ||
		tb_fail "$name: XDP program still attached after a clean stop"
	[ ! -e "$CTL_SOCK" ] || tb_fail "$name: $CTL_SOCK left behind"
	tb_pass "$name: $n threads with caps $WANT_CAPS, uid $uid gid $gid, forwarded, reloaded, detached"
}

# The config is re-read on reload as the daemon's user.
chmod 0711 "$TB_DIR"

# As root the daemon keeps the supplementary groups it was started with.
run_case root 0 0 "$(status_field /proc/$$/status Groups | norm_list)"

nobody_uid=$(id -u nobody)
nobody_gid=$(id -g nobody)
nobody_groups=$(id -G nobody | norm_list)
run_case nobody "$nobody_uid" "$nobody_gid" "$nobody_groups" "user: nobody"
