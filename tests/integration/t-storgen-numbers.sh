#!/usr/bin/env bash
# storgen (bench/coll): the numbers its options take (--bytes, --rate,
# --burst-bytes, --size, --sndbuf, --start-at) hold 0..2^64-1 exactly:
#
# 1. a value past 2^64-1 (as digits, with a multiplier, in floating
#    point, inf) is refused before anything starts: exit 2 and a message
#    that names the option, the value and the largest one allowed;
# 2. the largest values are taken as written, none wraps or saturates:
#    --rate 18446744073709551615 (2^64-1), 16777215Ti, 18000000T, 1.8e19
#    and 2^63 (from 2^63 on, a value does not fit a long long) come back
#    unchanged in the sender's JSON (rate_bps), and --burst-bytes 2^64-1 gives
#    ceil((2^64-1) / --size) datagrams per burst.
#
# One namespace with only "lo" up: a receiver on 127.0.0.1, the sender
# beside it.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
SG="$XDPLANE_BUILD/bench/coll/storgen"
[ -x "$SG" ] || tb_die "missing $SG (build the storgen target)"
MAX=18446744073709551615
tb_init

# 1. out of range: refused at parse time, no namespace needed.
refused() { # OPTION VALUE
	local rc=0
	"$SG" udp --to 127.0.0.1:2050 --duration-s 1 "$1" "$2" \
		>/dev/null 2>"$TB_DIR/err" || rc=$?
	[ $rc -eq 2 ] || tb_fail "$1 $2: exit status $rc, expected 2 ($(cat "$TB_DIR/err"))"
	grep -qF -- "$1: $2 is out of range (0..$MAX)" "$TB_DIR/err" ||
		tb_fail "$1 $2: no clear out-of-range message: $(cat "$TB_DIR/err")"
}
refused --rate 18446744073709551616
refused --rate 99999999999999999999999
refused --rate 16777216Ti
refused --rate 18447000T
refused --rate 1.9e19
refused --rate 1e400
refused --rate inf
refused --burst-bytes 18446744073709551616
refused --sndbuf 20000000000000000000
refused --start-at 1e20
rc=0
"$SG" tcp --to 127.0.0.1:2049 --bytes 18446744073709551616 2>"$TB_DIR/err" || rc=$?
[ $rc -eq 2 ] && grep -qF -- "--bytes: 18446744073709551616 is out of range" "$TB_DIR/err" ||
	tb_fail "tcp --bytes 2^64: exit status $rc: $(cat "$TB_DIR/err")"
tb_pass "values past 2^64-1 refused with the option, the value and the range, exit 2"

# 2. in range, up to 2^64-1: taken exactly.
ip netns add "$TB_A" || tb_die "ip netns add $TB_A"
ip -n "$TB_A" link set lo up
tb_spawn serve A "$SG" serve --bind 127.0.0.1 --out "$TB_DIR/serve.json"
for _ in $(seq 50); do
	grep -q serving "$TB_DIR/serve.log" && break
	sleep 0.1
done
grep -q serving "$TB_DIR/serve.log" || tb_fail "receiver did not start: $(cat "$TB_DIR/serve.log")"

# jnum FILE KEY: an integer of the JSON, digit for digit (jq would round it
# to a double).
jnum() { grep -o "\"$2\":[0-9]*" "$1" | cut -d: -f2; }

n=0
for r in 18446744073709551615:18446744073709551615 \
	16777215Ti:18446742974197923840 18000000T:18000000000000000000 1.8e19:18000000000000000000 \
	9223372036854775808:9223372036854775808; do
	n=$((n + 1))
	# one 1442-byte datagram per burst, two bursts, then the FINs
	ip netns exec "$TB_A" "$SG" udp --to 127.0.0.1:2050 --rate "${r%%:*}" \
		--burst-bytes 1442 --period-ms 50 --duration-s 0.1 \
		--out "$TB_DIR/u$n.json" 2>"$TB_DIR/u$n.err" ||
		tb_fail "--rate ${r%%:*}: exit status $? ($(cat "$TB_DIR/u$n.err"))"
	got=$(jnum "$TB_DIR/u$n.json" rate_bps)
	[ "$got" = "${r#*:}" ] || tb_fail "--rate ${r%%:*}: rate_bps $got, expected ${r#*:}"
	[ "$(jnum "$TB_DIR/u$n.json" sent_datagrams)" -ge 1 ] ||
		tb_fail "--rate ${r%%:*}: nothing sent"
done
tb_pass "--rate 2^64-1, 16777215Ti, 18000000T, 1.8e19, 2^63: taken exactly"

# --burst-bytes 2^64-1 at 1 kbit/s: the first datagram, then a wait of
# 11.5 s for the next one, cut short by SIGTERM; the JSON says how the
# burst was sized.
tb_spawn big A "$SG" udp --to 127.0.0.1:2050 --rate 1k --burst-bytes $MAX \
	--duration-s 60 --out "$TB_DIR/big.json"
BIG=$TB_LAST_PID
sleep 0.5
tb_kill "$BIG" TERM
rc=0
tb_wait_exit "$BIG" 10 || rc=$?
[ $rc -eq 0 ] || tb_fail "--burst-bytes 2^64-1: exit status $rc ($(cat "$TB_DIR/big.log"))"
want=$(python3 -c "print(-(-$MAX // 1442))")
got=$(jnum "$TB_DIR/big.json" datagrams_per_burst)
[ "$got" = "$want" ] || tb_fail "--burst-bytes 2^64-1: $got datagrams per burst, expected $want"
tb_pass "--burst-bytes 2^64-1: $got datagrams of 1442 B per burst"
