#!/usr/bin/env bash
# t-offload.sh on veths with 2 queues each and the gateway on queues: 2:
# partial checksums are completed on every queue's RX task (the flows of
# the test spread over the queues by veth's TX queue choice).
export OFFLOAD_QUEUES=2
exec bash "$(dirname "$0")/t-offload.sh"
