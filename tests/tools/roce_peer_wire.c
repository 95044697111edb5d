// SPDX-License-Identifier: BSD-2-Clause
/*
 * roce_peer_wire.c - roce_peer's wire format: endpoints and their socket
 * addresses, the pseudo IP / UDP headers the ICRC covers and the sealing of
 * a payload, and the payloads it sends (data, ACK, CNP).
 */
#include "roce_peer.h"

/* ---- addresses and the pseudo headers the ICRC covers ---- */

bool ep_equal_addr(const struct endpoint *a, const struct endpoint *b)
{
	return a->family == b->family && !memcmp(a->addr, b->addr, 16);
}

/* From a socket address; an IPv4-mapped IPv6 address becomes IPv4. */
void ep_from_sa(const struct sockaddr_storage *ss, struct endpoint *e)
{
	memset(e, 0, sizeof(*e));
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		e->family = 4;
		memcpy(e->addr, &s4->sin_addr, 4);
		e->port = ntohs(s4->sin_port);
	} else {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		e->port = ntohs(s6->sin6_port);
		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
			e->family = 4;
			memcpy(e->addr, s6->sin6_addr.s6_addr + 12, 4);
		} else {
			e->family = 6;
			memcpy(e->addr, &s6->sin6_addr, 16);
		}
	}
}

/* To a socket address of the socket's family (IPv4 on an IPv6 socket:
 * mapped). scope: IPv6 scope id for link-local peers. */
socklen_t ep_to_sa(const struct endpoint *e, int sock_family, uint32_t scope,
		   struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (sock_family == AF_INET) {
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, e->addr, 4);
		s4->sin_port = htons(e->port);
		return sizeof(*s4);
	}
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(e->port);
	s6->sin6_scope_id = scope;
	if (e->family == 4) {
		s6->sin6_addr.s6_addr[10] = 0xff;
		s6->sin6_addr.s6_addr[11] = 0xff;
		memcpy(s6->sin6_addr.s6_addr + 12, e->addr, 4);
	} else {
		memcpy(&s6->sin6_addr, e->addr, 16);
	}
	return sizeof(*s6);
}

const char *ep_str(const struct endpoint *e, char *buf, size_t n)
{
	if (!inet_ntop(e->family == 4 ? AF_INET : AF_INET6, e->addr, buf,
		       (socklen_t)n))
		snprintf(buf, n, "?");
	return buf;
}

size_t l2_l4_len(int family)
{
	return family == 4 ? 42 : 62; /* Ethernet 14 + IP + UDP 8 */
}

size_t pseudo_hdr_len(int family)
{
	return roce_udp_pseudo_len(family);
}

void wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static struct roce_udp_ep udp_ep(const struct endpoint *e)
{
	struct roce_udp_ep u = {.family = e->family, .port = e->port};

	memcpy(u.addr, e->addr, sizeof(u.addr));
	return u;
}

/* The IP + UDP header as the ICRC sees it (roce_udp.h). */
void write_pseudo_hdr(uint8_t *h, const struct endpoint *src,
		      const struct endpoint *dst, size_t n)
{
	struct roce_udp_ep s = udp_ep(src), d = udp_ep(dst);

	roce_udp_pseudo_hdr(h, &s, &d, n);
}

/*
 * Fill the last 4 bytes of the UDP payload p[0..n) with its ICRC. p must
 * have RP_HEADROOM writable bytes before it (the pseudo header goes there).
 */
bool icrc_seal(uint8_t *p, size_t n, const struct endpoint *src,
	       const struct endpoint *dst)
{
	struct roce_udp_ep s = udp_ep(src), d = udp_ep(dst);

	return roce_udp_seal(p, n, &s, &d);
}

/* ---- reply payloads (receiver) ---- */

size_t build_ack(uint8_t *p, uint32_t dqpn, uint32_t psn, uint32_t msn)
{
	bth_write(p, BTH_OP_RC_ACK, ROCE_PKEY_DEFAULT, dqpn, psn, 0);
	p[BTH_LEN] = ROCE_AETH_SYNDROME_ACK;
	p[BTH_LEN + 1] = (uint8_t)(msn >> 16);
	wr16(p + BTH_LEN + 2, msn);
	return RP_ACK_LEN;
}

size_t build_cnp_payload(uint8_t *p, uint32_t dqpn)
{
	bth_write(p, BTH_OP_CNP, ROCE_PKEY_DEFAULT, dqpn, 0, BTH_W_BECN);
	memset(p + BTH_LEN, 0, ROCE_CNP_PAD_LEN);
	return RP_CNP_LEN;
}

/* Payload layout of a data packet; the sequence number after the headers
 * when it fits. */
void build_data(uint8_t *p, size_t n, uint8_t opcode, uint32_t dqpn,
		uint64_t seq, bool ackreq)
{
	size_t off = BTH_LEN;

	bth_write(p, opcode, ROCE_PKEY_DEFAULT, dqpn, (uint32_t)seq,
		  BTH_W_MIGREQ | (ackreq ? BTH_W_ACKREQ : 0));
	if (opcode == BTH_OP_RC_WRITE_ONLY) {
		uint32_t dma_len =
			(uint32_t)(n - BTH_LEN - ROCE_RETH_LEN - ROCE_ICRC_LEN);

		memset(p + off, 0, 12); /* virtual address, R_Key */
		nu_put_be32(p + off + 12, dma_len);
		off += ROCE_RETH_LEN;
	}
	if (off + 8 + ROCE_ICRC_LEN <= n) {
		nu_put_be32(p + off, (uint32_t)(seq >> 32));
		nu_put_be32(p + off + 4, (uint32_t)seq);
	}
}
