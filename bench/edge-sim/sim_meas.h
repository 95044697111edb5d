/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sim_meas.h - the simulator's side of the port's passive measurement
 * (dataplane/path/pathmon.h): the packets the simulated gateway sends
 * become departures of its TCP flows with timestamps, the ACKs coming back
 * echo them; the estimate is pathmon's.
 */
#ifndef XDPLANE_SIM_MEAS_H
#define XDPLANE_SIM_MEAS_H

#include <stdint.h>
#include "edge_rate.h"
#include "edge_sim.h"

struct sim_meas;

struct sim_meas *sim_meas_new(const struct edge_sim_cfg *c);
void sim_meas_free(struct sim_meas *m);
/* Packet number fseq of flow `flow` (bytes long, TSval tsval) leaves the
 * gateway at t. */
void sim_meas_depart(struct sim_meas *m, uint32_t flow, uint32_t fseq,
		     uint32_t tsval, uint32_t bytes, uint64_t t);
/* Its ACK (cumulative up to it, echoing tsval) reaches the gateway at t:
 * 1 if that gave an RTT sample, else 0. */
int sim_meas_ack(struct sim_meas *m, uint32_t flow, uint32_t fseq,
		 uint32_t tsval, uint32_t bytes, uint64_t t);
void sim_meas_estimate(struct sim_meas *m, uint64_t t, struct edge_est *est);

#endif
