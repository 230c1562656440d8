#!/usr/bin/env python3
"""gen_runs.py DIR N - N one-run rocprof v1 per-dispatch traces (six timestamped dispatches
each, pid = run), 1,000 to a subfolder: a folder of many small runs, for test_walk.sh (M5)."""
import os
import sys

root, n = sys.argv[1], int(sys.argv[2])
HEAD = ('"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds",'
        '"scr","arch_vgpr","accum_vgpr","sgpr","wave_size","sig","obj","DispatchNs","BeginNs",'
        '"EndNs","CompleteNs","DurationNs"\n')
for i in range(n):
    d = os.path.join(root, "d%03d" % (i // 1000))
    if i % 1000 == 0:
        os.makedirs(d)
    with open(os.path.join(d, "r%06d.csv" % i), "w") as f:
        f.write(HEAD)
        for k in range(6):
            b = 1000000 + k * 5000
            f.write('%d,"k%d",0,0,%d,%d,%d,256,256,0,0,16,0,128,64,"0x0","0x0",%d,%d,%d,%d,%d\n'
                    % (k, k % 3, k, 100 + i, 100 + i, b - 100, b, b + 2000 + i % 7, b + 2100,
                       2000 + i % 7))
