#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""check_monitoring.py - the shipped Prometheus scrape configuration, rules
and Grafana dashboard against the daemon (ctest unit.monitoring_config):

  - `promtool check rules` accepts config/prometheus/xdplane.rules.yml,
    and `promtool test rules` of tests/monitoring/rules.test.yml passes
    (the alerts fire on what they are for and not on look-alikes);
  - `promtool check config` accepts config/prometheus/prometheus.yml, the
    scrape example, with its rule_files (the installed path) pointed at
    the rules of the source tree; every job a rule names (job="...") is a
    job_name of the example, and the example loads the installed rules;
  - every rule has an alert name, an expression, a severity and a summary,
    and the rules cover what an operator must hear about: the fail-open
    path, queues without a socket, refused reloads, fill-ring starvation,
    drops by reason, degraded health, and adaptive egress: its rate far
    below the port's, its cuts, its queues without RTT samples;
  - config/grafana/xdplane.json loads as JSON and has the dashboard's shape
    (title, uid, schemaVersion, panels with unique ids, a type, a grid
    position inside the 24 columns and targets with expressions; every
    $variable used is defined), and panels for adaptive egress;
  - every metric named in a rule or a panel is one the daemon exports: the
    families of the real renderer's output (test_metrics --render, which
    renders a snapshot with every family), or of a scrape of the running
    daemon (--exposition FILE: tests/integration/t-metrics-remote.sh),
    histogram suffixes included.

usage: check_monitoring.py (--render TEST_METRICS | --exposition FILE)
                           --rules FILE --dashboard FILE --scrape FILE
                           [--rules-test FILE]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring",
            "group_left", "group_right", "bool", "offset", "inf", "nan",
            "atan2"}
# metrics Prometheus itself provides for every target
BUILTIN = {"up", "scrape_duration_seconds", "scrape_samples_scraped"}
# what the rules must watch: (what, any of these metric names)
REQUIRED = [
    ("the fail-open path", {"xdplane_xdp_verdicts_total"}),
    ("queues without a socket", {"xdplane_port_queues_without_socket",
                                 "xdplane_rx_no_socket_total"}),
    ("refused reloads", {"xdplane_config_last_reload_successful",
                         "xdplane_config_reload_failures_total"}),
    ("fill-ring starvation", {"xdplane_xsk_fill_ring_empty_total"}),
    ("drops by reason", {"xdplane_drops_total"}),
    ("class drops by reason", {"xdplane_class_drops_total"}),
    ("degraded health", {"xdplane_degraded"}),
    ("ports down", {"xdplane_port_up"}),
    ("adaptive egress rate below the port's",
     {"xdplane_adaptive_rate_bytes_per_second"}),
    ("adaptive egress cuts", {"xdplane_adaptive_cuts_total"}),
    ("adaptive egress without RTT samples", {"xdplane_adaptive_state",
                                             "xdplane_adaptive_no_samples_total"}),
]
# what the dashboard must show: (what, any of these metric names)
REQUIRED_PANELS = [
    ("the adaptive rate", {"xdplane_adaptive_rate_bytes_per_second"}),
    ("adaptive cuts", {"xdplane_adaptive_cuts_total"}),
    ("adaptive queues without samples", {"xdplane_adaptive_state",
                                         "xdplane_adaptive_no_samples_total"}),
]
# where the package installs the rules (config/CMakeLists.txt)
INSTALLED_RULES = "/usr/share/xdplane/prometheus/xdplane.rules.yml"
errors = []


def fail(msg):
    errors.append(msg)


def exported(render, exposition):
    if exposition:
        out = open(exposition).read()
        render = exposition
    else:
        out = subprocess.run([render, "--render"], check=True,
                             capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        m = re.match(r"# TYPE (\S+) (\S+)$", line)
        if not m:
            continue
        names.add(m.group(1))
        if m.group(2) in ("histogram", "summary"):
            names |= {m.group(1) + s for s in ("_bucket", "_sum", "_count")}
    if len(names) < 50:
        sys.exit(f"FAIL: {render} --render gave only {len(names)} families")
    return names


def metric_names(expr):
    """The metric names a PromQL expression reads."""
    e = re.sub(r'"(\\.|[^"\\])*"', '""', expr)  # strings
    e = re.sub(r"\{[^}]*\}", "", e)  # label matchers
    e = re.sub(r"\[[^\]]*\]", "", e)  # ranges
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)",
               " ", e)
    names = set()
    for m in re.finditer(r"(?<![\w$.])([A-Za-z_:][\w:]*)\s*(\()?", e):
        word, call = m.group(1), m.group(2)
        if call or word.lower() in KEYWORDS:
            continue
        names.add(word)
    return names


def check_rules(path, known, promtool):
    r = subprocess.run([promtool, "check", "rules", path],
                       capture_output=True, text=True)
    if r.returncode:
        fail(f"promtool check rules {path}:\n{r.stdout}{r.stderr}")
    # the file's rules: one "- alert:" block each, single-line keys
    text = open(path).read()
    blocks = re.split(r"\n\s*- alert:", text)[1:]
    if not blocks:
        fail(f"{path}: no alerting rules")
    used = set()
    for b in blocks:
        name = b.split("\n", 1)[0].strip()
        m = re.search(r"\n\s*expr:\s*(.+)", b)
        if not m:
            fail(f"{path}: alert {name}: no single-line expr")
            continue
        for key in ("severity:", "summary:"):
            if key not in b:
                fail(f"{path}: alert {name}: no {key[:-1]}")
        names = metric_names(m.group(1))
        if not names:
            fail(f"{path}: alert {name}: no metric in {m.group(1)}")
        for n in names - known - BUILTIN:
            fail(f"{path}: alert {name}: {n} is not a metric the daemon "
                 f"exports")
        used |= names
    for what, any_of in REQUIRED:
        if not used & any_of:
            fail(f"{path}: no alert on {what} ({', '.join(sorted(any_of))})")
    return len(blocks), set(re.findall(r'\bjob\s*=~?\s*"([^"]*)"', text))


def test_rules(path, rules, promtool):
    """promtool test rules of PATH, its rule_files entry RULES pointed at
    the rules checked here."""
    with tempfile.TemporaryDirectory() as d:
        tmp = os.path.join(d, "rules.test.yml")
        with open(tmp, "w") as f:
            f.write(open(path).read().replace("  - RULES\n",
                                              f"  - {os.path.abspath(rules)}\n"))
        r = subprocess.run([promtool, "test", "rules", tmp],
                           capture_output=True, text=True)
        if r.returncode:
            fail(f"promtool test rules {path}:\n{r.stdout}{r.stderr}")
    return len(re.findall(r"^\s*- eval_time:", open(path).read(), re.M))


def check_scrape(path, rules, jobs_used, promtool):
    """promtool check config of the example, its rule file pointed at the
    source tree's; the jobs the rules name are its job_names."""
    text = open(path).read()
    if INSTALLED_RULES not in text:
        fail(f"{path}: does not load {INSTALLED_RULES}")
    with tempfile.TemporaryDirectory() as d:
        tmp = os.path.join(d, "prometheus.yml")
        with open(tmp, "w") as f:
            f.write(text.replace(INSTALLED_RULES, os.path.abspath(rules)))
        r = subprocess.run([promtool, "check", "config", tmp],
                           capture_output=True, text=True)
        if r.returncode:
            fail(f"promtool check config {path}:\n{r.stdout}{r.stderr}")
    defined = set(re.findall(r"^\s*-\s*job_name:\s*\"?([\w.-]+)", text, re.M))
    if not defined:
        fail(f"{path}: no scrape job")
    for j in sorted(jobs_used - defined):
        fail(f"{rules}: job \"{j}\" is no job_name of {path} "
             f"({', '.join(sorted(defined)) or 'none'})")
    return defined


def check_dashboard(path, known):
    try:
        d = json.load(open(path))
    except ValueError as e:
        fail(f"{path}: not JSON: {e}")
        return 0
    for key, typ in (("title", str), ("uid", str), ("schemaVersion", int),
                     ("panels", list)):
        if not isinstance(d.get(key), typ):
            fail(f"{path}: {key} missing or not a {typ.__name__}")
    variables = {v.get("name") for v in
                 d.get("templating", {}).get("list", [])} | {"__rate_interval",
                                                            "__interval",
                                                            "__range"}
    ids, n_targets, used = set(), 0, set()
    for i, p in enumerate(d.get("panels", [])):
        where = f"{path}: panel {i} ({p.get('title')!r})"
        if not isinstance(p.get("id"), int) or p["id"] in ids:
            fail(f"{where}: id missing or not unique")
        ids.add(p.get("id"))
        if p.get("type") not in ("timeseries", "stat", "gauge", "table",
                                 "bargauge", "text", "row", "heatmap"):
            fail(f"{where}: unknown type {p.get('type')!r}")
        if not isinstance(p.get("title"), str) or not p["title"]:
            fail(f"{where}: no title")
        g = p.get("gridPos", {})
        if not all(isinstance(g.get(k), int) for k in "xywh") or \
                g["x"] < 0 or g["w"] < 1 or g["x"] + g["w"] > 24 or g["h"] < 1:
            fail(f"{where}: gridPos {g} outside the 24 columns")
        if p.get("type") in ("text", "row"):
            continue
        targets = p.get("targets")
        if not isinstance(targets, list) or not targets:
            fail(f"{where}: no targets")
            continue
        for t in targets:
            expr = t.get("expr")
            if not isinstance(expr, str) or not expr or not t.get("refId"):
                fail(f"{where}: a target without refId or expr")
                continue
            n_targets += 1
            for v in re.findall(r"\$\{?(\w+)", expr):
                if v not in variables:
                    fail(f"{where}: ${v} is not a dashboard variable")
            names = metric_names(expr)
            used |= names
            if not names:
                fail(f"{where}: no metric in {expr}")
            for n in names - known - BUILTIN:
                fail(f"{where}: {n} is not a metric the daemon exports")
    for v in re.findall(r"\$\{?(\w+)", json.dumps(d.get("panels", []))):
        if v not in variables:
            fail(f"{path}: ${v} is not a dashboard variable")
    for what, any_of in REQUIRED_PANELS:
        if not used & any_of:
            fail(f"{path}: no panel shows {what} "
                 f"({', '.join(sorted(any_of))})")
    return n_targets


def main():
    ap = argparse.ArgumentParser()
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--render")
    src.add_argument("--exposition")
    ap.add_argument("--rules", required=True)
    ap.add_argument("--dashboard", required=True)
    ap.add_argument("--scrape", required=True)
    ap.add_argument("--rules-test")
    a = ap.parse_args()
    promtool = shutil.which("promtool")
    if not promtool:
        sys.exit("FAIL: promtool not found (.ci/deps installs it)")
    # the checker must be able to fail: a made-up name is refused
    assert metric_names('sum by (port) (rate(a_b_total{x="y(z)"}[5m])) > 0 '
                        'or absent(c)') == {"a_b_total", "c"}
    known = exported(a.render, a.exposition)
    n_rules, jobs_used = check_rules(a.rules, known, promtool)
    jobs = check_scrape(a.scrape, a.rules, jobs_used, promtool)
    n_evals = test_rules(a.rules_test, a.rules, promtool) if a.rules_test else 0
    n_targets = check_dashboard(a.dashboard, known)
    for e in errors:
        print("FAIL: " + e, file=sys.stderr)
    if errors:
        sys.exit(1)
    print(f"ok: {n_rules} alerting rules (promtool check rules) and "
          f"{n_targets} dashboard expressions name only the daemon's "
          f"{len(known)} metric names; the scrape example passes promtool "
          f"check config and defines the jobs the rules name "
          f"({', '.join(sorted(jobs))})"
          + (f"; promtool test rules: {n_evals} evaluations as expected"
             if a.rules_test else ""))


if __name__ == "__main__":
    main()
