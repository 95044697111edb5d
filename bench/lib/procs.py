# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""procs.py - processes and network namespaces of a benchmark run, shared by
bench/fwd and bench/run. Everything started or created through a Runner is
registered and removed by Runner.cleanup(): each process is started in its
own session (so killpg reaches its children), namespaces are deleted after
every process still inside them was SIGKILLed. Callers run cleanup() in a
finally block and turn SIGTERM/SIGHUP/SIGINT into exceptions so that it runs
when the benchmark is interrupted too."""

import os
import re
import signal
import subprocess


class BenchError(Exception):
    pass


# --------------------------------------------------------------------------
# Processes and namespaces. Everything started is registered for cleanup.

class Runner:
    def __init__(self, logdir):
        self.logdir = logdir
        self.procs = []
        self.netns = []

    def cmd(self, argv, ns=None, check=True, timeout=30, bpffs=False,
            input=None):
        full = list(argv)
        if bpffs:
            full = ["sh", "-c", "mountpoint -q /sys/fs/bpf || "
                    "mount -t bpf bpf /sys/fs/bpf; exec \"$@\"", "fwd"] + full
        if ns:
            full = ["ip", "netns", "exec", ns] + full
        r = subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=timeout, input=input)
        if check and r.returncode:
            raise BenchError(f"{' '.join(full)}: rc {r.returncode}: "
                             f"{r.stderr.strip()}")
        return r.stdout

    def sh(self, script, ns=None, check=True):
        return self.cmd(["sh", "-c", script], ns=ns, check=check)

    def spawn(self, name, argv, ns=None, bpffs=False):
        full = list(argv)
        if bpffs:
            full = ["sh", "-c", "mountpoint -q /sys/fs/bpf || "
                    "mount -t bpf bpf /sys/fs/bpf; exec \"$@\"", "fwd"] + full
        if ns:
            full = ["ip", "netns", "exec", ns] + full
        path = self.logdir / f"{name}.log"
        f = open(path, "w")
        p = subprocess.Popen(full, stdout=f, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        f.close()
        p.logpath = path
        p.name = name
        self.procs.append(p)
        return p

    @staticmethod
    def kill(p, sig):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass

    def stop(self, p, sig=signal.SIGTERM, timeout=5.0):
        if p.poll() is None:
            self.kill(p, sig)
            try:
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill(p, signal.SIGKILL)
                p.wait(5)
        if p in self.procs:
            self.procs.remove(p)
        return p.returncode

    def add_netns(self, name):
        subprocess.run(["ip", "netns", "del", name], stderr=subprocess.DEVNULL)
        self.cmd(["ip", "netns", "add", name])
        self.netns.append(name)

    def del_netns(self, names):
        for ns in names:
            r = subprocess.run(["ip", "netns", "pids", ns],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True)
            for pid in r.stdout.split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)
            if ns in self.netns:
                self.netns.remove(ns)

    def cleanup(self):
        for p in list(self.procs):
            self.kill(p, signal.SIGTERM)
        for p in list(self.procs):
            try:
                p.wait(3)
            except subprocess.TimeoutExpired:
                self.kill(p, signal.SIGKILL)
                try:
                    p.wait(3)
                except subprocess.TimeoutExpired:
                    pass
        self.procs.clear()
        self.del_netns(list(self.netns))


def cpu_times():
    cores = {}
    with open("/proc/stat") as f:
        for line in f:
            m = re.match(r"cpu(\d+) (.*)", line)
            if m:
                v = [int(x) for x in m.group(2).split()]
                idle = v[3] + v[4]
                # (busy, total, irq+softirq, steal): busy = 100 - idle
                cores[int(m.group(1))] = (sum(v[:8]) - idle, sum(v[:8]),
                                          v[5] + v[6], v[7])
    return cores
