# SPDX-License-Identifier: MIT
# The report of tests/bench/run.sh, from its raw files of "SIDE KEY VALUE..."
# lines (SIDE: ours, upstream, base).  A lone numeric VALUE is a sample;
# every line is also a fact, the last one winning.  Variables: cold_runs,
# steady_runs, steady_count, fork_runs, fork_rounds, load, cpus.

{ v = $0; sub(/^[^ ]+ [^ ]+ */, "", v); fact[$1, $2] = v }
$3 ~ /^[0-9]+$/ && NF == 3 { val[$1, $2, ++cnt[$1, $2]] = $3; next }
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

function per_side(title, value_upstream, value_ours) {
    print title ":"
    printf "  %-9s %s\n  %-9s %s\n", "upstream", or_na(value_upstream), "ours", or_na(value_ours)
}

# One line of the table: times in ns, the target ratio, relative spreads.
function row(label, up, ours, target, sp_up, sp_ours,    r, met, sp) {
    r = met = "n/a"
    if (up != "" && ours != "" && up > 0) {
        r = sprintf("%.3fx", ours / up)
        met = ours / up <= target ? "yes" : "NO"
    }
    if (sp_up != "" && sp_ours != "")
        sp = sprintf("%d%%", 100 * (sp_up > sp_ours ? sp_up : sp_ours))
    printf "%-44s %10s %10s %8s %7s %4s %7s\n", label, us(up), us(ours), r, "<=" target "x", met, sp
}
function timed(label, k, target) {
    row(label, med("upstream", k), med("ours", k), target, spread("upstream", k), spread("ours", k))
}
# Whole-process time less the baseline process's, in ns.
function process(s,    t) {
    t = med(s, "process_us")
    return t == "" ? "" : 1000 * (t - med("base", "process_us"))
}

END {
    print ""
    per_side("libibverbs.so.1 that the runs loaded (each run checks it)",
             fact["upstream", "lib"], fact["ours", "lib"])
    per_side("devices listed", fact["upstream", "devices"], fact["ours", "devices"])
    per_side("shared objects that the first ibv_get_device_list() loaded",
             fact["upstream", "objects_loaded"], fact["ours", "objects_loaded"])
    per_side("page faults in the first ibv_get_device_list() (median)",
             med("upstream", "cold_faults"), med("ours", "cold_faults"))
    for (f in failed) {
        print "not measured (runs, why):"
        break
    }
    for (f in failed)
        printf "  %4d  %s\n", failed[f], f

    print ""
    printf "In the guest: %s, kernel %s.\n", fact["base", "cpu"], fact["base", "kernel"]
    if (fact["base", "cpu"] ~ /TCG/) {
        print "qemu TCG emulation: absolute times are 5-40x what hardware gives; both libraries"
        print "ran in the same guest, interleaved, so the ratios are what to read.  Address"
        print "randomisation is off there, so TCG reuses its translations between processes."
    }
    printf "Medians in us: cold over %d processes per library; warm and open over %d\n",
        cold_runs, steady_runs
    printf "processes x %d calls; fork tree over %d processes x %d rounds, %s live ranges.\n",
        steady_count, fork_runs, fork_rounds, fact["upstream", "live_ranges"]
    print "spread: interquartile range / median, the larger of the two sides."
    printf "This machine: %d CPUs, load average %s when the benchmark started%s.\n", cpus, load,
        (load + 0 > cpus ? " (busy: expect noise)" : "")
    print ""
    printf "%-44s %10s %10s %8s %7s %4s %7s\n",
        "benchmark", "upstream", "ours", "ratio", "target", "met", "spread"
    timed("ibv_get_device_list, cold (first call)", "cold_ns", 0.1)
    row("process: load, first discovery, exit (*)", process("upstream"), process("ours"), 1,
        spread("upstream", "process_us"), spread("ours", "process_us"))
    timed("ibv_get_device_list + free, warm", "warm_ns", 0.5)
    timed("ibv_open_device + ibv_close_device, rxe0", "open_ns", 1)
    timed("fork tree: insert (ibv_dontfork_range)", "insert_ns", 1)
    timed("fork tree: re-reference (dontfork+dofork)", "reref_ns", 0.5)
    timed("fork tree: remove (ibv_dofork_range)", "remove_ns", 1)
    print ""
    printf "(*) whole-process wall time less that of /bin/true (%s us), spawned alike.\n",
        med("base", "process_us")
    print "The first four rows ran in the qemu guest, the fork tree on this machine."
}
