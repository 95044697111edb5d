#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The benchmark's gateway and its emulated hosts run DCQCN dilated alike.

bench/run slows the fabric it emulates by a time scale X (25 Gbit/s NICs
on a 25 Mbit/s testbed: X = 1000). The gateway's reaction points get their
parameters from bench/lib/policy.py (an xdplane.yaml `dcqcn:` section), the
hosts' from rocegen (`dcqcn_params_default()` of the undilated line rate,
then `dcqcn_params_dilate()`). If the two disagreed, one side would cut or
recover faster than the other and a run would measure the mismatch, not the
gateway.

For each (line rate, X) below, both sections go through the daemon's own
parser (`xdplane --dump-config`), and every reaction-point key must print
the same. Exit 0 if all agree, 1 with one line per difference.

usage: check_dcqcn_dilation.py XDPLANE ROCEGEN
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench" / "lib"))
import policy  # noqa: E402

# The keys both sides set; flow_key, flow_idle, cnp, cp_loop and np are
# the gateway's alone.
RP_KEYS = ["profile", "line_rate", "min_rate", "rate_ai", "rate_hai", "g",
           "alpha_init", "alpha_timer", "increase_timer", "decrease_period",
           "byte_counter", "fast_recovery", "cnp_interval"]
# (testbed line rate bit/s, time scale): bench/run's default (25 Mbit/s
# standing for 25 Gbit/s), a faster testbed, no dilation, and one where
# the caps on a slow line apply (R_min <= line / 100 ...).
CASES = [(25_000_000, 1000), (100_000_000, 250), (25_000_000_000, 1),
         (1_000_000, 1000)]


def dump_dcqcn(xdplane, text, workdir, name):
    cfg = Path(workdir) / f"{name}.yaml"
    cfg.write_text(text)
    r = subprocess.run([xdplane, "--config", str(cfg), "--dump-config",
                        "--no-system-check"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        sys.exit(f"check_dcqcn_dilation: {name}: xdplane refused it:\n"
                 f"{r.stderr}")
    out, inside = {}, False
    for line in r.stdout.splitlines():
        if line == "dcqcn:":
            inside = True
        elif inside and line.startswith("  ") and not line.startswith("   "):
            key, _, value = line.strip().partition(":")
            out[key] = value.strip()
        elif inside and not line.startswith(" "):
            break
    return out


def split_dcqcn(text):
    """The config without its dcqcn section, and that section's lines."""
    lines = text.splitlines()
    start = lines.index("dcqcn:")
    end = start + 1
    while end < len(lines) and lines[end].startswith(" "):
        end += 1
    return lines[:start] + lines[end:], lines[start + 1:end]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    xdplane, rocegen = sys.argv[1:]
    errors = 0
    with tempfile.TemporaryDirectory() as tmp:
        for line_bps, x in CASES:
            gw = policy.xdplane_yaml(2 * line_bps, 2 * 1024 * 1024,
                                     os.path.join(tmp, "ctl.sock"), True,
                                     True, line_bps, timescale=x)
            rest, gw_section = split_dcqcn(gw)
            hosts = subprocess.run(
                [rocegen, "--print-dcqcn", "--line-rate", str(line_bps),
                 "--dcqcn-timescale", str(x)],
                capture_output=True, text=True, check=True).stdout
            host_keys = [ln for ln in hosts.splitlines()[1:]]
            gw_only = [ln for ln in gw_section
                       if ln.strip().partition(":")[0] not in RP_KEYS]
            host_cfg = "\n".join(rest + ["dcqcn:"] + host_keys + gw_only)
            a = dump_dcqcn(xdplane, gw, tmp, f"gw-{line_bps}-{x}")
            b = dump_dcqcn(xdplane, host_cfg + "\n", tmp,
                           f"hosts-{line_bps}-{x}")
            for k in RP_KEYS:
                if a.get(k) != b.get(k):
                    errors += 1
                    print(f"line {line_bps} bit/s, x{x}: {k}: gateway "
                          f"{a.get(k)!r}, hosts {b.get(k)!r}")
            print(f"line {line_bps} bit/s, x{x}: " + ", ".join(
                f"{k} {a.get(k)}" for k in ("min_rate", "rate_ai",
                                            "increase_timer",
                                            "cnp_interval")))
    if errors:
        print(f"check_dcqcn_dilation: {errors} difference(s)")
        return 1
    print(f"check_dcqcn_dilation: {len(CASES)} cases, "
          f"{len(RP_KEYS)} keys each, gateway and hosts alike")
    return 0


if __name__ == "__main__":
    sys.exit(main())
