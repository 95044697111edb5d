#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# EpilogSlurmctld for xdplane: unregister the job prolog.sh registered
# (xdplanectl(8), job-unregister). Copied as prolog.sh, in slurm.conf:
#   EpilogSlurmctld=/etc/slurm/xdplane-epilog.sh
# XDPLANECTL as for prolog.sh. A job the gateway does not know (its
# registration was refused, the gateway restarted) is not an error.
ctl=${XDPLANECTL:-xdplanectl}
out=$($ctl job-unregister "slurm/$SLURM_JOB_ID" 2>&1) ||
	case "$out" in
	*not_found*) ;;
	*) logger -t xdplane-epilog "job $SLURM_JOB_ID: $out" ;;
	esac
exit 0
