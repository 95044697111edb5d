#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""perfsplit.py - where the gateway core's time goes, from perf samples.

bench/fwd --perf records `perf record -g -C <gw-cpu> -e cpu-clock -k
CLOCK_MONOTONIC` while a point is measured; this module reads `perf script`
of that file, keeps the samples inside the measured window, puts each into
one bucket by its thread and call chain, and turns the buckets into time per
forwarded frame and share of the core.

This VM has no hardware PMU: the only events are software ones, so the time
is cpu-clock samples (an hrtimer on the CPU, also in the idle task; each
sample carries its period in ns). "Cycles" are that time x a nominal clock
(cpu_ghz()).

Buckets (BUCKETS; a sample goes to the first rule that matches):

  thread            rule
  napi/gw*          rx_kernel (XDP redirect, copy into the UMEM, page pool);
                    sub-lines rx_copy: the leaf is a copy routine under
                    __xsk_rcv / xsk_copy_xdp; rx_pp: under page_pool_put_*
                    (the sender's page going back to its pool)
  swapper (pid 0)   idle (sub-line of sleep): the CPU had nothing to run
  worker (xdplane-w*, xfwd)
    kernel chain    by the system call on the chain (__x64_sys_*):
                    sendto/sendmsg -> tx_kernel (sub-lines tx_copy: copy
                    routines under skb_store_bits / xsk_build_skb; tx_lock:
                    a spin lock or unlock routine at the leaf; tx_libc:
                    user samples in libc's sendto wrapper and in its
                    pthread cancellation points);
                    recvfrom/recvmsg -> rx_wake; poll/ppoll/nanosleep/...
                    -> sleep_sys (sub-line of sleep); clock_gettime ->
                    clock; a NAPI poll in an interrupt on the worker ->
                    rx_kernel; anything else -> other
    user leaf       by symbol (USER_RULES, .constprop/.isra/.part/.cold
                    suffixes dropped), then by the symbol's source file
                    (FILE_RULES, from `nm -l` of the binary), else other
  anything else     other (ksoftirqd, kworkers, the benchmark's own
                    processes, the daemon's control thread)

Every sample that lands in "other", and the top leaf symbols of each bucket,
are listed by details().

Command line:
  perfsplit.py split PERF.DATA --t0 T --t1 T --frames N [--worker PFX]...
  perfsplit.py compare A/breakdown.csv B/breakdown.csv [--label A
      --label B] [--row R]... [--share]: the buckets of bench/fwd --perf
      runs side by side (ns and cycles per frame).
"""

import collections
import csv
import os
import re
import subprocess
import sys

# (key, label, parent): a parent's time includes its sub-lines'.
BUCKETS = [
    ("rx_kernel", "RX in the kernel (NAPI thread: XDP redirect + copy into "
     "the UMEM)", None),
    ("rx_copy", "of which the copy into the UMEM", "rx_kernel"),
    ("rx_pp", "of which returning the sender's page to its page pool "
     "(page_pool_put_*)", "rx_kernel"),
    ("rx_wake", "RX wake-ups (recvfrom)", None),
    ("rx_task", "our RX task (RX and fill rings, returns, hand-off)", None),
    ("classify", "classification (parse, classify, checksum completion, "
     "path events)", None),
    ("sched", "scheduler (hand-off intake, enqueue, dequeue, shapers, ECN)",
     None),
    ("egress", "our egress task (TX ring, completions, adaptive departures, "
     "remarking)", None),
    ("egress_compl", "of which completions (reap, give back)", "egress"),
    ("tx_kernel", "TX kick and copy in the kernel (sendto)", None),
    ("tx_copy", "of which the copy into the skb", "tx_kernel"),
    ("tx_lock", "of which spin locks (completion ring, veth peer ring)",
     "tx_kernel"),
    ("tx_libc", "of which libc's sendto wrapper and its cancellation "
     "points", "tx_kernel"),
    ("clock", "clock reads (vdso clock_gettime)", None),
    ("loop", "loop / idle spin (worker_main, run_tasks)", None),
    ("sleep", "sleeping / idle CPU", None),
    ("sleep_sys", "of which sleep system calls (ppoll, nanosleep)", "sleep"),
    ("idle", "of which the idle CPU (swapper)", "sleep"),
    ("other", "other (see the details file)", None),
]
LABEL = {k: lab for k, lab, _ in BUCKETS}
PARENT = {k: p for k, _, p in BUCKETS}
TOP = [k for k, _, p in BUCKETS if p is None]

# User-space leaf symbols of the daemon (and of bench/tools/xfwd: forward,
# refill, reap, kick, run_pass). First match wins.
USER_RULES = [
    (r"clock_gettime|^__vdso_", "clock"),
    (r"^(__libc_)?(sendto|sendmsg|__send)$", "tx_libc"),
    (r"^(__libc_)?(recvfrom|recvmsg|__recv)$", "rx_wake"),
    (r"^(__libc_)?(__)?(ppoll|poll|nanosleep|clock_nanosleep|epoll_wait|"
     r"epoll_pwait|select|pselect)(64)?$", "sleep_sys"),
    # libc's cancellation points around every blocking system call: no
    # frame pointers in libc, so the call is unknown; at saturation nearly
    # all are sendto (where the samples that fell while the kernel had
    # interrupts off land on the way out)
    (r"^(__GI_)?__pthread_(enable|disable)_asynccancel$", "tx_libc"),
    (r"^classify", "classify"),
    (r"^pkt_parse|^parse_l4|^l4_csum|^pkt_tcp|^roce_|^bth_|^gw_csum",
     "classify"),
    (r"^pathmon_(dep_of|depart)", "egress"),
    (r"^pathmon_", "classify"),
    (r"^take_returns$|^rx_task_|^rx_chain$|^rx_mac_control$|"
     r"^post_feedback$|^drop_desc$|^prefetch_headers$|^refill$|^forward$",
     "rx_task"),
    (r"^take_handoffs$|^sched_|^tc_sched|^flowq_|^ecn_|^enqueue_|^tbucket|"
     r"^dcqcn_|^pfc_(?!event|pass|apply)", "sched"),
    (r"^reap_completions$|^give_back|^reap$", "egress_compl"),
    (r"^egress_task_|^depart_out$|^adaptive_|^remark_|^edge_rate_|"
     r"^tx_chains$|^kick$|^drop_port_down$|^send_due_cnps$|^send_cnp$|"
     r"^apply_feedback$|^np_(take|send)$|^tx_ctrl$", "egress"),
    (r"^worker_|^run_tasks$|^run_pass$|^tx_pending$|^drain$|^take_policy$|"
     r"^main$", "loop"),
]
# Fallback by source file of the symbol (nm -l), for the static functions
# of another version of the code.
FILE_RULES = [
    (r"dataplane/run/rx_task\.c$", "rx_task"),
    (r"dataplane/run/(egress|adaptive)\.c$", "egress"),
    (r"dataplane/run/worker\.c$|wake_margin\.h$", "loop"),
    (r"dataplane/pkt/|dataplane/path/", "classify"),
    (r"dataplane/sched/|dataplane/cc/", "sched"),
]
# Kernel system calls of the worker, by name (__x64_sys_<name>).
SYSCALLS = {
    "sendto": "tx_kernel", "sendmsg": "tx_kernel", "write": "tx_kernel",
    "recvfrom": "rx_wake", "recvmsg": "rx_wake", "read": "rx_wake",
    "poll": "sleep_sys", "ppoll": "sleep_sys", "select": "sleep_sys",
    "pselect6": "sleep_sys", "epoll_wait": "sleep_sys",
    "epoll_pwait": "sleep_sys", "epoll_pwait2": "sleep_sys",
    "nanosleep": "sleep_sys", "clock_nanosleep": "sleep_sys",
    "sched_yield": "sleep_sys",
    "clock_gettime": "clock",
}
COPY = re.compile(r"^(__pi_|__)?mem(cpy|move)|^memcpy_|^rep_movs|"
                  r"^copy_(user|to|from)|^__copy|^_copy_")
LOCK = re.compile(r"spin_lock|spin_unlock|pv_queued_spin|queued_spin_lock")
RX_COPY_CALLERS = {"__xsk_rcv", "xsk_copy_xdp", "xsk_rcv", "__xsk_rcv_zc"}
TX_COPY_CALLERS = {"skb_store_bits", "xsk_build_skb"}
NAPI_SYMS = {"veth_poll", "napi_threaded_poll", "net_rx_action",
             "__napi_poll", "xdp_do_redirect"}
IRQ_PREFIXES = ("asm_sysvec", "asm_common_interrupt", "sysvec_",
                "common_interrupt", "handle_softirqs", "__do_softirq",
                "irq_exit", "__irq_exit")
SYSCALL_RE = re.compile(r"^__(?:x64|ia32|se|do)_sys_(\w+)$")
SUFFIX_RE = re.compile(r"(\.(constprop|isra|part|cold|lto_priv|llvm)"
                       r"(\.\d+)?)+$|@plt$|@@?GLIBC[\w.]*$")

HEAD_RE = re.compile(r"^(?P<comm>.*?)\s+(?P<pid>-?\d+)/(?P<tid>-?\d+)\s+"
                     r"\[(?P<cpu>\d+)\]\s+(?P<time>\d+\.\d+):\s+"
                     r"(?P<period>\d+)\s+(?P<event>[\w:-]+):\s*(?P<rest>.*)$")
FRAME_RE = re.compile(r"^\s*([0-9a-fA-F]+)\s+(.*?)\s+\((.*)\)\s*$")


def parse_script(lines):
    """Samples of `perf script -F comm,pid,tid,cpu,time,period,event,ip,sym,
    dso`: dicts comm, pid, tid, time, period, chain = [(sym, dso, kernel)]
    from the leaf up."""
    cur = None
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            if cur is not None:
                yield cur
                cur = None
            continue
        m = HEAD_RE.match(line)
        if m and not line.startswith(("\t", " ")):
            if cur is not None:
                yield cur
            cur = {"comm": m.group("comm").strip(), "pid": int(m.group("pid")),
                   "tid": int(m.group("tid")), "time": float(m.group("time")),
                   "period": int(m.group("period")), "chain": []}
            rest = m.group("rest").strip()
            if rest:  # no call chain: "ip sym (dso)" on the same line
                f = FRAME_RE.match(rest)
                if f:
                    cur["chain"].append(_frame(f))
            continue
        f = FRAME_RE.match(line)
        if f and cur is not None:
            cur["chain"].append(_frame(f))
    if cur is not None:
        yield cur


def _frame(m):
    addr, sym, dso = m.group(1), m.group(2), m.group(3)
    sym = re.sub(r"\+0x[0-9a-f]+$", "", sym)
    kernel = dso.startswith("[kernel") or (len(addr) == 16 and
                                           addr.lower().startswith("ffff"))
    return (sym, dso, kernel)


def base_sym(sym):
    return SUFFIX_RE.sub("", sym)


class FileMap:
    """symbol -> source file of an ELF binary (nm -l), when unique."""

    def __init__(self):
        self.cache = {}

    def file_of(self, dso, sym):
        if not dso.startswith("/"):
            return None
        if dso not in self.cache:
            self.cache[dso] = self._load(dso)
        return self.cache[dso].get(sym)

    @staticmethod
    def _load(path):
        files = collections.defaultdict(set)
        try:
            out = subprocess.run(["nm", "-l", "--defined-only", path],
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True,
                                 timeout=60).stdout
        except (OSError, subprocess.TimeoutExpired):
            return {}
        for line in out.splitlines():
            p = line.split()
            if len(p) >= 4 and p[1] in "tTwW":
                files[base_sym(p[2])].add(p[3].rsplit(":", 1)[0])
        return {s: next(iter(f)) for s, f in files.items() if len(f) == 1}


class Splitter:
    """Puts samples into buckets. worker: comm prefixes of the threads that
    run the dataplane loop; napi: comm prefix of the gateway ports' NAPI
    kthreads."""

    def __init__(self, worker=("xdplane-w", "xfwd"), napi=("napi/gw",)):
        self.worker = tuple(worker)
        self.napi = tuple(napi)
        self.files = FileMap()
        self.user_rules = [(re.compile(p), b) for p, b in USER_RULES]
        self.file_rules = [(re.compile(p), b) for p, b in FILE_RULES]

    def bucket(self, s):
        """(bucket, detail): the bucket key and a short text naming why."""
        chain = s["chain"]
        syms = [base_sym(c[0]) for c in chain]
        leaf = syms[0] if syms else "[no chain]"
        leaf_dso = chain[0][1] if chain else "?"
        comm = s["comm"]
        if comm.startswith(self.napi):
            if COPY.search(leaf) and RX_COPY_CALLERS & set(syms):
                return "rx_copy", leaf
            if any(x.startswith("page_pool_put") for x in syms):
                return "rx_pp", leaf
            return "rx_kernel", leaf
        if s["pid"] == 0:
            if NAPI_SYMS & set(syms):
                return "rx_kernel", f"idle task: {leaf}"
            if any(x.startswith(IRQ_PREFIXES) for x in syms):
                return "other", f"interrupt in the idle task: {leaf}"
            return "idle", leaf
        if not comm.startswith(self.worker):
            return "other", f"thread {comm}: {leaf} ({leaf_dso})"
        if chain and chain[0][2]:
            return self._kernel(syms, leaf, self._wrapper(chain))
        if leaf_dso == "[vdso]":
            return "clock", leaf
        for rx, b in self.user_rules:
            if rx.search(leaf):
                return b, leaf
        f = self.files.file_of(leaf_dso, leaf)
        if f:
            for rx, b in self.file_rules:
                if rx.search(f):
                    return b, f"{leaf} ({os.path.basename(f)})"
        return "other", f"worker user: {leaf} ({leaf_dso})"

    def _wrapper(self, chain):
        """The bucket of the libc system call wrapper that entered the
        kernel (the first user frame of the chain), if it is one."""
        for sym, _, kernel in chain:
            if not kernel:
                b = next((b for rx, b in self.user_rules[:4]
                          if rx.search(base_sym(sym))), None)
                b = "tx_kernel" if b == "tx_libc" else b
                return b, base_sym(sym)
        return None, None

    @staticmethod
    def _kernel(syms, leaf, wrapper=(None, None)):
        """A kernel sample of the worker, by the first frame from the leaf
        up that says where it is: a NAPI poll, an interrupt (the syscall
        it interrupted is not charged) or the system call; on the way in
        or out of the kernel (no __x64_sys_* frame yet), the libc wrapper
        that made the call."""
        for sym in syms:
            if sym in NAPI_SYMS:
                return "rx_kernel", f"worker irq: {leaf}"
            if sym.startswith(IRQ_PREFIXES):
                return "other", f"worker interrupt: {leaf}"
            m = SYSCALL_RE.match(sym)
            if m:
                name = m.group(1)
                b = SYSCALLS.get(name)
                if b == "tx_kernel" and COPY.search(leaf) and \
                        TX_COPY_CALLERS & set(syms):
                    return "tx_copy", leaf
                if b == "tx_kernel" and LOCK.search(leaf):
                    return "tx_lock", " <- ".join(syms[:2])
                if b:
                    return b, leaf
                return "other", f"worker syscall {name}: {leaf}"
            if sym in ("asm_exc_page_fault", "exc_page_fault"):
                return "other", f"worker page fault: {leaf}"
        if wrapper[0]:
            return wrapper[0], f"{leaf} (entry/exit, {wrapper[1]})"
        return "other", f"worker kernel: {leaf} <- " + \
            " <- ".join(syms[1:4])


def split(samples, t0, t1, splitter=None):
    """Bucket the samples of [t0, t1] (CLOCK_MONOTONIC seconds). Returns
    {"ns": {bucket: ns, parents included}, "samples": n, "sampled_ns": ns,
     "window_ns": ns, "details": {bucket: Counter(detail -> ns)}}."""
    sp = splitter or Splitter()
    ns = collections.Counter()
    det = collections.defaultdict(collections.Counter)
    n = total = 0
    for s in samples:
        if not t0 <= s["time"] <= t1:
            continue
        b, why = sp.bucket(s)
        n += 1
        total += s["period"]
        ns[b] += s["period"]
        det[b][why] += s["period"]
        if PARENT.get(b):
            ns[PARENT[b]] += s["period"]
    return {"ns": dict(ns), "samples": n, "sampled_ns": total,
            "window_ns": (int((t1 - t0) * 1e9) if t1 - t0 < 1e9
                          else total),
            "details": {k: dict(v) for k, v in det.items()}}


def perf_script(data, perf="perf"):
    """Iterate the samples of a perf.data file."""
    p = subprocess.Popen([perf, "script", "-i", str(data), "-F",
                          "comm,pid,tid,cpu,time,period,event,ip,sym,dso"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, errors="replace")
    try:
        yield from parse_script(p.stdout)
    finally:
        p.stdout.close()
        p.wait()


def split_file(data, t0, t1, worker=("xdplane-w", "xfwd"), perf="perf"):
    return split(perf_script(data, perf), t0, t1, Splitter(worker=worker))


def merge(results):
    """Pool several split() results (repetitions of one row and size) with
    their frame counts: {"ns", "details", "samples", "sampled_ns",
    "window_ns", "frames"}."""
    out = {"ns": collections.Counter(), "samples": 0, "sampled_ns": 0,
           "window_ns": 0, "frames": 0,
           "details": collections.defaultdict(collections.Counter)}
    for r in results:
        out["ns"].update(r["ns"])
        for k in ("samples", "sampled_ns", "window_ns", "frames"):
            out[k] += r.get(k, 0)
        for b, d in r["details"].items():
            out["details"][b].update(d)
    return out


def per_frame(r):
    """bucket -> (ns per frame, share of the core). The samples are scaled
    to the window (lost or throttled samples do not shrink the buckets):
    ns/frame = bucket share of the samples x window / frames."""
    tot, frames = r["sampled_ns"], r["frames"]
    out = {}
    for k, _, _ in BUCKETS:
        share = r["ns"].get(k, 0) / tot if tot else 0.0
        out[k] = (share * r["window_ns"] / frames if frames else None, share)
    out["total"] = (r["window_ns"] / frames if frames else None,
                    1.0 if tot else 0.0)
    return out


def cpu_ghz(cpu=None):
    """(GHz, where from): the model name's '@ x.xxGHz', else the 'cpu MHz'
    of that CPU in /proc/cpuinfo."""
    try:
        text = open("/proc/cpuinfo").read()
    except OSError:
        return None, "no /proc/cpuinfo"
    blocks = [b for b in text.split("\n\n") if b.strip()]
    pick = blocks[0] if blocks else ""
    for b in blocks:
        m = re.search(r"^processor\s*:\s*(\d+)", b, re.M)
        if m and cpu is not None and int(m.group(1)) == cpu:
            pick = b
    m = re.search(r"^model name\s*:.*@\s*([\d.]+)\s*GHz", pick, re.M)
    if m:
        return float(m.group(1)), "model name in /proc/cpuinfo"
    m = re.search(r"^cpu MHz\s*:\s*([\d.]+)", pick, re.M)
    if m:
        return float(m.group(1)) / 1000, (f"'cpu MHz' of CPU {cpu} in "
                                          "/proc/cpuinfo")
    return None, "no frequency in /proc/cpuinfo"


def columns_table(cols, ghz, share=True):
    """Markdown lines, one column group per (title, per_frame() dict):
    ns/frame, cycles/frame (ns x ghz) and share of the core per bucket.
    Sub-lines that are empty in every column are left out."""
    head = "| bucket |"
    rule = "| --- |"
    for title, _ in cols:
        head += f" {title} ns/frame |" + (" cycles |" if ghz else "") + \
            (" share |" if share else "")
        rule += " ---: |" * (1 + bool(ghz) + share)
    lines = [head, rule]
    for k in [b[0] for b in BUCKETS] + ["total"]:
        if PARENT.get(k) and not any((pf.get(k) or (0, 0))[1] > 0
                                     for _, pf in cols):
            continue
        lab = LABEL.get(k, "total (the core's time per frame)")
        lab = f"&nbsp;&nbsp;{lab}" if PARENT.get(k) else lab
        cells = []
        for _, pf in cols:
            v, sh = pf.get(k) or (None, 0.0)
            cells.append(_f(v))
            if ghz:
                cells.append(_f(v * ghz if v is not None else None))
            if share:
                cells.append(f"{sh * 100:.1f}%")
        if k == "total":
            lab, cells = f"**{lab}**", [f"**{c}**" for c in cells]
        lines.append(f"| {lab} | " + " | ".join(cells) + " |")
    return lines


def table(r, ghz):
    """Markdown lines of one breakdown."""
    return columns_table([("", per_frame(r))], ghz)


def _f(v):
    return "–" if v is None else f"{v:.0f}"


def csv_rows(row, size, r, ghz):
    pf = per_frame(r)
    out = []
    for k in [b[0] for b in BUCKETS] + ["total"]:
        v, share = pf[k]
        out.append({"row": row, "size": size, "bucket": k,
                    "label": LABEL.get(k, "total"),
                    "parent": PARENT.get(k) or "",
                    "ns_per_frame": None if v is None else round(v, 1),
                    "cycles_per_frame": (None if v is None or not ghz
                                         else round(v * ghz, 0)),
                    "core_share": round(share, 4),
                    "frames": r["frames"], "window_s": r["window_ns"] / 1e9,
                    "samples": r["samples"],
                    "coverage": (round(r["sampled_ns"] / r["window_ns"], 3)
                                 if r["window_ns"] else None),
                    "ghz": ghz})
    return out


def details(r, top=8):
    """Text: every detail of "other", the top entries of the other
    buckets, in ns per frame and share of the samples."""
    tot, frames = r["sampled_ns"] or 1, r["frames"] or 1
    scale = r["window_ns"] / tot / frames
    out = []
    for k, lab, _ in BUCKETS:
        d = r["details"].get(k)
        if not d:
            continue
        items = sorted(d.items(), key=lambda x: -x[1])
        shown = items if k == "other" else items[:top]
        out.append(f"  {k}: {lab}")
        for why, v in shown:
            out.append(f"    {v * scale:8.1f} ns/frame {v / tot * 100:5.1f}%  "
                       f"{why}")
        if len(items) > len(shown):
            rest = sum(v for _, v in items[len(shown):])
            out.append(f"    {rest * scale:8.1f} ns/frame "
                       f"{rest / tot * 100:5.1f}%  ({len(items) - len(shown)} "
                       "more)")
    return out


# --------------------------------------------------------------------------

def _compare(paths, rows, labels=None, share=False):
    """Markdown: the buckets of each (file, row) side by side, per size;
    labels name the files (default their paths)."""
    cols, data, ghz = [], {}, None
    names = dict(zip(paths, labels or []))
    for path in paths:
        with open(path) as f:
            for rec in csv.DictReader(f):
                if rows and rec["row"] not in rows:
                    continue
                key = (names.get(path, path), rec["row"], rec["size"])
                if key not in data:
                    cols.append(key)
                    data[key] = {}
                ns = rec["ns_per_frame"]
                data[key][rec["bucket"]] = (float(ns) if ns else None,
                                            float(rec["core_share"] or 0))
                ghz = ghz or (float(rec["ghz"]) if rec.get("ghz") else None)
    lines = []
    for size in sorted({c[2] for c in cols}, key=int):
        cs = [c for c in cols if c[2] == size]
        lines += [f"{size}-byte frames:", ""]
        lines += columns_table([(f"{c[1]} {c[0]}", data[c]) for c in cs],
                               ghz, share)
        lines.append("")
    if ghz:
        lines.append(f"cycles = ns x {ghz:.3f} GHz")
    return "\n".join(lines)


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("split", help="buckets of one perf.data")
    a.add_argument("data")
    a.add_argument("--t0", type=float, default=0.0)
    a.add_argument("--t1", type=float, default=float("inf"))
    a.add_argument("--frames", type=int, default=0)
    a.add_argument("--worker", action="append",
                   help="comm prefix of the worker threads (repeatable)")
    a.add_argument("--cpu", type=int, default=1)
    c = sub.add_parser("compare", help="breakdown.csv files side by side")
    c.add_argument("csv", nargs="+")
    c.add_argument("--row", action="append")
    c.add_argument("--label", action="append",
                   help="a name per file, in order (default the paths)")
    c.add_argument("--share", action="store_true",
                   help="also the share of the core")
    o = ap.parse_args(argv)
    if o.cmd == "compare":
        print(_compare(o.csv, o.row, o.label, o.share))
        return 0
    r = split_file(o.data, o.t0, o.t1,
                   worker=tuple(o.worker or ("xdplane-w", "xfwd")))
    r["frames"] = o.frames
    ghz, src = cpu_ghz(o.cpu)
    print("\n".join(table(r, ghz)))
    print(f"\ncycles = ns x {ghz:.3f} GHz ({src}); {r['samples']} "
          "samples")
    print("\n".join(details(r)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
