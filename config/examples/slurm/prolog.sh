#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# PrologSlurmctld for xdplane: register the job's nodes as one training job
# (xdplanectl(8), job-register). Copy it from
# /usr/share/doc/xdplane/examples/slurm/, make it executable, and in
# slurm.conf:
#   PrologSlurmctld=/etc/slurm/xdplane-prolog.sh
# XDPLANECTL reaches the gateway's control socket, e.g. "ssh gw1 xdplanectl"
# (default: xdplanectl on this host); XDPLANE_DSCP and XDPLANE_CLASS, if
# set, the DSCP the job's NCCL traffic carries (NCCL_IB_TC = DSCP << 2)
# and its priority class. A refusal is logged, never fails the job.
ctl=${XDPLANECTL:-xdplanectl}
mapfile -t addrs < <(for h in $(scontrol show hostnames "$SLURM_JOB_NODELIST")
	do getent ahostsv4 "$h" | awk '{ print $1 }'; done | sort -u)
# the nodes' addresses as the fewest prefixes (the gateway takes 16)
prefixes=$(python3 -c 'import ipaddress, sys
print(*ipaddress.collapse_addresses(map(ipaddress.ip_network, sys.argv[1:])))' \
	"${addrs[@]}")
gpus=$(scontrol show job "$SLURM_JOB_ID" | grep -o 'gres/gpu=[0-9]*' | head -n1)
args=()
for p in $prefixes; do args+=(--prefix "$p"); done
[ -n "${XDPLANE_DSCP:-}" ] && args+=(--dscp "$XDPLANE_DSCP")
[ -n "${XDPLANE_CLASS:-}" ] && args+=(--class "$XDPLANE_CLASS")
[ -n "$gpus" ] && args+=(--gpus "${gpus#gres/gpu=}")
out=$($ctl job-register "slurm/$SLURM_JOB_ID" "${args[@]}" 2>&1) ||
	logger -t xdplane-prolog "job $SLURM_JOB_ID: $out"
exit 0
