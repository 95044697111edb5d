// SPDX-License-Identifier: BSD-2-Clause
/*
 * steer_prog.c - load, attach, replace and detach the steering program.
 * See steer_prog.h for the rules.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "log.h"
#include "steer_prog.h"

extern const char xdplane_steer_obj[];
extern const char xdplane_steer_obj_end[];

const char *steer_mode_name(const struct steer_prog *sp)
{
	return sp->attach_flags & XDP_FLAGS_SKB_MODE ? "generic" : "native";
}

/* Name and id of the program attached to ifindex in `mode`, if any. */
static int attached_prog(int ifindex, uint32_t *id, char *name, size_t len,
			 uint32_t *mode_flags)
{
	struct bpf_xdp_query_opts q = {.sz = sizeof(q)};
	struct bpf_prog_info info;
	uint32_t info_len = sizeof(info);
	int fd, err;

	*id = 0;
	name[0] = '\0';
	err = bpf_xdp_query(ifindex, 0, &q);
	if (err)
		return err;
	if (q.drv_prog_id) {
		*id = q.drv_prog_id;
		*mode_flags = XDP_FLAGS_DRV_MODE;
	} else if (q.skb_prog_id) {
		*id = q.skb_prog_id;
		*mode_flags = XDP_FLAGS_SKB_MODE;
	} else if (q.hw_prog_id) {
		*id = q.hw_prog_id;
		*mode_flags = XDP_FLAGS_HW_MODE;
	}
	if (!*id)
		return 0;
	fd = bpf_prog_get_fd_by_id(*id);
	if (fd < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	err = bpf_obj_get_info_by_fd(fd, &info, &info_len);
	close(fd);
	if (err)
		return -errno;
	snprintf(name, len, "%s", info.name);
	return 0;
}

/* The struct steer_conf of the xdplane program `id` (its conf_map). */
static int prog_conf(uint32_t id, struct steer_conf *conf)
{
	uint32_t map_ids[16] = {0}, n, zero = 0;
	struct bpf_prog_info info;
	uint32_t info_len = sizeof(info);
	int fd, err = -ENOENT;

	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = sizeof(map_ids) / sizeof(map_ids[0]);
	info.map_ids = (uint64_t)(uintptr_t)map_ids;
	if (bpf_obj_get_info_by_fd(fd, &info, &info_len)) {
		err = -errno;
		close(fd);
		return err;
	}
	close(fd);
	n = info.nr_map_ids < 16 ? info.nr_map_ids : 16;
	for (uint32_t i = 0; i < n && err == -ENOENT; i++) {
		struct bpf_map_info mi;
		uint32_t mi_len = sizeof(mi);
		int mfd = bpf_map_get_fd_by_id(map_ids[i]);

		if (mfd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		if (!bpf_obj_get_info_by_fd(mfd, &mi, &mi_len) &&
		    !strcmp(mi.name, "conf_map") &&
		    mi.value_size == sizeof(*conf))
			err = bpf_map_lookup_elem(mfd, &zero, conf) ? -errno
								    : 0;
		close(mfd);
	}
	return err;
}

static int configure_maps(struct steer_prog *sp, int peer_ifindex,
			  uint32_t failure_mode, uint32_t queues,
			  uint32_t stamp_room)
{
	struct steer_conf conf = {.failure_mode = failure_mode,
				  .queues = queues,
				  .stamp_room = stamp_room};
	uint32_t zero = 0;
	int fd;

	fd = bpf_object__find_map_fd_by_name(sp->obj, "conf_map");
	if (fd < 0 || bpf_map_update_elem(fd, &zero, &conf, 0))
		return -errno ? -errno : -ENOENT;
	fd = bpf_object__find_map_fd_by_name(sp->obj, "peer_map");
	if (fd < 0 || bpf_map_update_elem(fd, &zero, &peer_ifindex, 0))
		return -errno ? -errno : -ENOENT;
	sp->xsks_map_fd = bpf_object__find_map_fd_by_name(sp->obj, "xsks_map");
	sp->verdicts_fd = bpf_object__find_map_fd_by_name(sp->obj, "verdicts");
	sp->nosock_fd = bpf_object__find_map_fd_by_name(sp->obj, "nosock");
	return sp->xsks_map_fd < 0 || sp->verdicts_fd < 0 || sp->nosock_fd < 0
		       ? -ENOENT
		       : 0;
}

static int try_attach(struct steer_prog *sp, uint32_t mode_flags,
		      uint32_t old_id, uint32_t old_mode)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts);
	int old_fd = -1, err;

	if (old_id && old_mode == mode_flags) {
		old_fd = bpf_prog_get_fd_by_id(old_id);
		if (old_fd < 0)
			return -errno;
		opts.old_prog_fd = old_fd;
		err = bpf_xdp_attach(sp->ifindex, sp->prog_fd,
				     mode_flags | XDP_FLAGS_REPLACE, &opts);
		close(old_fd);
		return err;
	}
	if (old_id) {
		/* A stale program in the other mode: no atomic swap exists. */
		bpf_xdp_detach(sp->ifindex, old_mode, NULL);
	}
	return bpf_xdp_attach(sp->ifindex, sp->prog_fd,
			      mode_flags | XDP_FLAGS_UPDATE_IF_NOEXIST, NULL);
}

int steer_attach(struct steer_prog *sp, int ifindex, const char *ifname,
		 int peer_ifindex, enum steer_mode_req mode,
		 uint32_t failure_mode, uint32_t queues, bool frags,
		 uint32_t stamp_room, char *errbuf, size_t errlen)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts, .object_name = "xdplane");
	char old_name[BPF_OBJ_NAME_LEN];
	uint32_t old_id = 0, old_mode = 0;
	struct bpf_program *prog;
	int err;

	memset(sp, 0, sizeof(*sp));
	sp->prog_fd = sp->xsks_map_fd = sp->verdicts_fd = sp->nosock_fd = -1;
	sp->ifindex = ifindex;

	err = attached_prog(ifindex, &old_id, old_name, sizeof(old_name),
			    &old_mode);
	if (err) {
		snprintf(errbuf, errlen, "%s: cannot query XDP state: %s",
			 ifname, strerror(-err));
		return err;
	}
	if (old_id && strcmp(old_name, STEER_PROG_NAME) != 0) {
		snprintf(errbuf, errlen,
			 "%s: another XDP program is attached ('%s', id %u); "
			 "xdplane will not replace it: detach it first "
			 "(ip link set dev %s xdp off)",
			 ifname, old_name, old_id, ifname);
		return -EBUSY;
	}

	if (old_id) {
		struct steer_conf stale;

		if (!prog_conf(old_id, &stale))
			sp->stale_flags = stale.flags;
	}

	sp->obj = bpf_object__open_mem(
		xdplane_steer_obj, xdplane_steer_obj_end - xdplane_steer_obj,
		&oopts);
	if (!sp->obj) {
		err = -errno;
		snprintf(errbuf, errlen, "cannot open the steering program: %s",
			 strerror(-err));
		return err;
	}
	prog = bpf_object__find_program_by_name(sp->obj, STEER_PROG_NAME);
	if (prog && frags)
		bpf_program__set_flags(prog, bpf_program__flags(prog) |
						     BPF_F_XDP_HAS_FRAGS);
	sp->frags = frags;
	err = bpf_object__load(sp->obj);
	if (err) {
		snprintf(errbuf, errlen,
			 frags ? "cannot load the steering program with "
				 "multi-buffer support (xdp.frags): %s; lower "
				 "the MTU to what one UMEM frame holds, or "
				 "upgrade to Linux >= 6.6"
			       : "cannot load the steering program: %s (needs "
				 "CAP_BPF and CAP_NET_ADMIN, or root)",
			 strerror(-err));
		goto fail;
	}
	sp->prog_fd = prog ? bpf_program__fd(prog) : -1;
	err = sp->prog_fd < 0 ? -ENOENT
			      : configure_maps(sp, peer_ifindex, failure_mode,
					       queues, stamp_room);
	if (err) {
		snprintf(errbuf, errlen, "cannot set up the program's maps: %s",
			 strerror(-err));
		goto fail;
	}

	err = -EOPNOTSUPP;
	if (mode != STEER_MODE_GENERIC) {
		err = try_attach(sp, XDP_FLAGS_DRV_MODE, old_id, old_mode);
		if (!err)
			sp->attach_flags = XDP_FLAGS_DRV_MODE;
		else if (mode == STEER_MODE_AUTO)
			log_warn("%s: native XDP refused (%s), trying generic",
				 ifname, strerror(-err));
	}
	if (err && mode != STEER_MODE_NATIVE) {
		err = try_attach(sp, XDP_FLAGS_SKB_MODE, old_id, old_mode);
		if (!err)
			sp->attach_flags = XDP_FLAGS_SKB_MODE;
	}
	if (err) {
		snprintf(errbuf, errlen,
			 "%s: cannot attach XDP (%s mode): %s%s", ifname,
			 mode == STEER_MODE_NATIVE    ? "native"
			 : mode == STEER_MODE_GENERIC ? "generic"
						      : "native or generic",
			 strerror(-err),
			 frags ? " (multi-buffer program: the driver may lack "
				 "XDP frags support; lower the MTU to what one "
				 "UMEM frame holds)"
			 : err == -ERANGE ? " (the interface MTU is too large "
					    "for single-buffer XDP)"
			 : err == -ENOSPC
				 ? " (veth: XDP needs at least as many RX "
				   "queues as the peer has TX queues; lower "
				   "the peer's with ethtool -L PEER tx N)"
				 : "");
		goto fail;
	}
	sp->attached = true;
	if (old_id)
		log_warn("%s: replaced a stale xdplane program (id %u) left "
			 "by a previous run",
			 ifname, old_id);
	log_info("%s: XDP program attached in %s mode%s", ifname,
		 steer_mode_name(sp),
		 frags ? " (multi-buffer, xdp.frags)" : "");
	return 0;
fail:
	bpf_object__close(sp->obj);
	sp->obj = NULL;
	return err;
}

int steer_set_flags(struct steer_prog *sp, uint32_t flags)
{
	struct steer_conf conf;
	uint32_t zero = 0;
	int fd = sp->obj ? bpf_object__find_map_fd_by_name(sp->obj, "conf_map")
			 : -1;

	if (fd < 0)
		return -EINVAL;
	if (bpf_map_lookup_elem(fd, &zero, &conf))
		return -errno;
	conf.flags = flags;
	return bpf_map_update_elem(fd, &zero, &conf, 0) ? -errno : 0;
}

int steer_detach_left(int ifindex, const char *ifname, uint32_t *flags,
		      char *msg, size_t msglen)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts);
	char name[BPF_OBJ_NAME_LEN];
	struct steer_conf conf = {0};
	uint32_t id = 0, mode = 0;
	int err, fd;

	*flags = 0;
	err = attached_prog(ifindex, &id, name, sizeof(name), &mode);
	if (err) {
		snprintf(msg, msglen, "%s: cannot query XDP state: %s", ifname,
			 strerror(-err));
		return err;
	}
	if (!id) {
		snprintf(msg, msglen, "%s: no XDP program attached", ifname);
		return 0;
	}
	if (strcmp(name, STEER_PROG_NAME)) {
		snprintf(msg, msglen,
			 "%s: XDP program '%s' (id %u) is not xdplane's; left "
			 "attached",
			 ifname, name, id);
		return 0;
	}
	if (!prog_conf(id, &conf))
		*flags = conf.flags;
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0) {
		err = -errno;
		snprintf(msg, msglen, "%s: cannot open XDP program id %u: %s",
			 ifname, id, strerror(-err));
		return err;
	}
	/* only that program: not one attached in the meantime */
	opts.old_prog_fd = fd;
	err = bpf_xdp_detach(ifindex, mode | XDP_FLAGS_REPLACE, &opts);
	close(fd);
	if (err) {
		snprintf(msg, msglen,
			 "%s: cannot detach xdplane's XDP program "
			 "(id %u): %s",
			 ifname, id, strerror(-err));
		return err;
	}
	snprintf(msg, msglen,
		 "%s: xdplane's XDP program (id %u, %s mode) "
		 "detached",
		 ifname, id, mode == XDP_FLAGS_SKB_MODE ? "generic" : "native");
	return 1;
}

void steer_unbind_all(struct steer_prog *sp)
{
	for (uint32_t q = 0; sp->xsks_map_fd >= 0 && q < STEER_MAX_QUEUES; q++)
		bpf_map_delete_elem(sp->xsks_map_fd, &q);
}

void steer_detach(struct steer_prog *sp)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = sp->prog_fd);

	if (sp->attached) {
		/* Only if it is still ours: never remove someone else's. */
		if (bpf_xdp_detach(sp->ifindex,
				   sp->attach_flags | XDP_FLAGS_REPLACE, &opts))
			log_warn("ifindex %d: XDP detach: %s", sp->ifindex,
				 strerror(errno));
		sp->attached = false;
	}
	if (sp->obj)
		bpf_object__close(sp->obj);
	sp->obj = NULL;
}

int steer_read_verdicts(const struct steer_prog *sp, uint64_t out[STEER_V_MAX])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals;

	memset(out, 0, sizeof(uint64_t) * STEER_V_MAX);
	if (ncpu <= 0 || sp->verdicts_fd < 0)
		return -EINVAL;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (uint32_t k = 0; k < STEER_V_MAX; k++) {
		if (bpf_map_lookup_elem(sp->verdicts_fd, &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[k] += vals[c];
	}
	free(vals);
	return 0;
}

int steer_read_nosock(const struct steer_prog *sp,
		      uint64_t out[STEER_NOSOCK_SLOTS])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals;

	memset(out, 0, sizeof(uint64_t) * STEER_NOSOCK_SLOTS);
	if (ncpu <= 0 || sp->nosock_fd < 0)
		return -EINVAL;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (uint32_t k = 0; k < STEER_NOSOCK_SLOTS; k++) {
		if (bpf_map_lookup_elem(sp->nosock_fd, &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[k] += vals[c];
	}
	free(vals);
	return 0;
}
