#!/usr/bin/env bash
# Nothing in the configuration makes the daemon read or write outside its
# configured paths (xdplane(8), FILES: the control socket path
# rule):
#  - control.socket with '..', '.' or '//' components: refused by --check
#    and at start with file:line:col, nothing created;
#  - the socket's directory a symlink (to /etc's stand-in), an ancestor a
#    symlink owned by another user, a directory owned by another user, a
#    world-writable one: start refused with the reason, the symlink's
#    target untouched;
#  - a regular file, or a symlink to one, at the socket path: start
#    refused, the file (and the symlink's target) never unlinked nor
#    changed;
#  - a missing directory (the last component only) is created 0751, the
#    socket 0660; two missing levels are refused; a sticky world-writable
#    ancestor (as /tmp) is fine;
#  - strace of a daemon start, reload and stop: every path it creates,
#    writes, chmods, chowns, unlinks or binds is under /sys, /proc, /dev
#    or the socket's directory; every path it reads is the config file, the
#    executable, the socket's directory and those above it, or under /sys,
#    /proc, /dev, /etc (accounts, libc's files), /run/udev (hwloc) or the
#    shared libraries' directories.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
tb_init
tb_build
XD="$XDPLANE_BUILD/control/xdplane"
CTL="$XDPLANE_BUILD/control/xdplanectl"
D="$TB_DIR/paths"
mkdir -p "$D"
chmod 0755 "$TB_DIR" "$D"
NOBODY_UID=$(id -u nobody)

# cfg NAME SOCKET: a gateway config with that control socket
cfg() {
	tb_config "$D/$1.yaml" "control: {socket: \"$2\", metrics_listen: \"\"}"
	echo "$D/$1.yaml"
}

# refused NAME SOCKET PATTERN: the daemon does not start, says PATTERN
refused() {
	local f rc=0
	f=$(cfg "$1" "$2")
	timeout 30 ip netns exec "$TB_GW" sh -c \
		'mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf; exec "$@"' \
		tb "$XD" -c "$f" >"$D/$1.out" 2>&1 || rc=$?
	[ $rc -ne 0 ] && [ $rc -ne 124 ] || tb_fail "$1: daemon status $rc, expected a refusal ($(tail -n 5 "$D/$1.out"))"
	grep -q -- "$3" "$D/$1.out" || tb_fail "$1: no '$3' in: $(cat "$D/$1.out")"
	grep -q 'forwarding started' "$D/$1.out" && tb_fail "$1: forwarding started"
	tb_pass "$1: refused ($(grep -m1 -- "$3" "$D/$1.out" | sed 's/^<[0-9]>//' | cut -c1-120))"
}

# started NAME SOCKET: the daemon starts, answers on SOCKET, stops with 0
started() {
	local f
	f=$(cfg "$1" "$2")
	tb_start_gw "gw-$1" "$f"
	"$CTL" -s "$2" status >/dev/null || tb_fail "$1: no answer on $2"
	tb_stop_gw "gw-$1" || tb_fail "$1: daemon exit status $?"
	[ ! -e "$2" ] || tb_fail "$1: socket left behind"
}

# 1. '..', '.', '//' in the path: refused by the configuration check
for p in "$D/x/../../../etc/evil.sock" "$D/./ctl.sock" "$D//ctl.sock" "$D/sub/.."; do
	f=$(cfg dots "$p")
	rc=0
	"$XD" --check --no-system-check -c "$f" >"$D/dots.out" 2>&1 || rc=$?
	[ $rc -ne 0 ] || tb_fail "--check accepted control.socket $p"
	grep -Eq "^$f:[0-9]+:[0-9]+: control.socket: a path with a '.' or '..'" "$D/dots.out" ||
		tb_fail "--check on $p: $(cat "$D/dots.out")"
done
refused dotdot "$D/x/../../../etc/evil.sock" "dotdot.yaml:[0-9]*:[0-9]*: control.socket: a path with"
[ ! -e /etc/evil.sock ] && [ ! -e "$D/x" ] || tb_fail "'..' path created something"
tb_pass "'.', '..' and '//' refused by --check and at start with file:line:col"

# 2. a symlinked socket directory (to a stand-in for /etc)
mkdir -m 0755 "$D/etc"
echo "root:x:0:0" >"$D/etc/passwd"
ln -s "$D/etc" "$D/linkdir"
refused symlink-dir "$D/linkdir/ctl.sock" "is a symlink, not a directory"
[ "$(ls "$D/etc")" = passwd ] || tb_fail "symlink-dir: the target directory changed: $(ls "$D/etc")"
# an ancestor that is a symlink owned by another user
mkdir -m 0755 "$D/real" "$D/real/sub"
ln -s "$D/real" "$D/ulink"
chown -h "$NOBODY_UID" "$D/ulink"
refused symlink-ancestor "$D/ulink/sub/ctl.sock" "is a symlink owned by uid $NOBODY_UID"
[ -z "$(ls "$D/real/sub")" ] || tb_fail "symlink-ancestor: created $(ls "$D/real/sub")"
# a root-owned symlink on the way is fine (as /var/run -> /run)
ln -s "$D/real" "$D/rlink"
started symlink-root-ancestor "$D/rlink/sub/ctl.sock"
tb_pass "symlinked directories: refused unless root's symlink above the socket's directory"

# 3. the directory owned by another user, or world-writable
mkdir -m 0777 "$D/theirs" && chown "$NOBODY_UID" "$D/theirs" && chmod 0777 "$D/theirs"
refused other-owner "$D/theirs/ctl.sock" "owned by uid $NOBODY_UID"
[ -z "$(ls -A "$D/theirs")" ] || tb_fail "other-owner: created $(ls -A "$D/theirs")"
mkdir -m 0755 "$D/nobodys" && chown "$NOBODY_UID" "$D/nobodys"
refused other-owner-0755 "$D/nobodys/ctl.sock" "owned by uid $NOBODY_UID"
mkdir "$D/open" && chmod 0777 "$D/open"
refused world-writable "$D/open/ctl.sock" "not be writable by others"
mkdir "$D/sticky" && chmod 1777 "$D/sticky"
refused world-writable-sticky "$D/sticky/ctl.sock" "not be writable by others"
# ... but a sticky world-writable directory above it is fine (as /tmp)
started sticky-ancestor "$D/sticky/mine/ctl.sock"
[ "$(stat -c %a "$D/sticky/mine")" = 751 ] || tb_fail "created directory mode $(stat -c %a "$D/sticky/mine")"
# an ancestor owned by another user, world-writable, not sticky
mkdir -p "$D/open/in" && chmod 0755 "$D/open/in"
refused open-ancestor "$D/open/in/ctl.sock" "not a directory that only root"
tb_pass "directories of other users or writable by others refused"

# 4. something that is not a socket at the path: never unlinked
mkdir -m 0750 "$D/keep"
echo precious >"$D/keep/ctl.sock"
ino=$(stat -c %i "$D/keep/ctl.sock")
refused regular-file "$D/keep/ctl.sock" "exists and is not a socket"
[ "$(cat "$D/keep/ctl.sock")" = precious ] && [ "$(stat -c %i "$D/keep/ctl.sock")" = "$ino" ] ||
	tb_fail "regular file at the socket path changed"
ln -s "$D/etc/passwd" "$D/keep/link.sock"
refused symlink-file "$D/keep/link.sock" "exists and is not a socket"
[ -L "$D/keep/link.sock" ] && [ "$(cat "$D/etc/passwd")" = "root:x:0:0" ] &&
	[ "$(stat -c %a "$D/etc/passwd")" = 644 ] || tb_fail "symlink at the socket path or its target changed"
# a stale socket (from a crashed run) is replaced
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$D/keep/stale.sock"
started stale-socket "$D/keep/stale.sock"
tb_pass "a non-socket at the socket path is never unlinked; a stale socket is replaced"

# 5. missing directories: the last one is created 0751, two are refused
refused two-missing "$D/no/such/ctl.sock" "paths/no: No such file or directory"
[ ! -e "$D/no" ] || tb_fail "two-missing: created $D/no"
rm -rf "$D/new"
f=$(cfg new "$D/new/ctl.sock")
tb_start_gw gw-new "$f"
[ "$(stat -c %a "$D/new")" = 751 ] || tb_fail "created directory mode $(stat -c %a "$D/new")"
[ "$(stat -c %a "$D/new/ctl.sock")" = 660 ] || tb_fail "socket mode $(stat -c %a "$D/new/ctl.sock")"
tb_stop_gw gw-new || tb_fail "new: exit status $?"
tb_pass "missing socket directory created 0751, socket 0660"

# 6. every path the daemon touches, under strace
command -v strace >/dev/null || tb_die "strace missing (.ci/deps installs it)"
SOCK="$D/run/ctl.sock"
f=$(cfg strace "$SOCK")
# (LeakSanitizer stops the world with ptrace, which a traced process
# cannot: no leak check in this run of an ASan build)
tb_spawn gw-strace GW env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -s 256 -e trace=%file,bind,unlink,chmod,fchmodat,chown,fchownat \
	-o "$D/strace.txt" "$XD" -c "$f"
STRACE_PID=$TB_LAST_PID
for _ in $(seq 200); do
	grep -q 'forwarding started' "$TB_DIR/gw-strace.log" && break
	kill -0 "$STRACE_PID" 2>/dev/null || tb_fail "daemon under strace died: $(cat "$TB_DIR/gw-strace.log")"
	sleep 0.1
done
grep -q 'forwarding started' "$TB_DIR/gw-strace.log" || tb_fail "daemon under strace did not start"
"$CTL" -s "$SOCK" reload >/dev/null || tb_fail "reload under strace"
"$CTL" -s "$SOCK" status >/dev/null || tb_fail "status under strace"
DPID=$(pgrep -P "$STRACE_PID" -x xdplane || true)
[ -n "$DPID" ] || tb_fail "no daemon under strace"
kill -TERM "$DPID"
tb_wait_exit "$STRACE_PID" 30 || tb_fail "daemon under strace: exit status $?"
python3 - "$D/strace.txt" "$f" "$D/run" "$XD" <<'PY' || tb_fail "paths outside the allowed set"
import os, re, sys
trace, cfg, sockdir, exe = sys.argv[1:]
write_ok = ("/sys/", "/proc/", "/dev/", sockdir + "/")
read_ok = write_ok + ("/etc/", "/run/udev/", "/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/",
                      "/usr/share/zoneinfo/", "/usr/share/hwdata/", "/usr/share/misc/")
# the config file, the executable, the socket's directory and those above
# it (checked with lstat, xdplane(8) FILES)
read_exact = {cfg, exe, sockdir, "/sys", "/proc", "/dev", "/etc", "/"}
a = sockdir
while a != "/":
    a = os.path.dirname(a)
    read_exact.add(a)
writes, reads, bad = set(), set(), []
call = re.compile(r'^\d+\s+(\w+)\((.*)\)\s+=\s+(-?\d+|\?)')
for line in open(trace):
    m = call.match(line)
    if not m:
        continue
    name, args, rc = m.groups()
    paths = re.findall(r'"((?:[^"\\]|\\.)*)"', args)
    if name == "bind":
        paths = re.findall(r'sun_path="([^"]*)"', args)
        if not paths or paths[0].startswith("@"):  # abstract: no file
            continue
    if not paths:
        continue
    p = paths[0]
    if not p.startswith("/"):
        continue
    w = name in ("mkdir", "mkdirat", "unlink", "unlinkat", "rmdir", "rename",
                 "renameat", "renameat2", "chmod", "fchmodat", "chown",
                 "fchownat", "lchown", "symlink", "symlinkat", "link",
                 "linkat", "bind", "truncate", "creat", "mknod", "mknodat")
    if name in ("open", "openat", "openat2"):
        w = bool(re.search(r'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND', args))
    (writes if w else reads).add(p)
for p in sorted(writes):
    if not p.startswith(write_ok) and p != sockdir:
        bad.append("written: " + p)
for p in sorted(reads):
    if not p.startswith(read_ok) and p not in read_exact:
        bad.append("read: " + p)
print("  written (%d): %s" % (len(writes), ", ".join(sorted(writes))),
      file=sys.stderr)
print("  read from %d paths; top directories: %s" % (len(reads), ", ".join(sorted(
    {"/" + p.split("/")[1] for p in reads}))), file=sys.stderr)
for b in bad:
    print("  OUTSIDE: " + b, file=sys.stderr)
sys.exit(1 if bad or not writes else 0)
PY
[ ! -e "$SOCK" ] || tb_fail "socket left behind after the stop under strace"
tb_pass "strace: the daemon writes only under /sys, /proc, /dev and the socket's directory"
