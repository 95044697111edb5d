#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The include order of the rooms: no header include crosses it upwards.

    check_rooms.py [--allow FILE:HEADER]... TREE [TREE...]

A TREE is a folder of rooms (dataplane/, control/). Its README.md declares
the rooms in a table whose first column is `room` and whose rows name one
folder each (| `base/` | ...): a room includes only itself and the rooms
listed above it in that table. TREEs are given bottom first: a tree may
include the trees given before it, never one given after it.

Every .c and .h file of a tree must lie in one of its rooms. Every
`#include "name"` is resolved the way the build resolves it: a name with
a slash relative to the including file, a bare name in the including
file's folder, then in every room of every tree (a bare name found in two
rooms is an error: the include path would pick one silently). Names found
in no tree (the system's, generated headers, tests/lib) are not checked.

--allow FILE:HEADER accepts one known crossing (FILE relative to the
current directory, HEADER as written in the include); one that no longer
occurs is an error, so the list shrinks with the fixes.

Exit status 0 if the order holds, 1 with one line per crossing if not,
2 on a usage or declaration error.
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ROW = re.compile(r'^\|\s*`([A-Za-z0-9_-]+)/`\s*\|')
HEAD = re.compile(r'^\|\s*room\s*\|', re.I)


def declared_rooms(tree):
    """The rooms of tree, bottom first, from the table in its README.md."""
    path = os.path.join(tree, 'README.md')
    try:
        lines = open(path, encoding='utf-8').read().splitlines()
    except OSError as e:
        sys.exit(f'check_rooms: {path}: {e}')
    rooms, in_table = [], False
    for line in lines:
        if HEAD.match(line):
            in_table = True
            continue
        if in_table:
            m = ROW.match(line)
            if m:
                rooms.append(m.group(1))
            elif not line.startswith('|'):
                if rooms:
                    break
                in_table = False
    if not rooms:
        print(f'check_rooms: {path}: no table of rooms (| room | ...)',
              file=sys.stderr)
        sys.exit(2)
    for r in rooms:
        if not os.path.isdir(os.path.join(tree, r)):
            print(f'check_rooms: {path}: room {r}/ is not a folder',
                  file=sys.stderr)
            sys.exit(2)
    return rooms


def sources(top):
    for dirpath, dirnames, files in os.walk(top):
        dirnames.sort()
        for f in sorted(files):
            if f.endswith(('.c', '.h')):
                yield os.path.normpath(os.path.join(dirpath, f))


def main():
    ap = argparse.ArgumentParser(
        description='Check that no include crosses the declared room order.')
    ap.add_argument('--allow', action='append', default=[],
                    metavar='FILE:HEADER', help='a known crossing')
    ap.add_argument('trees', nargs='+', help='folders of rooms, bottom first')
    a = ap.parse_args()

    # where: file -> (tree index, room index)
    where, by_name, errors = {}, {}, []
    for t, tree in enumerate(a.trees):
        rooms = declared_rooms(tree)
        for r, room in enumerate(rooms):
            for f in sources(os.path.join(tree, room)):
                where[f] = (t, r)
                by_name.setdefault(os.path.basename(f), []).append(f)
        for f in sources(tree):
            if f not in where:
                errors.append(f'{f}: not in a room of {tree}/README.md')
    names = {t: declared_rooms(tree) for t, tree in enumerate(a.trees)}

    def label(f):
        t, r = where[f]
        return f'{a.trees[t]}/{names[t][r]}'

    allowed = set()
    for x in a.allow:
        f, sep, h = x.partition(':')
        if not sep:
            ap.error(f'--allow {x}: expected FILE:HEADER')
        allowed.add((os.path.normpath(f), h))
    used = set()

    for f in sorted(where):
        text = open(f, encoding='utf-8', errors='replace').read()
        for m in INCLUDE.finditer(text):
            name = m.group(1)
            line = text.count('\n', 0, m.start()) + 1
            here = os.path.join(os.path.dirname(f), name)
            here = os.path.normpath(here)
            if '/' in name or os.path.exists(here):
                target = here if here in where else None
            else:
                found = by_name.get(name, [])
                if len(found) > 1:
                    errors.append(f'{f}:{line}: "{name}" is in '
                                  f'{" and ".join(found)}: ambiguous')
                    continue
                target = found[0] if found else None
            if target is None or target == f:
                continue
            (ft, fr), (ht, hr) = where[f], where[target]
            if ht < ft or (ht == ft and hr <= fr):
                continue
            if (f, name) in allowed:
                used.add((f, name))
                continue
            errors.append(f'{f}:{line}: includes "{name}" ({label(target)}), '
                          f'a room above {label(f)} in the declared order')
    for f, h in sorted(allowed - used):
        errors.append(f'--allow {f}:{h}: no such crossing any more; '
                      'remove it from the list')
    for e in errors:
        print(e)
    if errors:
        print(f'check_rooms: {len(errors)} crossing(s) of the room order '
              f'(declared in {", ".join(t + "/README.md" for t in a.trees)})')
        return 1
    print(f'check_rooms: {len(where)} files in '
          f'{sum(len(v) for v in names.values())} rooms, order kept')
    return 0


if __name__ == '__main__':
    sys.exit(main())
