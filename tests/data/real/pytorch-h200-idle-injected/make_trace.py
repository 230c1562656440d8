#!/usr/bin/env python3
"""make_trace.py - a real PyTorch training loop with GPU idle injected at known places, profiled
with torch.profiler (Kineto). Written for dcutop's issue 22 ("why the GPU idles"): each step
trains a small transformer block (bf16 autocast, AdamW), then injects three known causes of
device idle, with no synchronize of its own between them:

  inject_sleep   time.sleep(SLEEP_MS) inside record_function("inject_sleep"): host-bound,
                 the host activity over the gap is the range "inject_sleep"
  inject_python  pure-Python arithmetic for about PY_MS inside record_function("inject_python"),
                 right after a matmul of about 1.4 ms is queued: host-bound for the rest,
                 host activity "inject_python"
  .item()        loss.item() right after a large matmul is queued: the host blocks in a
                 synchronising copy (cudaMemcpyAsync D2H + cudaStreamSynchronize, op aten::item)
                 while the device drains; the device is idle from the end of that copy until the
                 next launch: a sync gap, attributed to the call and to aten::item

Writes idle_train.trace.json.gz and injected.json (the injection times measured on the host
with time.perf_counter_ns, for the record). Usage: make_trace.py OUTDIR
"""
import gzip
import json
import os
import shutil
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

SLEEP_MS = 4.0
PY_MS = 3.0
out = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)
dev = "cuda"
dim, heads, seq, batch = 512, 8, 256, 8
block = torch.nn.TransformerEncoderLayer(dim, heads, 4 * dim, batch_first=True).to(dev)
head = torch.nn.Linear(dim, 1).to(dev)
params = list(block.parameters()) + list(head.parameters())
opt = torch.optim.AdamW(params, lr=1e-4)
x = torch.randn(batch, seq, dim, device=dev)
y = torch.randn(batch, seq, 1, device=dev)
big_a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
big_b = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)


def python_work(ms):
    """Pure Python arithmetic (no torch call) for about ms milliseconds."""
    end = time.perf_counter_ns() + int(ms * 1e6)
    acc = 0
    while time.perf_counter_ns() < end:
        for i in range(200):
            acc += i * i % 7
    return acc


marks = []


def step():
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.mse_loss(head(block(x)), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    # no synchronize here: the small block's kernels finish within microseconds of their
    # launch (the loop is host-bound), so the sleep itself leaves the device idle
    t0 = time.perf_counter_ns()
    with record_function("inject_sleep"):
        time.sleep(SLEEP_MS / 1e3)
    t1 = time.perf_counter_ns()
    torch.mm(big_a, big_b)  # about 1.4 ms of device work; the Python work outlasts it
    t2 = time.perf_counter_ns()
    with record_function("inject_python"):
        python_work(PY_MS)
    t3 = time.perf_counter_ns()
    c = torch.mm(big_a, big_b)  # about 1.4 ms of device work queued
    v = c[0, 0].item()  # sync: the host waits for the matmul, then for the copy
    t4 = time.perf_counter_ns()
    marks.append({"sleep_ns": t1 - t0, "python_ns": t3 - t2, "item_return_ns": t4})
    return v


for _ in range(3):  # warm-up outside the profile
    step()
torch.cuda.synchronize()
marks.clear()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
             schedule=schedule(wait=0, warmup=1, active=3, repeat=1)) as prof:
    for _ in range(4):
        step()
        prof.step()
raw = os.path.join(out, "idle_train.trace.json")
prof.export_chrome_trace(raw)
with open(raw, "rb") as f, gzip.open(raw + ".gz", "wb", compresslevel=9) as g:
    shutil.copyfileobj(f, g)
os.remove(raw)
json.dump({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0),
           "sleep_ms": SLEEP_MS, "python_ms": PY_MS, "steps": marks[1:]},
          open(os.path.join(out, "injected.json"), "w"), indent=1)
print("ok", torch.__version__, os.path.getsize(raw + ".gz"))
