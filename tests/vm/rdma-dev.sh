#!/bin/bash
# SPDX-License-Identifier: MIT
# iproute2's rdma tool sees rxe0 and siw0 over RDMA netlink, links ACTIVE.
. "$(dirname "$0")/lib.sh"

dev=$(rdma dev) || fail "rdma dev failed"
link=$(rdma link) || fail "rdma link failed"
printf '%s\n' "$dev" "$link"
nl=$'\n'
[[ $nl$dev =~ ${nl}[0-9]+:\ rxe0:\ node_type\ ca\  ]] || fail "rdma dev: no RoCE device rxe0"
[[ $nl$dev =~ ${nl}[0-9]+:\ siw0:\ node_type\ rnic\  ]] || fail "rdma dev: no iWARP device siw0"
[[ $nl$link =~ ${nl}link\ rxe0/1\ state\ ACTIVE\ [^$nl]*\ netdev\ rxenet ]] ||
    fail "rdma link: rxe0/1 not ACTIVE on rxenet"
[[ $nl$link =~ ${nl}link\ siw0/1\ state\ ACTIVE\ [^$nl]*\ netdev\ siwnet ]] ||
    fail "rdma link: siw0/1 not ACTIVE on siwnet"
echo "ok rxe0 and siw0, ports ACTIVE"
