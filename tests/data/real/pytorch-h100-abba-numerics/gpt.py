# A small GPT-style decoder trained on synthetic next-token data, profiled with torch.profiler
# (Kineto). Made for dcutop's real test data. One process per run.
# Usage: python3 gpt.py OUTDIR [options]   (see argparse below; the exact command is in SOURCE.txt)
import argparse, csv, gzip, json, math, os, shutil, sys, time
import torch, torch.nn as nn, torch.nn.functional as F
from torch.profiler import profile, ProfilerActivity, schedule, record_function

ap = argparse.ArgumentParser()
ap.add_argument("outdir")
ap.add_argument("--name", default="gpt_train")
ap.add_argument("--dtype", choices=["bf16", "fp32"], default="bf16")
ap.add_argument("--extra-mul", type=int, default=0,
                help="deliberate regression: this many redundant `u * 1.0` on each block's MLP hidden")
ap.add_argument("--layers", type=int, default=4)
ap.add_argument("--d", type=int, default=512)
ap.add_argument("--heads", type=int, default=8)
ap.add_argument("--seq", type=int, default=256)
ap.add_argument("--batch", type=int, default=16)
ap.add_argument("--vocab", type=int, default=4096)
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


class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out_proj = nn.Linear(d, d)

    def forward(self, x):
        B, T, D = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, D // self.heads).permute(2, 0, 3, 1, 4)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out_proj(o.transpose(1, 2).reshape(B, T, D))


class FeedForward(nn.Module):
    def __init__(self, d, extra_mul):
        super().__init__()
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)
        self.extra_mul = extra_mul

    def forward(self, x):
        u = F.gelu(self.up(x))
        for _ in range(self.extra_mul):  # the deliberate regression: redundant elementwise work
            u = u * 1.0
        return self.down(u)


class DecoderBlock(nn.Module):
    def __init__(self, d, heads, extra_mul):
        super().__init__()
        self.ln_attn = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads)
        self.ln_mlp = nn.LayerNorm(d)
        self.mlp = FeedForward(d, extra_mul)

    def forward(self, x):
        x = x + self.attn(self.ln_attn(x))
        return x + self.mlp(self.ln_mlp(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab, d, heads, layers, seq, extra_mul):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab, d)
        self.pos_emb = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList([DecoderBlock(d, heads, extra_mul) for _ in range(layers)])
        self.ln_final = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        T = idx.shape[1]
        pos = torch.arange(T, device=idx.device)
        x = self.tok_emb(idx) + self.pos_emb(pos)
        for b in self.blocks:
            x = b(x)
        return self.lm_head(self.ln_final(x))


class SyntheticLoader:
    """Host-side batch preparation: a learnable token stream (an affine recurrence mod vocab with
    some noise), built on the CPU in pinned memory and copied to the GPU without blocking."""
    def __init__(self, vocab, batch, seq, pace_ms):
        self.g = torch.Generator().manual_seed(99)
        self.vocab, self.batch, self.seq, self.pace = vocab, batch, seq, pace_ms / 1000.0
        self.next_t = None

    def next(self):
        if self.pace > 0:  # a loader that delivers a batch every pace ms (an input-bound job)
            now = time.perf_counter()
            if self.next_t is not None and now < self.next_t:
                time.sleep(self.next_t - now)
            self.next_t = max(now, self.next_t or now) + self.pace
        start = torch.randint(0, self.vocab, (self.batch, 1), generator=self.g)
        mult = torch.randint(1, 8, (self.batch, 1), generator=self.g)
        steps = torch.arange(self.seq + 1).unsqueeze(0)
        toks = (start + mult * steps * 7) % self.vocab
        noise = torch.rand(toks.shape, generator=self.g) < 0.05
        toks = torch.where(noise, torch.randint(0, self.vocab, toks.shape, generator=self.g), toks)
        x = toks[:, :-1].contiguous().pin_memory().to(dev, non_blocking=True)
        y = toks[:, 1:].contiguous().pin_memory().to(dev, non_blocking=True)
        return x, y


model = TinyGPT(args.vocab, args.d, args.heads, args.layers, args.seq, args.extra_mul).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
loader = SyntheticLoader(args.vocab, args.batch, args.seq, args.pace_ms)
losses = []
step_wall_ns = []


def train_step():
    with record_function("data_prep"):
        x, y = loader.next()
    if amp_dtype is not None:
        with torch.autocast("cuda", dtype=amp_dtype):
            logits = model(x)
            loss = F.cross_entropy(logits.float().view(-1, args.vocab), y.reshape(-1))
    else:
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, args.vocab), y.reshape(-1))
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
json.dump({"run": args.name, "dtype": args.dtype, "extra_mul": args.extra_mul,
           "config": {k: getattr(args, k) for k in ("layers", "d", "heads", "seq", "batch", "vocab")},
           "step_ms_events": step_ms_events, "step_ms_host": host_ms,
           "median_step_ms_events": srt[len(srt) // 2],
           "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "cuda": torch.version.cuda, "losses": losses},
          open(os.path.join(args.outdir, "step-times.json"), "w"), indent=1)
json.dump(anchor, open(os.path.join(args.outdir, "wallclock.json"), "w"), indent=1)
print(args.name, "final loss", losses[-1], "median step ms (events)", srt[len(srt) // 2],
      "trace bytes", os.path.getsize(trace_path), flush=True)
