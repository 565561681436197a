# gawk-events.awk: summarise a game event log (agbsim trace input for gawk 5.2)
# Builds per-entity histories by string concatenation, counts words, keeps a
# sliding window of recent lines and deletes entities when they despawn.
{
    id = $3
    count[$2]++
    seen[id]++
    hist[id] = hist[id] sprintf("%s@%d,%d;", $2, $4, $5)
    window[NR % 48] = $0
    n = split($0, w, /[ _"]+/)
    for (i = 2; i <= n; i++) if (w[i] !~ /^v?[0-9]+$/) words[w[i]]++
    if ($2 == "despawn") {
        if (length(hist[id]) > longest_len) { longest_len = length(hist[id]); longest = id }
        delete hist[id]
        delete seen[id]
    }
    if (NR % 200 == 0) {
        line = ""
        for (k in count) line = line k "=" count[k] " "
        report[NR / 200] = line
        for (k in words) if (words[k] < 2) delete words[k]
    }
}
END {
    for (k in report) print k, report[k]
    printf "live entities: %d, longest history: %s (%d chars)\n", length(hist), longest, longest_len
    m = asorti(words, sorted)
    out = ""
    for (i = 1; i <= m && i <= 20; i++) out = out sorted[i] ":" words[sorted[i]] " "
    print out
}
