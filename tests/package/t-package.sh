#!/usr/bin/env bash
# t-package.sh - the Debian package, as the README's "Install" section
# builds, installs, starts and removes it (CI's step "package"):
#
#   build     the README's build block, in the source tree (build-deb/,
#             configured for /usr/local before, as a reused folder is);
#             the .deb's files, conffiles, Depends (= dpkg-shlibdeps of
#             its two programs) and units are checked as files first, its
#             compressed man pages, changelog and DEP-5 copyright, and
#             lintian (on this host) reports no error;
#   install   a clean Debian 12 root (debootstrap --variant=minbase
#             bookworm, plus systemd and man-db; cached in
#             $XDPLANE_PKG_CACHE, default /var/cache/xdplane-ci, rebuilt
#             when its recipe changes), the README's install block: the
#             programs load (every library came through Depends:), the
#             man pages and bash completion answer, the sysusers.d entry
#             made the `xdplane` account, systemd-analyze verify passes
#             on both units and an instance;
#   start     in a network namespace with the shipped file's eth1 and eth2:
#             the README's start and instance blocks (`xdplane --check` on
#             the installed configuration, `systemctl enable --now`); a
#             bad file exits 78, as the units' RestartPreventExitStatus=;
#   upgrade   dpkg -i of a newer version whose shipped configuration
#             changed: the local change to the conffile stays;
#   remove    the README's remove block (dpkg -r: the conffile stays, the
#             programs and the units' links go), then its purge block
#             (dpkg -P): nothing the package or its scripts made is left
#             (a file listing before and after, less what other packages
#             own), but the operator's own rack2.yaml.
#
# The root has no running systemd: a shim in its /usr/local/sbin passes
# `systemctl enable|disable` on (without --now) and only reports start and
# stop. A README line starting with `editor` is the operator's edit, not
# run. Needs root, network to a Debian mirror the first time (and for the
# dependencies). Leaves nothing: the root is a copy, the namespace and
# mounts go at exit (TB_KEEP_LOGS=1 keeps the copy).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${XDPLANE_PKG_CACHE:-/var/cache/xdplane-ci}
MIRROR=${XDPLANE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
RECIPE="bookworm minbase, systemd man-db, $MIRROR, v1"
NS=xdplpkg$$
WORK="" ROOT="" passed=0
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

say() { printf '[t-package] %s\n' "$*" >&2; }
pass() { printf 'ok: %s\n' "$*"; passed=$((passed + 1)); }
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }

cleanup() {
	local rc=$?
	set +e
	ip netns del "$NS" 2>/dev/null
	if [ -n "$ROOT" ]; then
		for m in "$ROOT/var/cache/apt/archives" "$ROOT/proc"; do
			mountpoint -q "$m" && umount -l "$m"
		done
	fi
	if [ -n "$WORK" ]; then
		if [ $rc -ne 0 ] || [ -n "${TB_KEEP_LOGS:-}" ]; then
			say "kept $WORK"
		else
			rm -rf "$WORK"
		fi
	fi
	return $rc
}

[ "$(id -u)" -eq 0 ] || fail "must run as root"
for t in debootstrap:debootstrap dpkg-shlibdeps:dpkg-dev cpack:cmake; do
	command -v "${t%%:*}" >/dev/null ||
		apt-get install -y -qq --no-install-recommends "${t#*:}" >/dev/null
done
WORK=$(mktemp -d /var/tmp/xdplane-pkg.XXXXXX)
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# block NAME: the shell block after "<!-- t-package: NAME -->" in the
# README's Install section, editor lines left out
block() {
	awk -v want="<!-- t-package: $1 -->" '
		/^## / { sec = ($0 == "## Install") }
		sec && $0 == want { armed = 1; next }
		armed && /^```/ { if (inb) exit; inb = 1; next }
		inb { print }' "$SRC/README.md" | grep -v '^editor ' || true
}
for b in build install start instance remove purge; do
	[ -n "$(block $b)" ] || fail "README.md, Install: no block 't-package: $b'"
done

# in_root [--ns] CMD: run CMD with sh -e in the root (cwd /src), optionally
# in the namespace with eth1 and eth2
in_root() {
	local pre=()
	if [ "$1" = --ns ]; then
		pre=(ip netns exec "$NS")
		shift
	fi
	"${pre[@]}" chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C DEBIAN_FRONTEND=noninteractive sh -ec "cd /src; $1"
}

# ---- build ----------------------------------------------------------
say "build (README block 'build')"
rm -rf "$SRC/build-deb"
# ---- pkgmon: a reused build folder -------------------------------------
# build-deb was configured before for the default prefix (/usr/local), as
# a developer's folder is: the README's block configures it again for /usr,
# and every path below (units, sysusers.d, completion) must follow.
cmake -S "$SRC" -B "$SRC/build-deb" >"$WORK/preconfigure.log" 2>&1 ||
	{ tail -n 20 "$WORK/preconfigure.log"; fail "cmake for /usr/local"; }
grep -q '^CMAKE_INSTALL_PREFIX:PATH=/usr/local$' "$SRC/build-deb/CMakeCache.txt" ||
	fail "build-deb was not configured for /usr/local first"
# ---- pkgmon end --------------------------------------------------------
(cd "$SRC" && bash -ec "$(block build)") >"$WORK/build.log" 2>&1 ||
	{ tail -n 30 "$WORK/build.log"; fail "the README's build block failed"; }
version=$(sed -n 's/^project(xdplane VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
arch=$(dpkg --print-architecture)
DEB="$SRC/build-deb/xdplane_${version}_${arch}.deb"
[ -f "$DEB" ] || fail "no $DEB after the build block"
block install | grep -qF "./build-deb/xdplane_${version}_${arch}.deb" ||
	fail "the README's install block does not name xdplane_${version}_${arch}.deb"
pass "README build block: $(basename "$DEB") ($(stat -c %s "$DEB") bytes)"

dpkg-deb -c "$DEB" | awk '{ print $NF }' | sed 's|^\./|/|' >"$WORK/contents"
for f in /usr/sbin/xdplane /usr/bin/xdplanectl /usr/share/man/man8/xdplane.8.gz \
	/usr/share/man/man8/xdplanectl.8.gz /usr/share/man/man5/xdplane.yaml.5.gz \
	/usr/share/doc/xdplane/copyright /usr/share/doc/xdplane/changelog.gz \
	/usr/share/xdplane/prometheus/prometheus.yml \
	/etc/xdplane/xdplane.yaml /lib/systemd/system/xdplane.service \
	/lib/systemd/system/xdplane@.service /usr/lib/sysusers.d/xdplane.conf \
	/usr/share/bash-completion/completions/xdplanectl \
	/usr/share/xdplane/prometheus/xdplane.rules.yml \
	/usr/share/xdplane/grafana/xdplane.json; do
	grep -qx "$f" "$WORK/contents" || fail "the package lacks $f"
done
! grep -q '^/usr/local' "$WORK/contents" || fail "the package installs under /usr/local"
[ "$(dpkg-deb --ctrl-tarfile "$DEB" | tar -xO ./conffiles)" = /etc/xdplane/xdplane.yaml ] ||
	fail "conffiles is not exactly /etc/xdplane/xdplane.yaml"
pass "contents: programs, 3 man pages (gzip), copyright, changelog.gz, 2 units, sysusers.d, completion, scrape config, alert rules, dashboard; conffile /etc/xdplane/xdplane.yaml"

# Depends = what dpkg-shlibdeps finds the two programs need (names)
mkdir -p "$WORK/x/debian"
dpkg-deb -x "$DEB" "$WORK/x"
printf 'Source: xdplane\n\nPackage: xdplane\nArchitecture: any\n' >"$WORK/x/debian/control"
(cd "$WORK/x" && dpkg-shlibdeps -O usr/sbin/xdplane usr/bin/xdplanectl 2>/dev/null) |
	sed -n 's/^shlibs:Depends=//p' | tr ',' '\n' | sed 's/(.*//; s/ //g' | grep . | sort -u >"$WORK/shlibdeps"
dpkg-deb -f "$DEB" Depends | tr ',' '\n' | sed 's/(.*//; s/ //g' | grep . | sort -u >"$WORK/depends"
[ -s "$WORK/shlibdeps" ] || fail "dpkg-shlibdeps found nothing"
diff -u "$WORK/shlibdeps" "$WORK/depends" >"$WORK/deps.diff" ||
	fail "Depends (+) differs from dpkg-shlibdeps (-): $(grep '^[-+][^-+]' "$WORK/deps.diff" | paste -sd' ')"
pass "Depends = dpkg-shlibdeps: $(paste -sd' ' "$WORK/depends")"

for u in xdplane.service xdplane@.service; do
	f="$WORK/x/lib/systemd/system/$u"
	! grep -n '@[A-Z_]*@' "$f" || fail "$u: unsubstituted variables"
	grep -q '^ExecStart=/usr/sbin/xdplane -c /etc/xdplane/' "$f" || fail "$u: ExecStart= not /usr/sbin/xdplane"
	grep -q '^ExecReload=/usr/bin/xdplanectl ' "$f" || fail "$u: ExecReload= not /usr/bin/xdplanectl"
done
grep -q '^ExecStart=/usr/sbin/xdplane -c /etc/xdplane/%i.yaml$' "$WORK/x/lib/systemd/system/xdplane@.service" ||
	fail "xdplane@.service does not run /etc/xdplane/%i.yaml"
# cpack refuses a tree configured for another prefix
! cmake -DCPACK_GENERATOR=DEB -DCPACK_PACKAGING_INSTALL_PREFIX=/usr/local \
	-P "$SRC/config/cpack-check.cmake" >/dev/null 2>&1 ||
	fail "config/cpack-check.cmake accepts a /usr/local package"
pass "units name /usr/sbin and /usr/bin, the template /etc/xdplane/%i.yaml; a /usr/local package is refused"

# ---- pkgmon: the guard, the documentation, lintian ------------------------
# the guard also refuses a /usr tree whose units would go to /usr/local
# (a build folder's cache naming the old directory)
! cmake -DCPACK_GENERATOR=DEB -DCPACK_PACKAGING_INSTALL_PREFIX=/usr \
	"-DCPACK_XDPLANE_INSTALL_DIRS=/usr/local/lib/systemd/system;/usr/lib/sysusers.d" \
	-P "$SRC/config/cpack-check.cmake" >/dev/null 2>&1 ||
	fail "config/cpack-check.cmake accepts units under /usr/local in a /usr package"
for f in usr/share/man/man8/xdplane.8.gz usr/share/man/man8/xdplanectl.8.gz \
	usr/share/man/man5/xdplane.yaml.5.gz usr/share/doc/xdplane/changelog.gz; do
	# gzip -9n: no name, no time stamp (bytes 4-7 zero), best compression
	[ "$(od -An -tx1 -j3 -N5 "$WORK/x/$f" | tr -d ' ')" = 0000000000 ] ||
		fail "$f: not gzip -n (name or time stored)"
	[ "$(od -An -tx1 -j8 -N1 "$WORK/x/$f" | tr -d ' ')" = 02 ] || fail "$f: not gzip -9"
done
zcat "$WORK/x/usr/share/doc/xdplane/changelog.gz" | head -n1 |
	grep -qx "xdplane ($version) unstable; urgency=medium" ||
	fail "changelog.gz's top entry is not $version"
maint=$(dpkg-deb -f "$DEB" Maintainer)
zcat "$WORK/x/usr/share/doc/xdplane/changelog.gz" | grep -qF -- " -- $maint  " ||
	fail "changelog.gz is not signed by the Maintainer ($maint)"
# the files xdplane(8) names under /usr/share/xdplane are in the package
zcat "$WORK/x/usr/share/man/man8/xdplane.8.gz" | grep -o '/usr/share/xdplane/[A-Za-z0-9_./-]*[A-Za-z0-9]' |
	sort -u >"$WORK/man-share"
[ "$(grep -c . "$WORK/man-share")" -ge 3 ] || fail "xdplane(8) names no files under /usr/share/xdplane"
while read -r f; do
	grep -qx "$f" "$WORK/contents" || fail "xdplane(8) names $f, the package lacks it"
done <"$WORK/man-share"
head -n1 "$WORK/x/usr/share/doc/xdplane/copyright" |
	grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ||
	fail "/usr/share/doc/xdplane/copyright is not in the machine-readable format"
command -v lintian >/dev/null ||
	apt-get install -y -qq --no-install-recommends lintian >/dev/null
lintian --no-tag-display-limit --display-info "$DEB" >"$WORK/lintian.out" 2>&1 || true
grep -q '^E: ' "$WORK/lintian.out" && { cat "$WORK/lintian.out"; fail "lintian: errors"; }
grep -q '^[EW]: ' "$WORK/lintian.out" && sed -n 's/^\([EW]\): [^ ]* \([^ ]*\).*/\1 \2/p' "$WORK/lintian.out" |
	sort | uniq -c | sed 's/^ */  /' >&2
pass "maintainer $maint; xdplane(8) names $(grep -c . "$WORK/man-share") installed files under /usr/share/xdplane; gzip -9n man pages and changelog.gz ($version); DEP-5 copyright; a /usr package with /usr/local units refused; lintian: $(grep -c '^E: ' "$WORK/lintian.out") errors, $(grep -c '^W: ' "$WORK/lintian.out") warnings"
# ---- pkgmon end --------------------------------------------------------

# ---- the clean root -----------------------------------------------------
mkdir -p "$CACHE"
exec 9>"$CACHE/lock"
flock 9
GOLD="$CACHE/bookworm-root"
if [ "$(cat "$GOLD.recipe" 2>/dev/null)" != "$RECIPE" ]; then
	say "building the clean root (debootstrap bookworm, once; cached in $CACHE)"
	rm -rf "$GOLD" "$GOLD.new" "$GOLD.recipe"
	debootstrap --variant=minbase bookworm "$GOLD.new" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$WORK/debootstrap.log"; fail "debootstrap"; }
	cp /etc/resolv.conf "$GOLD.new/etc/resolv.conf"
	chroot "$GOLD.new" apt-get update -qq >/dev/null
	chroot "$GOLD.new" apt-get install -y -qq --no-install-recommends systemd man-db \
		>"$WORK/golden.log" 2>&1 || { tail -n 20 "$WORK/golden.log"; fail "systemd into the root"; }
	chroot "$GOLD.new" apt-get clean
	rm -f "$GOLD.new/etc/resolv.conf"
	mv "$GOLD.new" "$GOLD"
	echo "$RECIPE" >"$GOLD.recipe"
fi
ROOT="$WORK/root"
cp -a "$GOLD" "$ROOT"
flock -u 9
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
mount -t proc proc "$ROOT/proc"
mkdir -p "$CACHE/apt-archives/partial"
mount --bind "$CACHE/apt-archives" "$ROOT/var/cache/apt/archives"
mkdir -p "$ROOT/src/build-deb"
in_root 'apt-get update -qq' >"$WORK/update.log" 2>&1 ||
	{ cat "$WORK/update.log"; fail "apt-get update in the root"; }
# no systemd runs here: enable/disable edit the files, start/stop report
cat >"$ROOT/usr/local/sbin/systemctl" <<'EOF'
#!/bin/sh
# t-package.sh's shim: no systemd runs in this root
verb=$1
shift
args=$(echo "$*" | sed 's/--now//g')
case $verb in
enable | disable)
	/usr/bin/systemctl "$verb" $args || exit
	case " $* " in *" --now "*) echo "shim: would $verb --now: $args" ;; esac
	;;
start | stop | restart | try-restart | reload | daemon-reload)
	echo "shim: would $verb $args" ;;
*) exec /usr/bin/systemctl "$verb" $args ;;
esac
EOF
chmod 755 "$ROOT/usr/local/sbin/systemctl"
cp "$DEB" "$ROOT/src/build-deb/"
# what exists before the package (for the leftover check at the end)
listing() {
	(cd "$ROOT" && find . -xdev \( -path ./proc -o -path ./var/cache/apt -o -path ./var/lib/apt \
		-o -path ./var/lib/dpkg -o -path ./var/log -o -path ./tmp -o -path ./var/tmp \
		-o -path ./run -o -path ./src -o -path ./var/cache/man -o -path ./var/cache/ldconfig \
		-o -path ./var/cache/debconf \) -prune -o -print) | sed 's|^\.||' | sort
}
listing >"$WORK/before"
dpkg --root="$ROOT" -l | awk '/^ii/ { print $2 }' | sort >"$WORK/pkgs-before"
pass "clean root: Debian $(cat "$ROOT/etc/debian_version"), $(wc -l <"$WORK/pkgs-before") packages; of the Depends only $(
	for p in $(cat "$WORK/depends"); do grep -qx "$p\(:$arch\)\?" "$WORK/pkgs-before" && echo "$p"; done | paste -sd' ') there"

# ---- install ----------------------------------------------------------------
say "install (README block 'install')"
in_root "$(block install)" >"$WORK/install.log" 2>&1 ||
	{ tail -n 30 "$WORK/install.log"; fail "the README's install block failed in the clean root"; }
in_root 'dpkg-query -W -f "\${Status} \${Version}" xdplane' | grep -qx "install ok installed $version" ||
	fail "xdplane $version is not installed"
in_root 'xdplane --version && xdplanectl --version' >"$WORK/version.out" 2>&1 ||
	fail "the installed programs do not run: $(cat "$WORK/version.out")"
# the version of CMakeLists.txt, and the git describe of the tree built
# from (tests/package/check-version.sh checks its text)
grep -qE "^xdplane ${version//./\\.}( \(git [^)]+\))?$" "$WORK/version.out" ||
	fail "xdplane --version: $(cat "$WORK/version.out")"
! in_root 'ldd /usr/sbin/xdplane /usr/bin/xdplanectl' | grep 'not found' ||
	fail "a library the programs need is not installed (missing from Depends)"
pass "README install block: xdplane $version installed, both programs load (libraries from Depends)"

in_root 'getent passwd xdplane' | grep -q '^xdplane:.*:/usr/sbin/nologin$' ||
	fail "postinst (systemd-sysusers) made no xdplane account"
in_root 'man -w xdplane xdplanectl xdplane.yaml' >/dev/null || fail "man pages not found"
comp=$(chroot "$ROOT" bash -c '. /usr/share/bash-completion/completions/xdplanectl
	COMP_WORDS=(xdplanectl ""); COMP_CWORD=1; _xdplanectl; echo "${COMPREPLY[*]}"
	COMP_WORDS=(xdplanectl st); _xdplanectl; echo "${COMPREPLY[*]}"
	COMP_WORDS=(xdplanectl log-level ""); COMP_CWORD=2; _xdplanectl; echo "${COMPREPLY[*]}"')
for v in status stats classes flows reload congestion log-level watch; do
	echo "$comp" | head -n1 | grep -qw -- "$v" || fail "completion lacks verb $v: $comp"
done
[ "$(echo "$comp" | sed -n 2p)" = "status stats" ] || fail "completion of 'st': $(echo "$comp" | sed -n 2p)"
echo "$comp" | sed -n 3p | grep -qw debug || fail "completion of log-level: $(echo "$comp" | sed -n 3p)"
in_root 'systemd-analyze verify /lib/systemd/system/xdplane.service xdplane@rack2.service' \
	>"$WORK/verify.out" 2>&1 || fail "systemd-analyze verify: $(cat "$WORK/verify.out")"
[ ! -s "$WORK/verify.out" ] || fail "systemd-analyze verify says: $(cat "$WORK/verify.out")"
pass "account xdplane (sysusers.d), man pages, completion ($(echo "$comp" | head -n1 | wc -w) verbs), systemd-analyze verify: clean"

# ---- start: the shipped file on eth1 + eth2 --------------------------------
ip netns add "$NS"
ip -n "$NS" link add eth1 type veth peer name eth2
ip -n "$NS" link set lo up
say "start (README blocks 'start' and 'instance')"
in_root --ns "$(block start)" >"$WORK/start.log" 2>&1 ||
	{ cat "$WORK/start.log"; fail "the README's start block failed"; }
grep -q 'configuration is valid' "$WORK/start.log" || fail "no 'configuration is valid': $(cat "$WORK/start.log")"
[ -L "$ROOT/etc/systemd/system/multi-user.target.wants/xdplane.service" ] ||
	fail "systemctl enable xdplane made no link"
in_root --ns "$(block instance)" >"$WORK/instance.log" 2>&1 ||
	{ cat "$WORK/instance.log"; fail "the README's instance block failed"; }
[ -L "$ROOT/etc/systemd/system/multi-user.target.wants/xdplane@rack2.service" ] ||
	fail "systemctl enable xdplane@rack2 made no link"
grep -q '^  socket: /run/xdplane-rack2/control.sock$' "$ROOT/etc/xdplane/rack2.yaml" ||
	fail "rack2.yaml: the sed of the instance block changed no control.socket"
pass "README start and instance blocks: --check passes on the installed file and rack2.yaml, both units enabled"

rc=0
in_root --ns 'printf "ports: [\n" >/tmp/bad.yaml; xdplane --check -c /tmp/bad.yaml' >"$WORK/bad.out" 2>&1 || rc=$?
want=$(sed -n 's/^RestartPreventExitStatus=//p' "$ROOT/lib/systemd/system/xdplane.service")
[ "$rc" = 78 ] && [ "$want" = 78 ] ||
	fail "a bad file exits $rc, the unit's RestartPreventExitStatus=$want (want 78 both)"
pass "installed: a bad file exits 78 = RestartPreventExitStatus= of the unit"

# ---- upgrade with dpkg -i: the conffile keeps the local change -------------------
echo "# local change (t-package)" >>"$ROOT/etc/xdplane/xdplane.yaml"
mkdir "$WORK/up"
dpkg-deb -R "$DEB" "$WORK/up/pkg"
sed -i "s/^Version: .*/Version: ${version}+t1/" "$WORK/up/pkg/DEBIAN/control"
echo "# upstream change (t-package)" >>"$WORK/up/pkg/etc/xdplane/xdplane.yaml"
(cd "$WORK/up/pkg" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z |
	xargs -0 md5sum >DEBIAN/md5sums)
dpkg-deb --root-owner-group -b "$WORK/up/pkg" "$ROOT/src/xdplane_${version}+t1_${arch}.deb" >/dev/null
in_root "dpkg -i --force-confdef /src/xdplane_${version}+t1_${arch}.deb </dev/null" >"$WORK/upgrade.log" 2>&1 ||
	{ cat "$WORK/upgrade.log"; fail "dpkg -i of the upgrade"; }
in_root 'dpkg-query -W -f "\${Version}" xdplane' | grep -qx "${version}+t1" || fail "not upgraded"
grep -q '^# local change (t-package)$' "$ROOT/etc/xdplane/xdplane.yaml" ||
	fail "the upgrade overwrote the local change to /etc/xdplane/xdplane.yaml"
! grep -q 'upstream change' "$ROOT/etc/xdplane/xdplane.yaml" || fail "the upgrade replaced the conffile"
# the same version again: nothing asked, the change stays
in_root "dpkg -i /src/xdplane_${version}+t1_${arch}.deb </dev/null" >>"$WORK/upgrade.log" 2>&1 ||
	{ cat "$WORK/upgrade.log"; fail "dpkg -i again"; }
grep -q '^# local change (t-package)$' "$ROOT/etc/xdplane/xdplane.yaml" || fail "reinstall overwrote the conffile"
pass "dpkg -i upgrade to ${version}+t1 (shipped file changed) and reinstall: the local change stays"

# ---- kill -9, then dpkg -r: prerm's xdplane --detach ------------------------
# The installed daemon on eth1 + eth2 (the shipped file) in the namespace,
# with a sysfs and bpffs of its own (ip netns exec's mount namespace),
# killed with SIGKILL: its programs stay attached (fail-open, by design).
# dpkg -r in the namespace: prerm detaches them. Then the package goes
# back on for the README's remove block below.
say "kill -9 of the installed gateway, then dpkg -r (prerm: xdplane --detach)"
xdp_ids() { ip -n "$NS" -d link show "$1" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p'; }
ip -n "$NS" link set eth1 up
ip -n "$NS" link set eth2 up
ip netns exec "$NS" sh -c 'mount -t sysfs sysfs "$1/sys" && mount -t bpf bpf "$1/sys/fs/bpf" &&
	exec chroot "$1" /usr/sbin/xdplane -c /etc/xdplane/xdplane.yaml' sh "$ROOT" >"$WORK/kill9.log" 2>&1 &
gw=$!
for _ in $(seq 100); do
	grep -q 'forwarding started' "$WORK/kill9.log" && break
	kill -0 $gw 2>/dev/null || break
	sleep 0.1
done
grep -q 'forwarding started' "$WORK/kill9.log" ||
	{ kill -9 $gw 2>/dev/null; cat "$WORK/kill9.log"; fail "the installed daemon did not start in the namespace"; }
kill -9 $gw
wait $gw 2>/dev/null || true
rm -rf "$ROOT/run/xdplane" # its control socket's directory (systemd's RuntimeDirectory=)
ids="$(xdp_ids eth1) $(xdp_ids eth2)"
[ "$ids" != " " ] && [ -n "$(xdp_ids eth1)" ] && [ -n "$(xdp_ids eth2)" ] ||
	fail "no program left on eth1/eth2 after kill -9 (by design there is)"
in_root --ns 'dpkg -r xdplane </dev/null' >"$WORK/kill9-remove.log" 2>&1 ||
	{ cat "$WORK/kill9-remove.log"; fail "dpkg -r after kill -9"; }
[ -z "$(xdp_ids eth1)$(xdp_ids eth2)" ] ||
	fail "XDP program left on eth1/eth2 after dpkg -r: $(cat "$WORK/kill9-remove.log")"
grep -q "eth1: xdplane's XDP program (id [0-9]*, .*) detached" "$WORK/kill9-remove.log" ||
	fail "prerm did not report the detach: $(cat "$WORK/kill9-remove.log")"
in_root "dpkg -i /src/xdplane_${version}+t1_${arch}.deb </dev/null" >>"$WORK/kill9-remove.log" 2>&1 ||
	{ cat "$WORK/kill9-remove.log"; fail "dpkg -i after the kill -9 check"; }
pass "kill -9 left programs $ids on eth1/eth2; dpkg -r (prerm: xdplane --detach) removed them"

# ---- remove, purge -----------------------------------------------------
say "remove (README blocks 'remove' and 'purge')"
in_root "$(block remove)" >"$WORK/remove.log" 2>&1 ||
	{ cat "$WORK/remove.log"; fail "the README's remove block failed"; }
in_root 'dpkg-query -W -f "\${Status}" xdplane' | grep -qx 'deinstall ok config-files' ||
	fail "after dpkg -r: $(in_root 'dpkg-query -W -f "\${Status}" xdplane')"
[ -f "$ROOT/etc/xdplane/xdplane.yaml" ] || fail "dpkg -r removed the conffile"
for f in /usr/sbin/xdplane /usr/bin/xdplanectl /lib/systemd/system/xdplane.service; do
	[ ! -e "$ROOT$f" ] || fail "dpkg -r left $f"
done
! ls "$ROOT"/etc/systemd/system/*.wants/xdplane* 2>/dev/null || fail "links of the units left after disable"
pass "README remove block (dpkg -r): programs and units gone, /etc/xdplane/xdplane.yaml kept"

in_root "$(block purge)" >"$WORK/purge.log" 2>&1 ||
	{ cat "$WORK/purge.log"; fail "the README's purge block failed"; }
! in_root 'dpkg-query -W -f "\${Status}" xdplane 2>/dev/null' | grep -q 'installed\|config-files' ||
	fail "xdplane still known to dpkg after dpkg -P"
rm -f "$ROOT/usr/local/sbin/systemctl" "$ROOT/etc/resolv.conf"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" # as it was in "before"
listing >"$WORK/after"
comm -13 "$WORK/before" "$WORK/after" >"$WORK/new"
# what the dependencies brought (files other packages own) is not ours
: >"$WORK/unowned"
while read -r f; do
	[ -d "$ROOT$f" ] && continue
	chroot "$ROOT" dpkg -S "$f" >/dev/null 2>&1 || echo "$f" >>"$WORK/unowned"
done <"$WORK/new"
# ...nor what their maintainer scripts made (ld.so.cache etc.): only what
# names xdplane can be the package's
grep -i xdplane "$WORK/unowned" >"$WORK/left" || true
[ "$(cat "$WORK/left")" = /etc/xdplane/rack2.yaml ] ||
	fail "left after dpkg -P (want only the operator's /etc/xdplane/rack2.yaml): $(paste -sd' ' "$WORK/left")"
# and by name anywhere (but dpkg's records and logs, and /var/cache/man:
# man's formatted pages, made by the `man -w` above, a cache)
(cd "$ROOT" && find . -xdev \( -path ./proc -o -path ./var/lib/dpkg -o -path ./var/log \
	-o -path ./src -o -path ./var/cache/man \) -prune -o -iname '*xdplane*' -print) |
	sed 's|^\.||' | sort >"$WORK/named"
[ "$(paste -sd' ' "$WORK/named")" = "/etc/xdplane" ] ||
	fail "files named xdplane left: $(paste -sd' ' "$WORK/named")"
pass "README purge block (dpkg -P): nothing left but the operator's rack2.yaml ($(wc -l <"$WORK/new") new paths, all the dependencies')"
echo "t-package: all $passed checks passed"
