// SPDX-License-Identifier: BSD-2-Clause
/*
 * trace.c - see trace.h.
 */
#include "trace.h"

#include <inttypes.h>

void trace_header(FILE *f)
{
	fputs(TRACE_HEADER, f);
}

void trace_rp(FILE *f, uint64_t t_ns, uint32_t flow, const char *event,
	      const struct dcqcn_rp *rp)
{
	fprintf(f, "%" PRIu64 ".%03u,%u,%s,%.9g,%.9g,%.9g\n", t_ns / 1000,
		(unsigned int)(t_ns % 1000), flow + 1, event, rp->rc / 1e9,
		rp->rt / 1e9, rp->alpha);
}

void trace_cnp_sent(FILE *f, uint64_t t_ns, uint32_t flow)
{
	fprintf(f, "%" PRIu64 ".%03u,%u," TRACE_CNP_SENT ",,,\n", t_ns / 1000,
		(unsigned int)(t_ns % 1000), flow + 1);
}
