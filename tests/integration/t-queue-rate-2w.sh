#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# t-queue-rate with two workers on two CPUs (workers.cpus [0, 1]): the
# queues of a port run on different workers, the idle ones' workers sleep,
# and the split is made by whichever queue's task finds it due. The same
# checks: one flow gets the port's rate, the queues' rates shown add up
# to at most the port's (a sleeping queue shows the part it takes at its
# next pass), two flows on two queues share it.
set -euo pipefail
T_QR_CPUS="0, 1" exec bash "$(dirname "$0")/t-queue-rate.sh"
