"""idle_causes.py - the classification both idle oracles share (idle_oracle.py over Kineto
JSON, idle_oracle_raw.py over RPD / results.db tables), written from the rules in the manual,
none of dcutop's code. Per device: the idle intervals of the run span (the first start to the
last end of every kernel and busy event) outside the union of the device's kernels and its
memsets and copies (those of no length left out), each classified by the next event's launch
call: sync (a synchronising call on the launching thread overlaps the interval and ended by
the launch), host-bound (launched after the device went idle), launch-overhead (launched
before), unknown (no next event or no launch call)."""
import collections


def print_causes(kern, busy, launch_of, syncs_of):
    """kern, busy: (device, start, end, key) of the kernels and of the memsets and copies the
    devices ran; launch_of(key): (call start, thread) of the event's launch call, or None;
    syncs_of(thread): [(start, end)] of the synchronising calls on that thread. Prints
    "device<TAB>cause<TAB>gaps<TAB>ns" per cause, then "idle<TAB>device<TAB>ns"."""
    busy = [b for b in busy if b[2] > b[1]]
    lo = min(k[1] for k in kern + busy)
    hi = max(k[2] for k in kern + busy)
    out = collections.defaultdict(lambda: [0, 0])
    idle = collections.Counter()
    for dev in sorted({k[0] for k in kern + busy}):
        ks = sorted([k + (0,) for k in kern if k[0] == dev] +
                    [b + (1,) for b in busy if b[0] == dev], key=lambda k: (k[1], k[2], k[4]))
        reach = lo
        for i in range(len(ks) + 1):
            st = ks[i][1] if i < len(ks) else hi
            if st > reach:
                cause = "unknown"
                call = launch_of(ks[i][3]) if i < len(ks) else None
                if call:
                    cs, thread = call
                    if any(a < st and b > reach and b <= cs for a, b in syncs_of(thread)):
                        cause = "sync"
                    elif cs > reach:
                        cause = "host-bound"
                    else:
                        cause = "launch-overhead"
                out[(dev, cause)][0] += 1
                out[(dev, cause)][1] += st - reach
                idle[dev] += st - reach
            if i < len(ks):
                reach = max(reach, ks[i][2])
    for (dev, cause), (g, t) in sorted(out.items()):
        print(f"{dev}\t{cause}\t{g}\t{t}")
    for dev, t in sorted(idle.items()):
        print(f"idle\t{dev}\t{t}")
