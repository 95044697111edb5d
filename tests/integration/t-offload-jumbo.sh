#!/usr/bin/env bash
# t-offload.sh at MTU 9000: TCP segments and UDP datagrams above one UMEM
# frame cross as multi-buffer chains, and their partial checksums are
# completed over every buffer of the chain.
export OFFLOAD_MTU=9000
exec bash "$(dirname "$0")/t-offload.sh"
