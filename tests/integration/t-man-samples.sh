#!/usr/bin/env bash
# The samples in the manual pages against the current build, on the veth
# testbed with the real daemon (DCQCN and adaptive egress on, RoCE traffic
# through it so that `flows` has rows and gw1's controller decisions):
#
# - xdplanectl(8): each block marked `.\" sample:` lists commands
#   (`$ xdplanectl ...`) and what they print. Each command is run (with -s
#   and the test's socket) and its output compared with the sample's:
#   the header lines of every table (column names, in order) must be the
#   same, and so must the labels of the other lines (their first word; for
#   an error, "xdplanectl: <code>:"), both ways. Data rows and values may
#   differ. Renaming a column or a label in the program or in the page
#   fails here.
# - xdplanectl(8): a block marked `.\" sample-keys: COMMAND` names the
#   keys of COMMAND's JSON (--json watch, --json classes): the same set as
#   the real output's.
# - xdplanectl(8), PROTOCOL: the blocks marked `.\" sample-protocol: LINE`
#   are the answer to the first line LINE on a fresh connection: same
#   keys, same values (but "...", which stands for any text).
# - xdplane.yaml(5): the block marked `.\" sample-config` is a valid
#   configuration (xdplane --check --no-system-check).
# - xdplanectl(8): its ExecReload= example is xdplane.service's as the
#   package installs it (config/systemd/xdplane.service.in, prefix /usr).
# - xdplane(8), FRAME SIZE: the lines of the block marked `.\" sample-log`
#   are in the start-up log of a daemon with ports[0].mtu 9000 (the hosts'
#   veths at MTU 9000 with frags programs, the gateway's at 1500).
#
# The first `reload` of the samples is run after a hot change (the roce
# class's ceiling), the second after a cold one (failure_mode).
# Set TB_KEEP_LOGS=1 to keep $TB_DIR/sample-*.out, the real outputs.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
MAN="$XDPLANE_SOURCE/control/man"
CTL="$XDPLANE_BUILD/control/xdplanectl"
RP="$XDPLANE_BUILD/tests/tools/roce_peer"
[ -x "$CTL" ] && [ -x "$RP" ] || tb_die "build xdplanectl and roce_peer first"
tb_init

# --- xdplane.yaml(5): the example configuration is valid ---
python3 - "$MAN/xdplane.yaml.5" "$TB_DIR/example.yaml" <<'PY' || tb_fail "no sample-config block in xdplane.yaml(5)"
import re, sys
src = open(sys.argv[1]).read().splitlines()
i = next(k for k, l in enumerate(src) if l.startswith('.\\" sample-config'))
j = next(k for k in range(i, len(src)) if src[k] == ".nf")
body = src[j + 1:src.index(".fi", j)]
unesc = lambda l: l.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\").replace("\\\\", "\\")
open(sys.argv[2], "w").write("\n".join(unesc(l) for l in body) + "\n")
PY
"$XDPLANE_BUILD/control/xdplane" --check --no-system-check -c "$TB_DIR/example.yaml" ||
	tb_fail "the EXAMPLE of xdplane.yaml(5) is not a valid configuration"
tb_pass "xdplane.yaml(5): the example configuration passes --check"

# --- xdplanectl(8): the ExecReload= example is the shipped unit's ---
unit=$(sed -n 's|@XDPLANE_BINDIR@|/usr/bin|; s|@XDPLANE_UNIT_CTL_ARGS@||; /^ExecReload=/p' \
	"$XDPLANE_SOURCE/config/systemd/xdplane.service.in")
[ -n "$unit" ] || tb_fail "no ExecReload= in config/systemd/xdplane.service.in"
grep -qxF -- "$unit" "$MAN/xdplanectl.8" ||
	tb_fail "xdplanectl(8) EXAMPLES: no line '$unit' (config/systemd/xdplane.service.in)"
tb_pass "xdplanectl(8): $unit as in config/systemd/xdplane.service.in"

# --- the daemon, DCQCN on, a RoCE flow through it ---
tb_build --mtu 9000 --gw-mtu 1500
SOCK="$TB_DIR/ctl.sock"
CFG="$TB_DIR/xdplane.yaml"
ip -n "$TB_A" neigh replace $TB_IP_B lladdr $TB_MAC_B dev a0 nud permanent
ip -n "$TB_B" neigh replace $TB_IP_A lladdr $TB_MAC_A dev b0 nud permanent
cat >"$CFG" <<YAML
ports:
  - interface: gw0
    rate: 1Gbit
    adaptive: {mode: on}
  - interface: gw1
    rate: 1Gbit
    adaptive: {mode: on}
control: {socket: "$SOCK", metrics_listen: ""}
dcqcn:
  profile: paper
  line_rate: 1Gbit
  flow_key: qp
  np: {enabled: true}
classes:
  - {name: cnp, level: 0, ceil: 5%}
  - name: roce
    level: 1
    ceil: 90%
    ecn: {kmin: 30KB, kmax: 300KB, pmax: 1%}
    dcqcn: true
  - {name: default, level: 2}
  - {name: storage, level: 3}
rules:
  - {class: cnp, match: {proto: udp, dport: 4791, bth_opcode: 0x81}}
  - {class: roce, match: {proto: udp, dport: 4791}}
  - {class: storage, match: {dport: 2049}}
  - {class: storage, match: {sport: 2049}}
default_class: default
YAML
tb_start_gw gw "$CFG"
tb_spawn recv B "$RP" recv --bind $TB_IP_B:4791 --peer-qpn 0x111 --ack-every 8 \
	--cnp-on-ce --duration 30 --json
sleep 0.3
tb_spawn send A "$RP" send --from $TB_IP_A --to $TB_IP_B:4791 --qpn 0x111 \
	--dqpn 0x201 --rate 100000000 --size 1024 --duration 30 --json
for _ in $(seq 50); do
	[ "$("$CTL" -s "$SOCK" flows | wc -l)" -ge 2 ] && break
	sleep 0.1
done
# adaptive egress is on (both ports): the RoCE flow's returning ACKs give
# gw1's controller samples; wait for its first decision, so that status
# shows its last decisions and --json watch their keys (gw0 carries only
# ACKs and CNPs: no samples, no decisions)
decided() {
	"$CTL" -s "$SOCK" --json status | python3 -c '
import json, sys
r = json.load(sys.stdin)
sys.exit(0 if any(q["decisions"] for p in r["ports"] if p["name"] == "gw1"
                  for q in p["adaptive"]["queues"]) else 1)'
}
for _ in $(seq 50); do
	decided && break
	sleep 0.1
done
decided || tb_fail "adaptive: no decision of gw1's controller in 5 s of RoCE traffic"

# --- xdplanectl(8): run every sample's commands, compare ---
python3 - "$MAN/xdplanectl.8" "$CTL" "$SOCK" "$CFG" "$TB_DIR" <<'PY' || tb_fail "xdplanectl(8) samples differ from the program's output"
import json, re, shlex, socket, subprocess, sys

man, ctl, sock, cfg, tbdir = sys.argv[1:6]
src = open(man).read().splitlines()


def unesc(l):
    return (l.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")
            .replace("\\\\", "\\"))


def blocks(kind):
    """(argument of the marker, unescaped lines of the .nf block after it)"""
    out = []
    for k, l in enumerate(src):
        m = re.match(r'^\.\\" ' + re.escape(kind) + r'(?::\s*(.*))?$', l)
        if not m:
            continue
        j = next(i for i in range(k + 1, len(src)) if src[i] == ".nf")
        out.append((m.group(1), [unesc(x) for x in src[j + 1:src.index(".fi", j)]]))
    return out


HEADER = re.compile(r"^[A-Z][A-Z0-9_/]*(\s+[A-Z][A-Z0-9_/]*)+$")
# printed on some machines only (status: NUMA binding, UMEM pages, hwloc)
OPTIONAL = {"memory", "umem", "placement"}


def shape(lines):
    """headers: column lists of the tables; labels: first word of every
    other line that is not a table row or a continuation"""
    headers, labels, in_table = [], [], False
    for l in lines:
        if not l.strip():
            in_table = False
        elif HEADER.match(l):
            headers.append(l.split())
            in_table = True
        elif in_table or l[0].isspace() or l == "...":
            continue
        elif l.startswith("xdplanectl: "):
            labels.append(":".join(l.split(":", 2)[:2]) + ":")
        else:
            labels.append(l.split()[0])
    return headers, labels


# hot, then cold change before the 1st and 2nd reload
edits = [("ceil: 90%", "ceil: 80%"), ("default_class: default",
                                      "default_class: default\nfailure_mode: closed")]
bad = n = 0
samples = blocks("sample")
if not samples:
    sys.exit("FAIL: no sample blocks in " + man)
for name, lines in samples:
    cmds = [(k, l[2:]) for k, l in enumerate(lines) if l.startswith("$ ")]
    if not cmds:
        print(f"FAIL: sample {name}: no '$ xdplanectl' line")
        bad += 1
    for c, (k, cmd) in enumerate(cmds):
        end = cmds[c + 1][0] if c + 1 < len(cmds) else len(lines)
        want = lines[k + 1:end]
        argv = shlex.split(cmd)
        if argv[0] != "xdplanectl":
            print(f"FAIL: sample {name}: not an xdplanectl command: {cmd}")
            bad += 1
            continue
        if argv[1:2] == ["reload"]:
            a, b = edits.pop(0)
            text = open(cfg).read()
            open(cfg, "w").write(text.replace(a, b, 1))
        n += 1
        r = subprocess.run([ctl, "-s", sock] + argv[1:], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=30)
        got = r.stdout.splitlines()
        open(f"{tbdir}/sample-{n}.out", "w").write(f"$ {cmd}\n{r.stdout}")
        (wh, wl), (gh, gl) = shape(want), shape(got)
        problems = []
        if wh != gh:
            problems.append(f"table headers\n  man:     {wh}\n  program: {gh}")
        missing = [x for x in wl if x not in gl and x not in OPTIONAL]
        extra = [x for x in gl if x not in wl]
        if missing or extra:
            problems.append(f"line labels: in the man page only {missing}, "
                            f"in the output only {extra}")
        if problems:
            bad += 1
            print(f"FAIL: sample {name}: $ {cmd}:\n  " + "\n  ".join(problems))
            print("  output:\n    " + "\n    ".join(got))
        else:
            print(f"  {cmd}: {len(gh)} table header(s), {len(gl)} labels agree")

# --json watch: the keys
def keys(v, acc):
    if isinstance(v, dict):
        for k, x in v.items():
            acc.add(k)
            keys(x, acc)
    elif isinstance(v, list):
        for x in v:
            keys(x, acc)
    return acc

for cmd, lines in blocks("sample-keys"):
    argv = shlex.split(cmd)
    r = subprocess.run([ctl, "-s", sock] + argv[1:], stdout=subprocess.PIPE,
                       text=True, timeout=30, check=True)
    got = keys(json.loads(r.stdout.splitlines()[0]), set())
    want = set(re.findall(r'"([a-z0-9_]+)"', " ".join(lines)))
    n += 1
    if got != want:
        bad += 1
        print(f"FAIL: keys of {cmd}: in the man page only {sorted(want - got)}, "
              f"in the output only {sorted(got - want)}")
    else:
        print(f"  {cmd}: {len(got)} keys agree")

# protocol: the answer to a first line
def same(want, got):
    if want == "...":
        return isinstance(got, str)
    if isinstance(want, dict):
        return isinstance(got, dict) and want.keys() == got.keys() and all(
            same(want[k], got[k]) for k in want)
    if isinstance(want, list):
        return isinstance(got, list) and len(want) == len(got) and all(
            same(a, b) for a, b in zip(want, got))
    return want == got

for line, lines in blocks("sample-protocol"):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(sock)
    f = s.makefile("rwb")
    f.write(line.encode() + b"\n")
    f.flush()
    got = json.loads(f.readline())
    s.close()
    want = json.loads(" ".join(lines))
    n += 1
    if not same(want, got):
        bad += 1
        print(f"FAIL: answer to {line}:\n  man:    {json.dumps(want)}\n"
              f"  daemon: {json.dumps(got)}")
    else:
        print(f"  answer to {line}: agrees")

if edits:
    print("FAIL: the samples show fewer than two `xdplanectl reload` (applied,"
          " refused)")
    bad += 1
print(f"{n} samples checked, {bad} differ")
sys.exit(1 if bad else 0)
PY
tb_pass "xdplanectl(8): every sample agrees with the program (tables, labels, JSON keys, protocol)"
tb_stop_gw || tb_fail "daemon exit status $?"

# --- xdplane(8), FRAME SIZE: the start-up log of ports[0].mtu 9000 ---
tb_config "$TB_DIR/jumbo.yaml"
sed -i 's/^  - interface: gw0$/  - {interface: gw0, mtu: 9000}/' "$TB_DIR/jumbo.yaml"
tb_start_gw jumbo "$TB_DIR/jumbo.yaml"
tb_stop_gw || tb_fail "jumbo daemon exit status $?"
python3 - "$MAN/xdplane.8" "$TB_DIR/jumbo.log" <<'PY' || tb_fail "xdplane(8) FRAME SIZE: the log sample is not what the daemon logs"
import re, sys
src = open(sys.argv[1]).read().splitlines()
log = [re.sub(r"^<\d>", "", l) for l in open(sys.argv[2]).read().splitlines()]
i = next(k for k, l in enumerate(src) if l.startswith('.\\" sample-log'))
j = next(k for k in range(i, len(src)) if src[k] == ".nf")
bad = 0
for l in src[j + 1:src.index(".fi", j)]:
    l = l.replace("\\-", "-").replace("\\&", "")
    ok = l in log
    bad += not ok
    print(f"  {'ok' if ok else 'NOT LOGGED'}: {l}")
sys.exit(bad)
PY
tb_pass "xdplane(8): the FRAME SIZE log sample is the daemon's"
