/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * config.h - the daemon's configuration: one YAML file, parsed once with
 * libyaml into a located node tree (yaml_loc.h), checked against the
 * loader's own schema, read into the plain structs below, defaults
 * applied, then validated (control/config/; cfg_walk.h says which
 * file does what).
 *
 * Ownership: a struct xdplane_config is built by config_load() and owned by
 * whoever called it; it is immutable once returned (readers on any thread may
 * share it). config_free() releases it. Nothing in it points into the file.
 *
 * Errors: config_load() never prints. On failure it returns NULL and fills
 * a struct config_error with "file:line:col: message" texts, where line
 * and col (1-based) locate the offending key or value in the file: every
 * independent error it finds, in the order of the checks (config_load.c),
 * up to CONFIG_ERRORS_MAX kept.
 *
 * Units: ring sizes in descriptors, frame_size in bytes, times in
 * microseconds, unless a field says otherwise. DCQCN (qos.dcqcn, see qos.h
 * and dcqcn.h): rates in bit/s as exact doubles, times in nanoseconds;
 * qos.dcqcn.par holds the profile's defaults (dcqcn_params_default()) with
 * the file's keys applied, and par.line_bps 0 stands for the port rate.
 *
 * Strings are NUL terminated and hold no control characters (the loader
 * rejects them), so they can be printed and quoted as they are.
 */
#ifndef XDPLANE_CONFIG_H
#define XDPLANE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>
#include "qos.h"

#define CONFIG_PORTS 2
#define CONFIG_IFNAME_MAX 16 /* IFNAMSIZ */
#define CONFIG_MAX_QUEUES 64
#define CONFIG_QUEUES_AUTO 0 /* queues: auto */
#define CONFIG_MAX_CPUS 256
#define CONFIG_SOCKET_PATH_MAX 108 /* sizeof(sun_path), with the NUL */
#define CONFIG_ACCOUNT_MAX 64 /* user and group names, with the NUL */
#define CONFIG_LISTEN_MAX 80
#define CONFIG_RO_SUFFIX ".ro" /* the read-only control socket's path */

enum xdp_attach_mode {
	XDP_ATTACH_AUTO = 0, /* native, then generic (skb) */
	XDP_ATTACH_NATIVE,
	XDP_ATTACH_GENERIC,
};

enum xsk_bind_mode {
	XSK_BIND_AUTO = 0, /* zero-copy, then copy */
	XSK_BIND_ZEROCOPY,
	XSK_BIND_COPY,
};

enum failure_mode {
	FAILURE_OPEN = 0, /* no socket bound: forward in the kernel */
	FAILURE_CLOSED, /* no socket bound: drop */
};

enum port_checksum {
	PORT_CSUM_AUTO = 0, /* complete when the port's device is virtual */
	PORT_CSUM_COMPLETE, /* always check and complete */
	PORT_CSUM_TRUST, /* never: frames cross as they are */
};

struct config_port {
	char interface[CONFIG_IFNAME_MAX]; /* required */
	/* bytes, CONFIG_MTU_MIN..CONFIG_MTU_MAX; 0 (default): the
	 * interface's MTU as it is at start. Above what one UMEM frame holds
	 * the gateway runs AF_XDP multi-buffer (frame chains). */
	uint32_t mtu;
	/* default auto: complete TCP/UDP checksums left partial by a
	 * virtual link on the frames received here (dataplane/pkt/l4_csum.h,
	 * run/gw_csum.c); restart required */
	enum port_checksum checksum;
};

#define CONFIG_PORT_WAIT_DEF_MS 60000
#define CONFIG_PORT_WAIT_MAX_MS 3600000

#define CONFIG_MTU_MIN 68
#define CONFIG_MTU_MAX 65535

struct config_rings {
	uint32_t fill; /* default 4096; power of two, 64..65536 */
	uint32_t completion; /* default 2048; power of two, 64..65536 */
	uint32_t rx; /* default 2048; power of two, 64..65536 */
	uint32_t tx; /* default 2048; power of two, 64..65536 */
	uint32_t handoff; /* RX task -> egress SPSC ring; default 4096 */
};

struct config_umem {
	/* default 32768 (raised at start, see frames_auto);
	 * >= 2*queues*(fill+tx+handoff), checked at load when written with
	 * a number of queues */
	uint32_t frames;
	uint32_t frame_size; /* default 4096; 2048 or 4096 */
	uint32_t headroom; /* default 0; bytes reserved before each frame */
	bool hugepages; /* default false: 2 MiB pages, if reserved */
	/* umem.frames not written: frames is the default, which the daemon
	 * raises at start to what the queues need (a power of two) */
	bool frames_auto;
};

struct config_poll {
	uint32_t busy_us; /* default 20: spin this long idle before sleeping */
	/* default 50: after a pass that moved frames, a worker with nothing
	 * more to do naps this long (timed, not woken by the sockets), so
	 * frames arriving at a low rate are taken in batches (idle_policy.h);
	 * 0: never; no naps while pfc.enabled (worker.c) */
	uint32_t coalesce_us;
	uint32_t shaper_spin_us; /* default 500: the most a worker spins
				  * for a shaped frame (worker.h) */
	/* poll.shaper_wait: false (sleep, default): sleep until a margin
	 * before a shaped frame is due, spin the margin; true (spin): spin
	 * whenever one is due within shaper_spin_us */
	bool shaper_wait_spin;
	uint32_t batch; /* default 64: descriptors per ring operation */
};

/* The daemon's own endpoints; see xdplane.yaml(5). */
struct config_control {
	/* Unix control socket; default /run/xdplane/control.sock; "": none.
	 * Absolute, at most CONFIG_SOCKET_PATH_MAX - 1 bytes. */
	char socket[CONFIG_SOCKET_PATH_MAX];
	char socket_group[CONFIG_ACCOUNT_MAX]; /* "": the daemon's group */
	/* "": none; else a second socket, socket + CONFIG_RO_SUFFIX, of this
	 * group, where its members may read (status, stats, config, ...)
	 * but not change anything (reload, congestion, log-level) */
	char readonly_group[CONFIG_ACCOUNT_MAX];
	/* Prometheus listener, default "127.0.0.1:9470"; "": none. Kept in
	 * canonical form ("[::1]:9470" for "[0::1]:9470"), so that two equal
	 * addresses are equal strings. */
	char metrics_listen[CONFIG_LISTEN_MAX];
	uint32_t stats_interval_ms; /* default 1000; 100..60000 */
	/* metrics_listen parsed, ready for bind(): a sockaddr_in or
	 * sockaddr_in6 (bytes past metrics_addrlen zero), or AF_UNSPEC and
	 * length 0 when metrics_listen is "". */
	struct sockaddr_storage metrics_addr;
	socklen_t metrics_addrlen;
};

/* jobs: the training jobs whose traffic crosses the gateway
 * (dataplane/jobs/job_table.h); see xdplane.yaml(5). mode and idle_ns are
 * applied on reload, the table's bounds at start only (its memory is
 * fixed when it is made). */
enum config_jobs_mode {
	CONFIG_JOBS_OFF = 0, /* no table, no jobs verbs */
	CONFIG_JOBS_OBSERVE, /* the table: registrations, jobs listed */
};

struct config_jobs {
	enum config_jobs_mode mode; /* default off */
	uint32_t max_registered; /* default 64; 0..4096 */
	uint32_t max_passive; /* default 64; 0..4096, with max_registered
			       * 1..4096 */
	uint32_t max_hosts; /* default 1024; 2..65536 */
	uint32_t max_edges; /* default 4096; 1..262144 */
	uint64_t idle_ns; /* jobs.idle, default 10 s; 1 s..3600 s */
};

struct xdplane_config {
	char path[256]; /* the file it came from, for messages */
	struct config_port ports[CONFIG_PORTS]; /* exactly two */
	/* ms, 0..CONFIG_PORT_WAIT_MAX_MS, default CONFIG_PORT_WAIT_DEF_MS:
	 * how long the daemon waits at start for a port's interface that
	 * does not exist yet (port_wait.h); read at start only */
	uint32_t port_wait_ms;
	/* default auto (CONFIG_QUEUES_AUTO: the NIC's channel count, which
	 * the daemon reads at start and checks with config_check_queues());
	 * or 1..CONFIG_MAX_QUEUES, compared with the NICs' channel counts at
	 * start (dataplane/xsk/nic_channels.h) */
	uint32_t queues;
	/* default false: a NIC whose channel count differs from queues is
	 * refused at start; true: the daemon sets it (ethtool -L) */
	bool queues_set_channels;
	enum xdp_attach_mode xdp_mode; /* default auto */
	enum xsk_bind_mode bind_mode; /* default auto */
	enum failure_mode failure_mode; /* default open */
	struct config_rings rings;
	struct config_umem umem;
	struct config_poll poll;
	uint32_t n_cpus; /* 0: every CPU the process may run on */
	uint32_t cpus[CONFIG_MAX_CPUS]; /* workers.cpus, in order */
	/* Traffic classes, rules, port shapers (ports[i].rate/burst go to
	 * qos.port[i]); see qos.h for units. */
	struct qos_policy qos;
	struct config_control control;
	struct config_jobs jobs;
	/* user, group, control.socket_group, control.readonly_group: names
	 * or numeric ids, kept as
	 * written and resolved by the daemon (config_lookup_user/group()). */
	char user[CONFIG_ACCOUNT_MAX]; /* run as this user; "": stay root */
	char group[CONFIG_ACCOUNT_MAX]; /* with user: instead of its group */
	int log_level; /* enum log_level (log.h), 3..7; default info (6) */
};

#define CONFIG_ERRORS_MAX 20 /* messages kept; more are only counted */
#define CONFIG_ERROR_LEN 512

/* The messages of a refused file: msg is the first, more[] the next
 * (n - 1 of them); found counts every error, kept or not. The loader
 * resets it before it writes. */
struct config_error {
	char msg[CONFIG_ERROR_LEN]; /* "file:line:col: message", NUL ended */
	unsigned int n; /* kept: 1..CONFIG_ERRORS_MAX after a failure */
	unsigned int found; /* >= n */
	char more[CONFIG_ERRORS_MAX - 1][CONFIG_ERROR_LEN];
};

/* The i-th kept message, i < err->n. */
const char *config_error_at(const struct config_error *err, unsigned int i);

/* Load, apply defaults, validate. Interfaces are checked to exist, and
 * the user and groups to resolve by the rule the daemon applies when it
 * drops privileges (config_lookup_user/group() below: a name, else a
 * numeric id; a numeric user needs a passwd entry, a numeric group does
 * not), only when check_system is true (--check on a machine without the
 * ports can skip it).
 * Returns NULL and fills *err (never NULL) on failure; a file that cannot
 * be read gives "path: cannot read: reason", without line and column. */
struct xdplane_config *config_load(const char *path, bool check_system,
				   struct config_error *err);
/* Load from a string; `name` stands for the file name in messages. */
struct xdplane_config *config_load_string(const char *name, const char *yaml,
					  bool check_system,
					  struct config_error *err);
void config_free(struct xdplane_config *cfg);

/*
 * Users and groups: the one rule for naming them (user, group,
 * control.socket_group), applied by config_load() with check_system
 * (xdplane --check, start, reload) and by the daemon (privs.c:
 * privs_lookup(), privs_drop(), the control socket's owner), so that a file
 * the check accepts is one the daemon runs with, and the other way round.
 *
 * The rule, chown(1)'s:
 *   - A name first: getpwnam_r() / getgrnam_r(). An entry whose name is
 *     all digits ("100") is that entry, whatever its id.
 *   - Only when no entry has that name, a decimal number is a numeric id:
 *     digits only (no sign, no spaces, leading zeros allowed), at most
 *     4294967294 ((uid_t)-1 means "leave unchanged" to the set*id calls).
 *   - A numeric user must have a passwd entry (getpwuid_r()). Here the rule
 *     is stricter than chown(1), which takes any uid: the daemon takes the
 *     user's primary group and supplementary groups (initgroups) from that
 *     entry; without one it would keep root's groups.
 *   - A numeric group needs no group entry, as with chown(1): setgid(),
 *     setgroups() and chown() take the number as it is.
 * Anything else (a name no entry has that is not a number, a numeric user
 * without a passwd entry) is "no such user/group".
 *
 * Lookups go through NSS with the reentrant calls, in the calling thread,
 * with a buffer grown on ERANGE up to 1 MiB. NSS reports "not found" as 0
 * with no entry, or as ENOENT, ESRCH, EBADF or EPERM (getpwnam_r(3)); any
 * other error is a failed lookup, not an unknown name, and is reported as
 * such (no numeric fallback then: the name might exist).
 *
 * Errors: a negative errno (-ENOENT: no such user or group; -EINVAL: an
 * empty name; other: the lookup failed) and a one-line reason in err
 * (truncated to errlen, NUL-terminated when errlen > 0; err may be NULL),
 * without a position: config_load() prefixes "file:line:col: key: ", the
 * daemon reports it as it is. The reasons:
 *   no such user 'NAME'; check the name with 'getent passwd NAME'
 *   no such group 'NAME'; check the name with 'getent group NAME'
 *   no such user 'UID': uid UID has no passwd entry, ... (why it needs one)
 *   cannot look up the user 'NAME': <strerror>
 */
#define CONFIG_USER_NAME_MAX 256 /* a resolved user name, with the NUL */

struct config_user {
	uid_t uid;
	gid_t gid; /* the user's primary group */
	/* the entry's name (of a numeric uid too), for initgroups() */
	char name[CONFIG_USER_NAME_MAX];
};

/* A user name or numeric uid: 0 and *out filled, or a negative errno and
 * err. */
int config_lookup_user(const char *spec, struct config_user *out, char *err,
		       size_t errlen);
/* A group name or numeric gid: 0 and *gid filled, or a negative errno and
 * err. */
int config_lookup_group(const char *spec, gid_t *gid, char *err, size_t errlen);

/* The rules that depend on the number of queues (umem.frames is enough
 * for them), for queues = auto once the channel count is known: queues
 * must be 1..CONFIG_MAX_QUEUES (the caller caps the channel count).
 * Returns 0, or -1 with "umem.frames: ..." in msg. */
int config_check_queues(const struct xdplane_config *cfg, uint32_t queues,
			char *msg, size_t len);

/* The effective configuration (defaults filled in) as YAML, to a stream. */
int config_dump(const struct xdplane_config *cfg, FILE *out);

const char *xdp_attach_mode_name(enum xdp_attach_mode m);
const char *xsk_bind_mode_name(enum xsk_bind_mode m);
const char *failure_mode_name(enum failure_mode m);
const char *port_checksum_name(enum port_checksum m);
const char *config_jobs_mode_name(enum config_jobs_mode m);
/* "err", "warn", "notice", "info", "debug"; "invalid" for others. */
const char *config_log_level_name(int level);
/* The level of one of those names (3..7), or -1. */
int config_log_level_parse(const char *name);

#endif
