# shellcheck shell=bash
# testbed.sh - builds and tears down the veth/netns testbed used by the
# integration tests and the benchmarks:
#
#   [ns A]  a0 ==veth== gw0  [ns GW]  gw1 ==veth== b0  [ns B]
#
# hostA (a0) and hostB (b0) share one L2 segment through the gateway:
# 10.77.0.1/24 and 10.77.0.2/24, fd77::1/64 and fd77::2/64. An XDP program
# that passes everything sits on a0 and b0, because veth delivers frames
# redirected into it (devmap, AF_XDP TX) only when its peer has one.
#
# Everything a test creates is registered here and removed by tb_cleanup,
# which runs on EXIT, INT and TERM: namespaces are deleted and every process
# started with tb_spawn is killed (its whole process group).
#
# Use:  source tests/lib/testbed.sh; tb_init; tb_build [--mtu N] [--queues N]
#       tb_exec GW cmd...       run in the gateway namespace (bpffs mounted)
#       tb_spawn NAME GW cmd... run in the background, output to $TB_DIR/NAME.log
#
# Needs: XDPLANE_BUILD (the CMake build directory) in the environment, root.
# TB_HOST_OFFLOADS=default: the hosts' veths keep TX checksum offload on
# (default: switched off, see tb_build).

XDPLANE_SOURCE=${XDPLANE_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
TB_PREFIX=${TB_PREFIX:-xpl$$}
TB_A="${TB_PREFIX}a"
TB_GW="${TB_PREFIX}g"
TB_B="${TB_PREFIX}b"
TB_DIR=""
TB_PIDS=()
TB_IP_A=10.77.0.1
TB_IP_B=10.77.0.2
TB_IP6_A=fd77::1
TB_IP6_B=fd77::2
TB_MAC_A=02:77:00:00:00:0a
TB_MAC_B=02:77:00:00:00:0b

tb_log() { printf '[testbed] %s\n' "$*" >&2; }
tb_die() { printf '[testbed] FATAL: %s\n' "$*" >&2; exit 1; }

tb_ns() {
	case "$1" in
	A) echo "$TB_A" ;; GW) echo "$TB_GW" ;; B) echo "$TB_B" ;;
	*) echo "$1" ;;
	esac
}

tb_init() {
	[ "$(id -u)" -eq 0 ] || tb_die "must run as root"
	: "${XDPLANE_BUILD:?set XDPLANE_BUILD to the build directory}"
	TB_DIR=$(mktemp -d "/tmp/${TB_PREFIX}.XXXXXX")
	trap tb_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# tb_exec NS cmd... : run cmd in namespace NS with a bpffs of its own.
tb_exec() {
	local ns
	ns=$(tb_ns "$1")
	shift
	ip netns exec "$ns" sh -c \
		'mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf; exec "$@"' \
		tb "$@"
}

# tb_spawn NAME NS cmd... : start in the background, log to $TB_DIR/NAME.log,
# remember the pid (also in $TB_DIR/NAME.pid) so tb_cleanup can kill it.
tb_spawn() {
	local name=$1 ns
	ns=$(tb_ns "$2")
	shift 2
	# setsid: its own process group, so tb_kill reaches its children too.
	# The chain setsid -> ip netns exec -> sh -> cmd execs all the way: $!
	# ends up being cmd itself.
	setsid ip netns exec "$ns" sh -c \
		'mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf; exec "$@"' \
		tb "$@" >"$TB_DIR/$name.log" 2>&1 </dev/null &
	local pid=$!
	TB_PIDS+=("$pid")
	echo "$pid" >"$TB_DIR/$name.pid"
	TB_LAST_PID=$pid
}

# tb_kill PID [SIG]: signal the process group started by tb_spawn.
tb_kill() {
	kill "-${2:-TERM}" -- "-$1" 2>/dev/null || kill "-${2:-TERM}" "$1" 2>/dev/null
}

# tb_wait_exit PID SECONDS: wait for a spawned process to exit; its status.
tb_wait_exit() {
	local pid=$1 t=$(($2 * 10))
	while kill -0 "$pid" 2>/dev/null && [ $t -gt 0 ]; do
		sleep 0.1
		t=$((t - 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		return 124
	fi
	wait "$pid" 2>/dev/null
}

tb_cleanup() {
	local rc=$?
	local pid
	set +e # clean up everything, whatever fails
	for pid in "${TB_PIDS[@]}"; do
		tb_kill "$pid" TERM
	done
	for pid in "${TB_PIDS[@]}"; do
		tb_wait_exit "$pid" 5 >/dev/null 2>&1 || tb_kill "$pid" KILL
	done
	for ns in "$TB_A" "$TB_GW" "$TB_B"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	if [ -n "$TB_DIR" ] && [ -d "$TB_DIR" ]; then
		if [ $rc -ne 0 ] || [ -n "${TB_KEEP_LOGS:-}" ]; then
			tb_log "logs kept in $TB_DIR"
		else
			rm -rf "$TB_DIR"
		fi
	fi
	return $rc
}

# tb_build [--mtu N] [--gw-mtu N] [--queues N] [--no-pass-prog]
#   --queues N  every veth end (a0, gw0, gw1, b0) gets N TX and N RX queues
#               (default 1). veth hands an skb to the peer's RX queue with
#               the index of the TX queue it was sent on (XPS, else the flow
#               hash; AF_XDP copy-mode TX: the socket's queue), and an XDP
#               frame redirected into it to queue (sending CPU % N).
tb_build() {
	local mtu=1500 gw_mtu="" pass=1 queues=1
	while [ $# -gt 0 ]; do
		case "$1" in
		--mtu) mtu=$2; shift ;;
		--gw-mtu) gw_mtu=$2; shift ;;
		--queues) queues=$2; shift ;;
		--no-pass-prog) pass=0 ;;
		*) tb_die "tb_build: unknown option $1" ;;
		esac
		shift
	done
	gw_mtu=${gw_mtu:-$mtu}
	case "$queues" in
	'' | *[!0-9]* | 0*) tb_die "tb_build: --queues wants a positive number, got '$queues'" ;;
	esac
	# Both ends of a pair: the options before "peer" are the local end's.
	local qopt=(numtxqueues "$queues" numrxqueues "$queues")
	local ns
	for ns in "$TB_A" "$TB_GW" "$TB_B"; do
		ip netns add "$ns" || tb_die "ip netns add $ns"
		ip -n "$ns" link set lo up
	done
	ip link add a0 netns "$TB_A" address $TB_MAC_A "${qopt[@]}" type veth \
		peer name gw0 netns "$TB_GW" "${qopt[@]}" || tb_die "veth a0-gw0"
	ip link add b0 netns "$TB_B" address $TB_MAC_B "${qopt[@]}" type veth \
		peer name gw1 netns "$TB_GW" "${qopt[@]}" || tb_die "veth b0-gw1"
	# No DAD/RA noise: addresses are usable at once.
	for ns in "$TB_A" "$TB_B" "$TB_GW"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.all.accept_ra=0 \
			net.ipv6.conf.default.accept_ra=0
	done
	# The gateway's ports carry no addresses and the gateway does not route:
	# it is a bump in the wire.
	ip netns exec "$TB_GW" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip -n "$TB_A" link set a0 mtu "$mtu"
	ip -n "$TB_B" link set b0 mtu "$mtu"
	ip -n "$TB_GW" link set gw0 mtu "$gw_mtu"
	ip -n "$TB_GW" link set gw1 mtu "$gw_mtu"
	ip -n "$TB_A" addr add $TB_IP_A/24 dev a0
	ip -n "$TB_B" addr add $TB_IP_B/24 dev b0
	ip -n "$TB_A" addr add $TB_IP6_A/64 dev a0 nodad
	ip -n "$TB_B" addr add $TB_IP6_B/64 dev b0 nodad
	# A frame redirected to an AF_XDP socket leaves the host stack with
	# CHECKSUM_PARTIAL lost; a physical NIC would have filled it in, so make
	# the hosts compute checksums in software, as a NIC-less host would.
	# TB_HOST_OFFLOADS=default keeps the veths' defaults (TX checksum
	# offload on, as in containers and VMs): TCP/UDP then reach the
	# gateway with partial checksums (ports[].checksum, t-offload.sh).
	if [ "${TB_HOST_OFFLOADS:-off}" != default ]; then
		ip netns exec "$TB_A" ethtool -K a0 tx off >/dev/null 2>&1
		ip netns exec "$TB_B" ethtool -K b0 tx off >/dev/null 2>&1
	fi
	if [ $pass -eq 1 ]; then
		local obj="$XDPLANE_BUILD/tests/tools/xdp_pass.o"
		[ -f "$obj" ] || tb_die "missing $obj (build first)"
		# above one page, only a multi-buffer (xdp.frags) program
		local sec=xdp
		[ "$mtu" -le 3500 ] || sec=xdp.frags
		ip -n "$TB_A" link set dev a0 xdpdrv obj "$obj" sec $sec || tb_die "xdp on a0"
		ip -n "$TB_B" link set dev b0 xdpdrv obj "$obj" sec $sec || tb_die "xdp on b0"
	fi
	ip -n "$TB_A" link set a0 up
	ip -n "$TB_B" link set b0 up
	ip -n "$TB_GW" link set gw0 up
	ip -n "$TB_GW" link set gw1 up
}

# tb_fifo_beyond MBIT: a bottleneck one hop beyond the gateway, on B's
# side of the link: b0's ingress redirected to an IFB (ifb0 in B) whose
# root is a TBF of MBIT Mbit/s with a 1 MiB buffer, a FIFO the gateway's
# classes cannot order (its backlog: tc -s qdisc show dev ifb0 in B).
tb_fifo_beyond() {
	local mbit=$1
	ip netns exec "$TB_B" ip link add ifb0 type ifb || tb_die "ifb0"
	ip netns exec "$TB_B" ip link set ifb0 up
	ip netns exec "$TB_B" tc qdisc add dev b0 handle ffff: ingress
	ip netns exec "$TB_B" tc filter add dev b0 parent ffff: protocol all \
		u32 match u32 0 0 \
		action mirred egress redirect dev ifb0 || tb_die "b0 -> ifb0"
	ip netns exec "$TB_B" tc qdisc add dev ifb0 root tbf \
		rate "${mbit}mbit" burst 16kb limit 1mb || tb_die "tbf on ifb0"
}

# tb_config FILE [key: value lines...]: a gateway config for this testbed.
# Unless the lines give a control: key, the control socket goes into
# $TB_DIR (never the system's /run/xdplane) and /metrics is off.
tb_config() {
	local f=$1 l control=0
	shift
	{
		echo "ports:"
		echo "  - interface: gw0"
		echo "  - interface: gw1"
		for l in "$@"; do
			echo "$l"
			case "$l" in control:*) control=1 ;; esac
		done
		[ $control -eq 1 ] ||
			echo "control: {socket: \"$TB_DIR/$(basename "$f" .yaml).sock\", metrics_listen: \"\"}"
	} >"$f"
}

# tb_start_gw NAME CONFIG [args...]: start the daemon, wait until it forwards.
tb_start_gw() {
	local name=$1 cfg=$2
	shift 2
	tb_spawn "$name" GW "$XDPLANE_BUILD/control/xdplane" -c "$cfg" "$@"
	TB_GW_PID=$TB_LAST_PID
	local t=100
	while [ $t -gt 0 ]; do
		grep -q 'forwarding started' "$TB_DIR/$name.log" 2>/dev/null && return 0
		kill -0 "$TB_GW_PID" 2>/dev/null || break
		sleep 0.1
		t=$((t - 1))
	done
	cat "$TB_DIR/$name.log" >&2
	tb_die "gateway did not start"
}

# tb_daemon_pid: the pid of the running xdplane daemon.
tb_daemon_pid() {
	echo "$TB_GW_PID"
}

# tb_xdp_prog NS IF: name of the XDP program attached to IF, or empty.
tb_xdp_prog() {
	ip -n "$(tb_ns "$1")" -d link show dev "$2" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' | head -n1
}

# Test verdicts.
tb_fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
tb_pass() { printf 'ok: %s\n' "$*" >&2; }

# tb_stats LOG EXPR: evaluate a Python expression over the daemon's
# final-stats JSON (bound to `s`), e.g. tb_stats gw.log 's["frames"]["missing"]'
tb_stats() {
	local line
	line=$(grep -a '^final-stats: ' "$TB_DIR/$1" | tail -n1 | sed 's/^final-stats: //')
	[ -n "$line" ] || tb_fail "no final-stats line in $1"
	python3 -c 'import json,sys; s=json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$line" "$2"
}

# tb_stop_gw NAME: SIGTERM the daemon, wait, return its exit status.
tb_stop_gw() {
	kill -0 "$TB_GW_PID" 2>/dev/null || tb_fail "daemon not running"
	kill -TERM "$TB_GW_PID"
	tb_wait_exit "$TB_GW_PID" 15
}
