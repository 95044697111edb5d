// SPDX-License-Identifier: BSD-2-Clause
/*
 * conn.c - see conn.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mono_clock.h"
#include "conn.h"
#include "log.h"

uint64_t conn_now_ns(void)
{
	return mono_ns();
}

static void unlink_conn(struct conn *c)
{
	struct conn_server *s = c->srv;

	if (c->prev)
		c->prev->next = c->next;
	else
		s->oldest = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		s->newest = c->prev;
	c->prev = c->next = NULL;
}

static void free_conn(struct conn *c)
{
	if (c->srv->ops->on_close)
		c->srv->ops->on_close(c);
	close(c->fd);
	free(c->in);
	free(c->out);
	free(c);
}

void conn_close(struct conn *c)
{
	if (c->dead)
		return;
	c->dead = true;
	unlink_conn(c);
	c->srv->st.open--;
	if (c->w.armed)
		evloop_cancel(c->srv->loop, &c->w); /* freed in the callback */
	else if (!c->busy)
		free_conn(c); /* else freed when its callback returns */
}

int conn_write(struct conn *c, const char *data, size_t len)
{
	char *n;

	if (c->out_off && c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	n = realloc(c->out, c->out_len + len);
	if (!n)
		return -ENOMEM;
	memcpy(n + c->out_len, data, len);
	c->out = n;
	c->out_len += len;
	return 0;
}

void conn_consume(struct conn *c, size_t n)
{
	if (n > c->in_len)
		n = c->in_len;
	memmove(c->in, c->in + n, c->in_len - n);
	c->in_len -= n;
}

static size_t unsent(const struct conn *c)
{
	return c->out_len - c->out_off;
}

/* Send what is queued; false when the connection must close. */
static bool flush_out(struct conn *c)
{
	while (unsent(c)) {
		ssize_t n = send(c->fd, c->out + c->out_off, unsent(c),
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		c->out_off += (size_t)n;
		c->last_progress_ns = conn_now_ns();
	}
	return true;
}

/* Read what is there, up to a full input buffer; false: close. */
static bool fill_in(struct conn *c)
{
	while (!c->eof && c->in_len < c->srv->in_max) {
		ssize_t n = recv(c->fd, c->in + c->in_len,
				 c->srv->in_max - c->in_len, MSG_DONTWAIT);

		if (n == 0) {
			c->eof = true;
			break;
		}
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		c->in_len += (size_t)n;
		c->last_progress_ns = conn_now_ns();
	}
	return true;
}

/* Arm for what the connection waits for, or close it. */
static void rearm(struct conn *c)
{
	unsigned int ev = 0;

	if (c->dead)
		return;
	if (unsent(c))
		ev |= POLLOUT;
	else if (c->closing || c->eof) {
		conn_close(c);
		return;
	}
	if (!c->closing && !c->eof && unsent(c) <= c->srv->out_max &&
	    c->in_len < c->srv->in_max)
		ev |= POLLIN;
	if (!ev) {
		/* input full and the protocol took nothing: it cannot make
		 * progress */
		conn_close(c);
		return;
	}
	if (evloop_arm(c->srv->loop, &c->w, ev))
		conn_close(c);
}

static void handle_event(struct conn *c, int revents)
{
	size_t before;

	if (revents < 0 || (revents & POLLERR)) {
		conn_close(c);
		return;
	}
	if (!flush_out(c)) {
		conn_close(c);
		return;
	}
	if (revents & (POLLIN | POLLHUP)) {
		before = c->in_len;
		if (!fill_in(c)) {
			conn_close(c);
			return;
		}
		if (c->in_len != before || c->eof)
			c->srv->ops->on_input(c);
		if (c->dead)
			return;
		if (!flush_out(c)) {
			conn_close(c);
			return;
		}
	}
	rearm(c);
}

static void conn_event(struct ev_watch *w, int revents)
{
	struct conn *c = w->arg;

	if (!c->dead) {
		c->busy = true;
		handle_event(c, revents);
		c->busy = false;
	}
	if (c->dead && !c->w.armed)
		free_conn(c);
}

static void accept_one(struct conn_server *s, int fd)
{
	struct conn *c = calloc(1, sizeof(*c));
	socklen_t len = sizeof(c ? c->peer : (struct ucred){0});

	if (!c || !(c->in = malloc(s->in_max))) {
		free(c);
		close(fd);
		return;
	}
	c->srv = s;
	c->fd = fd;
	c->last_progress_ns = conn_now_ns();
	c->peer.pid = -1;
	c->peer.uid = (uid_t)-1;
	c->peer.gid = (gid_t)-1;
	getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c->peer, &len);
	ev_watch_init(&c->w, fd, conn_event, c);
	c->prev = s->newest;
	if (s->newest)
		s->newest->next = c;
	else
		s->oldest = c;
	s->newest = c;
	s->st.accepted++;
	s->st.open++;
	c->busy = true;
	if (s->ops->on_accept(c)) {
		s->st.refused++;
		c->closing = true;
	}
	if (flush_out(c))
		rearm(c);
	else
		conn_close(c);
	/* over the limit: the oldest goes (never the one just accepted) */
	while (s->st.open > s->max_conns && s->oldest && s->oldest != c) {
		s->st.evicted++;
		conn_close(s->oldest);
	}
	c->busy = false;
	if (c->dead && !c->w.armed)
		free_conn(c);
}

static void listener_event(struct ev_watch *w, int revents)
{
	struct conn_server *s = w->arg;
	int fd;

	if (s->lfd < 0)
		return; /* stopped */
	for (int i = 0; i < 64; i++) {
		fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				log_warn("%s: accept: %s", s->name,
					 strerror(errno));
			break;
		}
		accept_one(s, fd);
	}
	if (evloop_arm(s->loop, &s->lw, POLLIN))
		log_err("%s: cannot wait for connections", s->name);
}

int conn_server_start(struct conn_server *s, struct evloop *loop, int lfd)
{
	s->loop = loop;
	s->lfd = lfd;
	s->oldest = s->newest = NULL;
	memset(&s->st, 0, sizeof(s->st));
	ev_watch_init(&s->lw, lfd, listener_event, s);
	return evloop_arm(loop, &s->lw, POLLIN);
}

void conn_server_stop(struct conn_server *s)
{
	while (s->oldest)
		conn_close(s->oldest);
	if (s->lfd >= 0) {
		evloop_cancel(s->loop, &s->lw);
		close(s->lfd);
		s->lfd = -1;
	}
}

bool conn_server_idle(const struct conn_server *s)
{
	return !s->oldest && !s->lw.armed;
}

void conn_server_tick(struct conn_server *s, uint64_t now_ns)
{
	struct conn *c = s->oldest, *next;

	for (; c; c = next) {
		next = c->next;
		if ((c->deadline_ns && now_ns >= c->deadline_ns) ||
		    now_ns - c->last_progress_ns >= s->idle_ns) {
			s->st.timed_out++;
			conn_close(c);
		}
	}
}
