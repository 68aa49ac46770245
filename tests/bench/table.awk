# SPDX-License-Identifier: MIT
# The report of tests/bench/run.sh, from its raw files of "SIDE KEY VALUE..."
# lines (SIDE: ours, upstream, base).  A lone numeric VALUE is a sample;
# every line is also a fact, the last one winning.  Variables: phases (the
# ones that ran, space-separated), cold_runs, steady_runs, steady_count,
# fork_runs, fork_rounds, dp_iterations, dp_rounds, cm_count, cm_rounds,
# rs_rounds, load, cpus.

{ v = $0; sub(/^[^ ]+ [^ ]+ */, "", v); fact[$1, $2] = v }
$3 ~ /^[0-9]+(\.[0-9]+)?$/ && NF == 3 { val[$1, $2, ++cnt[$1, $2]] = $3; next }
$2 == "failed" { failed[$0]++ }
$2 == "open_ns" { failed[$1 " open " v]++ }

# Quantile q of SIDE's KEY samples (nearest rank); "" without samples.
function quant(s, k, q,    n, i, j, t, a) {
    n = cnt[s, k]
    if (!n)
        return ""
    for (i = 1; i <= n; i++)
        a[i] = val[s, k, i] + 0
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return a[int(q * (n - 1) + 1.5)]
}
function med(s, k) { return quant(s, k, 0.5) }
function spread(s, k,    m) {
    m = med(s, k)
    return m > 0 ? (quant(s, k, 0.75) - quant(s, k, 0.25)) / m : ""
}
function or_na(x) { return x == "" ? "n/a" : x }
function us(ns) {
    if (ns == "")
        return "n/a"
    return sprintf(ns >= 100000 ? "%.0f" : ns >= 10000 ? "%.1f" : "%.2f", ns / 1000)
}

# Instructions per operation.
function count(n) {
    if (n == "")
        return "n/a"
    return sprintf(n >= 100 || n == int(n) ? "%.0f" : "%.1f", n)
}

function per_side(title, value_upstream, value_ours) {
    print title ":"
    printf "  %-9s %s\n  %-9s %s\n", "upstream", or_na(value_upstream), "ours", or_na(value_ours)
}

# One line of the table: times in ns (instruction counts if unit is
# "count"), the target ratio, relative spreads.
function row(label, up, ours, target, sp_up, sp_ours, unit,    r, met, sp) {
    r = met = "n/a"
    if (up != "" && ours != "" && up > 0) {
        r = sprintf("%.3fx", ours / up)
        met = ours / up <= target ? "yes" : "NO"
    }
    if (sp_up != "" && sp_ours != "")
        sp = sprintf("%d%%", 100 * (sp_up > sp_ours ? sp_up : sp_ours))
    printf "%-44s %10s %10s %8s %7s %4s %7s\n", label,
        unit == "count" ? count(up) : us(up), unit == "count" ? count(ours) : us(ours),
        r, "<=" target "x", met, sp
}
function timed(label, k, target) {
    row(label, med("upstream", k), med("ours", k), target, spread("upstream", k), spread("ours", k))
}
function counted(label, k, target) {
    row(label, med("upstream", k), med("ours", k), target, spread("upstream", k),
        spread("ours", k), "count")
}
# Whole-process time less the baseline process's, in ns.
function process(s,    t) {
    t = med(s, "process_us")
    return t == "" ? "" : 1000 * (t - med("base", "process_us"))
}

# cmtime's samples are in us per connection.
function cm_row(label, k,    up, ours) {
    gsub(/_/, " ", label)
    up = med("upstream", k)
    ours = med("ours", k)
    row(label, up == "" ? "" : 1000 * up, ours == "" ? "" : 1000 * ours, 1,
        spread("upstream", k), spread("ours", k))
}

# rstream's samples: ns per transfer; a throughput row also in MB/s.
function rs_row(label, k, bytes,    up, ours) {
    up = med("upstream", k)
    ours = med("ours", k)
    row(label, up, ours, 1, spread("upstream", k), spread("ours", k))
    if (bytes && up > 0 && ours > 0)
        printf "    MB/s: upstream %.1f, ours %.1f (%.3fx)\n", bytes * 1000 / up, bytes * 1000 / ours,
            up / ours
}

function ran(phase) { return index(" " phases " ", " " phase " ") > 0 }

function header() {
    printf "%-44s %10s %10s %8s %7s %4s %7s\n",
        "benchmark", "upstream", "ours", "ratio", "target", "met", "spread"
}

# "OBJECT=N ..." facts: the objects whose instructions an operation ran,
# per operation, by base name, the most first.
function second(entry,    x) {
    split(entry, x, " ")
    return x[2] + 0
}
function objects(s, k,    n, i, j, t, a, out) {
    n = split(fact[s, k], a, " ")
    for (i = 1; i <= n; i++) {
        sub(/^.*\//, "", a[i])
        sub(/=/, " ", a[i])
    }
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && second(a[j - 1]) < second(a[j]); j--) {
            t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
        }
    out = ""
    for (i = 1; i <= n; i++)
        out = out (out == "" ? "" : ", ") a[i]
    return out == "" ? "n/a" : out
}

function datapath_row(label, k, target,    s) {
    counted(label, "dp_" k, target)
    for (s = 1; s <= 2; s++)
        printf "    %-9s %s\n", s == 1 ? "upstream" : "ours",
            objects(s == 1 ? "upstream" : "ours", "dp_" k "_objects")
}

function spins(    s, k, n, out) {
    out = ""
    for (s = 1; s <= 2; s++)
        for (k in spin_keys) {
            n = med(s == 1 ? "upstream" : "ours", "dp_spins_" k)
            if (n > 0)
                out = out sprintf(" %s %s %s;", s == 1 ? "upstream" : "ours", k, n)
        }
    return out
}

END {
    if (ran("device")) {
        print ""
        per_side("libibverbs.so.1 that the runs loaded (each run checks it)",
                 fact["upstream", "lib"], fact["ours", "lib"])
        per_side("devices listed", fact["upstream", "devices"], fact["ours", "devices"])
        per_side("shared objects that the first ibv_get_device_list() loaded",
                 fact["upstream", "objects_loaded"], fact["ours", "objects_loaded"])
        per_side("page faults in the first ibv_get_device_list() (median)",
                 med("upstream", "cold_faults"), med("ours", "cold_faults"))
    }
    if (ran("datapath"))
        per_side("libibverbs.so.1 of the datapath runs (each run checks it)",
                 fact["upstream", "dp_lib"], fact["ours", "dp_lib"])
    for (f in failed) {
        print "not measured (runs, why):"
        break
    }
    for (f in failed)
        printf "  %4d  %s\n", failed[f], f

    if (ran("size")) {
        print ""
        print "Stripped library sizes in bytes (after strip, as distributions ship them).  Upstream's"
        printf "libibverbs counts with its librxe and libsiw plugins (%s + %s + %s), as ours has\n",
            med("upstream", "size_verbs_core"), med("upstream", "size_verbs_rxe"),
            med("upstream", "size_verbs_siw")
        print "those providers built in."
        print ""
        header()
        row("libibverbs, rxe and siw", med("upstream", "size_verbs"), med("ours", "size_verbs"),
            0.5, "", "", "count")
        row("librdmacm", med("upstream", "size_rdmacm"), med("ours", "size_rdmacm"), 0.5, "", "",
            "count")
        if (med("ours", "size_verbs_minimal") != "") {
            row("libibverbs, minimal build (*)", med("upstream", "size_verbs"),
                med("ours", "size_verbs_minimal"), 0.5, "", "", "count")
            row("librdmacm, minimal build (*)", med("upstream", "size_rdmacm"),
                med("ours", "size_rdmacm_minimal"), 0.5, "", "", "count")
            printf "(*) %s: the variants suite's minimal build (./run test variants).\n",
                fact["base", "size_minimal_dir"]
        }
    }

    if (ran("device") || ran("fork")) {
        print ""
        if (ran("device")) {
            printf "In the guest: %s, kernel %s.\n", fact["base", "cpu"], fact["base", "kernel"]
            if (fact["base", "cpu"] ~ /TCG/) {
                print "qemu TCG emulation: absolute times are 5-40x what hardware gives; both libraries"
                print "ran in the same guest, interleaved, so the ratios are what to read.  Address"
                print "randomisation is off there, so TCG reuses its translations between processes."
            }
            printf "Medians in us: cold over %d processes per library; warm and open over %d\n",
                cold_runs, steady_runs
            printf "processes x %d calls.\n", steady_count
        }
        if (ran("fork"))
            printf "Fork tree: medians in us over %d processes x %d rounds, %s live ranges.\n",
                fork_runs, fork_rounds, fact["upstream", "live_ranges"]
        print "spread: interquartile range / median, the larger of the two sides."
        printf "This machine: %d CPUs, load average %s when the benchmark started%s.\n", cpus, load,
            (load + 0 > cpus ? " (busy: expect noise)" : "")
        print ""
        header()
        if (ran("device")) {
            timed("ibv_get_device_list, cold (first call)", "cold_ns", 0.1)
            row("process: load, first discovery, exit (*)", process("upstream"), process("ours"), 1,
                spread("upstream", "process_us"), spread("ours", "process_us"))
            timed("ibv_get_device_list + free, warm", "warm_ns", 0.5)
            timed("ibv_open_device + ibv_close_device, rxe0", "open_ns", 1)
        }
        if (ran("fork")) {
            timed("fork tree: insert (ibv_dontfork_range)", "insert_ns", 1)
            timed("fork tree: re-reference (dontfork+dofork)", "reref_ns", 0.5)
            timed("fork tree: remove (ibv_dofork_range)", "remove_ns", 1)
        }
        if (ran("device")) {
            print ""
            printf "(*) whole-process wall time less that of /bin/true (%s us), spawned alike.\n",
                med("base", "process_us")
            print "The device rows ran in the qemu guest" (ran("fork") ? ", the fork tree on this machine." : ".")
        }
    }

    if (ran("datapath")) {
        print ""
        printf "Datapath on rxe0 in the guest: user-space instructions per operation, counted by\n"
        printf "callgrind (%s) in %d profiles of %d operations per library, the median shown.\n",
            fact["base", "valgrind"], dp_rounds, dp_iterations
        print "Counted: every instruction between entering and leaving the operation except the"
        print "benchmark's own, i.e. libibverbs, the provider and the libc they call; never the"
        print "kernel's, as valgrind runs system calls natively.  Under each row, per object."
        print "RC loopback between two QPs, every work request signaled.  spread: interquartile"
        print "range / median; callgrind counts are deterministic: anything but 0% means the runs"
        print "differed."
        print ""
        header()
        datapath_row("SEND + receive + 2 polls", "send_recv", 0.8)
        datapath_row("RDMA WRITE + poll", "write", 0.8)
        datapath_row("ibv_wr_* SEND + poll", "wr_send", 0.8)
        datapath_row("ibv_poll_cq, empty CQ", "empty_poll", 1)
        split("send_recv write wr_send empty_poll", a, " ")
        for (i in a)
            spin_keys[a[i]] = 1
        if (spins() != "")
            print "Polls that found nothing yet, counted above:" spins()
    }

    if (ran("connect")) {
        print ""
        printf "Connection setup over rdma_cm on rxe0 in the guest: upstream's cmtime, server and\n"
        printf "client on one library (librdmacm and libibverbs), %d connections a run, %d runs per\n",
            cm_count, cm_rounds
        print "library, interleaved.  Each step runs for all connections at once; shown is its"
        print "wall time per connection, the median over the runs (qemu TCG: read the ratios)."
        print ""
        header()
        n = split("create_id resolve_addr resolve_route create_qp connect disconnect destroy", steps, " ")
        for (i = 1; i <= n; i++)
            cm_row(steps[i], "cm_" steps[i])
        cm_row("per connection, all steps", "cm_total")
    }

    if (ran("rsocket")) {
        print ""
        printf "Stream rsockets on rxe0 in the guest: upstream's rstream, server and client on one\n"
        printf "library (librdmacm and libibverbs), %d rounds per library, interleaved; the client's\n",
            rs_rounds
        print "time per transfer, the median (us).  A throughput row's ratio is time, so <= 1x"
        print "time is >= 1x throughput (its MB/s below it).  qemu TCG: read the ratios."
        print ""
        header()
        rs_row("latency: 64 B ping-pong, per transfer", "rs_lat_64", 0)
        rs_row("throughput: 4 KiB stream, per transfer", "rs_bw_4096", 4096)
        rs_row("throughput: 64 KiB stream, per transfer", "rs_bw_65536", 65536)
        rs_row("throughput: 1 MiB stream, per transfer", "rs_bw_1048576", 1048576)
    }
}
