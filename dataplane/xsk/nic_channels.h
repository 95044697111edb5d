/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nic_channels.h - a NIC's channels (what `ethtool -l` shows and
 * `ethtool -L` sets) and the start-up decision that matches them with the
 * configured number of queues.
 *
 * Why: RSS spreads flows over every RX channel the NIC has. A channel
 * without an AF_XDP socket sends its frames down the failure_mode path
 * (forwarded in the kernel unclassified and unshaped, or dropped), so the
 * gateway must run exactly as many queues as each port has channels.
 *
 * A channel count is the number of RX queues, as ethtool counts them:
 * the combined channels plus the RX-only ones (most multi-queue NICs have
 * combined channels, some RX-only ones besides; veth has RX ones only, rx
 * = its numrxqueues). 0: the driver does not say (no ETHTOOL_GCHANNELS).
 * Setting the count on a NIC with combined channels sets them and drops
 * the RX-only ones (rx 0).
 *
 * The decision, queue_plan_decide(), is a pure function (unit tested in
 * tests/unit/test_nic_channels.c); its rules:
 *   queues: auto   queues = the smaller of the two ports' counts (ports
 *                  whose driver does not say are left out; neither: 1),
 *                  at most max_queues. A port with more channels than that
 *                  is set down to it with set_channels, else refused.
 *   queues: N      a port whose count is N is fine; otherwise, with
 *                  set_channels, it is set to N (refused when N is above
 *                  its maximum), without it refused: more channels than
 *                  N leave channels without a socket, fewer leave sockets
 *                  without a queue to bind to.
 *   Both ports run the same number of queues (unit q of one port transmits
 *   on queue q of the other), so ports that differ need set_channels or
 *   an ethtool -L by the operator.
 * A refusal names the port, both counts, why, and the fixes (the config
 * change and the exact ethtool command).
 *
 * Thread: any (the control thread at start, and its stats tick).
 * Syscalls: nic_channels_get(): socket(AF_INET, SOCK_DGRAM), ioctl
 * SIOCETHTOOL (ETHTOOL_GCHANNELS), close; nic_channels_set() and
 * nic_channels_restore() also ioctl SIOCETHTOOL (ETHTOOL_SCHANNELS, needs
 * CAP_NET_ADMIN); the rest none.
 */
#ifndef XDPLANE_NIC_CHANNELS_H
#define XDPLANE_NIC_CHANNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nic_channels {
	uint32_t max_rx, max_tx, max_combined;
	uint32_t rx, tx, combined;
};

/* The NIC counts combined channels (else separate RX and TX ones). */
static inline bool nic_channels_combined(const struct nic_channels *ch)
{
	return ch->combined || (ch->max_combined && !ch->rx);
}

/* The channels RSS spreads over now: combined + RX-only; 0: unknown. */
static inline uint32_t nic_channels_count(const struct nic_channels *ch)
{
	return ch->combined + ch->rx;
}

/* The most the NIC can have; 0: unknown. */
static inline uint32_t nic_channels_max(const struct nic_channels *ch)
{
	return nic_channels_combined(ch) ? ch->max_combined : ch->max_rx;
}

/* The ethtool command that sets ifname's channel count to n, into buf:
 * "ethtool -L eth1 combined 4" ("... combined 4 rx 0" when it has RX-only
 * channels besides) or "ethtool -L veth0 rx 4 tx 4". */
void nic_channels_cmd(const struct nic_channels *ch, const char *ifname,
		      uint32_t n, char *buf, size_t len);

/* Read ifname's channels: 0, or -errno (-EOPNOTSUPP: the driver does not
 * say; *ch is then zero). */
int nic_channels_get(const char *ifname, struct nic_channels *ch);

/* Set ifname's channel count to n (combined and rx 0, or rx and tx), the
 * rest as in cur: 0 or -errno. */
int nic_channels_set(const char *ifname, const struct nic_channels *cur,
		     uint32_t n);

/* Put ifname's combined, RX and TX channels back to what `was` read
 * (nic_channels_get() before a nic_channels_set()): 1 when they were
 * set, 0 when they already were so, or -errno. */
int nic_channels_restore(const char *ifname, const struct nic_channels *was);

#define QUEUE_PLAN_PORTS 2

struct queue_plan_in {
	uint32_t queues; /* configured; 0: auto */
	bool set_channels; /* queues_set_channels */
	uint32_t max_queues; /* the most the gateway can run */
	const char *name[QUEUE_PLAN_PORTS];
	struct nic_channels ch[QUEUE_PLAN_PORTS]; /* all zero: unknown */
};

struct queue_plan {
	uint32_t queues; /* to run, per port */
	uint32_t set_to[QUEUE_PLAN_PORTS]; /* set the channels to; 0: leave */
	char note[256]; /* for the log: an unknown count, ""; never an error */
};

/* Decide. 0 and *out, or -EINVAL and a one-line reason with its fixes in
 * err (out->queues then 0). Pure: any thread, no syscalls. */
int queue_plan_decide(const struct queue_plan_in *in, struct queue_plan *out,
		      char *errbuf, size_t errlen);

#endif
