// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_dcqcn_scenario.c - libFuzzer target: the dcqcn-sim scenario loader
 * on every input (seeds: the shipped scenarios), then, for accepted
 * scenarios small enough to run in milliseconds, the simulation itself.
 *
 * The input is copied to a heap buffer of exactly its size, so a read past
 * its end is an ASan error. Besides memory errors and undefined behaviour
 * it checks: a refused scenario has a "NAME:LINE:COL: " message; an
 * accepted one is within the documented limits (flows, inputs sorted by
 * time and within the duration, bins) and its run succeeds, its trace
 * starting with the CSV header.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scenario.h"
#include "sim.h"
#include "trace.h"
#include "fuzz_check.h"

#define RUN_MAX_WORK                                                           \
	2e5 /* run accepted scenarios of up to this many
			   * estimated events (milliseconds) */

static void check_scenario(const struct scenario *sc)
{
	CHECK(sc->n_flows >= 1 && sc->n_flows <= SCN_MAX_FLOWS);
	CHECK(sc->duration_ns > 0);
	CHECK(sc->summary.bin_ns && sc->duration_ns % sc->summary.bin_ns == 0);
	CHECK(sc->summary.window_ns <= sc->duration_ns);
	for (size_t i = 0; i < sc->n_inputs; i++) {
		CHECK(sc->inputs[i].flow < sc->n_flows);
		CHECK(sc->inputs[i].at_ns <= sc->duration_ns);
		CHECK(!i || sc->inputs[i - 1].at_ns <= sc->inputs[i].at_ns);
	}
	if (sc->closed_loop) {
		CHECK(sc->bottleneck.rate_bps > 0);
		CHECK(sc->bottleneck.ecn.kmin <= sc->bottleneck.ecn.kmax);
		CHECK(sc->packet_bytes >= 64);
	}
}

static void run(const struct scenario *sc)
{
	struct sim_result res;
	char err[256], *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	CHECK(f);
	CHECK(sim_run(sc, f, &res, err, sizeof(err)) == 0);
	fclose(f);
	CHECK(len >= strlen(TRACE_HEADER) &&
	      !memcmp(out, TRACE_HEADER, strlen(TRACE_HEADER)));
	if (sc->closed_loop) {
		CHECK(res.summary.jain >= 0 && res.summary.jain <= 1.0 + 1e-9);
		CHECK(res.summary.util >= 0);
	}
	sim_result_free(&res);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1), err[512];
	struct scenario sc;

	CHECK(buf);
	memcpy(buf, data, size);
	if (scenario_load_buf(&sc, "fuzz", buf, size, err, sizeof(err))) {
		CHECK(!strncmp(err, "fuzz:", 5));
		CHECK(sc.flows == NULL && sc.inputs == NULL);
	} else {
		check_scenario(&sc);
		if (scenario_work(&sc) <= RUN_MAX_WORK)
			run(&sc);
		scenario_free(&sc);
	}
	free(buf);
	return 0;
}
