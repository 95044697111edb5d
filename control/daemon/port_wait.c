// SPDX-License-Identifier: BSD-2-Clause
/*
 * port_wait.c - see port_wait.h.
 */
#include <errno.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "log.h"
#include "port_wait.h"
#include "sd_notify.h"

int port_wait_missing(const struct xdplane_config *cfg)
{
	for (int i = 0; i < CONFIG_PORTS; i++)
		if (!if_nametoindex(cfg->ports[i].interface))
			return i;
	return -1;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void notify(const struct xdplane_config *cfg, int port,
		   uint64_t waited_ms)
{
	char msg[256];

	snprintf(msg, sizeof(msg),
		 "STATUS=waiting for port %s (ports[%d].interface) to "
		 "appear: %llu s of port_wait %u s\nEXTEND_TIMEOUT_USEC=%llu",
		 cfg->ports[port].interface, port,
		 (unsigned long long)(waited_ms / 1000),
		 (cfg->port_wait_ms + 999) / 1000,
		 (unsigned long long)PORT_WAIT_EXTEND_USEC);
	sdn_notify(msg);
}

int port_wait(const struct xdplane_config *cfg)
{
	const struct timespec poll = {0, PORT_WAIT_POLL_MS * 1000000L};
	uint64_t t0 = now_ms(), waited = 0, next_log = 0, next_notify = 0;
	int port, was = -1;
	char msg[256];

	while ((port = port_wait_missing(cfg)) >= 0) {
		if (port != was) {
			if (was >= 0)
				log_info("ports[%d].interface: %s appeared "
					 "after %llu ms",
					 was, cfg->ports[was].interface,
					 (unsigned long long)waited);
			next_log = next_notify = waited;
			was = port;
		}
		if (waited >= cfg->port_wait_ms) {
			log_err("ports[%d].interface: no interface %s after "
				"port_wait %u ms; exiting with %d for the "
				"service manager to start xdplane again",
				port, cfg->ports[port].interface,
				cfg->port_wait_ms, PORT_WAIT_EXIT);
			snprintf(msg, sizeof(msg),
				 "STATUS=no port %s (ports[%d].interface) "
				 "after port_wait %u s; exiting %d to be "
				 "started again",
				 cfg->ports[port].interface, port,
				 (cfg->port_wait_ms + 999) / 1000,
				 PORT_WAIT_EXIT);
			sdn_notify(msg);
			return -ETIMEDOUT;
		}
		if (waited >= next_log) {
			log_info("ports[%d].interface: no interface %s yet; "
				 "waiting for it (%llu s of port_wait %u s)",
				 port, cfg->ports[port].interface,
				 (unsigned long long)(waited / 1000),
				 (cfg->port_wait_ms + 999) / 1000);
			next_log += PORT_WAIT_LOG_S * 1000;
		}
		if (waited >= next_notify) {
			notify(cfg, port, waited);
			next_notify += 1000;
		}
		nanosleep(&poll, NULL);
		waited = now_ms() - t0;
	}
	if (was >= 0)
		log_info("ports[%d].interface: %s appeared after %llu ms", was,
			 cfg->ports[was].interface, (unsigned long long)waited);
	return 0;
}
