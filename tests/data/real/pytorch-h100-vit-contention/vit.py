# A small vision transformer (conv patch embedding, written-out attention) trained on synthetic images, profiled with torch.profiler
# (Kineto). Made for dcutop's real test data. One process per run.
# Usage: python3 vit.py OUTDIR [options]   (see argparse below; the exact command is in SOURCE.txt)
import argparse, csv, gzip, json, math, os, shutil, sys, time
import torch, torch.nn as nn, torch.nn.functional as F
from torch.profiler import profile, ProfilerActivity, schedule, record_function

ap = argparse.ArgumentParser()
ap.add_argument("outdir")
ap.add_argument("--name", default="gpt_train")
ap.add_argument("--dtype", choices=["bf16", "fp32"], default="bf16")
ap.add_argument("--layers", type=int, default=6)
ap.add_argument("--d", type=int, default=384)
ap.add_argument("--heads", type=int, default=6)
ap.add_argument("--img", type=int, default=128)
ap.add_argument("--patch", type=int, default=8)
ap.add_argument("--chans", type=int, default=3)
ap.add_argument("--batch", type=int, default=32)
ap.add_argument("--classes", type=int, default=16)
ap.add_argument("--warm-steps", type=int, default=10, help="unprofiled steps first")
ap.add_argument("--timed-steps", type=int, default=20, help="unprofiled steps timed with CUDA events")
ap.add_argument("--active", type=int, default=3, help="profiler schedule active steps")
ap.add_argument("--window-s", type=float, default=0.0,
                help="if >0: stay in the active phase until this many seconds passed (overrides --active)")
ap.add_argument("--pace-ms", type=float, default=0.0,
                help="if >0: the simulated loader hands out one batch per this many ms")
ap.add_argument("--stack", type=int, default=1)
ap.add_argument("--modules", type=int, default=1)
ap.add_argument("--shapes", type=int, default=1)
ap.add_argument("--memory", type=int, default=1)
ap.add_argument("--go-file", default="", help="touched when the active phase starts (for a second process)")
ap.add_argument("--ready-file", default="", help="wait for this file before profiling (second process ready)")
args = ap.parse_args()

os.makedirs(args.outdir, exist_ok=True)
dev = "cuda"
torch.manual_seed(1234)
amp_dtype = torch.bfloat16 if args.dtype == "bf16" else None


class PatchEmbed(nn.Module):
    def __init__(self, chans, d, patch):
        super().__init__()
        self.proj = nn.Conv2d(chans, d, kernel_size=patch, stride=patch)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


class Attention(nn.Module):
    """Attention written out (matmul, softmax, matmul), not SDPA: other kernels than gpt.py's."""
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(d, d)
        self.kv = nn.Linear(d, 2 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        B, T, D = x.shape
        h = self.heads
        q = self.q(x).view(B, T, h, D // h).transpose(1, 2)
        k, v = self.kv(x).view(B, T, 2, h, D // h).permute(2, 0, 3, 1, 4)
        a = torch.softmax((q @ k.transpose(-2, -1)) * (D // h) ** -0.5, dim=-1)
        return self.proj((a @ v).transpose(1, 2).reshape(B, T, D))


class Mlp(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)

    def forward(self, x):
        return self.fc2(F.silu(self.fc1(x)))


class EncoderBlock(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.norm2 = nn.LayerNorm(d)
        self.mlp = Mlp(d, 4 * d)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class TinyViT(nn.Module):
    def __init__(self, chans, img, patch, d, heads, layers, classes):
        super().__init__()
        self.embed = PatchEmbed(chans, d, patch)
        self.pos = nn.Parameter(torch.zeros(1, (img // patch) ** 2, d))
        self.blocks = nn.Sequential(*[EncoderBlock(d, heads) for _ in range(layers)])
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        x = self.embed(x) + self.pos
        x = self.norm(self.blocks(x))
        return self.head(x.mean(dim=1))


class SyntheticLoader:
    """Host-side batches: images whose class is the quadrant of their brightest blob, built on
    the CPU in pinned memory and copied to the GPU without blocking."""
    def __init__(self, classes, batch, img, chans, pace_ms):
        self.g = torch.Generator().manual_seed(99)
        self.classes, self.batch, self.img, self.chans, self.pace = classes, batch, img, chans, pace_ms / 1000.0
        self.next_t = None

    def next(self):
        if self.pace > 0:
            now = time.perf_counter()
            if self.next_t is not None and now < self.next_t:
                time.sleep(self.next_t - now)
            self.next_t = max(now, self.next_t or now) + self.pace
        y = torch.randint(0, self.classes, (self.batch,), generator=self.g)
        x = torch.randn(self.batch, self.chans, self.img, self.img, generator=self.g) * 0.1
        h = self.img // 2
        for i in range(self.batch):
            q = int(y[i]) % 4
            r0, c0 = (q // 2) * h, (q % 2) * h
            x[i, :, r0:r0 + h, c0:c0 + h] += 0.5 + 0.1 * (int(y[i]) // 4)
        return x.pin_memory().to(dev, non_blocking=True), y.pin_memory().to(dev, non_blocking=True)


model = TinyViT(args.chans, args.img, args.patch, args.d, args.heads, args.layers, args.classes).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
loader = SyntheticLoader(args.classes, args.batch, args.img, args.chans, args.pace_ms)
losses = []
step_wall_ns = []


def train_step():
    with record_function("data_prep"):
        x, y = loader.next()
    if amp_dtype is not None:
        with torch.autocast("cuda", dtype=amp_dtype):
            logits = model(x)
            loss = F.cross_entropy(logits.float(), y)
    else:
        logits = model(x)
        loss = F.cross_entropy(logits, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    losses.append(loss.item())  # one host read of the loss per step (a device sync)


for _ in range(args.warm_steps):
    train_step()
torch.cuda.synchronize()

# plain timing, no profiler attached: CUDA events and host wall clock around each step
ev, host_ms = [], []
for _ in range(args.timed_steps):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = time.perf_counter()
    a.record(); train_step(); b.record()
    torch.cuda.synchronize()
    host_ms.append((time.perf_counter() - t0) * 1e3)
    ev.append((a, b))
step_ms_events = [a.elapsed_time(b) for a, b in ev]

if args.ready_file:
    t_wait = time.time()
    while not os.path.exists(args.ready_file) and time.time() - t_wait < 120:
        time.sleep(0.01)
    print("second process ready:", os.path.exists(args.ready_file), flush=True)

raw = os.path.join("/tmp", f"{args.name}.{os.getpid()}.json")
exported = []


def on_ready(p):
    p.export_chrome_trace(raw)
    exported.append(raw)


active = args.active if args.window_s <= 0 else 100000
sched = schedule(wait=1, warmup=1, active=active, repeat=1)
anchor = {"time_ns_before_profile": time.time_ns(), "perf_counter_ns_before_profile": time.perf_counter_ns()}
print("time_ns just before profiling starts:", anchor["time_ns_before_profile"], flush=True)
prof_steps = []
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=sched,
             on_trace_ready=on_ready, record_shapes=bool(args.shapes), with_stack=bool(args.stack),
             with_modules=bool(args.modules), profile_memory=bool(args.memory)) as prof:
    active_t0 = None
    i = 0
    while True:
        if i == 2 and active_t0 is None:  # wait=1, warmup=1: step index 2 is the first recorded one
            active_t0 = time.time()
            anchor["time_ns_active_start"] = time.time_ns()
            if args.go_file:
                open(args.go_file, "w").write(str(time.time_ns()))
        t_ns = time.time_ns()
        train_step()
        prof_steps.append({"i": i, "start_time_ns": t_ns, "end_time_ns": time.time_ns(), "loss": losses[-1]})
        prof.step()
        i += 1
        if args.window_s > 0:
            if active_t0 is not None and time.time() - active_t0 >= args.window_s:
                break
        elif i >= 2 + args.active:
            break
    torch.cuda.synchronize()
anchor["time_ns_after_profile"] = time.time_ns()
anchor["profiled_steps"] = prof_steps

if not exported:  # should not happen: leaving the context in the active phase exports
    prof.export_chrome_trace(raw)
trace_path = os.path.join(args.outdir, f"{args.name}.trace.json.gz")
with open(raw, "rb") as fi, gzip.open(trace_path, "wb", 9) as fo:
    shutil.copyfileobj(fi, fo)
os.remove(raw)

with open(os.path.join(args.outdir, "metrics.csv"), "w") as f:
    f.write("name,value\n")
    f.write(f"final_loss,{losses[-1]:.6f}\n")
srt = sorted(step_ms_events)
json.dump({"run": args.name, "dtype": args.dtype,            "config": {k: getattr(args, k) for k in ("layers", "d", "heads", "img", "patch", "chans", "batch", "classes")},
           "step_ms_events": step_ms_events, "step_ms_host": host_ms,
           "median_step_ms_events": srt[len(srt) // 2],
           "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "cuda": torch.version.cuda, "losses": losses},
          open(os.path.join(args.outdir, "step-times.json"), "w"), indent=1)
json.dump(anchor, open(os.path.join(args.outdir, "wallclock.json"), "w"), indent=1)
print(args.name, "final loss", losses[-1], "median step ms (events)", srt[len(srt) // 2],
      "trace bytes", os.path.getsize(trace_path), flush=True)
