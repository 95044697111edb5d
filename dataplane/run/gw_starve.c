// SPDX-License-Identifier: BSD-2-Clause
/*
 * gw_starve.c - starved AF_XDP sockets: gateway_watch_starve() (gateway.h)
 * samples every socket and feeds its detector (xsk/xsk_starve.h), logs
 * and kicks. Control thread only: it reads the RX tasks' single-writer
 * counters, the fill rings' shared indices and the kernel's counters;
 * it writes only the detectors in struct gw_port.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "gw_internal.h"
#include "log.h"

/* A counter of /sys/class/net/<ifname>/statistics; 0 if unreadable. */
static uint64_t dev_stat(const char *ifname, const char *name)
{
	char path[128], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", ifname,
		 name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

/* Frames the port's device dropped on receive: no buffer, FIFO overrun,
 * or dropped by the driver. */
static uint64_t dev_drops(const char *ifname)
{
	return dev_stat(ifname, "rx_missed_errors") +
	       dev_stat(ifname, "rx_fifo_errors") +
	       dev_stat(ifname, "rx_over_errors") +
	       dev_stat(ifname, "rx_dropped");
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static void report(struct gateway *gw, int port, uint32_t q,
		   enum xsk_starve_action act, uint64_t now)
{
	struct gw_port *p = &gw->port[port];
	const struct xsk_starve *s = &p->starve[q];
	const char *mode = p->q[q].zerocopy ? "zero-copy" : "copy";

	switch (act) {
	case XSK_STARVE_BEGAN:
		log_err("port %s queue %u (%s): AF_XDP socket starved: nothing "
			"received for %.1f s while %u frames wait on its fill "
			"ring, none taken by the kernel (consumer index %u); "
			"driver asks to be woken: %s, frames the socket lost: "
			"%llu, the device dropped: %llu; waking the driver "
			"(health: rx_starved)",
			p->name, q, mode, secs(now - s->ev.since_ns),
			s->ev.posted, s->ev.fill_cons,
			s->ev.need_wakeup ? "yes" : "no",
			(unsigned long long)s->ev.xsk_lost,
			(unsigned long long)s->ev.dev_drops);
		break;
	case XSK_STARVE_GAVE_UP:
		log_err("port %s queue %u (%s): AF_XDP socket still starved "
			"after %.0f s and %llu wake-ups: %s (%u frames "
			"untaken on the fill ring, frames the socket lost: "
			"%llu, the device dropped: %llu); restart xdplane to "
			"bind the socket again",
			p->name, q, mode, secs(now - s->starved_at),
			(unsigned long long)s->kicks,
			s->kicks ? "waking the driver does not help"
				 : "wake-ups withheld "
				   "(XDPLANE_TEST_STARVE_NOKICK)",
			s->ev.posted, (unsigned long long)s->ev.xsk_lost,
			(unsigned long long)s->ev.dev_drops);
		break;
	case XSK_STARVE_ENDED:
		log_notice("port %s queue %u (%s): AF_XDP socket receives "
			   "again (%s) after %.1f s starved, %llu wake-ups in "
			   "all",
			   p->name, q, mode, s->why ? s->why : "?",
			   secs(now - s->starved_at),
			   (unsigned long long)s->kicks);
		break;
	default:
		break;
	}
}

uint32_t gateway_watch_starve(struct gateway *gw, uint64_t now_ns)
{
	struct xsk_starve_sample x = {.now_ns = now_ns};
	struct xsk_rx_state rs;
	struct xdp_statistics st;
	enum xsk_starve_action act;
	uint32_t starved = 0;

	if (!gw->rx)
		return 0;
	for (int port = 0; port < GW_PORTS; port++) {
		struct gw_port *p = &gw->port[port];
		uint64_t port_rx = 0;

		for (uint32_t q = 0; q < gw->p.queues; q++)
			port_rx += ctr_read(
				&gw->rx[gw_unit(gw, port, q)].ctr.packets);
		x.port_rx_packets = port_rx;
		x.dev_drops = dev_drops(p->name);
		for (uint32_t q = 0; q < gw->p.queues; q++) {
			struct xsk_starve *s = &p->starve[q];

			if (!p->q[q].xsk)
				continue;
			x.rx_packets = ctr_read(
				&gw->rx[gw_unit(gw, port, q)].ctr.packets);
			xsk_queue_rx_state(&p->q[q], &rs);
			x.fill_prod = rs.fill_prod;
			x.fill_cons = rs.fill_cons;
			x.need_wakeup = rs.need_wakeup;
			x.rx_pending = rs.rx_pending;
			x.xsk_lost = 0;
			if (!xsk_queue_stats(&p->q[q], &st))
				x.xsk_lost = st.rx_dropped + st.rx_ring_full +
					     st.rx_fill_ring_empty_descs;
			act = xsk_starve_update(s, &x);
			report(gw, port, q, act, now_ns);
			if (act == XSK_STARVE_BEGAN || act == XSK_STARVE_KICK ||
			    act == XSK_STARVE_GAVE_UP) {
				if (!(p->q[q].mute &&
				      gw->p.test_starve_nokick)) {
					xsk_queue_kick(&p->q[q]);
					s->kicks++;
				}
			}
			starved += xsk_starve_is_starved(s);
		}
	}
	return starved;
}
