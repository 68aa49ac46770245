# SPDX-License-Identifier: MIT
# Sourced by the plugin tests run on this host (match-all.sh,
# direct-link.sh): a fake sysfs tree (SYSFS_PATH) of RDMA devices that
# both libibverbs take, since this host has no RDMA netlink.
# Both libraries skip a device whose /dev/infiniband/uverbsN cannot be
# stat()ed (FACTS 14), and this host has none: the tests run in a mount
# namespace of their own (unshare, as an unprivileged user too) where /dev
# is a tmpfs holding null/zero/urandom and /dev/infiniband/uverbsN as
# regular files, not the uverbs character devices: opening must fail.

# Re-runs the calling script inside a new user and mount namespace, with
# FAKE_SYSFS_WORK its work directory; returns only inside the namespace.
# The directory is made and removed out here, in the caller's namespace:
# the mounts die with the namespace, so removing it can never reach
# anything they showed.
fake_sysfs_enter_namespace() {
    [ -z "${FAKE_SYSFS_WORK:-}" ] || return 0
    local work status=0
    work=$(mktemp -d /tmp/fake-sysfs.XXXXXX)
    FAKE_SYSFS_WORK=$work unshare --map-root-user --mount "$0" "$@" || status=$?
    rm -rf "$work"
    exit $status
}

# fake_sysfs_build SYS DEVICES: DEVICES holds one line per device,
#     plugin  ibdev  node_type  device-abi  PCI vendor:device ("-": none)
# uverbsN are numbered in line order; the GUIDs follow it too.  Sets
# fake_sysfs_count to the number of devices.
fake_sysfs_build() {
    local sys=$1 plugin ibdev node abi pci uv ib n=0
    mkdir -p "$sys/class/infiniband_verbs"
    echo 6 > "$sys/class/infiniband_verbs/abi_version"
    while read -r plugin ibdev node abi pci; do
        [ -n "$plugin" ] || continue
        uv=$sys/class/infiniband_verbs/uverbs$n ib=$sys/class/infiniband/$ibdev
        mkdir -p "$uv" "$ib/device"
        echo "$ibdev" > "$uv/ibdev"
        echo "231:$((192 + n))" > "$uv/dev"
        echo "$abi" > "$uv/abi_version"
        echo "$node: node type $node" > "$ib/node_type"
        printf '%04x:%04x:%04x:%04x\n' $((0x1000 + n)) 0xcafe 0 $((n + 1)) > "$ib/node_guid"
        if [ "$pci" != - ]; then
            printf 'pci:v%08Xd%08Xsv00001234sd00005678bc02sc00i00\n' \
                $((0x${pci%:*})) $((0x${pci#*:})) > "$ib/device/modalias"
        fi
        n=$((n + 1))
    done <<< "$2"
    fake_sysfs_count=$n
}

# fake_dev_nodes WORK COUNT: /dev becomes a tmpfs with null, zero,
# urandom and uverbs0..COUNT-1 as regular files.
fake_dev_nodes() {
    local work=$1 count=$2 node i
    # single nodes, bound as files: never a whole /dev
    mkdir "$work/dev"
    for node in null zero urandom; do
        : > "$work/dev/$node" && mount --bind "/dev/$node" "$work/dev/$node"
    done
    mount -t tmpfs fake-dev /dev
    for node in null zero urandom; do
        : > "/dev/$node" && mount --bind "$work/dev/$node" "/dev/$node"
    done
    ln -s /proc/self/fd /dev/fd
    mkdir /dev/infiniband
    for ((i = 0; i < count; i++)); do : > "/dev/infiniband/uverbs$i"; done
}
