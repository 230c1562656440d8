#!/usr/bin/env python3
"""gen_runs_fixture.py - writes tests/data/runs, the small multi-run fixture of
tests/screens/runs.keys (deterministic; re-running rewrites byte-identical files).

Four runs of one program, as the isolated-collection method lays them out in sibling
folders: r1 and r2 are per-dispatch traces (rocprof v1 results.csv) of 4 iterations of the
same 5 kernels, whose first iteration is 2.0x and 1.5x slower; stats/ holds a stats-only run
(results.stats.csv); pmc/ a PMC run (results.csv with an SQ_WAVES counter column)."""
import os

HDR = ('"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds",'
       '"scr","vgpr","sgpr","fbar","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs",'
       '"DurationNs"')
KERNELS = ["Cijk_Ailk_Bljk_SB_MT64x64x8_demo", "void softmax_kernel<float>(float*, int)",
           "void layernorm_kernel<float>(float const*, float*)",
           "void add_kernel<float>(float*, float const*)",
           "void direct_copy_kernel<float>(float*, float const*)"]
DUR = [40000, 12000, 9000, 5000, 14000]  # ns per dispatch in the steady state
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'data', 'runs')


def trace(folder, pid, t0, cold, counter=False):
    os.makedirs(os.path.join(here, folder), exist_ok=True)
    rows = [HDR + (',"SQ_WAVES"' if counter else '')]
    t, i = t0, 0
    for it in range(4):
        for k, name in enumerate(KERNELS):
            d = int(DUR[k] * (cold if it == 0 else 1.0)) * (8 if counter else 1)
            b = t + 2000
            row = '%d,"%s",0,0,%d,%d,%d,1024,256,0,0,16,24,0,"0x0","0x0",%d,%d,%d,%d,%d' % (
                i, name, i, pid, pid, t, b, b + d, b + d + 100, d)
            rows.append(row + (',%d' % (64 * (k + 1)) if counter else ''))
            t, i = b + d, i + 1
        t += 30000  # host work between iterations
    with open(os.path.join(here, folder, 'results.csv'), 'w') as f:
        f.write('\n'.join(rows) + '\n')


trace('r1', 4101, 1000000000, 2.0)
trace('r2', 4102, 7000000000, 1.5)
trace('pmc', 4103, 9000000000, 1.0, counter=True)
os.makedirs(os.path.join(here, 'stats'), exist_ok=True)
with open(os.path.join(here, 'stats', 'results.stats.csv'), 'w') as f:
    f.write('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n')
    total = sum(4 * d for d in DUR)
    for name, d in zip(KERNELS, DUR):
        f.write('"%s [clone .kd]",4,%d,%d,%r\n' % (name, 4 * d, d, 100.0 * 4 * d / total))
