// SPDX-License-Identifier: BSD-2-Clause
/*
 * steer_names.c - names of the steering program's verdicts, as counters
 * are labelled everywhere (JSON, metrics). Kept apart from steer_prog.c so
 * that code without libbpf (the control-protocol fuzzer) can use them.
 */
#include "steer_prog.h"

static const char *const verdict_names[STEER_V_MAX] = {
	[STEER_V_XSK] = "xsk",
	[STEER_V_FAILOPEN] = "failopen_redirect",
	[STEER_V_FAILOPEN_ERR] = "failopen_error",
	[STEER_V_FAILCLOSED] = "failclosed_drop",
	[STEER_V_QUEUE_RANGE] = "queue_out_of_range",
};

const char *steer_verdict_name(enum steer_verdict v)
{
	return v < STEER_V_MAX ? verdict_names[v] : "?";
}
