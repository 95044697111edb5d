#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# t-adaptive with two workers on two CPUs (workers.cpus [0, 1]): gw1's RX
# task and the egress task whose path monitor takes its events run on
# different workers, each reading its own clock at the start of its own
# pass, so events arrive stamped after the taker's now. The same bounds as
# the one-worker run (rate within 15 % of the FIFO's, its backlog under a
# quarter of the one with mode off, throughput >= 80 %), and the
# controller never loses its samples while they flow (no_samples 0).
set -euo pipefail
T_ADAPTIVE_CPUS="0, 1" exec bash "$(dirname "$0")/t-adaptive.sh"
