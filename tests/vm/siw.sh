#!/bin/bash
# SPDX-License-Identifier: MIT
# The siw provider on soft-iWARP (siw0): iWARP connects queue pairs only
# through rdma_cm, so upstream's rdmacm-utils run on upstream's librdmacm
# over our libibverbs (PAIR_SIDE=verbs; the loader log proves both).
# rping (sends, RDMA reads and writes, data checked with -V), ucmatose
# (several connections, sends), rdma_server/rdma_client (the
# rdma_verbs.h helpers, inline sends) and riostream (rsockets with
# RDMA-write based iomapping), over the siw netdev's address; rping also
# with every kernel command through write().  ucmatose may hit a kernel
# race in siw (pair.sh: siw_mpa_extra_data) and then runs once more.
# 45 s a pair: they take up to ~25 s on a busy 2-core host, and a pair
# caught by the siw race ends only when that timeout stops its server.
export PAIR_SIDE=verbs PAIR_WAIT=cm PAIR_TIMEOUT=45
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pair.sh"

ip=$RDMAVM_SIW_IP

pair "rping" 'ping data: rdma-ping-9' \
    rping -s -a "$ip" -C 10 -v -V -- rping -c -a "$ip" -C 10 -v -V
OPENVERBS_CMD_MODE=write pair "rping" 'ping data: rdma-ping-9' \
    rping -s -a "$ip" -C 10 -v -V -- rping -c -a "$ip" -C 10 -v -V
PAIR_KNOWN_RACE=siw_mpa_extra_data pair "ucmatose" 'test complete' \
    ucmatose -b "$ip" -c 2 -C 10 -- ucmatose -s "$ip" -c 2 -C 10
PAIR_SERVER_PATTERN='rdma_server: end 0' pair "rdma_server/rdma_client" 'rdma_client: end 0' \
    rdma_server -s "$ip" -- rdma_client -s "$ip"
pair "riostream" '[0-9.]+[kmg]?b? +[0-9]+ +[0-9]+' \
    riostream -b "$ip" -S 4096 -C 100 -- riostream -s "$ip" -S 4096 -C 100
pair_summary
