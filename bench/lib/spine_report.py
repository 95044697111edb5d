# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""spine_report.py - what bench/run makes of a spine scenario's files (see
spine.py for the testbed), on top of report.py's per-run analysis: the
spine table's columns, summary keys and the plot "effective rate against
available capacity" of every run.

Definitions (window = the collective's first iteration start to its last
end, as report.py; t = 0 of the schedule is the collective's scheduled
start):
  available        spine_rate x (1 - share(t)) from the --cross schedule
                   (spine_rate without cross-traffic: the alone runs),
                   integrated over the window; per second: spine_avail_mbps
  left             available - the collective's A -> B frame bits in the
                   window (report.py's coll_ab), per second
  storage share    storage frame bits received by sb in the window / left
                   (spine_storage_share): the part of what the collective
                   leaves at the spine that storage got
  spine queue      the spine TBF's backlog (qsample, every 50 ms) over the
                   window: mean, p99, max in KB, and p99 as delay at the
                   window's mean available rate; drops in the window and
                   over the whole run (every kind of traffic)
  cross            the cross-traffic's frame bits received by its sink in
                   the window (spine_cross_mbps) against what the schedule
                   sent (spine_cross_sched_mbps); datagrams lost (the
                   sink's count: FIN totals against what arrived)
  gw1 rate         the gateway's effective egress rate towards the spine:
                   xdplane_adaptive_rate_bytes_per_second{port="gw1"} (summed over queues) when the daemon
                   exports it (spine_gw1_gauge_mbps, its mean), and the
                   port's transmitted bytes per interval always
                   (xdplane_tx_bytes_total from /metrics; for the Linux
                   gateways the tc counters of gw1's classes):
                   spine_gw1_tx_mbps, and its source in spine_gw1_source"""

import statistics
import subprocess

import spine

UDP_HDRS = 14 + 4 + 20 + 8
SUMMARY_KEYS = ["spine_avail_mbps", "spine_left_mbps", "spine_storage_share",
                "spine_q_mean_kb", "spine_q_p99_kb", "spine_q_max_kb",
                "spine_q_p99_ms", "spine_drops", "spine_drops_run",
                "spine_cross_mbps", "spine_cross_sched_mbps",
                "spine_cross_lost_pct", "spine_gw1_tx_mbps",
                "spine_gw1_gauge_mbps"]


def is_spine(name):
    return "-spine-" in name


def _pct(vals, q):
    vals = sorted(vals)
    return vals[min(len(vals) - 1, int(q * len(vals)))] if vals else None


def _rate_series(samples, min_ns=95_000_000):
    """[(t_ns, cumulative bytes)] -> [(t_ns at the interval's end,
    Mbit/s)] over intervals of at least min_ns (100 ms: the 50 ms samples
    of the tc counters in pairs)."""
    out = []
    if not samples:
        return out
    ta, ba = samples[0]
    for tb, bb in samples[1:]:
        if bb < ba:  # a counter reset: start again
            ta, ba = tb, bb
        elif tb - ta >= min_ns:
            out.append((tb, (bb - ba) * 8 / (tb - ta) * 1e3))
            ta, ba = tb, bb
    return out


def analyse(r, res, o, read_csv, read_json):
    """Adds the spine_* keys and res['spine_series'] (for the plots)."""
    sc = r.sc
    sched = o.cross_sched if sc.cross else [(0.0, 0.0)]
    rate = o.spine_rate
    t0 = res.get("t0_ns") or 0
    w = res.get("window_s") or 0
    t1 = t0 + int(w * 1e9)
    tz = r.t_coll_ns or t0
    ser = {"t0": t0 or tz, "tz": tz, "sched": sched,
           "t_cross": tz - int(1.5e9) if sc.cross else tz}
    res["spine_series"] = ser
    res["spine_rate_bps"] = rate
    res["spine_buffer_bytes"] = o.spine_buffer
    if t0 and w > 0:
        avail = spine.integral_available(sched, rate, (t0 - tz) / 1e9,
                                         (t1 - tz) / 1e9)
        coll = res["coll_ab_mbps"] * 1e6 * w
        left = avail - coll
        res["spine_avail_mbps"] = avail / w / 1e6
        res["spine_left_mbps"] = left / w / 1e6
        res["spine_storage_share"] = (
            res["storage_frame_mbps"] * 1e6 * w / left
            if sc.cross and left > 0 else None)
    # the spine's queue
    rows = [x for x in read_csv(r.files.get("spine.csv", "/nonexistent"))
            if x.get("port") == "stor"]
    q = [(int(x["t_ns"]), int(x["depth_bytes"]), int(x["drops"]))
         for x in rows]
    ser["queue"] = [(t, d) for t, d, _ in q]
    inside = [(t, d, dr) for t, d, dr in q if t0 <= t <= t1] if t0 else q
    if inside:
        depths = [d for _, d, _ in inside]
        res["spine_q_mean_kb"] = statistics.mean(depths) / 1024
        res["spine_q_p99_kb"] = _pct(depths, 0.99) / 1024
        res["spine_q_max_kb"] = max(depths) / 1024
        res["spine_drops"] = inside[-1][2] - inside[0][2]
        if res.get("spine_avail_mbps"):
            res["spine_q_p99_ms"] = (_pct(depths, 0.99) * 8 /
                                     (res["spine_avail_mbps"] * 1e6) * 1e3)
    if q:
        res["spine_drops_run"] = q[-1][2] - q[0][2]
    # the cross-traffic
    if sc.cross:
        xd = read_json(r.files.get("xd.json", "/nonexistent")) or {}
        got, lost = xd.get("udp_datagrams", 0), xd.get("udp_lost", 0)
        if got + lost:
            res["spine_cross_lost_pct"] = 100 * lost / (got + lost)
        bins, in_w = {}, 0
        for x in read_csv(r.files.get("xd-timeline.csv", "/nonexistent")):
            if x.get("proto") != "udp":
                continue
            t = int(x["t_ns"])
            fb = int(x["bytes"]) + int(x["packets"]) * UDP_HDRS
            bins[t] = bins.get(t, 0) + fb
            if t0 and t0 <= t < t1:
                in_w += fb
        ser["cross"] = sorted(bins.items())
        if t0 and w > 0:
            res["spine_cross_mbps"] = in_w * 8 / w / 1e6
            res["spine_cross_sched_mbps"] = (
                rate * w - spine.integral_available(
                    sched, rate, (t0 - tz) / 1e9, (t1 - tz) / 1e9)) / w / 1e6
    # the gateway's effective egress rate towards the spine
    gauge_t, tx = {}, []
    for x in read_csv(r.files.get("metrics.csv", "/nonexistent")):
        port = x["port"].split("/")[0]
        if port != "gw1":
            continue
        if x["metric"] == "xdplane_adaptive_rate_bytes_per_second":
            # per queue: the port's rate is their sum
            t = int(x["t_ns"])
            gauge_t[t] = gauge_t.get(t, 0.0) + float(x["value"]) * 8 / 1e6
        elif x["metric"] == "xdplane_tx_bytes_total":
            tx.append((int(x["t_ns"]), float(x["value"])))
    source = "xdplane_tx_bytes_total"
    if not tx:  # the Linux gateways (or no /metrics): gw1's tc counters
        per_t = {}
        for x in read_csv(r.files.get("queue.csv", "/nonexistent")):
            if x["port"] == "gw1":
                t = int(x["t_ns"])
                per_t[t] = per_t.get(t, 0) + int(x["sent_bytes"])
        tx = sorted(per_t.items())
        source = ("xdplane stats (control socket)" if r.gw is not None
                  else "tc counters")
    gauge = sorted(gauge_t.items())
    ser["gw1_tx"] = _rate_series(tx)
    ser["gw1_gauge"] = gauge
    res["spine_gw1_source"] = ("xdplane_adaptive_rate_bytes_per_second + " + source
                               if gauge else source)
    if t0 and w > 0:
        inside = [(t, b) for t, b in tx if t0 <= t <= t1]
        if len(inside) >= 2:
            (ta, ba), (tb, bb) = inside[0], inside[-1]
            res["spine_gw1_tx_mbps"] = (bb - ba) * 8 / max(tb - ta, 1) * 1e3
        g = [v for t, v in gauge if t0 <= t <= t1]
        if g:
            res["spine_gw1_gauge_mbps"] = statistics.mean(g)


# --------------------------------------------------------------------------
# The table

def _stat(vals, fmt):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-"
    m = statistics.median(vals)
    if len(vals) == 1:
        return fmt.format(m)
    return f"{fmt.format(m)} [{fmt.format(min(vals))}–{fmt.format(max(vals))}]"


def render_table(by, o):
    names = [n for n in by if is_spine(n)]
    if not names:
        return []
    base = {}
    for n in names:
        if n.endswith("-spine-alone"):
            base[n.split("-")[0]] = statistics.median(
                [r["coll_s"] for r in by[n] if r.get("coll_s")] or [0])
    lines = [
        "| spine scenario | collective time s | vs alone | storage Mbit/s "
        "(payload) | storage / capacity left at the spine | available / gw1 "
        "sent (adaptive rate) Mbit/s | spine queue mean / p99 KB (p99 ms) "
        "| spine drops "
        "(cross-traffic lost %) | RoCE loss events (retransmitted pkts) | "
        "RoCE latency p50 / p99 µs | runs ok |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for n in names:
        skipped = [r for r in by[n] if r.get("skipped")]
        rs = [r for r in by[n] if not r.get("skipped")]
        if not rs:
            lines.append(f"| {n} | skipped: {skipped[0]['skipped'][:120]} "
                         "| - | - | - | - | - | - | - | - | "
                         f"0/{len(skipped)} |")
            continue
        b = base.get(n.split("-")[0])
        ratio = [r["coll_s"] / b for r in rs if r.get("coll_s") and b]
        cross = rs[0].get("spine_storage_share") is not None or \
            not n.endswith("-alone")
        g = lambda k, fmt: _stat([r.get(k) for r in rs], fmt)  # noqa: E731
        gauge = ""  # the adaptive rate's mean, once the daemon exports it
        if any(r.get("spine_gw1_gauge_mbps") is not None for r in rs):
            gauge = f" (rate {g('spine_gw1_gauge_mbps', '{:.1f}')})"
        lines.append(
            f"| {n} | {g('coll_s', '{:.3f}')} | "
            f"{_stat(ratio, '{:.2f}x')} | "
            f"{g('storage_mbps', '{:.1f}') if cross else '-'} | "
            f"{g('spine_storage_share', '{:.2f}')} | "
            f"{g('spine_avail_mbps', '{:.1f}')} / "
            f"{g('spine_gw1_tx_mbps', '{:.1f}')}"
            f"{gauge} | "
            f"{g('spine_q_mean_kb', '{:.0f}')} / "
            f"{g('spine_q_p99_kb', '{:.0f}')} "
            f"({g('spine_q_p99_ms', '{:.0f}')}) | "
            f"{g('spine_drops', '{:.0f}')} "
            f"({g('spine_cross_lost_pct', '{:.1f}')}) | "
            f"{g('loss_events', '{:.0f}')} "
            f"({g('retransmitted_packets', '{:.0f}')}) | "
            f"{g('lat_p50_us', '{:.0f}')} / {g('lat_p99_us', '{:.0f}')} | "
            f"{sum(1 for r in rs if r['ok'])}/{len(by[n])}"
            f"{' (' + str(len(skipped)) + ' skipped)' if skipped else ''} |")
    sched = ", ".join(f"{sh:.0%} from {t:g} s" for t, sh in o.cross_sched)
    lines.append("")
    lines.append(
        f"Spine: {o.spine_rate / 1e6:g} Mbit/s towards ToR B (the gateway's "
        f"ports {o.rate / 1e6:g} Mbit/s), FIFO of {o.spine_buffer} B, B -> A "
        f"not shaped; cross-traffic at the spine: {sched} of its rate "
        f"(t from the collective's start); handshaped: gw1 at "
        f"{o.handshaped_bps / 1e6:.2f} Mbit/s ({o.handshaped_how}). "
        "Storage share = storage frames / (available - the collective's "
        "A -> B frames) over the window; queue over the window, drops in "
        "the window.")
    return lines


# --------------------------------------------------------------------------
# The plots: per run, the gateway's effective rate against the capacity
# the spine leaves it, and the spine's queue

def plots(by, out):
    pd = out / "plots"
    dd = pd / "data"
    dd.mkdir(parents=True, exist_ok=True)
    gp = ["set terminal pngcairo size 1200,650\n"]
    made = []
    for n in [n for n in by if is_spine(n)]:
        for r in by[n]:
            ser = r.get("spine_series")
            if r.get("skipped") or not ser or not ser.get("queue"):
                continue
            tag = r["tag"]
            t0, tz = ser["t0"], ser["tz"]
            rate = r["spine_rate_bps"]
            last = max(t for t, _ in ser["queue"])
            # available(t): a step per schedule entry, from the cross-
            # traffic's start to the last sample
            with open(dd / f"avail-{tag}.dat", "w") as f:
                sched = ser["sched"]
                starts = [ser["t_cross"]] + [tz + int(t * 1e9)
                                             for t, _ in sched[1:]]
                for s, (_, sh) in zip(starts, sched):
                    f.write(f"{(s - t0) / 1e9:.3f} "
                            f"{rate * (1 - sh) / 1e6:.3f}\n")
                f.write(f"{(last - t0) / 1e9:.3f} "
                        f"{rate * (1 - sched[-1][1]) / 1e6:.3f}\n")
            with open(dd / f"spineq-{tag}.dat", "w") as f:
                for t, d in ser["queue"]:
                    f.write(f"{(t - t0) / 1e9:.3f} {d / 1024:.1f}\n")
            with open(dd / f"gwtx-{tag}.dat", "w") as f:
                for t, v in ser.get("gw1_tx", []):
                    f.write(f"{(t - t0) / 1e9:.3f} {v:.3f}\n")
            curves = [f"'{dd}/avail-{tag}.dat' using 1:2 with steps lw 3 "
                      "lc rgb 'black' title 'available = spine rate x "
                      "(1 - cross share)'"]
            if ser.get("gw1_gauge"):
                with open(dd / f"gauge-{tag}.dat", "w") as f:
                    for t, v in ser["gw1_gauge"]:
                        f.write(f"{(t - t0) / 1e9:.3f} {v:.3f}\n")
                curves.append(f"'{dd}/gauge-{tag}.dat' using 1:2 with steps "
                              "lw 2 lc rgb 'red' title 'gw1 effective rate "
                              "(xdplane\\_adaptive\\_rate\\_bytes\\_per\\_second)'")
            if ser.get("gw1_tx"):
                src = r.get("spine_gw1_source", "")
                what = ("tc counters" if "tc counters" in src else
                        "control-socket stats" if "control" in src else
                        "xdplane\\_tx\\_bytes\\_total")
                label = (f"gw1 sent ({what})" if ser.get("gw1_gauge") else
                         f"gw1 effective rate = sent ({what}; no adaptive "
                         "gauge)")
                curves.append(f"'{dd}/gwtx-{tag}.dat' using 1:2 with lines "
                              f"lc rgb 'blue' title '{label}'")
            bins = r.get("bins") or {}
            if bins:
                with open(dd / f"rocebins-{tag}.dat", "w") as f:
                    for b in sorted(bins):
                        v = bins[b].get("roce_ab", 0) * 8 / 0.1 / 1e6
                        f.write(f"{b / 10:.2f} {v:.3f}\n")
                curves.append(f"'{dd}/rocebins-{tag}.dat' using 1:2 with "
                              "steps lc rgb 'dark-green' title 'collective "
                              "A->B'")
            if ser.get("cross"):
                with open(dd / f"cross-{tag}.dat", "w") as f:
                    # 10 ms rows summed to 100 ms
                    acc = {}
                    for t, fb in ser["cross"]:
                        k = (t - t0) // 100_000_000
                        acc[k] = acc.get(k, 0) + fb
                    for k in sorted(acc):
                        f.write(f"{k / 10:.2f} {acc[k] * 8 / 0.1 / 1e6:.3f}"
                                "\n")
                curves.append(f"'{dd}/cross-{tag}.dat' using 1:2 with steps "
                              "lc rgb 'orange' title 'cross-traffic "
                              "(received)'")
            curves.append(f"'{dd}/spineq-{tag}.dat' using 1:2 axes x1y2 with "
                          "lines lc rgb 'purple' dt 2 title 'spine queue KB "
                          "(right)'")
            buf_kb = r["spine_buffer_bytes"] / 1024
            xmin = (ser["t_cross"] - t0) / 1e9 - 0.3
            # to the collective's end (the traffic stops after it)
            if r.get("window_s"):
                last = min(last, t0 + int((r["window_s"] + 0.5) * 1e9))
            xmax = (last - t0) / 1e9 + 0.3
            gp.append(f"""set output '{pd}/effrate-{tag}.png'
set title 'Effective rate against available capacity: {tag}'
set xlabel 'seconds from the collective start'
set ylabel 'Mbit/s'
set y2label 'spine queue KB'
set xrange [{xmin:.2f}:{xmax:.2f}]
set yrange [0:{rate / 1e6 * 1.5:.1f}]
set y2range [0:{buf_kb * 1.1:.0f}]
set ytics nomirror
set y2tics
set key below maxrows 3
set arrow 1 from graph 0, second {buf_kb:.0f} to graph 1, \
    second {buf_kb:.0f} nohead dt 3 lc rgb 'purple'
plot {', '.join(curves)}
unset arrow 1
""")
            made.append(f"effrate-{tag}.png")
    if len(gp) == 1:
        return []
    script = pd / "plots-spine.gp"
    script.write_text("".join(gp))
    p = subprocess.run(["gnuplot", str(script)], stderr=subprocess.PIPE,
                       text=True)
    if p.returncode:
        print(f"[run] gnuplot (spine): {p.stderr.strip()[-500:]}")
    return made
