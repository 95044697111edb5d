// SPDX-License-Identifier: BSD-2-Clause
/*
 * metrics_server.c - see metrics_server.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "http_req.h"
#include "log.h"
#include "metrics_server.h"

#define METRICS_DEADLINE_NS (10 * 1000000000ull)
#define METRICS_IDLE_NS (5 * 1000000000ull)
#define METRICS_MAX_CONNS 64
#define METRICS_OUT_MAX (16u << 20)

static int metrics_accept(struct conn *c)
{
	c->deadline_ns = conn_now_ns() + METRICS_DEADLINE_NS;
	return 0;
}

static void answer(struct conn *c, const struct http_req *req, int status)
{
	struct metrics_server *m = c->srv->ctx;
	struct http_reply r = {0};

	if (!http_respond(req, status, m->take, m->release, m->ctx, &r))
		conn_write(c, r.data, r.len);
	free(r.data);
	c->closing = true; /* one request per connection */
}

static void metrics_input(struct conn *c)
{
	struct http_req req;

	switch (http_req_parse(c->in, c->in_len, &req)) {
	case HTTP_DONE:
		answer(c, &req, 0);
		break;
	case HTTP_BAD:
		answer(c, NULL, req.status);
		break;
	case HTTP_NEED_MORE:
		if (c->eof)
			c->closing = true; /* gave up half way */
		break;
	}
	if (c->closing)
		conn_consume(c, c->in_len);
}

static const struct conn_ops metrics_ops = {
	.on_accept = metrics_accept,
	.on_input = metrics_input,
};

static void addr_text(const struct sockaddr *sa, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, ip, sizeof(ip));
		snprintf(buf, len, "[%s]:%u", ip, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, ntohs(s4->sin_port));
	}
}

int metrics_server_open(struct metrics_server *m, struct evloop *loop,
			const struct sockaddr *addr, socklen_t addrlen,
			struct stats_snapshot *(*take)(void *ctx),
			void (*release)(void *ctx, struct stats_snapshot *s),
			void *ctx, char *err, size_t errlen)
{
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);
	char text[80];
	int fd, rc, one = 1;

	memset(m, 0, sizeof(*m));
	addr_text(addr, text, sizeof(text));
	fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, addr, addrlen) || listen(fd, 128) ||
	    getsockname(fd, (struct sockaddr *)&bound, &blen)) {
		rc = -errno;
		snprintf(err, errlen, "metrics listener %s: %s", text,
			 strerror(-rc));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	m->take = take;
	m->release = release;
	m->ctx = ctx;
	m->cs.name = "metrics listener";
	m->cs.ops = &metrics_ops;
	m->cs.ctx = m;
	m->cs.in_max = HTTP_REQ_MAX;
	m->cs.out_max = METRICS_OUT_MAX;
	m->cs.max_conns = METRICS_MAX_CONNS;
	m->cs.idle_ns = METRICS_IDLE_NS;
	rc = conn_server_start(&m->cs, loop, fd);
	if (rc) {
		snprintf(err, errlen, "metrics listener: event loop full");
		close(fd);
		return rc;
	}
	m->open = true;
	addr_text((struct sockaddr *)&bound, text, sizeof(text));
	log_info("metrics: http://%s/metrics", text);
	return 0;
}

void metrics_server_close(struct metrics_server *m)
{
	if (!m->open)
		return;
	conn_server_stop(&m->cs);
	m->open = false;
}
