#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""check-licenses.py SRC (ctest unit.licenses): the licence files agree
with the sources' SPDX-License-Identifier headers (of the files git
tracks; without git, of every file outside build*/ and dot folders).

  - every identifier in a tracked file is one LICENSE names and LICENSES/
    holds the text of;
  - config/debian/copyright.in (the package's machine-readable
    /usr/share/doc/xdplane/copyright) gives each file the licence of its
    header (the last Files: stanza that matches it, as the format says);
  - the BSD-2-Clause text is the same in LICENSE, LICENSES/ and the
    copyright file.
"""
import fnmatch
import os
import re
import subprocess
import sys

SRC = sys.argv[1]
# SPDX identifier -> (LICENSES/ file, Debian short name)
KNOWN = {
    "BSD-2-Clause": (["BSD-2-Clause.txt"], "BSD-2-clause"),
    "GPL-2.0": (["GPL-2.0-only.txt"], "GPL-2"),
    "GPL-2.0 OR BSD-2-Clause": (["GPL-2.0-only.txt", "BSD-2-Clause.txt"],
                                "GPL-2 or BSD-2-clause"),
}
errors = []
try:
    files = subprocess.run(["git", "-C", SRC, "ls-files"], check=True,
                           capture_output=True, text=True).stdout.split()
except (OSError, subprocess.CalledProcessError):
    # a tree without git: every file but build folders
    files = []
    for d, dirs, names in os.walk(SRC):
        dirs[:] = [x for x in dirs if not x.startswith(("build", "."))]
        files += [os.path.relpath(os.path.join(d, n), SRC) for n in names]
spdx = {}
for f in files:
    try:
        head = open(f"{SRC}/{f}", errors="replace").read(2000)
    except (IsADirectoryError, FileNotFoundError):
        continue
    m = re.search(r"SPDX-License-Identifier: ([^*\n]+?)\s*(\*/)?$", head, re.M)
    if m:
        spdx[f] = m.group(1)
if len(spdx) < 100:
    sys.exit(f"FAIL: only {len(spdx)} files with an SPDX header")
license_text = open(f"{SRC}/LICENSE").read()
for ident in sorted(set(spdx.values())):
    if ident not in KNOWN:
        errors.append(f"SPDX identifier {ident!r} ({[f for f, i in spdx.items() if i == ident][:3]}) "
                      "is not one LICENSE covers")
        continue
    if ident not in license_text:
        errors.append(f"LICENSE does not name {ident}")
    for t in KNOWN[ident][0]:
        try:
            open(f"{SRC}/LICENSES/{t}").close()
        except FileNotFoundError:
            errors.append(f"LICENSES/{t} missing (for {ident})")

# the machine-readable copyright: Files: stanzas, the last match wins
stanzas = []
for para in open(f"{SRC}/config/debian/copyright.in").read().split("\n\n"):
    m = re.match(r"Files:((?:.*\n(?: .*\n)*?))(?=\S)", para + "\n")
    lic = re.search(r"^License: (.+)$", para, re.M)
    if m and lic:
        stanzas.append((m.group(1).split(), lic.group(1)))
if not stanzas or stanzas[0][0] != ["*"]:
    errors.append("copyright.in: the first Files: stanza is not *")
for f, ident in sorted(spdx.items()):
    if ident not in KNOWN:
        continue
    got = None
    for pats, lic in stanzas:
        if any(fnmatch.fnmatchcase(f, p) for p in pats):
            got = lic
    if got != KNOWN[ident][1]:
        errors.append(f"copyright.in gives {f} {got!r}, its header says "
                      f"{ident} ({KNOWN[ident][1]})")


def words(t):
    return re.sub(r"\s+", " ", t.replace("\n .\n", "\n")).strip()


bsd = open(f"{SRC}/LICENSES/BSD-2-Clause.txt").read()
body = bsd[bsd.index("Redistribution"):]
if words(body) not in words(license_text):
    errors.append("LICENSE lacks the text of LICENSES/BSD-2-Clause.txt")
cr = open(f"{SRC}/config/debian/copyright.in").read()
m = re.search(r"^License: BSD-2-clause\n((?: .*\n)+)", cr, re.M)
if not m or words(re.sub(r"^ \.?", "", m.group(1), flags=re.M)) != words(body):
    errors.append("copyright.in: the BSD-2-clause text differs from LICENSES/")
for e in errors:
    print("FAIL: " + e)
if errors:
    sys.exit(1)
counts = {}
for i in spdx.values():
    counts[i] = counts.get(i, 0) + 1
print(f"ok: {len(spdx)} files with SPDX headers "
      f"({', '.join(f'{n} {i}' for i, n in sorted(counts.items()))}) agree with "
      f"LICENSE, LICENSES/ and the package's copyright ({len(stanzas)} stanzas)")
