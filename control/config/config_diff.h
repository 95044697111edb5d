/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * config_diff.h - what differs between the running configuration and a
 * newly loaded one, key by key, and whether each difference can be applied
 * live (hot) or needs a restart (cold). Live reload uses it to refuse a new
 * file with cold changes ("restart required: <keys>", nothing applied) and
 * to say what it applied.
 *
 * Keys are the YAML paths an operator reads in the file: "queues",
 * "rings.fill", "ports[0].interface", "ports[1].rate", "workers.cpus",
 * "control.metrics_listen", "log_level". Classes are named, not numbered:
 * "classes.roce.ceil", "classes.roce.ecn.kmin". Three suffixes mark what
 * happened to a whole entry:
 *   "classes.gold (added)", "classes.gold (removed)" - a rename is both;
 *   "classes.gold (moved)"  - its place in the list changed: the fewest
 *                             classes that, moved, turn the old order into
 *                             the new one (class ids follow the order, and
 *                             the dataplane maps classes by name, so this
 *                             is hot);
 *   "rules[3]"              - rule 3 differs in any way (its class is
 *                             compared by name); "rules[9] (added)" and
 *                             "rules[9] (removed)" at the end of the list.
 * "ecn" is one key while ECN is switched on or off ("classes.roce.ecn"),
 * and its four keys while it stays on. A rate and a share are different
 * values even when they come to the same bits/s on a port (ceil 10Gbit vs
 * 10% of 100Gbit): compared as stored. Each changed key is reported once
 * ("overhead", not once per port); "path" (the file name) is not a key.
 *
 * Order: all cold keys first, in file order, then the hot ones, in file
 * order. A diff holds at most CONFIG_DIFF_MAX keys; more set `truncated`.
 * The cold keys number far fewer than that (at most 46), so a truncated
 * diff still holds every cold key and n_cold is exact.
 *
 * Hot: ports[].rate, ports[].burst, overhead, classes (added, removed,
 * moved, and every key of a class but dcqcn), rules (anything),
 * default_class, malformed, dcqcn.* but dcqcn.max_flows, jobs.mode,
 * jobs.idle, log_level. Cold:
 * ports[].interface, ports[].mtu, ports[].checksum, queues, xdp_mode,
 * bind_mode, failure_mode, rings.*, umem.*, poll.*, workers.cpus,
 * classes[].dcqcn, dcqcn.max_flows, control.*, jobs.max_registered,
 * jobs.max_passive, jobs.max_hosts, jobs.max_edges, user, group.
 *
 * DCQCN classes (dcqcn: true) get their flow tables at start, so
 * everything that adds or removes one is cold, named by the class:
 * "classes.roce.dcqcn" when a class switches dcqcn on or off, and
 * "classes.roce (added)" / "classes.roce (removed)" when a class with
 * dcqcn on is added or removed -- a rename of a DCQCN class is therefore
 * cold too. Other classes added or removed stay hot; moving any class in
 * the list is hot.
 *
 * Thread safety: pure functions of their arguments. Robust against configs
 * that did not come from config_load(): counts above the array sizes are
 * clamped, names need no NUL, class ids out of range compare as "no class".
 */
#ifndef XDPLANE_CONFIG_DIFF_H
#define XDPLANE_CONFIG_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define CONFIG_DIFF_MAX 128
#define CONFIG_DIFF_KEY_MAX 96

struct config_change {
	char key[CONFIG_DIFF_KEY_MAX]; /* "classes.roce.ceil", NUL terminated */
	bool cold; /* true: needs a restart */
};

struct config_diff {
	uint32_t n; /* entries in ch[] */
	uint32_t n_cold; /* of which cold */
	bool truncated; /* more keys differed than ch[] holds (hot ones) */
	struct config_change ch[CONFIG_DIFF_MAX];
};

/* Fill *d with what differs from running to next. */
void config_diff(const struct xdplane_config *running,
		 const struct xdplane_config *next, struct config_diff *d);

/* The keys, ", "-separated ("ports[0].interface, umem.frames"): the cold
 * ones only, or all (then ", ..." ends a truncated diff). Like snprintf:
 * writes at most len bytes with the NUL, returns the length of the whole
 * text; buf may be NULL when len is 0. */
int config_diff_format(const struct config_diff *d, bool cold_only, char *buf,
		       size_t len);

/* The reload decision on a diff (running -> next): 0 if next can be
 * applied live; -1 with "restart required: <cold keys>" in err (len
 * bytes, truncated like snprintf) if a cold key changed. */
int config_reload_check(const struct config_diff *d, char *err, size_t len);

#endif
