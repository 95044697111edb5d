// SPDX-License-Identifier: BSD-2-Clause
/*
 * config_daemon.c - the daemon's own keys (parts of the loader:
 * config_sections.h): the control socket, the metrics listener (numeric
 * "host:port" only: no name is ever resolved), user, group and
 * control.socket_group (with check_system, resolved by the one rule of
 * config.h, config_lookup_user/group(), which the daemon's privilege drop
 * applies too: privs.c), the log level.
 */
#include "config_sections.h"
#include "log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEF_CONTROL_SOCKET "/run/xdplane/control.sock"
#define DEF_METRICS_LISTEN "127.0.0.1:9470"
#define DEF_LOG_LEVEL LOG_LVL_INFO

/* No control characters: dump_control() quotes these strings as they are. */
static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			return false;
	return true;
}

/* A user or group name as /etc/passwd and /etc/group can hold one. */
static bool valid_account(const char *s)
{
	return printable(s) && !strpbrk(s, " :,/");
}

/* Users and groups by the one rule of config.h (config_lookup_user/group),
 * shared with the daemon's privilege drop (privs.c). */

#define NSS_BUF_START 1024
#define NSS_BUF_MAX (1u << 20) /* bound on a passwd/group entry */

static void account_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void account_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* A decimal id: digits only, below 2^32 - 1 ((uid_t)-1 means "unchanged"
 * to the set*id calls). */
static bool parse_account_id(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v >= UINT32_MAX)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

/* getpw*_r / getgr*_r report "not found" as 0 with a NULL result, or as
 * one of these (getpwnam_r(3)). */
static bool nss_not_found(int rc)
{
	return rc == 0 || rc == ENOENT || rc == ESRCH || rc == EBADF ||
	       rc == EPERM;
}

/* Grow *buf (starting at NSS_BUF_START, at most NSS_BUF_MAX). 0, ERANGE
 * past the bound, or ENOMEM. */
static int grow_nss_buf(char **buf, size_t *len)
{
	size_t want = *len ? *len * 2 : NSS_BUF_START;
	char *nb;

	if (want > NSS_BUF_MAX)
		return ERANGE;
	nb = realloc(*buf, want);
	if (!nb)
		return ENOMEM;
	*buf = nb;
	*len = want;
	return 0;
}

/* The reasons of config.h, from the lookup's result code. */
static int lookup_error(const char *what, const char *db, const char *spec,
			int rc, char *err, size_t errlen)
{
	if (!nss_not_found(rc)) {
		account_err(err, errlen, "cannot look up the %s '%s': %s", what,
			    spec, strerror(rc));
		return -rc;
	}
	account_err(err, errlen,
		    "no such %s '%s'; check the name with 'getent %s %s'", what,
		    spec, db, spec);
	return -ENOENT;
}

int config_lookup_user(const char *spec, struct config_user *out, char *err,
		       size_t errlen)
{
	struct passwd pw, *res = NULL;
	bool numeric = false;
	char *buf = NULL;
	size_t len = 0;
	uint32_t id;
	int rc;

	if (!spec || !*spec) {
		account_err(err, errlen, "empty user name");
		return -EINVAL;
	}
	for (;;) {
		rc = grow_nss_buf(&buf, &len);
		if (rc)
			break;
		rc = getpwnam_r(spec, &pw, buf, len, &res);
		numeric = !res && nss_not_found(rc) &&
			  parse_account_id(spec, &id);
		if (numeric)
			rc = getpwuid_r(id, &pw, buf, len, &res);
		if (rc != ERANGE)
			break;
	}
	if (!res) {
		if (numeric && nss_not_found(rc)) {
			account_err(
				err, errlen,
				"no such user '%s': uid %s has no passwd "
				"entry, and the daemon takes the user's groups "
				"from it; check with 'getent passwd %s'",
				spec, spec, spec);
			rc = -ENOENT;
		} else {
			rc = lookup_error("user", "passwd", spec, rc, err,
					  errlen);
		}
		free(buf);
		return rc;
	}
	if (strlen(pw.pw_name) >= sizeof(out->name)) {
		account_err(err, errlen, "user '%s': name too long", spec);
		free(buf);
		return -ENAMETOOLONG;
	}
	out->uid = pw.pw_uid;
	out->gid = pw.pw_gid;
	strcpy(out->name, pw.pw_name);
	free(buf);
	return 0;
}

int config_lookup_group(const char *spec, gid_t *gid, char *err, size_t errlen)
{
	struct group gr, *res = NULL;
	char *buf = NULL;
	size_t len = 0;
	uint32_t id;
	int rc;

	if (!spec || !*spec) {
		account_err(err, errlen, "empty group name");
		return -EINVAL;
	}
	for (;;) {
		rc = grow_nss_buf(&buf, &len);
		if (rc)
			break;
		rc = getgrnam_r(spec, &gr, buf, len, &res);
		if (rc != ERANGE)
			break;
	}
	free(buf); /* gr_gid is in gr, not in buf */
	if (res) {
		*gid = gr.gr_gid;
		return 0;
	}
	if (nss_not_found(rc) && parse_account_id(spec, &id)) {
		*gid = id; /* a numeric gid needs no group entry */
		return 0;
	}
	return lookup_error("group", "group", spec, rc, err, errlen);
}

/* A user or group name at path, copied into dst; "" or absent leaves dst
 * "". */
static int load_account(const struct load_ctx *c, const char *path,
			bool is_group, bool check_system, char *dst,
			size_t size)
{
	const char *what = is_group ? "group" : "user", *name;
	struct config_user user;
	char got[64], why[320];
	struct key k;
	gid_t gid;

	if (!cfg_key_at(c, &k, "%s", path) || !*k.n->text)
		return 0;
	name = k.n->text;
	if (!valid_account(name)) {
		cfg_got_text(k.n, got, sizeof(got));
		return cfg_fail(c, k.n->val,
				"%s: not a valid %s name (got %s); names have "
				"no spaces, ':', ',', '/' or control "
				"characters",
				path, what, got);
	}
	/* The daemon's rule (config.h), so that --check accepts what
	 * privs_drop() accepts: names, then numeric ids. */
	if (check_system &&
	    (is_group ? config_lookup_group(name, &gid, why, sizeof(why))
		      : config_lookup_user(name, &user, why, sizeof(why))))
		return cfg_fail(c, k.n->val, "%s: %s", path, why);
	snprintf(dst, size, "%s", name);
	return 0;
}

/* An absolute path without "." or ".." components and without "//": the
 * path names exactly the file the daemon creates (xdplane(8), FILES). */
static bool normal_path(const char *p)
{
	for (const char *s = p; *s; s++) {
		size_t n;

		if (*s != '/')
			continue;
		n = strcspn(s + 1, "/");
		if (n == 0 || (n == 1 && s[1] == '.') ||
		    (n == 2 && s[1] == '.' && s[2] == '.'))
			return false;
	}
	return true;
}

static int load_socket(const struct load_ctx *c, struct config_control *ctl)
{
	const char *sock;
	char got[64];
	struct key k;
	size_t len;

	if (!cfg_key_at(c, &k, "control.socket")) {
		snprintf(ctl->socket, sizeof(ctl->socket), "%s",
			 DEF_CONTROL_SOCKET);
		return 0;
	}
	sock = k.n->text;
	len = strlen(sock);
	if (!len)
		return 0; /* "": no control socket */
	if (sock[0] != '/' || sock[len - 1] == '/' || !printable(sock))
		return cfg_bad_value(c, &k, SYN_SOCKET);
	if (!normal_path(sock)) {
		cfg_got_text(k.n, got, sizeof(got));
		return cfg_fail(c, k.n->val,
				"control.socket: a path with a '.' or '..' "
				"component or '//' (got %s); write it without "
				"them, e.g. /run/xdplane/control.sock",
				got);
	}
	if (len >= sizeof(ctl->socket)) {
		cfg_got_text(k.n, got, sizeof(got));
		return cfg_fail(
			c, k.n->val,
			"control.socket: a path of %zu bytes (got %s); a "
			"Unix socket path has at most %zu",
			len, got, sizeof(ctl->socket) - 1);
	}
	memcpy(ctl->socket, sock, len + 1);
	return 0;
}

enum listen_rc {
	LISTEN_OK,
	LISTEN_SYNTAX,
	LISTEN_BRACKETS, /* an IPv6 address without [] */
	LISTEN_V4, /* not a numeric IPv4 address */
	LISTEN_V6,
	LISTEN_NO_PORT,
	LISTEN_PORT, /* not 1..65535 */
};

/* A port 1..65535, plain decimal digits without a leading zero. */
static bool parse_listen_port(const char *s, uint16_t *port)
{
	uint32_t v = 0;
	size_t i;

	if (s[0] < '1' || s[0] > '9')
		return false;
	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9' || i >= 5)
			return false;
		v = v * 10 + (uint32_t)(s[i] - '0');
	}
	if (v > UINT16_MAX)
		return false;
	*port = (uint16_t)v;
	return true;
}

/* "a.b.c.d:port" or "[v6addr]:port" into ctl->metrics_addr and, in
 * canonical form, ctl->metrics_listen. *host gets the address part, for
 * messages. */
static enum listen_rc parse_listen(const char *s, struct config_control *ctl,
				   char *host, size_t host_size)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)&ctl->metrics_addr;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ctl->metrics_addr;
	const char *start = s, *end, *port;
	bool six = s[0] == '[';
	char text[INET6_ADDRSTRLEN];
	uint16_t num;

	if (six) {
		start = s + 1;
		end = strchr(start, ']');
		if (!end)
			return LISTEN_SYNTAX;
		port = end + 1;
	} else {
		end = strchr(s, ':');
		if (end && strchr(end + 1, ':'))
			return LISTEN_BRACKETS;
		if (!end)
			end = s + strlen(s);
		port = end;
	}
	if ((size_t)(end - start) >= host_size)
		return LISTEN_SYNTAX;
	memcpy(host, start, (size_t)(end - start));
	host[end - start] = '\0';
	memset(&ctl->metrics_addr, 0, sizeof(ctl->metrics_addr));
	if (six ? inet_pton(AF_INET6, host, &v6->sin6_addr) != 1
		: inet_pton(AF_INET, host, &v4->sin_addr) != 1)
		return six ? LISTEN_V6 : LISTEN_V4;
	if (!port[0] || (port[0] == ':' && !port[1]))
		return LISTEN_NO_PORT;
	if (port[0] != ':')
		return LISTEN_SYNTAX;
	if (!parse_listen_port(port + 1, &num))
		return LISTEN_PORT;
	inet_ntop(six ? AF_INET6 : AF_INET,
		  six ? (void *)&v6->sin6_addr : (void *)&v4->sin_addr, text,
		  sizeof(text));
	if (six) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(num);
		ctl->metrics_addrlen = sizeof(*v6);
		snprintf(ctl->metrics_listen, sizeof(ctl->metrics_listen),
			 "[%s]:%u", text, num);
	} else {
		v4->sin_family = AF_INET;
		v4->sin_port = htons(num);
		ctl->metrics_addrlen = sizeof(*v4);
		snprintf(ctl->metrics_listen, sizeof(ctl->metrics_listen),
			 "%s:%u", text, num);
	}
	return LISTEN_OK;
}

static int load_listen(const struct load_ctx *c, struct config_control *ctl)
{
	char host[INET6_ADDRSTRLEN], got[64];
	struct key k;

	if (!cfg_key_at(c, &k, "control.metrics_listen"))
		return parse_listen(DEF_METRICS_LISTEN, ctl, host,
				    sizeof(host)) == LISTEN_OK
			       ? 0
			       : -1;
	if (!k.n->text[0])
		return 0; /* "": no listener, AF_UNSPEC and length 0 */
	cfg_got_text(k.n, got, sizeof(got));
	switch (parse_listen(k.n->text, ctl, host, sizeof(host))) {
	case LISTEN_OK:
		return 0;
	case LISTEN_BRACKETS:
		return cfg_fail(c, k.n->val,
				"%s: an IPv6 address goes in brackets, e.g. "
				"[::1]:9470 (got %s)",
				k.path, got);
	case LISTEN_V4:
		return cfg_fail(
			c, k.n->val,
			"%s: '%s' is not an IPv4 address (got %s); write "
			"a numeric address such as 127.0.0.1, host names "
			"are not resolved",
			k.path, host, got);
	case LISTEN_V6:
		return cfg_fail(
			c, k.n->val,
			"%s: '%s' is not an IPv6 address (got %s); write "
			"a numeric address without a zone, e.g. [::1]",
			k.path, host, got);
	case LISTEN_NO_PORT:
		return cfg_fail(c, k.n->val,
				"%s: no port (got %s); write host:port, e.g. "
				"127.0.0.1:9470 or [::1]:9470",
				k.path, got);
	case LISTEN_PORT:
		return cfg_fail(c, k.n->val,
				"%s: the port must be a number from 1 to 65535 "
				"(got %s)",
				k.path, got);
	default:
		return cfg_bad_value(c, &k, SYN_LISTEN);
	}
}

int cfg_load_daemon(const struct load_ctx *c, struct xdplane_config *cfg,
		    bool check_system)
{
	struct config_control *ctl = &cfg->control;
	struct key k;
	int bad = 0;

	/* independent keys: each reports its own error */
	bad |= load_socket(c, ctl);
	bad |= load_account(c, "control.socket_group", true, check_system,
			    ctl->socket_group, sizeof(ctl->socket_group));
	bad |= load_account(c, "control.readonly_group", true, check_system,
			    ctl->readonly_group, sizeof(ctl->readonly_group));
	bad |= load_listen(c, ctl);
	bad |= load_account(c, "user", false, check_system, cfg->user,
			    sizeof(cfg->user));
	bad |= load_account(c, "group", true, check_system, cfg->group,
			    sizeof(cfg->group));
	if (bad)
		return -1;
	if (cfg->group[0] && !cfg->user[0]) {
		cfg_key_at(c, &k, "group");
		return cfg_fail(c, k.n->val,
				"group: only used with user, as the group to "
				"run as instead of the user's own; set user "
				"too, or leave group out");
	}
	if (ctl->readonly_group[0] &&
	    (!ctl->socket[0] ||
	     strlen(ctl->socket) + strlen(CONFIG_RO_SUFFIX) >=
		     sizeof(ctl->socket))) {
		cfg_key_at(c, &k, "control.readonly_group");
		return cfg_fail(c, k.n->val,
				"control.readonly_group: the read-only socket "
				"is control.socket + '%s', so control.socket "
				"must be set and at most %zu bytes",
				CONFIG_RO_SUFFIX,
				sizeof(ctl->socket) - 1 -
					strlen(CONFIG_RO_SUFFIX));
	}
	cfg->log_level =
		cfg_enum_at(c, "log_level", cfg_log_levels, DEF_LOG_LEVEL);
	return 0;
}
