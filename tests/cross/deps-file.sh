#!/bin/bash
# Fetch one foreign build's dependencies (tests/cross/fetch-deps.sh) and
# write the second Meson cross file that points that build at them; the
# first one is build-aux/cross/TARGET.ini, the tree's own.
#
#   usage: tests/cross/deps-file.sh TARGET DEPS OUT
#
# TARGET  aarch64-linux-gnu, i686-linux-gnu or x86_64-linux-musl
# DEPS    where the dependencies are cached (DEPS/<kind>/root)
# OUT     the cross file to write
set -euo pipefail

target=${1:?usage: deps-file.sh TARGET DEPS OUT}
deps=${2:?usage: deps-file.sh TARGET DEPS OUT}
out=${3:?usage: deps-file.sh TARGET DEPS OUT}
here=$(dirname "$(readlink -f "$0")")

case $target in
    # multiarch: the directory Debian's packages use for the target
    aarch64-linux-gnu) kind=arm64 multiarch=aarch64-linux-gnu qemu=qemu-aarch64-static ;;
    i686-linux-gnu) kind=i386 multiarch=i386-linux-gnu ;;
    x86_64-linux-musl) kind=musl ;;
    *) echo "deps-file.sh: unknown target $target" >&2; exit 2 ;;
esac
"$here/fetch-deps.sh" "$kind" "$deps/$kind"
root=$(cd "$deps/$kind/root" && pwd -P)

mkdir -p "$(dirname "$out")"
if [ "$kind" = musl ]; then
    # musl-gcc searches musl's headers only; the kernel's UAPI headers are
    # libc-neutral, so the build gets exactly those directories of the host's
    uapi=$deps/musl/uapi
    rm -rf "$uapi" && mkdir -p "$uapi"
    ln -s /usr/include/linux /usr/include/asm-generic /usr/include/rdma "$uapi/"
    ln -s /usr/include/x86_64-linux-gnu/asm "$uapi/asm"
    cat > "$out" <<EOT
# written by tests/cross/deps-file.sh
[properties]
sys_root = '$root'
pkg_config_libdir = ['$root/usr/lib/pkgconfig']

[built-in options]
c_args = ['-isystem', '$(cd "$uapi" && pwd -P)']
EOT
else
    libs=$root/lib/$multiarch:$root/usr/lib/$multiarch
    if [ "$target" = i686-linux-gnu ]; then
        wrapper="['/usr/$target/lib/ld-linux.so.2', '--library-path', '/usr/$target/lib:$libs']"
    else
        wrapper="['$qemu', '-L', '/usr/$target', '-E', 'LD_LIBRARY_PATH=$libs']"
    fi
    # libnl-3 itself lives in /lib/<multiarch>, the rest in /usr/lib/<multiarch>;
    # the target's C library in the cross toolchain's /usr/<target>
    cat > "$out" <<EOT
# written by tests/cross/deps-file.sh
[properties]
sys_root = '$root'
pkg_config_libdir = ['$root/usr/lib/$multiarch/pkgconfig']

[binaries]
exe_wrapper = $wrapper

[built-in options]
c_link_args = ['-L$root/lib/$multiarch', '-Wl,-rpath-link,$root/lib/$multiarch']
EOT
fi
