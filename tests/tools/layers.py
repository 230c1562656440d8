#!/usr/bin/env python3
"""layers.py BUILD - the model's floors and cycles, from the objects' symbols (nm).

Each src/model file is an object; it USES another when it calls a function (or reads data)
that the other defines. The floors (low to high): core, store, names, analysis, load, and
advice.c on top. A file may use its own floor and those below it, never one above; and no
two model files use each other through a chain (a cycle). Prints one line per finding and
'ok'/'not ok' lines, TAP-style, for tests/cli/test_layers.sh.
"""
import os, subprocess, sys

FLOORS = ["core", "store", "names", "analysis", "load", "top"]


def floor_of(rel):
    parts = rel.split("/")
    return parts[0] if len(parts) > 1 else "top"


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            used.add(f[1])
        elif len(f) == 3 and f[1] in "TDBRC":
            defined.add(f[2])
    return defined, used


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    root = os.path.join(build, "src", "model")
    objs = {}
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".o"):
                rel = os.path.relpath(os.path.join(d, f), root)[:-2]
                if os.path.exists(os.path.join("src", "model", rel + ".c")):
                    objs[rel] = symbols(os.path.join(d, f))
    owner = {}
    for rel, (defined, _) in objs.items():
        for s in defined:
            owner[s] = rel
    uses = {rel: sorted({owner[s] for s in used if s in owner and owner[s] != rel})
            for rel, (_, used) in objs.items()}
    bad = 0
    for rel in sorted(uses):
        for dep in uses[rel]:
            if FLOORS.index(floor_of(dep)) > FLOORS.index(floor_of(rel)):
                syms = sorted(s for s in objs[rel][1] if owner.get(s) == dep)
                print("# %s (%s) uses %s (%s), a floor above: %s" %
                      (rel, floor_of(rel), dep, floor_of(dep), ", ".join(syms[:4])))
                bad += 1
    print(("ok" if bad == 0 else "not ok") + " - no model file uses a floor above its own (%d found)" % bad)
    # cycles: strongly connected components (Tarjan) of the uses graph
    index, low, stack, on, sccs = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in uses.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(uses):
        if v not in index:
            visit(v)
    for c in sccs:
        print("# cycle: " + " <-> ".join(c))
    print(("ok" if not sccs else "not ok") + " - no cycle among the model's files (%d found)" % len(sccs))
    print("ok - %d model objects read" % len(objs) if len(objs) > 40 else "not ok - only %d model objects" % len(objs))
    include_cycles()


def include_cycles():
    """The headers' own includes (include/dcutop, src/model): no header reaches itself."""
    import glob, re
    heads = glob.glob("include/dcutop/*.h") + glob.glob("src/model/**/*.h", recursive=True)
    by_name = {}
    for h in heads:
        key = "dcutop/" + os.path.basename(h) if h.startswith("include/") else os.path.relpath(h, "src/model")
        by_name[key] = h
    edges = {}
    for key, h in by_name.items():
        deps = []
        for line in open(h, encoding="utf-8", errors="replace"):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if m:
                inc = m.group(1)
                if inc not in by_name:  # a private header next to this one
                    inc = os.path.relpath(os.path.join(os.path.dirname(h), inc), "src/model")
                if inc in by_name:
                    deps.append(inc)
        edges[key] = deps
    seen, path, found = set(), [], []

    def walk(v):
        if v in path:
            found.append(path[path.index(v):] + [v])
            return
        if v in seen:
            return
        seen.add(v)
        path.append(v)
        for w in edges.get(v, []):
            walk(w)
        path.pop()

    for v in sorted(edges):
        walk(v)
    for c in found:
        print("# include cycle: " + " -> ".join(c))
    print(("ok" if not found else "not ok") + " - no include cycle among %d headers" % len(edges))


main()
