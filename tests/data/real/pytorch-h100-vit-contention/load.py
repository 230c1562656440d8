# The second process for the contention recording: it loads the same GPU with bf16 matmuls for
# DUR seconds, DELAY seconds after GO_FILE appears, holding an extra 6 GiB while it does.
# Usage: python3 load.py READY_FILE GO_FILE OUT_JSON DELAY DUR
import json, os, sys, time
import torch
ready, go, out = sys.argv[1:4]
delay, dur = float(sys.argv[4]), float(sys.argv[5])
rec = {"pid": os.getpid(), "init_start_time_ns": time.time_ns()}
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
for _ in range(3):
    c = a @ b
torch.cuda.synchronize()
rec["ready_time_ns"] = time.time_ns()
open(ready, "w").write(str(rec["ready_time_ns"]))
t = time.time()
while not os.path.exists(go):
    if time.time() - t > 300:
        rec["error"] = "go file never appeared"
        json.dump(rec, open(out, "w"), indent=1)
        sys.exit(1)
    time.sleep(0.001)
rec["go_seen_time_ns"] = time.time_ns()
time.sleep(delay)
rec["start_time_ns"] = time.time_ns()
rec["start_time_s"] = time.time()
extra = torch.empty(6 << 30, dtype=torch.uint8, device="cuda")
extra.fill_(1)
n = 0
while time.time() - rec["start_time_s"] < dur:
    for _ in range(4):
        c = a @ b
    torch.cuda.synchronize()
    n += 4
rec["end_time_ns"] = time.time_ns()
rec["end_time_s"] = time.time()
rec["matmuls"] = n
rec["matmul"] = "8192x8192 @ 8192x8192 bf16"
rec["extra_bytes_held"] = 6 << 30
del extra
torch.cuda.empty_cache()
rec["freed_time_ns"] = time.time_ns()
json.dump(rec, open(out, "w"), indent=1)
print("load done", rec, flush=True)
