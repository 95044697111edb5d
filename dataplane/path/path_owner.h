/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * path_owner.h - which egress task (queue) of a port sends a flow: how an
 * RX task of the port finds the one path monitor a returning event is for
 * (run/adaptive.h, "Multi-queue"). A flow's data reaches the port's
 * egress task of the queue the other port's RSS put it on; its ACKs come
 * in on the queue this port's RSS puts the reverse direction on, which
 * need not be the same (no symmetric RSS is assumed). So the egress
 * tasks record, as their flows leave, which queue sends them, and the RX
 * tasks look the event's flow up.
 *
 * The key is the data's direction (struct pathmon_key, as
 * pathmon_dep_of() and pathmon_ack_of() fill it):
 *   TCP:  the whole key (family, addresses, ports), recorded by the
 *         segments with payload: a flow of pure ACKs is the reverse of
 *         a flow that enters the port, whose data segments (with the
 *         ACK bit) are what comes back for it, no one's events;
 *   RoCE: the two hosts only (family, addresses; QP 0): the data carries
 *         the responder's QP, its ACKs and CNPs the requester's, and the
 *         hosts are what the two directions share. When two queues send
 *         RoCE between the same two hosts the entry says
 *         PATH_OWNER_SEVERAL: the event goes to every queue of the port,
 *         whose monitors pair the QPs (pathmon.h) and count what is not
 *         theirs as unmatched.
 *
 * A fixed table of 2^k 32-bit words in buckets of PATH_OWNER_WAYS,
 * indexed by a seeded hash of the key; a word holds the hash's upper 24
 * bits (the tag) << 8 | the queue + 1 (0xff: several; 0: an empty word).
 * A flow whose bucket is full takes a word chosen by its tag (the word's
 * flow is then no one's until its next departure). Entries are never
 * removed: an ended flow keeps its word until it is taken. A tag
 * collision sends an event to another queue, whose monitor counts it
 * unmatched: the table is a hint, the monitor's matching decides.
 *
 * Ownership: the table's words are written by the egress tasks of the
 * port (path_owner_set: a read of the bucket, a store only when the word
 * changes: a flow's departures after its first store nothing) and read
 * by its RX tasks (path_owner_find), as relaxed atomic 32-bit words: a
 * reader sees the old word or the new one. Two writers racing for one
 * empty word: one of them wins, the other flow is recorded at its next
 * departure. init and fini are set-up's. No allocation after init.
 */
#ifndef XDPLANE_PATH_OWNER_H
#define XDPLANE_PATH_OWNER_H

#include <stdint.h>
#include "pathmon.h"

#define PATH_OWNER_WAYS 4 /* words per bucket (16 bytes) */
#define PATH_OWNER_MAX_QUEUES 254 /* queue numbers 0..253 */
/* no queue sends the flow (as far as the table knows) */
#define PATH_OWNER_NONE (-1)
/* RoCE: several queues send between the two hosts */
#define PATH_OWNER_SEVERAL (-2)

struct path_owner {
	uint32_t *w; /* (mask + 1) x PATH_OWNER_WAYS words */
	uint32_t mask; /* buckets - 1 */
	uint64_t seed;
};

/* A table for about `flows` flows (rounded up to a power of two, at least
 * 1024 words). 0, -EINVAL (flows 0 or above 2^26) or -ENOMEM. Thread:
 * set-up. */
int path_owner_init(struct path_owner *o, uint32_t flows, uint64_t seed);
void path_owner_fini(struct path_owner *o);

/* Queue `queue` (< PATH_OWNER_MAX_QUEUES) sends the flow k. Thread: an
 * egress task of the port. */
void path_owner_set(struct path_owner *o, const struct pathmon_key *k,
		    uint32_t queue);

/* The queue that sends flow k (the event's key), PATH_OWNER_NONE or
 * PATH_OWNER_SEVERAL. Thread: any. */
int path_owner_find(const struct path_owner *o, const struct pathmon_key *k);

/* Bytes allocated at init. */
static inline uint64_t path_owner_mem_bytes(const struct path_owner *o)
{
	return ((uint64_t)o->mask + 1) * PATH_OWNER_WAYS * sizeof(uint32_t);
}

#endif
