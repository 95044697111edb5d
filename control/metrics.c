// SPDX-License-Identifier: BSD-2-Clause
/*
 * metrics.c - Prometheus text exposition of a stats_snapshot. The metric
 * set, naming rules and special values are documented in metrics.h.
 *
 * Structure: one function per group of families (process, config, port,
 * queue, class, histogram); each family is written by one loop so its
 * samples stay contiguous. Per-queue and per-class counters come from
 * tables of (name, help, field offset) so a new counter is one table line.
 *
 * Output errors are not checked per line: the stream's error flag is
 * sticky, metrics_render() checks it once at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "metrics.h"
#include "snapshot.h"
#include "steer_prog.h"

/* Longest label set of any family (port, queue, reason / le ...). */
#define MAX_LABELS 4

struct label {
	const char *key;
	const char *value; /* NULL renders as "" */
	size_t max; /* read at most this many bytes of value */
};

/* A label value from a NUL-terminated string of unknown length. */
#define LABEL(k, v) ((struct label){.key = (k), .value = (v), .max = SIZE_MAX})
/* A label value from a fixed-size char array, maybe not NUL-terminated. */
#define LABEL_ARRAY(k, arr)                                                    \
	((struct label){.key = (k), .value = (arr), .max = sizeof(arr)})

/* Length of a valid UTF-8 sequence at s[0..n), 0 if it is not one
 * (overlong forms, surrogates and code points above U+10FFFF included). */
static size_t utf8_sequence_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static void put_label_value(FILE *out, const char *value, size_t max)
{
	const unsigned char *s = (const unsigned char *)(value ? value : "");
	size_t n = strnlen((const char *)s, max);

	for (size_t i = 0; i < n;) {
		size_t len = utf8_sequence_len(s + i, n - i);

		if (len == 0) {
			fputs("\xef\xbf\xbd", out); /* U+FFFD */
			i++;
			continue;
		}
		if (s[i] == '\\')
			fputs("\\\\", out);
		else if (s[i] == '"')
			fputs("\\\"", out);
		else if (s[i] == '\n')
			fputs("\\n", out);
		else
			fwrite(s + i, 1, len, out);
		i += len;
	}
}

/* "NaN", "+Inf", "-Inf" or the shortest %g that reads back exactly. */
static void format_double(char *buf, size_t size, double v)
{
	if (isnan(v)) {
		snprintf(buf, size, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, size, "%s", v > 0 ? "+Inf" : "-Inf");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

static void family(FILE *out, const char *name, const char *type,
		   const char *help)
{
	/* help texts are constants of this file: no \ or newline to escape */
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sample_name(FILE *out, const char *name, const struct label *l,
			size_t n)
{
	fputs(name, out);
	if (!n)
		return;
	fputc('{', out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s%s=\"", i ? "," : "", l[i].key);
		put_label_value(out, l[i].value, l[i].max);
		fputc('"', out);
	}
	fputc('}', out);
}

static void sample_u64(FILE *out, const char *name, const struct label *l,
		       size_t n, uint64_t v)
{
	sample_name(out, name, l, n);
	fprintf(out, " %" PRIu64 "\n", v);
}

static void sample_double(FILE *out, const char *name, const struct label *l,
			  size_t n, double v)
{
	char buf[40];

	format_double(buf, sizeof(buf), v);
	sample_name(out, name, l, n);
	fprintf(out, " %s\n", buf);
}

/* bits/s as bytes/s, exact: "+Inf" for 0 when zero_is_unlimited. */
static void sample_rate(FILE *out, const char *name, const struct label *l,
			size_t n, uint64_t bits_per_second,
			int zero_is_unlimited)
{
	unsigned int frac = (unsigned int)(bits_per_second % 8) * 125;
	int digits = 3;

	sample_name(out, name, l, n);
	if (!bits_per_second && zero_is_unlimited) {
		fputs(" +Inf\n", out);
		return;
	}
	fprintf(out, " %" PRIu64, bits_per_second / 8);
	if (frac) {
		while (frac % 10 == 0)
			frac /= 10, digits--;
		fprintf(out, ".%0*u", digits, frac);
	}
	fputc('\n', out);
}

static uint32_t port_queues(const struct snap_port *p)
{
	return p->n_queues < GW_MAX_QUEUES ? p->n_queues : GW_MAX_QUEUES;
}

static uint32_t port_classes(const struct snap_port *p)
{
	return p->n_classes < QOS_MAX_CLASSES ? p->n_classes : QOS_MAX_CLASSES;
}

static uint64_t field_u64(const void *base, size_t offset)
{
	uint64_t v;

	memcpy(&v, (const char *)base + offset, sizeof(v));
	return v;
}

static void render_process(FILE *out, const struct stats_snapshot *s)
{
	struct utsname u;
	struct label l[2];

	if (uname(&u))
		u.release[0] = '\0';
	family(out, "xdplane_build_info", "gauge",
	       "Always 1; the daemon version and the running kernel release.");
	l[0] = LABEL("version", s->version);
	l[1] = LABEL_ARRAY("kernel", u.release);
	sample_u64(out, "xdplane_build_info", l, 2, 1);

	family(out, "xdplane_start_time_seconds", "gauge",
	       "Start time of the process, seconds since the Unix epoch.");
	sample_double(out, "xdplane_start_time_seconds", NULL, 0,
		      s->start_unix);
	family(out, "xdplane_uptime_seconds", "gauge",
	       "Seconds since the process started.");
	sample_double(out, "xdplane_uptime_seconds", NULL, 0, s->uptime_s);

	family(out, "xdplane_workers", "gauge", "Worker threads running.");
	sample_u64(out, "xdplane_workers", NULL, 0, s->n_workers);
	family(out, "xdplane_umem_frames", "gauge",
	       "Frames in the shared UMEM.");
	sample_u64(out, "xdplane_umem_frames", NULL, 0, s->umem_frames);
	family(out, "xdplane_max_frame_bytes", "gauge",
	       "Largest frame a socket can receive.");
	sample_u64(out, "xdplane_max_frame_bytes", NULL, 0, s->max_frame);
	family(out, "xdplane_multibuf", "gauge",
	       "1 when AF_XDP multi-buffer is on: frames larger than one UMEM "
	       "frame cross as chains of frames.");
	sample_u64(out, "xdplane_multibuf", NULL, 0, s->multibuf);
	family(out, "xdplane_max_frags", "gauge",
	       "UMEM frames a packet may take, at most (1: single-buffer).");
	sample_u64(out, "xdplane_max_frags", NULL, 0, s->max_frags);
}

static void render_config(FILE *out, const struct snap_reload *r)
{
	family(out, "xdplane_config_generation", "gauge",
	       "Generation of the running configuration: 1 at start, +1 per "
	       "applied reload.");
	sample_u64(out, "xdplane_config_generation", NULL, 0, r->generation);
	family(out, "xdplane_config_last_reload_successful", "gauge",
	       "1 if the last reload attempt was applied (1 at start).");
	sample_u64(out, "xdplane_config_last_reload_successful", NULL, 0,
		   r->last_successful ? 1 : 0);
	family(out, "xdplane_config_last_reload_success_timestamp_seconds",
	       "gauge",
	       "When the running configuration was applied, seconds since the "
	       "Unix epoch.");
	sample_double(out,
		      "xdplane_config_last_reload_success_timestamp_seconds",
		      NULL, 0, r->last_success_unix);
	family(out, "xdplane_config_reloads_total", "counter",
	       "Reloads asked for (SIGHUP or control API), applied or not.");
	sample_u64(out, "xdplane_config_reloads_total", NULL, 0,
		   r->attempts_total);
	family(out, "xdplane_config_reload_failures_total", "counter",
	       "Reloads refused: invalid file or a change that needs a "
	       "restart.");
	sample_u64(out, "xdplane_config_reload_failures_total", NULL, 0,
		   r->failures_total);
}

static void render_ports(FILE *out, const struct stats_snapshot *s)
{
	struct label l[4];

	family(out, "xdplane_port_info", "gauge",
	       "Always 1; how the port is attached and what happens without "
	       "the daemon.");
	for (int p = 0; p < GW_PORTS; p++) {
		l[0] = LABEL_ARRAY("port", s->ports[p].ifname);
		l[1] = LABEL("xdp_mode", s->xdp_mode);
		l[2] = LABEL("bind_mode", s->bind_mode);
		l[3] = LABEL("failure_mode", s->failure_mode);
		sample_u64(out, "xdplane_port_info", l, 4, 1);
	}

	family(out, "xdplane_port_rate_bytes_per_second", "gauge",
	       "Egress shaper rate of the port; +Inf when unshaped.");
	for (int p = 0; p < GW_PORTS; p++) {
		l[0] = LABEL_ARRAY("port", s->ports[p].ifname);
		sample_rate(out, "xdplane_port_rate_bytes_per_second", l, 1,
			    s->ports[p].rate_bps, 1);
	}

	family(out, "xdplane_xdp_verdicts_total", "counter",
	       "Frames seen by the XDP steering program, by verdict.");
	for (int p = 0; p < GW_PORTS; p++) {
		for (int v = 0; v < STEER_V_MAX; v++) {
			l[0] = LABEL_ARRAY("port", s->ports[p].ifname);
			l[1] = LABEL("verdict", steer_verdict_name(v));
			sample_u64(out, "xdplane_xdp_verdicts_total", l, 2,
				   s->ports[p].s.verdicts[v]);
		}
	}
}

/* One u64 of struct gw_port_stats, one sample per (port, queue). */
struct queue_counter {
	const char *name;
	const char *help;
	size_t offset;
};

#define QC(n, h, field)                                                        \
	{                                                                      \
		n, h, offsetof(struct gw_port_stats, field)                    \
	}

static const struct queue_counter queue_counters[] = {
	QC("xdplane_rx_packets_total",
	   "Frames received from the AF_XDP socket of the queue.", rx_packets),
	QC("xdplane_rx_bytes_total",
	   "Bytes of the frames received from the AF_XDP socket of the queue.",
	   rx_bytes),
	QC("xdplane_tx_packets_total",
	   "Packets placed on the TX ring of the queue (submitted to the "
	   "kernel).",
	   tx_packets),
	QC("xdplane_tx_bytes_total",
	   "Bytes of the packets placed on the TX ring of the queue.",
	   tx_bytes),
	QC("xdplane_tx_completed_total",
	   "TX descriptors of the queue the kernel reported sent "
	   "(completed): one per UMEM frame, so a multi-buffer packet "
	   "counts each of its frames, and the gateway's PFC frames count "
	   "too.",
	   tx_completed),
	QC("xdplane_tx_kicks_total",
	   "sendto() calls that asked the driver to transmit.", tx_kicks),
	QC("xdplane_tx_kick_errors_total",
	   "TX kicks that failed with an error other than \"try again\".",
	   tx_kick_errors),
	QC("xdplane_fill_wakeups_total",
	   "recvfrom() calls that woke the driver to refill its fill ring.",
	   fill_wakeups),
	QC("xdplane_rx_chains_total",
	   "Multi-buffer packets (chains of UMEM frames) received on the "
	   "queue.",
	   rx_chains),
	QC("xdplane_tx_chains_total",
	   "Multi-buffer packets (chains of UMEM frames) transmitted on the "
	   "queue.",
	   tx_chains),
	QC("xdplane_foreign_frames_total",
	   "Completed frames with no owner; nonzero means a bug.",
	   foreign_frames),
	QC("xdplane_xsk_rx_dropped_total",
	   "AF_XDP socket statistic rx_dropped: frames the kernel dropped.",
	   xsk.rx_dropped),
	QC("xdplane_xsk_rx_ring_full_total",
	   "AF_XDP socket statistic rx_ring_full: drops on a full RX ring.",
	   xsk.rx_ring_full),
	QC("xdplane_xsk_fill_ring_empty_total",
	   "AF_XDP socket statistic rx_fill_ring_empty_descs: fill ring found "
	   "empty.",
	   xsk.rx_fill_ring_empty_descs),
	QC("xdplane_xsk_tx_ring_empty_total",
	   "AF_XDP socket statistic tx_ring_empty_descs: TX ring found empty.",
	   xsk.tx_ring_empty_descs),
	QC("xdplane_dcqcn_cnps_received_total",
	   "RoCEv2 CNPs received on the queue (they concern the DCQCN flows "
	   "leaving the port).",
	   dcqcn.cnps_seen),
	QC("xdplane_dcqcn_cnps_absorbed_total",
	   "Received CNPs dropped after the gateway reacted (cnp: absorb).",
	   dcqcn.cnps_absorbed),
	QC("xdplane_dcqcn_acks_received_total",
	   "RC ACKs received on the queue (they teach senders' QPNs).",
	   dcqcn.acks_seen),
	QC("xdplane_dcqcn_feedback_lost_total",
	   "CNP/ACK events lost on the way to an egress task (ring full).",
	   dcqcn.feedback_full),
	QC("xdplane_dcqcn_cnps_generated_total",
	   "CNPs the gateway built for the senders of flows leaving the port "
	   "(notification point).",
	   dcqcn.np_cnps),
	QC("xdplane_dcqcn_np_qpn_unknown_total",
	   "CNPs due but not sent: the sender's QPN is not learned yet.",
	   dcqcn.np_qpn_unknown),
	QC("xdplane_dcqcn_np_no_frame_total",
	   "CNPs due but not sent: no free frame to build one in.",
	   dcqcn.np_no_frame),
	QC("xdplane_dcqcn_np_ring_full_total",
	   "CNPs built but not sent: the other port's ring was full.",
	   dcqcn.np_out_full),
	QC("xdplane_dcqcn_np_build_failed_total",
	   "CNPs due but not sent: the frame could not be built or parsed "
	   "(a bug if ever non-zero).",
	   dcqcn.np_build_failed),
	QC("xdplane_dcqcn_flows_created_total",
	   "DCQCN flows created on the queue.", dcqcn.flows_created),
	QC("xdplane_dcqcn_flows_expired_total",
	   "DCQCN flows removed after flow_idle.", dcqcn.flows_expired),
	QC("xdplane_dcqcn_flow_table_full_total",
	   "Frames of new flows refused: the flow table was full.",
	   dcqcn.table_full),
	QC("xdplane_dcqcn_cnps_unmatched_total",
	   "Received CNPs that matched no flow.", dcqcn.cnp_unmatched),
	QC("xdplane_dcqcn_qpn_learned_total",
	   "Senders' QPNs learned from ACKs (PSN matched one flow).",
	   dcqcn.qpn_learned),
	QC("xdplane_dcqcn_qpn_ambiguous_total",
	   "ACKs whose PSN matched several flows: nothing learned.",
	   dcqcn.qpn_ambiguous),
	QC("xdplane_dcqcn_hints_total",
	   "External congestion hints taken, per DCQCN class.", dcqcn.hints),
};

/* A labelled family of (port, queue, key=value) counters. */
struct queue_variant {
	const char *value;
	size_t offset;
};

static const struct queue_variant port_drop_reasons[] = {
	{"handoff_full", offsetof(struct gw_port_stats, drop_handoff_full)},
	{"invalid_desc", offsetof(struct gw_port_stats, drop_invalid_desc)},
	{"multibuf", offsetof(struct gw_port_stats, drop_multibuf)},
	{"chain_long", offsetof(struct gw_port_stats, drop_chain_long)},
	{"chain_head", offsetof(struct gw_port_stats, drop_chain_head)},
	{"chain_room", offsetof(struct gw_port_stats, drop_chain_room)},
	{"chain_tx", offsetof(struct gw_port_stats, drop_chain_tx)},
	{"malformed", offsetof(struct gw_port_stats, drop_malformed)},
	{"port_down", offsetof(struct gw_port_stats, drop_port_down)},
};

static const struct queue_variant xsk_invalid_directions[] = {
	{"rx", offsetof(struct gw_port_stats, xsk.rx_invalid_descs)},
	{"tx", offsetof(struct gw_port_stats, xsk.tx_invalid_descs)},
};

static void queue_labels(struct label *l, char *qbuf, size_t qsize,
			 const struct snap_port *port, uint32_t i)
{
	snprintf(qbuf, qsize, "%" PRIu32, port->q[i].queue);
	l[0] = LABEL_ARRAY("port", port->ifname);
	l[1] = LABEL("queue", qbuf);
}

static void render_queue_variants(FILE *out, const struct stats_snapshot *s,
				  const char *name, const char *help,
				  const char *key,
				  const struct queue_variant *v, size_t nv)
{
	struct label l[3];
	char qbuf[16];

	family(out, name, "counter", help);
	for (int p = 0; p < GW_PORTS; p++) {
		const struct snap_port *port = &s->ports[p];

		for (uint32_t i = 0; i < port_queues(port); i++) {
			queue_labels(l, qbuf, sizeof(qbuf), port, i);
			for (size_t k = 0; k < nv; k++) {
				l[2] = LABEL(key, v[k].value);
				sample_u64(
					out, name, l, 3,
					field_u64(&port->q[i].s, v[k].offset));
			}
		}
	}
}

/* PFC (IEEE 802.1Qbb) of each port, per 802.1p priority (gateway.h
 * struct gw_pfc_stats): received on the port, sent out of it. */
struct pfc_family {
	const char *name, *help;
	size_t offset; /* of a uint64_t[8] in struct gw_pfc_stats */
	double scale;
};

#define PF(n, h, field, scale)                                                 \
	{                                                                      \
		n, h, offsetof(struct gw_pfc_stats, field), scale              \
	}

static const struct pfc_family pfc_families[] = {
	PF("xdplane_pfc_rx_total",
	   "PFC frames received on the port that name the priority.", rx, 0),
	PF("xdplane_pfc_rx_xon_total",
	   "PFC frames received on the port with time 0 (XON) for the "
	   "priority.",
	   rx_xon, 0),
	PF("xdplane_pfc_tx_xoff_total",
	   "PFC XOFF frames sent out of the port for the priority (its "
	   "lossless queue crossed xoff).",
	   tx_xoff, 0),
	PF("xdplane_pfc_tx_xon_total",
	   "PFC XON frames (time 0) sent out of the port for the priority.",
	   tx_xon, 0),
	PF("xdplane_pfc_paused_seconds_total",
	   "Time the port's egress held the priority's classes paused by PFC.",
	   paused_ns, 1e-9),
	PF("xdplane_pfc_watchdog_storms_total",
	   "PFC pause storms: the priority paused longer than pfc.watchdog.",
	   storms, 0),
	PF("xdplane_pfc_watchdog_drops_total",
	   "Frames of the priority's classes dropped by the PFC watchdog.",
	   watchdog_drops, 0),
	PF("xdplane_pfc_ignored_total",
	   "PFC frames for the priority ignored after a storm "
	   "(pfc.watchdog_restore).",
	   ignored, 0),
};

static void render_pfc(FILE *out, const struct stats_snapshot *s)
{
	static const char *const prio[8] = {"0", "1", "2", "3",
					    "4", "5", "6", "7"};
	struct label l[2];

	family(out, "xdplane_pfc_frames_received_total", "counter",
	       "Valid PFC frames received on the port (never forwarded).");
	for (int p = 0; p < GW_PORTS; p++) {
		l[0] = LABEL_ARRAY("port", s->ports[p].ifname);
		sample_u64(out, "xdplane_pfc_frames_received_total", l, 1,
			   s->ports[p].s.pfc.rx_frames);
	}
	family(out, "xdplane_mac_control_dropped_total", "counter",
	       "MAC control frames (EtherType 0x8808) other than valid PFC "
	       "received on the port: dropped.");
	for (int p = 0; p < GW_PORTS; p++) {
		l[0] = LABEL_ARRAY("port", s->ports[p].ifname);
		sample_u64(out, "xdplane_mac_control_dropped_total", l, 1,
			   s->ports[p].s.pfc.mac_control_drops);
	}
	for (size_t f = 0; f < sizeof(pfc_families) / sizeof(*pfc_families);
	     f++) {
		const struct pfc_family *pf = &pfc_families[f];

		family(out, pf->name, "counter", pf->help);
		for (int p = 0; p < GW_PORTS; p++) {
			const uint64_t *v =
				(const uint64_t *)((const char *)&s->ports[p]
							   .s.pfc +
						   pf->offset);

			for (int k = 0; k < 8; k++) {
				l[0] = LABEL_ARRAY("port", s->ports[p].ifname);
				l[1] = LABEL("priority", prio[k]);
				if (pf->scale)
					sample_double(out, pf->name, l, 2,
						      (double)v[k] * pf->scale);
				else
					sample_u64(out, pf->name, l, 2, v[k]);
			}
		}
	}
}

static void render_queues(FILE *out, const struct stats_snapshot *s)
{
	struct label l[4];
	char qbuf[16], wbuf[16], cbuf[16];

	family(out, "xdplane_queue_info", "gauge",
	       "Always 1; the worker running the queue's RX task and its CPU "
	       "(empty: unknown / not pinned).");
	for (int p = 0; p < GW_PORTS; p++) {
		const struct snap_port *port = &s->ports[p];

		for (uint32_t i = 0; i < port_queues(port); i++) {
			const struct snap_queue *q = &port->q[i];

			queue_labels(l, qbuf, sizeof(qbuf), port, i);
			wbuf[0] = cbuf[0] = '\0';
			if (q->worker >= 0)
				snprintf(wbuf, sizeof(wbuf), "%d", q->worker);
			if (q->cpu >= 0)
				snprintf(cbuf, sizeof(cbuf), "%d", q->cpu);
			l[2] = LABEL("worker", wbuf);
			l[3] = LABEL("cpu", cbuf);
			sample_u64(out, "xdplane_queue_info", l, 4, 1);
		}
	}

	for (size_t c = 0; c < sizeof(queue_counters) / sizeof(*queue_counters);
	     c++) {
		const struct queue_counter *qc = &queue_counters[c];

		family(out, qc->name, "counter", qc->help);
		for (int p = 0; p < GW_PORTS; p++) {
			const struct snap_port *port = &s->ports[p];

			for (uint32_t i = 0; i < port_queues(port); i++) {
				queue_labels(l, qbuf, sizeof(qbuf), port, i);
				sample_u64(
					out, qc->name, l, 2,
					field_u64(&port->q[i].s, qc->offset));
			}
		}
	}

	render_queue_variants(
		out, s, "xdplane_drops_total",
		"Frames dropped by the RX path, by reason (malformed: "
		"malformed frames the policy drops; port_down: frames to "
		"leave the port while its interface was gone).",
		"reason", port_drop_reasons,
		sizeof(port_drop_reasons) / sizeof(*port_drop_reasons));
	render_queue_variants(out, s, "xdplane_xsk_invalid_descs_total",
			      "AF_XDP socket statistics rx_invalid_descs and "
			      "tx_invalid_descs.",
			      "direction", xsk_invalid_directions,
			      sizeof(xsk_invalid_directions) /
				      sizeof(*xsk_invalid_directions));

	family(out, "xdplane_malformed_packets_total", "counter",
	       "Frames the parser found malformed, by reason, whether or not "
	       "the policy drops them.");
	for (int p = 0; p < GW_PORTS; p++) {
		const struct snap_port *port = &s->ports[p];

		for (uint32_t i = 0; i < port_queues(port); i++) {
			queue_labels(l, qbuf, sizeof(qbuf), port, i);
			for (int r = PKT_OK + 1; r < PKT_MALFORMED_MAX; r++) {
				l[2] = LABEL("reason", pkt_malformed_name(r));
				sample_u64(out,
					   "xdplane_malformed_packets_total", l,
					   3, port->q[i].s.malformed[r]);
			}
		}
	}
}

/* Per (egress port, class) values. */
struct class_value {
	const char *name;
	const char *type;
	const char *help;
	size_t offset; /* into struct snap_class */
	enum { CV_U64, CV_U32, CV_RATE_OR_INF, CV_RATE } kind;
};

#define CV(n, t, h, field, k)                                                  \
	{                                                                      \
		n, t, h, offsetof(struct snap_class, field), k                 \
	}

static const struct class_value class_values[] = {
	CV("xdplane_class_quantum_bytes", "gauge",
	   "DWRR quantum of the class inside its level.", quantum, CV_U32),
	CV("xdplane_class_limit_bytes", "gauge",
	   "Queue limit of the class in bytes.", limit_bytes, CV_U32),
	CV("xdplane_class_limit_packets", "gauge",
	   "Queue limit of the class in packets.", limit_packets, CV_U32),
	CV("xdplane_class_ceil_bytes_per_second", "gauge",
	   "Effective ceiling of the class; +Inf when it has none.", ceil_bps,
	   CV_RATE_OR_INF),
	CV("xdplane_class_min_bytes_per_second", "gauge",
	   "Effective guaranteed minimum of the class; 0 when it has none.",
	   min_bps, CV_RATE),
	CV("xdplane_class_enqueued_packets_total", "counter",
	   "Frames queued in the class.", s.enq_packets, CV_U64),
	CV("xdplane_class_enqueued_bytes_total", "counter",
	   "Bytes of the frames queued in the class.", s.enq_bytes, CV_U64),
	CV("xdplane_class_sent_packets_total", "counter",
	   "Frames the class handed to the TX ring.", s.sent_packets, CV_U64),
	CV("xdplane_class_sent_bytes_total", "counter",
	   "Bytes of the frames the class handed to the TX ring.", s.sent_bytes,
	   CV_U64),
	CV("xdplane_class_ecn_marked_total", "counter",
	   "Frames the scheduler marked CE (ECT to CE).", s.ecn_marks, CV_U64),
	CV("xdplane_class_queue_packets", "gauge",
	   "Frames queued in the class now.", s.depth_packets, CV_U64),
	CV("xdplane_class_queue_bytes", "gauge",
	   "Bytes queued in the class now.", s.depth_bytes, CV_U64),
};

static void class_labels(struct label *l, const struct snap_port *port,
			 const struct snap_class *c)
{
	l[0] = LABEL_ARRAY("port", port->ifname);
	l[1] = LABEL_ARRAY("class", c->name);
}

static void render_class_value(FILE *out, const struct class_value *cv,
			       const struct label *l,
			       const struct snap_class *c)
{
	uint32_t v32;

	switch (cv->kind) {
	case CV_U32:
		memcpy(&v32, (const char *)c + cv->offset, sizeof(v32));
		sample_u64(out, cv->name, l, 2, v32);
		break;
	case CV_RATE_OR_INF:
	case CV_RATE:
		sample_rate(out, cv->name, l, 2, field_u64(c, cv->offset),
			    cv->kind == CV_RATE_OR_INF);
		break;
	case CV_U64:
	default:
		sample_u64(out, cv->name, l, 2, field_u64(c, cv->offset));
		break;
	}
}

static void render_classes(FILE *out, const struct stats_snapshot *s)
{
	struct label l[4];
	char level[16];

	family(out, "xdplane_class_info", "gauge",
	       "Always 1; the strict priority level of the class (0 first) "
	       "and whether it marks ECN.");
	for (int p = 0; p < GW_PORTS; p++) {
		const struct snap_port *port = &s->ports[p];

		for (uint32_t k = 0; k < port_classes(port); k++) {
			const struct snap_class *c = &port->cls[k];

			class_labels(l, port, c);
			snprintf(level, sizeof(level), "%" PRIu32, c->level);
			l[2] = LABEL("level", level);
			l[3] = LABEL("ecn", c->ecn ? "true" : "false");
			sample_u64(out, "xdplane_class_info", l, 4, 1);
		}
	}

	for (size_t v = 0; v < sizeof(class_values) / sizeof(*class_values);
	     v++) {
		family(out, class_values[v].name, class_values[v].type,
		       class_values[v].help);
		for (int p = 0; p < GW_PORTS; p++) {
			const struct snap_port *port = &s->ports[p];

			for (uint32_t k = 0; k < port_classes(port); k++) {
				class_labels(l, port, &port->cls[k]);
				render_class_value(out, &class_values[v], l,
						   &port->cls[k]);
			}
		}
	}

	family(out, "xdplane_class_drops_total", "counter",
	       "Frames the egress scheduler dropped, by reason.");
	for (int p = 0; p < GW_PORTS; p++) {
		const struct snap_port *port = &s->ports[p];

		for (uint32_t k = 0; k < port_classes(port); k++) {
			class_labels(l, port, &port->cls[k]);
			for (int r = SCHED_QUEUED + 1; r < SCHED_DROP_REASONS;
			     r++) {
				l[2] = LABEL("reason", sched_drop_name(r));
				sample_u64(out, "xdplane_class_drops_total", l,
					   3, port->cls[k].s.drops[r]);
			}
		}
	}
}

static uint64_t add_saturating(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Midpoint of sojourn bucket k in seconds (the open bucket: its bound). */
static double sojourn_bucket_mid_seconds(unsigned int k)
{
	if (k == 0)
		return 0.5e-6;
	if (k == SCHED_HIST_BUCKETS - 1)
		return ldexp(1.0, (int)k - 1) * 1e-6;
	return 1.5 * ldexp(1.0, (int)k - 1) * 1e-6;
}

static void render_sojourn(FILE *out, const struct snap_port *port,
			   const struct snap_class *c)
{
	const uint64_t *h = c->s.sojourn;
	struct label l[3];
	uint64_t cumulative = 0;
	double sum = 0;
	char le[40];

	class_labels(l, port, c);
	for (unsigned int k = 0; k < SCHED_HIST_BUCKETS; k++) {
		cumulative = add_saturating(cumulative, h[k]);
		sum += (double)h[k] * sojourn_bucket_mid_seconds(k);
		if (k == SCHED_HIST_BUCKETS - 1)
			break;
		format_double(le, sizeof(le), ldexp(1.0, (int)k) * 1e-6);
		l[2] = LABEL("le", le);
		sample_u64(out, "xdplane_class_sojourn_seconds_bucket", l, 3,
			   cumulative);
	}
	l[2] = LABEL("le", "+Inf");
	sample_u64(out, "xdplane_class_sojourn_seconds_bucket", l, 3,
		   cumulative);
	sample_double(out, "xdplane_class_sojourn_seconds_sum", l, 2, sum);
	sample_u64(out, "xdplane_class_sojourn_seconds_count", l, 2,
		   cumulative);
}

static void render_sojourn_histograms(FILE *out, const struct stats_snapshot *s)
{
	family(out, "xdplane_class_sojourn_seconds", "histogram",
	       "Time frames waited in the class queue (log2 buckets; _sum is "
	       "estimated from bucket midpoints).");
	for (int p = 0; p < GW_PORTS; p++) {
		const struct snap_port *port = &s->ports[p];

		for (uint32_t k = 0; k < port_classes(port); k++)
			render_sojourn(out, port, &port->cls[k]);
	}
}

int metrics_render(const struct stats_snapshot *s, FILE *out)
{
	if (!s || !out)
		return -EINVAL;
	render_process(out, s);
	render_config(out, &s->reload);
	render_ports(out, s);
	render_queues(out, s);
	render_pfc(out, s);
	render_classes(out, s);
	render_sojourn_histograms(out, s);
	if (fflush(out) == EOF || ferror(out))
		return -EIO;
	return 0;
}
