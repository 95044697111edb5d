// SPDX-License-Identifier: BSD-2-Clause
/*
 * pipeline_frames.c - pipeline_bench's traffic: the mix of one burst and
 * the Ethernet/IPv4 frame of each kind (RoCEv2 CNP and data, RoCE in a
 * UDP tunnel, UDP, NFS, iSCSI, NVMe/TCP, ICMP).
 */
#include "pipeline_bench.h"

/* One burst, in arrival order: 1 cnp, 12 roce, 4 roce_tun, 3 + 2 udp, 2 + 2
 * nfs, 2 iscsi, 3 nvme, 1 icmp. */
const uint8_t mix[BURST] = {
	K_ROCE,	    K_NFS_REQ,	K_ROCE,	   K_UDP,     K_ROCE_TUN, K_ROCE,
	K_NVME,	    K_ROCE,	K_CNP,	   K_UDP_ECT, K_ROCE,	  K_ISCSI,
	K_ROCE_TUN, K_ROCE,	K_NFS_REP, K_UDP,     K_ROCE,	  K_ICMP,
	K_NVME,	    K_ROCE_TUN, K_ROCE,	   K_NFS_REQ, K_UDP_ECT,  K_ROCE,
	K_ISCSI,    K_ROCE,	K_NVME,	   K_UDP,     K_ROCE_TUN, K_NFS_REP,
	K_ROCE,	    K_ROCE,
};

/* ---- frames ---- */

static void wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void ipv4_csum(uint8_t *h)
{
	uint32_t sum = 0;

	h[10] = h[11] = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	wr16(h + 10, ~sum & 0xffff);
}

/* An Ethernet/IPv4 frame of len bytes (>= 60) of the given kind; flow
 * varies addresses and ports. */
void build_frame(uint8_t *f, uint32_t len, enum kind k, uint32_t flow)
{
	static const uint8_t dmac[6] = {0x02, 0, 0, 0, 0, 0x02};
	static const uint8_t smac[6] = {0x02, 0, 0, 0, 0, 0x01};
	uint8_t *ip = f + 14, *l4 = f + 34;
	unsigned int dscp = 0, ecn = 0, proto = IPPROTO_UDP;
	uint16_t sport = (uint16_t)(49152 + (flow & 0x3fff)), dport = 0;

	memset(f, 0, len);
	for (uint32_t i = 34; i < len; i++)
		f[i] = (uint8_t)(i * 7 + flow);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	wr16(f + 12, ETHERTYPE_IPV4);
	switch (k) {
	case K_CNP:
		dscp = 48;
		dport = ROCEV2_UDP_PORT;
		break;
	case K_ROCE:
		dscp = 26;
		ecn = 2; /* ECT(0) */
		dport = ROCEV2_UDP_PORT;
		break;
	case K_ROCE_TUN:
		dscp = 26;
		ecn = 2;
		dport = 4789;
		break;
	case K_UDP:
		dport = (uint16_t)(5000 + (flow & 0xff));
		break;
	case K_UDP_ECT:
		ecn = 2;
		dport = (uint16_t)(5000 + (flow & 0xff));
		break;
	case K_NFS_REQ:
		proto = IPPROTO_TCP;
		sport = (uint16_t)(700 + (flow & 0xff));
		dport = 2049;
		break;
	case K_NFS_REP:
		proto = IPPROTO_TCP;
		dport = sport;
		sport = 2049;
		break;
	case K_ISCSI:
		proto = IPPROTO_TCP;
		dport = 3260;
		break;
	case K_NVME:
		proto = IPPROTO_TCP;
		dport = 4420;
		break;
	case K_ICMP:
	case K_N:
		proto = IPPROTO_ICMP;
		break;
	}
	ip[0] = 0x45;
	ip[1] = (uint8_t)(dscp << 2 | ecn);
	wr16(ip + 2, len - 14);
	wr16(ip + 4, flow & 0xffff);
	wr16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = (uint8_t)proto;
	ip[12] = 10;
	ip[13] = 1;
	ip[14] = (uint8_t)(flow >> 8);
	ip[15] = (uint8_t)flow;
	ip[16] = 10;
	ip[17] = 2;
	ip[18] = 0;
	ip[19] = (uint8_t)(1 + flow % 200);
	ipv4_csum(ip);
	if (proto == IPPROTO_UDP) {
		wr16(l4, sport);
		wr16(l4 + 2, dport);
		wr16(l4 + 4, len - 34);
		wr16(l4 + 6, 0);
		if (dport == ROCEV2_UDP_PORT) {
			uint8_t *bth = l4 + 8;

			/* CNP, or RC RDMA WRITE only */
			bth[0] = k == K_CNP ? BTH_OPCODE_CNP : 0x0a;
			bth[1] = 0;
			wr16(bth + 2, 0xffff); /* P_Key */
			bth[5] = (uint8_t)(flow >> 16); /* dest QP */
			wr16(bth + 6, flow & 0xffff);
			bth[8] = 0x80; /* AckReq */
			wr16(bth + 10, flow & 0xffff); /* PSN */
		}
	} else if (proto == IPPROTO_TCP) {
		wr16(l4, sport);
		wr16(l4 + 2, dport);
		wr16(l4 + 4, flow);
		l4[12] = 0x50; /* data offset 5 */
		l4[13] = 0x10; /* ACK */
		wr16(l4 + 14, 0xffff);
	} else {
		l4[0] = 8; /* echo request */
		wr16(l4 + 4, flow & 0xffff);
	}
}
