// SPDX-License-Identifier: BSD-2-Clause
/*
 * nic_channels.c - a NIC's channel count (ETHTOOL_GCHANNELS and
 * ETHTOOL_SCHANNELS, what ethtool -l and -L use) and the decision that
 * matches it with the configured queues; see nic_channels.h.
 */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include "nic_channels.h"

void nic_channels_cmd(const struct nic_channels *ch, const char *ifname,
		      uint32_t n, char *buf, size_t len)
{
	if (nic_channels_combined(ch))
		snprintf(buf, len, "ethtool -L %s combined %u%s", ifname, n,
			 ch->rx ? " rx 0" : "");
	else
		snprintf(buf, len, "ethtool -L %s rx %u tx %u", ifname, n, n);
}

static int channels_ioctl(const char *ifname, struct ethtool_channels *ec)
{
	struct ifreq ifr = {0};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int err = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)ec;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		err = -errno;
	close(fd);
	return err;
}

int nic_channels_get(const char *ifname, struct nic_channels *ch)
{
	struct ethtool_channels ec = {.cmd = ETHTOOL_GCHANNELS};
	int err = channels_ioctl(ifname, &ec);

	memset(ch, 0, sizeof(*ch));
	if (err)
		return err;
	*ch = (struct nic_channels){
		.max_rx = ec.max_rx,
		.max_tx = ec.max_tx,
		.max_combined = ec.max_combined,
		.rx = ec.rx_count,
		.tx = ec.tx_count,
		.combined = ec.combined_count,
	};
	return nic_channels_count(ch) ? 0 : -EOPNOTSUPP;
}

int nic_channels_set(const char *ifname, const struct nic_channels *cur,
		     uint32_t n)
{
	struct ethtool_channels ec = {.cmd = ETHTOOL_GCHANNELS};
	int err = channels_ioctl(ifname, &ec);

	if (err)
		return err;
	ec.cmd = ETHTOOL_SCHANNELS; /* "other" channels stay as they are */
	if (nic_channels_combined(cur)) {
		ec.combined_count = n; /* the RX queues: combined + rx */
		ec.rx_count = 0;
	} else {
		ec.rx_count = n;
		if (ec.tx_count)
			ec.tx_count = n;
	}
	return channels_ioctl(ifname, &ec);
}

int nic_channels_restore(const char *ifname, const struct nic_channels *was)
{
	struct ethtool_channels ec = {.cmd = ETHTOOL_GCHANNELS};
	int err = channels_ioctl(ifname, &ec);

	if (err)
		return err;
	if (ec.rx_count == was->rx && ec.tx_count == was->tx &&
	    ec.combined_count == was->combined)
		return 0;
	ec.cmd = ETHTOOL_SCHANNELS; /* "other" channels stay as they are */
	ec.rx_count = was->rx;
	ec.tx_count = was->tx;
	ec.combined_count = was->combined;
	err = channels_ioctl(ifname, &ec);
	return err ? err : 1;
}

__attribute__((format(printf, 3, 4))) static int
refuse(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void note(struct queue_plan *out, const char *name, uint32_t queues)
{
	size_t len = strlen(out->note);

	snprintf(out->note + len, sizeof(out->note) - len,
		 "%s%s: the driver does not report its channels (ethtool -l): "
		 "running %u queue%s; frames on any other RX queue are "
		 "counted as rx_no_socket",
		 len ? "; " : "", name, queues, queues > 1 ? "s" : "");
}

/* queues: N on a port with m channels, set_channels off. */
static int refuse_explicit(const struct queue_plan_in *in, int i, uint32_t m,
			   char *errbuf, size_t errlen)
{
	const struct nic_channels *ch = &in->ch[i];
	uint32_t q = in->queues, max = nic_channels_max(ch);
	char cmd[80];

	nic_channels_cmd(ch, in->name[i], q, cmd, sizeof(cmd));
	if (m > q)
		return refuse(errbuf, errlen,
			      "%s has %u RX channels but queues is %u: RSS "
			      "would spread flows over %u channel%s without "
			      "an AF_XDP socket, whose frames take the "
			      "failure_mode path unclassified and unshaped; "
			      "set queues: auto (%u), or queues_set_channels: "
			      "true to make it %u, or run '%s'",
			      in->name[i], m, q, m - q, m - q > 1 ? "s" : "", m,
			      q, cmd);
	if (max && max < q)
		return refuse(errbuf, errlen,
			      "%s has %u RX channels but queues is %u, and "
			      "the NIC allows at most %u: no AF_XDP socket can "
			      "be bound to a queue the NIC does not have; set "
			      "queues: auto (%u), or queues: %u or less",
			      in->name[i], m, q, max, m, max);
	return refuse(errbuf, errlen,
		      "%s has %u RX channels but queues is %u: no AF_XDP "
		      "socket can be bound to a queue the NIC does not have; "
		      "set queues: auto (%u), or queues_set_channels: true to "
		      "make it %u, or run '%s'",
		      in->name[i], m, q, m, q, cmd);
}

static int decide_explicit(const struct queue_plan_in *in,
			   struct queue_plan *out, char *errbuf, size_t errlen)
{
	uint32_t q = in->queues;

	if (q < 1 || q > in->max_queues)
		return refuse(errbuf, errlen,
			      "queues: must be between 1 and %u (got %u)",
			      in->max_queues, q);
	for (int i = 0; i < QUEUE_PLAN_PORTS; i++) {
		const struct nic_channels *ch = &in->ch[i];
		uint32_t m = nic_channels_count(ch), max = nic_channels_max(ch);

		if (!m) {
			note(out, in->name[i], q);
			continue;
		}
		if (m == q)
			continue;
		if (!in->set_channels)
			return refuse_explicit(in, i, m, errbuf, errlen);
		if (max && q > max)
			return refuse(errbuf, errlen,
				      "%s allows at most %u RX channels "
				      "(ethtool -l %s) but queues is %u: set "
				      "queues: %u or less, or auto",
				      in->name[i], max, in->name[i], q, max);
		out->set_to[i] = q;
	}
	out->queues = q;
	return 0;
}

static int decide_auto(const struct queue_plan_in *in, struct queue_plan *out,
		       char *errbuf, size_t errlen)
{
	uint32_t m[QUEUE_PLAN_PORTS], q = 0;
	char cmd[80];

	for (int i = 0; i < QUEUE_PLAN_PORTS; i++) {
		m[i] = nic_channels_count(&in->ch[i]);
		if (m[i] && (!q || m[i] < q))
			q = m[i];
	}
	if (!q)
		q = 1;
	if (q > in->max_queues)
		q = in->max_queues;
	for (int i = 0; i < QUEUE_PLAN_PORTS; i++) {
		if (!m[i]) {
			note(out, in->name[i], q);
			continue;
		}
		if (m[i] == q)
			continue;
		if (in->set_channels) {
			out->set_to[i] = q;
			continue;
		}
		nic_channels_cmd(&in->ch[i], in->name[i], q, cmd, sizeof(cmd));
		if (m[i] > in->max_queues)
			return refuse(errbuf, errlen,
				      "%s has %u RX channels, more than the "
				      "%u queues xdplane runs per port: RSS "
				      "would spread flows over %u channels "
				      "without an AF_XDP socket, whose frames "
				      "take the failure_mode path unclassified "
				      "and unshaped; set queues_set_channels: "
				      "true, or run '%s'",
				      in->name[i], m[i], in->max_queues,
				      m[i] - q, cmd);
		return refuse(errbuf, errlen,
			      "queues: auto: %s has %u RX channels and %s %u, "
			      "but both ports run the same number of queues "
			      "(%u), which would leave %u of %s's channels "
			      "without an AF_XDP socket (their frames take "
			      "the failure_mode path unclassified and "
			      "unshaped); set queues_set_channels: true, or "
			      "run '%s'",
			      in->name[i], m[i], in->name[1 - i], m[1 - i], q,
			      m[i] - q, in->name[i], cmd);
	}
	out->queues = q;
	return 0;
}

int queue_plan_decide(const struct queue_plan_in *in, struct queue_plan *out,
		      char *errbuf, size_t errlen)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (errlen)
		errbuf[0] = '\0';
	rc = in->queues ? decide_explicit(in, out, errbuf, errlen)
			: decide_auto(in, out, errbuf, errlen);
	if (rc) {
		memset(out->set_to, 0, sizeof(out->set_to));
		out->queues = 0;
	}
	return rc;
}
