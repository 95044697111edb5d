# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""report.py - what bench/run makes of a run's files: per-run metrics
(analyse_run), the table, the CSVs and the gnuplot plots (write_all).

Definitions (all times CLOCK_MONOTONIC, which the hosts stamp with):
  iteration time   max over ranks of its end - min over ranks of its start;
                   a run's collective time is the median over iterations
  window           first iteration's start to the last one's end
  storage          TCP and UDP payload received by sb in the window (storgen
                   timeline), as Mbit/s of payload, and as frame bits (TCP
                   x 1518 / 1448: full-size segments with timestamps and
                   the 802.1Q tag; UDP + 46 bytes per datagram)
  left capacity    the link rate minus the collective's A -> B frame bits in
                   the window (received by the ranks of rack B from rack A,
                   retransmissions included: rocegen timelines; ACK/CNP
                   frames, < 1 % of it, are not counted), per second
  share            storage frame bits / left capacity
  share (gw)       the same from the gateway's own per-class byte counters
                   on gw1 (xdplane, HTB): storage / (rate - other classes)
  queue            the gateway's egress queue on gw1 (A -> B) and gw0 (B -> A)
                   sampled every 50 ms: max and p99 of the RoCE class
                   (xdplane: class roce, HTB: its class 1:b, FIFO: the one
                   queue) over the window
  gw drops         drops the gateway counted in the RoCE class during the
                   run (the FIFO's drops are of every kind of traffic)
  loss events      gaps the RoCE receivers saw (each costs a go-back-N)
  cpuN_busy        share of CPU N busy (/proc/stat) from the collective's
                   start until every rank exited: whether the machine, not
                   the network, set the pace
The spine scenarios (JOB-spine-GATEWAY) add their own columns and table:
spine_report.py. A run the build cannot make (skipped) has no row in the
tables' statistics and says why."""

import csv
import json
import statistics
import subprocess
from pathlib import Path

import spine_report

TCP_MSS, TCP_FRAME = 1448, 1518
UDP_HDRS = 14 + 4 + 20 + 8  # Ethernet, tag, IPv4, UDP
HTB_NAMES = {"1:a": "cnp", "1:b": "roce", "1:c": "default", "1:d": "storage"}
BIN_NS = 100_000_000  # plots: 100 ms bins


def _read_csv(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def _read_json(path):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


def _pct(vals, q):
    if not vals:
        return 0
    vals = sorted(vals)
    return vals[min(len(vals) - 1, int(q * len(vals)))]


def _hist_pct(hist, q):
    """hist: [[upper_us, count], ...] sorted by upper bound."""
    total = sum(c for _, c in hist)
    if not total:
        return None
    acc = 0
    for up, c in hist:
        acc += c
        if acc >= q * total:
            return up
    return hist[-1][0]


def _merge_hists(hists):
    m = {}
    for h in hists:
        for up, c in h or []:
            m[float(up)] = m.get(float(up), 0) + int(c)
    return sorted([u, c] for u, c in m.items())


def _fp(r, name):
    return r.files.get(name, "/nonexistent")


def analyse_run(r, rcs, gw_rc, o):
    sc, bed = r.sc, r.bed
    res = {"scenario": sc.name, "job": sc.job, "kind": sc.kind,
           "gateway": sc.gateway, "rep": r.rep, "tag": r.tag,
           "rank_rcs": rcs, "gw_rc": gw_rc}
    ranks = [_read_json(_fp(r, f"rank{h.rank}.json")) for h in bed.gpus]
    iters = []
    if all(ranks):
        n = min(len(x.get("iterations", [])) for x in ranks)
        for i in range(n):
            # a run cut by --timeout lists its unfinished iteration with
            # end_ns 0 on some ranks: only finished iterations count
            if any(not x["iterations"][i]["end_ns"] for x in ranks):
                break
            s = min(x["iterations"][i]["start_ns"] for x in ranks)
            e = max(x["iterations"][i]["end_ns"] for x in ranks)
            iters.append((s, e))
    res["iterations_s"] = [round((e - s) / 1e9, 4) for s, e in iters]
    res["coll_s"] = statistics.median(res["iterations_s"]) if iters else None
    t0, t1 = (iters[0][0], iters[-1][1]) if iters else (0, 0)
    res["window_s"] = (t1 - t0) / 1e9
    res["t0_ns"] = t0
    tot = {}
    for x in ranks:
        for k, v in (x or {}).get("totals", {}).items():
            if isinstance(v, (int, float)):
                tot[k] = tot.get(k, 0) + v
    for k in ("loss_events", "retransmitted_packets", "timeouts",
              "cnps_received", "cnps_sent", "ce_seen", "verify_errors",
              "data_packets_sent"):
        res[k] = int(tot.get(k, 0))
    hist = _merge_hists([(x or {}).get("latency_hist") for x in ranks])
    res["lat_hist"] = hist
    res["lat_p50_us"] = _hist_pct(hist, 0.50)
    res["lat_p99_us"] = _hist_pct(hist, 0.99)
    # throughput over time, 100 ms bins from the collective's start
    bins = {}

    def add(t, key, nbytes):
        b = (t - t0) // BIN_NS
        bins.setdefault(b, {}).setdefault(key, 0)
        bins[b][key] += nbytes

    rack = {h.rank: h.rack for h in bed.gpus}
    coll_ab = 0
    for h in bed.gpus:
        for row in _read_csv(_fp(r, f"rank{h.rank}-timeline.csv")):
            if row.get("dir") != "rx":  # what crossed, not what was sent
                continue
            peer = int(row["qp_peer"])
            t, nb = int(row["t_ns"]), int(row["bytes"])
            if rack[h.rank] == "b" and rack.get(peer) == "a":
                add(t, "roce_ab", nb)
                if t0 <= t < t1:
                    coll_ab += nb
            elif rack[h.rank] == "a" and rack.get(peer) == "b":
                add(t, "roce_ba", nb)
    stor_payload = stor_frames = 0
    for row in _read_csv(_fp(r, "sb-timeline.csv")):
        t, nb, npk = int(row["t_ns"]), int(row["bytes"]), int(row["packets"])
        if row["proto"] == "tcp":
            fb = nb * TCP_FRAME // TCP_MSS
            add(t, "tcp_ab", fb)
        else:
            fb = nb + npk * UDP_HDRS
            add(t, "udp_ab", fb)
        if t0 <= t < t1:
            stor_payload += nb
            stor_frames += fb
    res["bins"] = bins
    w = max(res["window_s"], 1e-9)
    res["coll_ab_mbps"] = coll_ab * 8 / w / 1e6
    res["storage_mbps"] = stor_payload * 8 / w / 1e6
    res["storage_frame_mbps"] = stor_frames * 8 / w / 1e6
    left = o.rate / 1e6 - res["coll_ab_mbps"]
    res["left_mbps"] = left
    res["storage_share"] = (res["storage_frame_mbps"] / left
                            if sc.cross and left > 0 else None)
    # the gateway's queues
    q = {}
    first, last, sent_series = {}, {}, {}
    for row in _read_csv(_fp(r, "queue.csv")):
        cls = row["class"]
        cls = HTB_NAMES.get(cls, "roce" if cls in ("tbf", "fifo") else cls)
        key = (row["port"], cls)
        t = int(row["t_ns"])
        first.setdefault(key, row)
        last[key] = row
        sent_series.setdefault(key, []).append((t, int(row["sent_bytes"])))
        if t0 <= t <= t1 or not iters:
            q.setdefault(key, []).append((t, int(row["depth_bytes"])))
    res["queue"] = q
    # what the gateway itself sent on gw1 per class in the window (a cross-
    # check of the hosts' counts; xdplane and HTB classes, the FIFO's one)
    sent = {}
    for key, series in sent_series.items():
        inside = [(t, b) for t, b in series if t0 <= t <= t1]
        if key[0] == "gw1" and len(inside) >= 2:
            (ta, ba), (tb, bb) = inside[0], inside[-1]
            sent[key[1]] = (bb - ba) * 8 / max(tb - ta, 1) * 1e3  # Mbit/s
    res["gw1_sent_mbps"] = {k: round(v, 2) for k, v in sent.items()}
    if "storage" in sent and sent:
        others = sum(v for k, v in sent.items() if k != "storage")
        left_gw = o.rate / 1e6 - others
        res["storage_share_gw"] = sent["storage"] / left_gw \
            if sc.cross and left_gw > 0 else None
    for port in ("gw1", "gw0"):
        depths = [d for _, d in q.get((port, "roce"), [])]
        res[f"q_{port}_max_kb"] = max(depths) / 1024 if depths else None
        res[f"q_{port}_p99_kb"] = _pct(depths, 0.99) / 1024 if depths \
            else None
    drops = 0
    for key in last:
        if key[1] == "roce":
            drops += int(last[key]["drops"]) - int(first[key]["drops"])
    res["gw_roce_drops"] = drops
    marks = 0
    for key in last:
        marks += int(last[key]["marks"]) - int(first[key]["marks"])
    res["gw_marks"] = marks
    for c, busy in sorted(getattr(r, "cpu_busy", {}).items()):
        res[f"cpu{c}_busy"] = round(busy, 3)
    res["ok"] = bool(iters) and all(c == 0 for c in rcs) and \
        res["verify_errors"] == 0 and gw_rc in (None, 0)
    if getattr(sc, "spine", False):
        spine_report.analyse(r, res, o, _read_csv, _read_json)
    return res


def one_line(res):
    f = lambda v, fmt: "-" if v is None else fmt.format(v)  # noqa: E731
    return (f"collective {f(res['coll_s'], '{:.3f}')} s, storage "
            f"{res['storage_mbps']:.1f} Mbit/s (share "
            f"{f(res['storage_share'], '{:.2f}')}), loss events "
            f"{res['loss_events']}, gw roce drops {res['gw_roce_drops']}, "
            f"queue max {f(res['q_gw1_max_kb'], '{:.0f}')} KB, "
            f"{'ok' if res['ok'] else 'FAILED'}")


def _stat(vals, fmt="{:.3f}"):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-"
    m = statistics.median(vals)
    if len(vals) == 1:
        return fmt.format(m)
    return f"{fmt.format(m)} [{fmt.format(min(vals))}–{fmt.format(max(vals))}]"


SUMMARY_KEYS = ["cpu0_busy", "cpu1_busy", "coll_s", "storage_mbps",
                "storage_share", "storage_share_gw", "left_mbps",
                "loss_events", "retransmitted_packets", "timeouts",
                "gw_roce_drops", "gw_marks", "cnps_received",
                "q_gw1_max_kb", "q_gw1_p99_kb", "q_gw0_max_kb",
                "lat_p50_us", "lat_p99_us", "stalls", "stalled_ms"]


def summarise(results):
    by = {}
    for r in results:
        by.setdefault(r["scenario"], []).append(r)
    rows = []
    keys = SUMMARY_KEYS
    if any(spine_report.is_spine(n) for n in by):
        keys = SUMMARY_KEYS + spine_report.SUMMARY_KEYS
    for name, rs in by.items():
        row = {"scenario": name, "runs": len(rs),
               "ok": sum(1 for r in rs if r["ok"])}
        if any(r.get("skipped") for r in rs):
            row["skipped"] = sum(1 for r in rs if r.get("skipped"))
        for k in keys:
            vals = [r[k] for r in rs if r.get(k) is not None]
            row[k] = statistics.median(vals) if vals else None
            row[k + "_min"] = min(vals) if vals else None
            row[k + "_max"] = max(vals) if vals else None
        rows.append(row)
    return by, rows


def _cpu(rs):
    vals = [f"{statistics.median([r.get(f'cpu{c}_busy', 0) for r in rs]):.0%}"
            for c in (0, 1)]
    return " / ".join(vals)


def render_table(by, o):
    lines = []
    coll = [n for n in by if not n.startswith("ps-") and
            not spine_report.is_spine(n)]
    if coll:
        base = {}
        for n in coll:
            job = n.split("-")[0]
            if n.endswith("-alone"):
                base[job] = statistics.median(
                    [r["coll_s"] for r in by[n] if r["coll_s"]] or [0])
        lines += [
            "| scenario | collective time s | vs alone | storage Mbit/s "
            "(payload) | storage / left capacity, hosts (gateway) | RoCE loss events "
            "(retransmitted pkts) | gw RoCE drops | RoCE queue gw1 max KB "
            "| RoCE latency p50 / p99 µs | CPU 0 / 1 busy | runs ok |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
            "| --- |"]
        for n in coll:
            rs = by[n]
            if all(r.get("skipped") for r in rs):
                lines.append(f"| {n} | skipped: {rs[0]['skipped'][:120]} |"
                             + " - |" * 8 + f" 0/{len(rs)} |")
                continue
            job = n.split("-")[0]
            b = base.get(job)
            ratio = [r["coll_s"] / b for r in rs if r["coll_s"] and b]
            lines.append(
                f"| {n} | {_stat([r['coll_s'] for r in rs])} | "
                f"{_stat(ratio, '{:.2f}x')} | "
                f"{_stat([r['storage_mbps'] for r in rs], '{:.1f}') if rs[0]['storage_share'] is not None else '-'} | "
                f"{_stat([r['storage_share'] for r in rs], '{:.2f}')} "
                f"({_stat([r.get('storage_share_gw') for r in rs], '{:.2f}')}) | "
                f"{_stat([r['loss_events'] for r in rs], '{:.0f}')} "
                f"({_stat([r['retransmitted_packets'] for r in rs], '{:.0f}')}) | "
                f"{_stat([r['gw_roce_drops'] for r in rs], '{:.0f}')} | "
                f"{_stat([r['q_gw1_max_kb'] for r in rs], '{:.0f}')} | "
                f"{_stat([r['lat_p50_us'] for r in rs], '{:.0f}')} / "
                f"{_stat([r['lat_p99_us'] for r in rs], '{:.0f}')} | "
                f"{_cpu(rs)} | "
                f"{sum(1 for r in rs if r['ok'])}/{len(rs)} |")
    ps = [n for n in by if n.startswith("ps-")]
    if ps:
        if lines:
            lines.append("")
        lines += [
            "| incast (parameter server) | iteration time s | RoCE queue gw1 "
            "max KB | p99 KB | gw RoCE drops | RoCE loss events "
            "(retransmitted pkts) | CE marks | CNPs to senders | runs ok |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for n in ps:
            rs = by[n]
            if all(r.get("skipped") for r in rs):
                lines.append(f"| {n} | skipped: {rs[0]['skipped'][:120]} |"
                             + " - |" * 6 + f" 0/{len(rs)} |")
                continue
            lines.append(
                f"| {n} | {_stat([r['coll_s'] for r in rs])} | "
                f"{_stat([r['q_gw1_max_kb'] for r in rs], '{:.0f}')} | "
                f"{_stat([r['q_gw1_p99_kb'] for r in rs], '{:.0f}')} | "
                f"{_stat([r['gw_roce_drops'] for r in rs], '{:.0f}')} | "
                f"{_stat([r['loss_events'] for r in rs], '{:.0f}')} "
                f"({_stat([r['retransmitted_packets'] for r in rs], '{:.0f}')}) | "
                f"{_stat([r['gw_marks'] for r in rs], '{:.0f}')} | "
                f"{_stat([r['cnps_received'] for r in rs], '{:.0f}')} | "
                f"{sum(1 for r in rs if r['ok'])}/{len(rs)} |")
    spine_lines = spine_report.render_table(by, o)
    if spine_lines:
        if lines:
            lines.append("")
        lines += spine_lines
    lines.append("")
    lines.append(
        f"Links: gateway ports {o.rate / 1e6:g} Mbit/s each way, GPU host "
        f"NICs {o.line_rate / 1e6:g} Mbit/s, queue limit {o.limit} B; "
        f"median [min–max] of {o.reps} run(s) per scenario.")
    if getattr(o, "adaptive", None):
        lines[-1] += (f" xdplane with `adaptive: {{mode: {o.adaptive}}}` "
                      "under its ports (--adaptive) wherever the scenario "
                      "does not set it.")
    return "\n".join(lines) + "\n"


def write_csv(path, rows, keys=None):
    if not rows:
        return
    keys = list(keys or rows[0].keys())
    # the spine scenarios' columns (and "skipped") even when the first row
    # is of another scenario
    for r in rows:
        keys += [k for k in r if k not in keys and
                 (k.startswith("spine_") or k == "skipped")]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)


def _plots(by, out):
    pd = out / "plots"
    dd = pd / "data"
    dd.mkdir(parents=True, exist_ok=True)
    gp = []
    # completion time per scenario
    names = [n for n in by if not n.startswith("ps-")] + \
        [n for n in by if n.startswith("ps-")]
    have = False
    with open(dd / "completion.dat", "w") as f:
        for i, n in enumerate(names):
            v = [r["coll_s"] for r in by[n] if r["coll_s"]]
            if v:
                have = True
                f.write(f"{i} {n} {statistics.median(v)} {min(v)} "
                        f"{max(v)}\n")
    gp.append("set terminal pngcairo size 1000,500\n")
    if have:  # not when every run failed or was skipped
        gp.append(f"""set output '{pd}/completion.png'
set title 'Collective completion time per scenario (median, min-max)'
set ylabel 'seconds per iteration'
set style fill solid 0.6
set boxwidth 0.6
set yrange [0:*]
set xtics rotate by -30
plot '{dd}/completion.dat' using 1:3:xtic(2) with boxes notitle, \\
     '' using 1:3:4:5 with yerrorbars lc rgb 'black' notitle
unset xtics
set xtics
""")
    # per scenario, the first run: throughput and queue over time
    for n in names:
        r = next((x for x in by[n] if not x.get("skipped")), None)
        if r is None:
            continue
        bins = r["bins"]
        with open(dd / f"tput-{n}.dat", "w") as f:
            for b in sorted(bins):
                d = bins[b]
                f.write(f"{b * BIN_NS / 1e9:.2f} " + " ".join(
                    f"{d.get(k, 0) * 8 / (BIN_NS / 1e9) / 1e6:.2f}"
                    for k in ("roce_ab", "tcp_ab", "udp_ab", "roce_ba"))
                    + "\n")
        gp.append(f"""set output '{pd}/throughput-{n}.png'
set title 'Throughput per class over time: {n} (run 1, 100 ms bins)'
set xlabel 'seconds from the collective start'
set ylabel 'Mbit/s'
set yrange [0:*]
set key outside
plot '{dd}/tput-{n}.dat' using 1:2 with steps title 'RoCE A->B', \\
     '' using 1:3 with steps title 'storage TCP A->B', \\
     '' using 1:4 with steps title 'storage UDP bursts A->B', \\
     '' using 1:5 with steps title 'RoCE B->A'
""")
        t0 = r["t0_ns"]
        series = sorted(k for k in r["queue"] if k[0] == "gw1")
        if series:
            plots = []
            for port, cls in series:
                fn = dd / f"queue-{n}-{port}-{cls}.dat"
                with open(fn, "w") as f:
                    for t, dep in r["queue"][(port, cls)]:
                        f.write(f"{(t - t0) / 1e9:.3f} {dep / 1024:.1f}\n")
                plots.append(f"'{fn}' using 1:2 with lines title '{cls}'")
            gp.append(f"""set output '{pd}/queue-{n}.png'
set title 'Gateway egress queue A->B (gw1) per class: {n} (run 1)'
set xlabel 'seconds from the collective start'
set ylabel 'KB queued'
plot {', '.join(plots)}
""")
    # latency CDF per scenario (all runs merged), one plot per job (and one
    # per job of the spine scenarios: latency-cdf-spine-JOB.png)
    for job, sp in (("allreduce", False), ("pipeline", False), ("ps", False),
                    ("allreduce", True), ("pipeline", True)):
        curves = []
        for n in names:
            if not n.startswith(job + "-") or \
                    spine_report.is_spine(n) != sp:
                continue
            hist = _merge_hists([r["lat_hist"] for r in by[n]])
            tot = sum(c for _, c in hist)
            if not tot:
                continue
            fn = dd / f"lat-{n}.dat"
            acc = 0
            with open(fn, "w") as f:
                for up, c in hist:
                    acc += c
                    f.write(f"{up} {acc / tot:.6f}\n")
            curves.append(f"'{fn}' using 1:2 with steps lw 2 title '{n}'")
        if curves:
            what = f"spine-{job}" if sp else job
            gp.append(f"""set output '{pd}/latency-cdf-{what}.png'
set title 'RoCE one-way latency: {what}, all ranks, all runs'
set xlabel 'microseconds'
set ylabel 'fraction of packets'
set logscale x
set yrange [0:1]
set key bottom right
plot {', '.join(curves)}
unset logscale x
""")
    script = pd / "plots.gp"
    script.write_text("".join(gp))
    r = subprocess.run(["gnuplot", str(script)], stderr=subprocess.PIPE,
                       text=True)
    if r.returncode:
        print(f"[run] gnuplot: {r.stderr.strip()[-500:]}")


def write_all(results, out, o, cmdline, plots=True):
    by, summary = summarise(results)
    flat = []
    for r in results:
        row = {k: v for k, v in r.items()
               if k not in ("bins", "queue", "lat_hist", "t0_ns",
                            "spine_series")}
        row["iterations_s"] = " ".join(str(x) for x in r["iterations_s"])
        row["rank_rcs"] = " ".join(str(x) for x in r["rank_rcs"])
        flat.append(row)
    write_csv(out / "runs.csv", flat)
    write_csv(out / "summary.csv", summary)
    table = render_table(by, o) if by else "no run completed\n"
    (out / "table.md").write_text(f"`{cmdline}`\n\n{table}")
    if plots and by:
        _plots(by, out)
        spine_report.plots(by, out)
    return table
