/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pathmon_ring.h - returning events (struct pathmon_ack) carried from the
 * RX task that saw them to the egress task that owns the port's path
 * monitor: one SPSC ring per (RX task, egress task) pair of a port, the
 * RX task the only producer, the egress task the only consumer. A full
 * ring drops the event and the producer counts it (rx_counters.
 * path_events_lost): a lost event costs a sample, never a frame.
 */
#ifndef XDPLANE_PATHMON_RING_H
#define XDPLANE_PATHMON_RING_H

#include "pathmon.h"
#include "spsc_ring.h"

DEFINE_SPSC_RING(pathmon_ring, struct pathmon_ack)

#endif
