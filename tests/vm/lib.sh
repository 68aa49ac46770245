# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Guest-side helpers for scripts that run inside tests/vm/rdma-vm:
#     . "$(dirname "$0")/lib.sh"
#
# Paths, set by meson test (the defaults suit a tree built in ./build):
#   OPENVERBS_SOURCE_ROOT, OPENVERBS_BUILD_ROOT,
#   OPENVERBS_REFERENCE_ROOT   upstream's unpacked packages (tests/reference/fetch.sh)
#
# Upstream oracle: `run_on ours|reference PROGRAM [ARG...]` runs PROGRAM (a
# name is looked up in the reference usr/bin first) on our libibverbs and
# librdmacm or on upstream's, and fails with status 120 unless every
# libibverbs.so.1/librdmacm.so.1 that the program and its children loaded
# came from that side.  Upstream's libibverbs finds its providers in
# /usr/lib/x86_64-linux-gnu/libibverbs and /etc/libibverbs.d, which the
# host's ibverbs-providers (the same release) fills; run_on lists them.
#
# Plugin mode, VM_PLUGINS=v44|v56 (the configuration "our core +
# upstream's provider"): our built-in rxe and siw are off
# (OPENVERBS_DISABLE_PROVIDERS) and Debian's own plugins drive rxe0 and
# siw0, named by path prefix in RDMAV_DRIVERS (FACTS 9): Debian 12's
# (the reference, v44) or Debian 13's (reference56, v56).  The guest's
# /etc/libibverbs.d (its tmpfs copy) is emptied, so no other plugin loads:
# a side on upstream's libibverbs gets the v44 reference plugins (upstream
# alone, byte-identical to the system's: see the oracle test), a side on
# ours the chosen release's, and check_loaded fails a run that loaded no
# plugin or one from elsewhere.

[ "${RDMAVM:-}" = 1 ] || { echo "lib.sh: not inside the rdma-vm guest" >&2; exit 125; }

vm_source=${OPENVERBS_SOURCE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
vm_build=${OPENVERBS_BUILD_ROOT:-$vm_source/build}
vm_reference=${OPENVERBS_REFERENCE_ROOT:-$vm_build/reference/root}

vm_reference56=${OPENVERBS_REFERENCE56_ROOT:-$vm_build/reference56/root}

heading() { printf '\n== %s\n' "$*"; }
fail() { echo "FAIL: $*"; exit 1; }

# SIDE itself, or reference when VM_ALL_REFERENCE=1 makes every side
# upstream's.
side_or_reference() { if [ -n "${VM_ALL_REFERENCE:-}" ]; then echo reference; else echo "$1"; fi; }

# The directories each side's libraries come from.  "verbs" is our
# libibverbs under upstream's librdmacm, "rdmacm" our librdmacm on
# upstream's libibverbs (each must work on the other through the public
# ABI alone).  VM_ALL_REFERENCE=1 makes every side upstream's: a test
# script tried on the oracle alone, before our library exists.
libdirs_of() {
    case $(side_or_reference "$1") in
        ours) echo "$vm_build/libverbs:$vm_build/librdmacm" ;;
        reference) echo "$vm_reference/usr/lib/x86_64-linux-gnu" ;;
        verbs) echo "$vm_build/libverbs:$vm_reference/usr/lib/x86_64-linux-gnu" ;;
        rdmacm) echo "$vm_build/librdmacm:$vm_reference/usr/lib/x86_64-linux-gnu" ;;
        *) echo "lib.sh: no library side '$1' (ours|reference|verbs|rdmacm)" >&2; return 1 ;;
    esac
}

# The one directory library NAME must come from on SIDE.
libdir_for() {
    case $(side_or_reference "$1"):$2 in
        ours:libibverbs.so.1|verbs:libibverbs.so.1) echo "$vm_build/libverbs" ;;
        ours:librdmacm.so.1|rdmacm:librdmacm.so.1) echo "$vm_build/librdmacm" ;;
        *) echo "$vm_reference/usr/lib/x86_64-linux-gnu" ;;
    esac
}

# The plugin directory of a release (plugin mode).
plugin_dir_of() {
    case $1 in
        v44) echo "$vm_reference/usr/lib/x86_64-linux-gnu/libibverbs" ;;
        v56) echo "$vm_reference56/usr/lib/x86_64-linux-gnu/libibverbs" ;;
        *) echo "lib.sh: no plugin release '$1' (v44|v56)" >&2; return 1 ;;
    esac
}

# The plugins (release) a side's libibverbs gets in plugin mode: upstream's
# core gets its own release's, unless VM_REFERENCE_PLUGINS says otherwise
# (to show what it cannot do with another's).
plugins_for_side() {
    case $(side_or_reference "$1") in
        ours|verbs) echo "$VM_PLUGINS" ;;
        *) echo "${VM_REFERENCE_PLUGINS:-v44}" ;;
    esac
}

# Plugin mode for what follows on SIDE (use_libs calls it).
use_plugins() {
    local dir
    dir=$(plugin_dir_of "$(plugins_for_side "$1")") || return
    [ -e "$dir/librxe-rdmav34.so" ] && [ -e "$dir/libsiw-rdmav34.so" ] ||
        { echo "lib.sh: no rxe/siw plugins in $dir" >&2; return 1; }
    export OPENVERBS_DISABLE_PROVIDERS=rxe,siw RDMAV_DRIVERS=$dir/librxe:$dir/libsiw
    export VM_PLUGIN_DIR=$dir
}

# The directory whose programs run by their upstream names: our tools
# (tools/, issue 12) or upstream's (ibverbs-utils, rdmacm-utils, perftest).
tools_dir_of() {
    case $1 in
        ours) echo "$vm_build/tools" ;;
        upstream) echo "$vm_reference/usr/bin" ;;
        *) echo "lib.sh: no tools '$1' (ours|upstream)" >&2; return 1 ;;
    esac
}

# Puts a side's libraries first for everything started afterwards, and
# upstream's programs on PATH; VM_TOOLS=ours puts ours before them.
use_libs() {
    local dirs
    dirs=$(libdirs_of "$1") || return
    export LD_LIBRARY_PATH=$dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export PATH=$vm_reference/usr/bin:$PATH
    [ "${VM_TOOLS:-upstream}" = upstream ] || PATH=$(tools_dir_of "$VM_TOOLS"):$PATH || return
    [ -z "${VM_PLUGINS:-}" ] || use_plugins "$1"
}

# The librspreload.so of a side: our build's or upstream's.  VM_PRELOAD=SIDE
# makes run_on preload it and check that exactly it was loaded.
preload_of() {
    case $(side_or_reference "$1") in
        ours) echo "$vm_build/librdmacm/preload/librspreload.so" ;;
        reference) echo "$vm_reference/usr/lib/x86_64-linux-gnu/rsocket/librspreload.so" ;;
        *) echo "lib.sh: no preload side '$1' (ours|reference)" >&2; return 1 ;;
    esac
}

use_preload() {
    [ -z "${VM_PRELOAD:-}" ] || { LD_PRELOAD=$(preload_of "$VM_PRELOAD") && export LD_PRELOAD; }
}

# Runs a command with the loader logging every object it initialises
# (LD_DEBUG=libs) into TRACE.PID, one file per process, dlopen()ed ones
# too.  glibc logs "calling init: PATH" for objects with DT_INIT, which
# every gcc-linked library has.
traced_run() {
    local trace=$1; shift
    LD_DEBUG=libs LD_DEBUG_OUTPUT=$trace "$@"
}

# Under TCG a process costs 0.1 s idle and over 1 s on a busy host, a fork
# of this shell a few ms: the library proof below reads the loader's logs
# in bash and resolves each path with readlink only the first time it
# appears in a script (a symlink does not change while a test runs).
declare -A vm_realpath=()
resolve_paths() {
    local new=() resolved=() path i
    for path; do [ -n "${vm_realpath[$path]+set}" ] || new+=("$path"); done
    [ ${#new[@]} -gt 0 ] || return 0
    mapfile -t resolved < <(readlink -m -- "${new[@]}")
    for i in "${!new[@]}"; do vm_realpath[${new[i]}]=${resolved[i]}; done
}

# Sets loaded_paths to the RDMA libraries that the processes traced into
# TRACE initialised, each once, sorted, and resolves them.
collect_loaded() {
    local file lines line path i
    local -A seen=()
    for file in "$1".*; do
        [ -f "$file" ] || continue
        # at once: read makes system calls for every line, slow under TCG
        mapfile -t lines < "$file"
        for line in "${lines[@]}"; do
            [[ $line == *'calling init: '* ]] || continue
            path=${line##*calling init: }
            case ${path##*/} in
                libibverbs.so.1|librdmacm.so.1|lib*-rdmav*.so|librspreload.so) seen[$path]=1 ;;
            esac
        done
    done
    loaded_paths=()
    for path in "${!seen[@]}"; do
        for ((i = ${#loaded_paths[@]}; i > 0; i--)); do
            [[ ${loaded_paths[i - 1]} > $path ]] || break
            loaded_paths[i]=${loaded_paths[i - 1]}
        done
        loaded_paths[i]=$path
    done
    resolve_paths "${loaded_paths[@]}"
}

# Prints the RDMA libraries a traced run loaded, one "name realpath" a
# line.
loaded_libs() {
    local path
    collect_loaded "$1"
    for path in "${loaded_paths[@]}"; do echo "${path##*/} ${vm_realpath[$path]}"; done
}

# Succeeds if the traced run TRACE loaded libibverbs, and loaded
# libibverbs and librdmacm only from SIDE's directories; in plugin mode
# also at least one provider plugin, and only from SIDE's plugin directory.
# Run it in the calling shell, not in $(...), for its paths to be
# resolved once per script.
check_loaded() {
    local side=$1 trace=$2 name path real want ok=0 wrong=0 plugins=0 preloaded=0
    local verbs_dir rdmacm_dir plugin_dir='' preload='' plugin_want='' preload_want=none
    verbs_dir=$(libdir_for "$side" libibverbs.so.1)
    rdmacm_dir=$(libdir_for "$side" librdmacm.so.1)
    [ -z "${VM_PLUGINS:-}" ] || plugin_dir=$(plugin_dir_of "$(plugins_for_side "$side")")
    [ -z "${VM_PRELOAD:-}" ] || preload=$(preload_of "$VM_PRELOAD")
    resolve_paths "$verbs_dir" "$rdmacm_dir" ${plugin_dir:+"$plugin_dir"} ${preload:+"$preload"}
    [ -z "$plugin_dir" ] || plugin_want=${vm_realpath[$plugin_dir]}
    [ -z "$preload" ] || preload_want=${vm_realpath[$preload]}
    collect_loaded "$trace"
    for path in "${loaded_paths[@]}"; do
        name=${path##*/} real=${vm_realpath[$path]}
        case $name in
            libibverbs.so.1|librdmacm.so.1)
                want=${vm_realpath[$rdmacm_dir]}
                [ "$name" = librdmacm.so.1 ] || want=${vm_realpath[$verbs_dir]}
                if [ "${real%/*}" = "$want" ]; then
                    echo "  $side: $name -> $real"
                    [ "$name" = libibverbs.so.1 ] && ok=1
                else
                    echo "  WRONG LIBRARY: $name -> $real, not from $want"
                    wrong=1
                fi ;;
            librspreload.so)
                if [ "$real" = "$preload_want" ]; then
                    echo "  preload $VM_PRELOAD: $real"
                    preloaded=1
                else
                    echo "  WRONG PRELOAD: $real, not $preload_want"
                    wrong=1
                fi ;;
            *)
                if [ -z "$plugin_want" ]; then
                    echo "  provider: $real"
                elif [ "${real%/*}" = "$plugin_want" ]; then
                    echo "  plugin: $real"
                    plugins=$((plugins + 1))
                else
                    echo "  WRONG PLUGIN: $real, not from $plugin_want"
                    wrong=1
                fi ;;
        esac
    done
    [ $ok = 1 ] || [ $wrong = 1 ] || echo "  WRONG LIBRARY: no libibverbs.so.1 was loaded"
    if [ -n "$preload" ] && [ $preloaded = 0 ]; then
        echo "  WRONG PRELOAD: VM_PRELOAD=$VM_PRELOAD, but no librspreload.so was loaded"
        wrong=1
    fi
    if [ -n "$plugin_want" ] && [ $plugins = 0 ]; then
        echo "  WRONG PLUGIN: plugin mode ($VM_PLUGINS), but no plugin from $plugin_want was loaded"
        wrong=1
    fi
    [ $ok = 1 ] && [ $wrong = 0 ]
}

vm_traces=0
run_on() {
    local side=$1; shift
    local trace=/tmp/run_on.$BASHPID.$((++vm_traces)) status=0
    ( use_libs "$side" && use_preload && traced_run "$trace" "$@" ) || status=$?
    echo "run_on $side: $* (exit $status)"
    check_loaded "$side" "$trace" || status=120
    rm -f "$trace".*
    return $status
}

# Plugin mode: only the plugins RDMAV_DRIVERS names may load (the guest's
# own /etc, a tmpfs overlay, loses the system's list).
if [ -n "${VM_PLUGINS:-}" ]; then
    plugin_dir_of "$VM_PLUGINS" > /dev/null || exit 125
    rm -f /etc/libibverbs.d/*
fi

# For a process that is still running (a server in the background).
libibverbs_of() {
    local line
    while read -r line; do
        [[ $line =~ (/[^ ]*/libibverbs\.so[.0-9]*)$ ]] && { echo "${BASH_REMATCH[1]}"; return 0; }
    done < "/proc/$1/maps"
    return 1
}
