# SPDX-License-Identifier: MIT
# Sums one callgrind profile (the callgrind format, as valgrind 3.x
# writes it) by object: prints "phase NAME" (from --dump-after=phase_NAME),
# then "object PATH INSTRUCTIONS" for each object that ran instructions of
# its own (self cost: a call's inclusive cost counts for the callee only).
#
# Format facts used: "ob=", "cob=" name objects, compressed as "(id) name"
# the first time and "(id)" after, in one id space; the cost line that
# follows a "calls=" line is that call's inclusive cost; other cost lines
# start with a position (a number, or +N, -N, * relative to the last) and
# carry the events in the order "events:" gives, after "positions:".

function object_name(spec,    id) {
    if (match(spec, /^\([0-9]+\)/)) {
        id = substr(spec, 2, RLENGTH - 2)
        spec = substr(spec, RLENGTH + 1)
        sub(/^ /, "", spec)
        if (spec != "")
            names[id] = spec
        return names[id]
    }
    return spec
}

BEGIN { npos = 1; ir_col = 0 }
/^positions:/ { npos = NF - 1 }
/^events:/ { for (i = 2; i <= NF; i++) if ($i == "Ir") ir_col = npos + i - 1 }
/^desc: Trigger: --dump-after=phase_/ { sub(/.*=phase_/, ""); phase = $0 }
/^ob=/ { sub(/^ob=/, ""); ob = object_name($0); next }
/^cob=/ { sub(/^cob=/, ""); object_name($0); next }
/^calls=/ { inclusive = 1; next }
/^[0-9+*-]/ {
    if (inclusive)
        inclusive = 0
    else if (ir_col && $ir_col != "")
        self[ob] += $ir_col
}
END {
    if (!ir_col) {
        print "callgrind.awk: " FILENAME ": no Ir event" > "/dev/stderr"
        exit 1
    }
    print "phase " phase
    for (o in self)
        if (self[o])
            print "object " o " " self[o]
}
