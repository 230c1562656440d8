/* trace_db.c - schema and lifetime of the trace database (in memory, or bounded in memory
 * with the rest in a temporary file: TraceDb_open). */
#include "dcutop/trace_db.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dcutop/dispatch_store.h"
#include "dcutop/filter.h"
#include "dcutop/out_file.h"
#include "dcutop/xalloc.h"

/* DCUTOP_SQL_PROFILE=1: each statement's summed run time, the slowest printed to stderr
 * when the database is closed (a developer's tool for issue 11; see bench/README.md). */
typedef struct SqlProf_ {
    char* sql;
    int64_t ns, runs;
} SqlProf;

static int on_profile(unsigned type, void* ctx, void* p, void* x);
static void profile_report(struct TraceDb_* this);

struct TraceDb_ {
    sqlite3* db;
    SqlProf* prof;
    int nprof, capprof;
    struct {
        void* value;
        void (*release)(void*);
        TraceDbState state;
    } cache[TRACEDB_CACHE_SLOTS];
    int64_t memory; /* TraceDb_open's bound, bytes; 0: none */
    DispatchStore* store; /* the dispatch rows (owned; outlives the connection's close) */
    struct {
        char* sql;
        sqlite3_stmt* st;
    } stmts[TRACEDB_STMT_SLOTS]; /* TraceDb_prepareCached's statements, by their SQL text */
    int nstmts;
};

/* The dispatch table's columns (SCHEMA.md). Live, it is the virtual table of the columnar
 * store (dispatch_store.c), declared with these columns; --save-db writes it as this table. */
static const char dispatch_table[] =
    "CREATE TABLE dispatch(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  file_id INTEGER NOT NULL,\n"
    "  kernel_id INTEGER NOT NULL REFERENCES kernel(id),\n"
    "  seq INTEGER,                 -- dispatch index / id in the source\n"
    "  gpu INTEGER, queue INTEGER, stream INTEGER, pid INTEGER, tid INTEGER,\n"
    "  corr_id INTEGER,             -- correlation id linking to api_call\n"
    "  start_ns INTEGER, end_ns INTEGER,\n"
    "  dur_ns INTEGER NOT NULL,\n"
    "  grid INTEGER, workgroup INTEGER, lds INTEGER, scratch INTEGER,\n"
    "  vgpr INTEGER, sgpr INTEGER\n"
    ");\n";

/* The dcutop schema. Times are integer nanoseconds everywhere. Layers (PRODUCT.md 1):
 * 'kernel' (device kernels), 'api' (host API), 'copy' (memory copies), 'range'
 * (roctx/hiptx markers), 'agent' (device info). A source file can feed several layers;
 * source_layer says, per file and layer, whether its rows are used or superseded by a
 * finer-grained file of the same run (per-dispatch beats per-kernel aggregates). */
static const char schema[] =
    "PRAGMA user_version = 3;\n"
    /* A run: what one profiler invocation wrote (one process's files in one folder, one
     * database, one Kineto JSON). Assigned after loading (load_runs.c). */
    "CREATE TABLE run(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  label TEXT NOT NULL UNIQUE,  -- folder relative to the PATH given (+ tag or file name\n"
    "                               -- when the folder holds several runs), or the file name\n"
    "  root INTEGER NOT NULL,       -- which PATH of the command line (0-based)\n"
    "  dir TEXT NOT NULL,           -- the folder\n"
    "  tag TEXT NOT NULL,           -- pid tag, file name (single-file run) or ''\n"
    "  layers TEXT NOT NULL DEFAULT '',  -- its layers with rows, e.g. 'kernel,api,copy'\n"
    "  mode TEXT NOT NULL DEFAULT 'plain',  -- plain | stats | trace | stack | pmc\n"
    "  clock TEXT NOT NULL DEFAULT '',  -- clock domain of its timestamps, as a short text\n"
    "  files INTEGER NOT NULL DEFAULT 0  -- source files in the run\n"
    ");\n"
    /* the runs every screen shows now (all of them after loading; Runs_setScope) */
    "CREATE TABLE run_scope(run_id INTEGER PRIMARY KEY);\n"
    /* every file seen, loaded or not */
    "CREATE TABLE source_file(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  path TEXT NOT NULL,          -- as given or found while walking the folder\n"
    "  name TEXT NOT NULL,          -- path relative to the folder given on the command line\n"
    "  dir TEXT NOT NULL,           -- containing directory\n"
    "  run_tag TEXT,                -- pid/prefix that ties files of one run, '' if none\n"
    "  run_id INTEGER REFERENCES run(id),  -- NULL: in no run (skipped, unreadable)\n"
    "  root INTEGER NOT NULL DEFAULT 0,    -- which PATH of the command line (0-based)\n"
    "  format TEXT NOT NULL,        -- e.g. 'rocprof-v1 results.csv', 'skipped'\n"
    "  bytes INTEGER,\n"
    "  rows_read INTEGER NOT NULL DEFAULT 0,\n"
    "  rows_rejected INTEGER NOT NULL DEFAULT 0,\n"
    "  pmc INTEGER NOT NULL DEFAULT 0,  -- 1 if the file carries PMC counter columns\n"
    "  note TEXT,                   -- why skipped, or other remarks\n"
    "  dist_rank INTEGER,           -- Kineto distributedInfo.rank, NULL when not said\n"
    "  dist_world INTEGER           -- Kineto distributedInfo.world_size, NULL when not said\n"
    ");\n"
    "CREATE TABLE source_layer(\n"
    "  file_id INTEGER NOT NULL REFERENCES source_file(id),\n"
    "  layer TEXT NOT NULL,         -- kernel | api | copy | range | agent | stack\n"
    "  grain INTEGER NOT NULL,      -- 2 per event (dispatch/call), 1 aggregate stats\n"
    "  rank INTEGER NOT NULL,       -- preference among files of equal grain (higher wins)\n"
    "  used INTEGER NOT NULL DEFAULT 1,\n"
    "  superseded_by INTEGER,       -- source_file.id of the file preferred instead\n"
    "  PRIMARY KEY(file_id, layer)\n"
    ");\n"
    "CREATE TABLE load_message(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  file_id INTEGER REFERENCES source_file(id),\n"
    "  line INTEGER,                -- 1-based line in the file, NULL for file-level messages\n"
    "  message TEXT NOT NULL\n"
    ");\n"
    /* interned kernel names */
    "CREATE TABLE kernel(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  name TEXT NOT NULL UNIQUE,   -- normalised full name (no ' [clone .kd]' / '.kd'), sanitized,\n"
    "                               -- demangled when the trace gave an Itanium-mangled _Z name\n"
    "  name_raw TEXT,               -- the name as the trace gave it (normalised, sanitized): the\n"
    "                               -- mangled symbol of a demangled name, else equal to name\n"
    "  short_name TEXT NOT NULL,    -- unique; return type, arguments, namespaces dropped\n"
    "  short_keys TEXT,             -- byte ranges of short_name that tell it apart\n"
    "  category TEXT,               -- set by the categorizer after loading\n"
    "  rule_line INTEGER,           -- rule that matched (line in the rules file), NULL = none\n"
    "  rule_source TEXT,            -- rules file name, or 'built-in'\n"
    "  rule_pattern TEXT            -- that rule's regex (what Kernel detail shows)\n"
    ");\n"
    /* dispatch: the columnar store (dispatch_store.h), columns as dispatch_table below */
    "CREATE VIRTUAL TABLE dispatch USING dcu_dispatch;\n"
    /* PMC counters and any other unknown numeric per-dispatch column */
    "CREATE TABLE dispatch_counter(\n"
    "  dispatch_id INTEGER NOT NULL REFERENCES dispatch(id),\n"
    "  name TEXT NOT NULL,\n"
    "  value REAL\n"
    ");\n"
    /* per-kernel aggregates from stats files (hipkernel.csv, results.stats.csv, ...) */
    "CREATE TABLE kernel_stat(\n"
    "  file_id INTEGER NOT NULL,\n"
    "  kernel_id INTEGER NOT NULL REFERENCES kernel(id),\n"
    "  calls INTEGER NOT NULL, total_ns INTEGER NOT NULL,\n"
    "  min_ns INTEGER, max_ns INTEGER, stddev_ns REAL\n"
    ");\n"
    "CREATE TABLE api_stat(\n"
    "  file_id INTEGER NOT NULL,\n"
    "  domain TEXT NOT NULL,        -- HIP | HSA | MARKER | ...\n"
    "  name TEXT NOT NULL,\n"
    "  calls INTEGER NOT NULL, total_ns INTEGER NOT NULL,\n"
    "  min_ns INTEGER, max_ns INTEGER, stddev_ns REAL\n"
    ");\n"
    "CREATE TABLE api_call(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  file_id INTEGER NOT NULL,\n"
    "  domain TEXT NOT NULL,\n"
    "  name TEXT NOT NULL,\n"
    "  pid INTEGER, tid INTEGER, corr_id INTEGER,\n"
    "  start_ns INTEGER, end_ns INTEGER, dur_ns INTEGER NOT NULL\n"
    ");\n"
    "CREATE TABLE copy_stat(\n"
    "  file_id INTEGER NOT NULL,\n"
    "  name TEXT NOT NULL,          -- CopyHostToDevice, MEMORY_COPY_HOST_TO_DEVICE, ...\n"
    "  calls INTEGER NOT NULL, total_ns INTEGER NOT NULL,\n"
    "  min_ns INTEGER, max_ns INTEGER, stddev_ns REAL\n"
    ");\n"
    "CREATE TABLE copy(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  file_id INTEGER NOT NULL,\n"
    "  name TEXT NOT NULL,          -- direction/kind as the tool wrote it\n"
    "  src_agent INTEGER, dst_agent INTEGER, stream INTEGER, corr_id INTEGER,\n"
    "  bytes INTEGER,               -- NULL when the format does not say\n"
    "  start_ns INTEGER, end_ns INTEGER, dur_ns INTEGER NOT NULL,\n"
    "  gpu INTEGER, queue INTEGER   -- device and queue that ran it (RPD), NULL if not said\n"
    ");\n"
    "CREATE TABLE range(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  file_id INTEGER NOT NULL,\n"
    "  domain TEXT,\n"
    "  name TEXT NOT NULL,          -- the roctx/hiptx message\n"
    "  pid INTEGER, tid INTEGER,\n"
    "  corr_id INTEGER,             -- rocprofv3: Correlation_Id; rocprofv2 roctx: ROCTX_ID\n"
    "  event TEXT,                  -- 'range' (start..end) or the v2 event kind\n"
    "  start_ns INTEGER, end_ns INTEGER\n"
    ");\n"
    /* Call source from PyTorch profiler (Kineto) traces, for the Stacks screen:
     * ext_link ties a kernel, copy or runtime call (corr_id) to the aten op that caused it
     * (ext_id = the trace's "External id"); cpu_op holds the aten ops; py_frame the
     * python_function events, a tree per thread through parent_id. A kernel's python stack:
     * dispatch.corr_id -> ext_link.ext_id -> cpu_op.ext_id, then the py_frame rows of the
     * same pid/tid whose [start_ns, end_ns] encloses the cpu_op, innermost = latest start. */
    "CREATE TABLE ext_link(\n"
    "  file_id INTEGER NOT NULL,\n"
    "  corr_id INTEGER NOT NULL,    -- dispatch/api_call/copy corr_id of the same file\n"
    "  ext_id INTEGER NOT NULL      -- cpu_op.ext_id\n"
    ");\n"
    "CREATE TABLE cpu_op(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  file_id INTEGER NOT NULL,\n"
    "  name TEXT NOT NULL,          -- aten::mm, aten::copy_, ...\n"
    "  pid INTEGER, tid INTEGER,\n"
    "  ext_id INTEGER,              -- External id\n"
    "  start_ns INTEGER, end_ns INTEGER,\n"
    "  call_stack TEXT,             -- args 'Call stack' where PyTorch writes one: frames\n"
    "                               -- innermost first, ';'-separated\n"
    /* record_shapes=True: the args as compact JSON text, NULL when not recorded; read by
     * perf_model.c (FLOPs and bytes per op) */
    "  input_dims TEXT,             -- args 'Input Dims', e.g. [[8944,1024],[1024,1024]]\n"
    "  input_types TEXT,            -- args 'Input type', e.g. [\"c10::BFloat16\",\"float\"]\n"
    "  input_strides TEXT,          -- args 'Input Strides'\n"
    "  concrete_inputs TEXT         -- args 'Concrete Inputs' (scalars as strings)\n"
    ");\n"
    "CREATE TABLE py_frame(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  file_id INTEGER NOT NULL,\n"
    "  pid INTEGER, tid INTEGER,\n"
    "  py_id INTEGER,               -- args 'Python id' (unique within the file)\n"
    "  parent_py_id INTEGER,        -- args 'Python parent id'; NULL at a thread's root\n"
    "  parent_id INTEGER REFERENCES py_frame(id),  -- resolved after loading the file\n"
    "  name TEXT NOT NULL,          -- 'file.py(123): function' or 'nn.Module: Name_0'\n"
    "  start_ns INTEGER, end_ns INTEGER\n"
    ");\n"
    "CREATE INDEX py_frame_py_id ON py_frame(file_id, py_id);\n"
    /* Efficiency (efficiency.c, filled by Efficiency_build after loading): per aten op that
     * launched kernels, the performance model's figures (perf_model.h) and the time it
     * would take at the device's peak; per dispatch its share of its op (by duration);
     * per kernel the sums over its dispatches. Times ns, rates derived by queries. */
    "CREATE TABLE op_perf(\n"
    "  op_id INTEGER PRIMARY KEY REFERENCES cpu_op(id),\n"
    "  kind TEXT NOT NULL,          -- gemm | conv | attention | memory\n"
    "  flops REAL NOT NULL, bytes REAL NOT NULL,  -- one call, from the shapes\n"
    "  dtype TEXT, shape TEXT,      -- 'bf16', 'M=8944 N=1024 K=1024 B^T'\n"
    "  kernel_ns INTEGER NOT NULL,  -- summed duration of the kernels it launched\n"
    "  kernels INTEGER NOT NULL,    -- how many\n"
    "  device TEXT,                 -- device name of its kernels, NULL if the trace has none\n"
    "  compute_ns REAL,             -- flops at the dtype's peak; NULL: peak unknown\n"
    "  memory_ns REAL               -- bytes at the HBM peak; NULL: peak unknown\n"
    ");\n"
    "CREATE TABLE dispatch_perf(\n"
    "  dispatch_id INTEGER PRIMARY KEY REFERENCES dispatch(id),\n"
    "  op_id INTEGER NOT NULL REFERENCES op_perf(op_id),\n"
    "  flops REAL NOT NULL, bytes REAL NOT NULL,  -- the op's, times dur / op kernel_ns\n"
    "  compute_ns REAL, memory_ns REAL            -- likewise\n"
    ");\n"
    "CREATE TABLE kernel_perf(\n"
    "  kernel_id INTEGER PRIMARY KEY REFERENCES kernel(id),\n"
    "  dispatches INTEGER NOT NULL,  -- dispatches with a modelled op\n"
    "  dur_ns INTEGER NOT NULL,      -- their summed duration\n"
    "  flops REAL NOT NULL, bytes REAL NOT NULL,\n"
    "  compute_ns REAL, memory_ns REAL  -- NULL unless every dispatch has a peak\n"
    ");\n"
    /* the devices kernels ran on, with the peak figures used (peaks.h); ord 0 = most time */
    "CREATE TABLE eff_device(\n"
    "  ord INTEGER PRIMARY KEY,\n"
    "  name TEXT,                   -- as the trace names it; NULL when it names none\n"
    "  source TEXT, line INTEGER,   -- peaks table entry, '--peak', NULL: no entry\n"
    "  bf16 REAL, fp16 REAL, fp32 REAL, fp8 REAL,  -- dense TFLOP/s, NULL unknown\n"
    "  gbps REAL,                   -- HBM GB/s, NULL unknown\n"
    "  kernel_ns INTEGER,           -- modelled kernel time on it\n"
    "  measured INTEGER NOT NULL DEFAULT 0,  -- PeakFigures.measured: figures measured\n"
    "  measured_from TEXT           -- the roofline.csv or analysis database they came from\n"
    ");\n"
    /* memory allocation operations (rocpd memory_allocations), in time order per file */
    "CREATE TABLE mem_alloc(\n"
    "  file_id INTEGER NOT NULL,\n"
    "  pid INTEGER, agent INTEGER,\n"
    "  op TEXT,                     -- ALLOC | FREE | REALLOC | RECLAIM\n"
    "  level TEXT,                  -- REAL | VIRTUAL | SCRATCH\n"
    "  address INTEGER, bytes INTEGER, start_ns INTEGER, end_ns INTEGER,\n"
    "  live_bytes INTEGER           -- bytes live at its level in the file after the operation\n"
    ");\n"
    /* device memory over time (kineto_memory.c): PyTorch's '[memory]' instant events
     * (profile_memory=True), one per allocation or free of its caching allocator with its
     * running totals, and the rocpd allocations of mem_alloc (level REAL) with the bytes
     * live on their agent after each. Kineto's totals are the allocator's, per process:
     * not the memory the device reports in use (context, other processes). */
    "CREATE TABLE mem_event(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  file_id INTEGER NOT NULL,\n"
    "  ts_ns INTEGER NOT NULL,\n"
    "  device INTEGER NOT NULL,     -- 'Device Id' (rocpd: agent), -1 host memory\n"
    "  addr INTEGER,                -- 'Addr'\n"
    "  bytes INTEGER NOT NULL,      -- 'Bytes': > 0 allocated, < 0 freed\n"
    "  total_allocated INTEGER,     -- 'Total Allocated' after it (rocpd: live bytes)\n"
    "  total_reserved INTEGER,      -- 'Total Reserved' after it (rocpd: NULL)\n"
    "  pid INTEGER, tid INTEGER,\n"
    "  op_id INTEGER,               -- cpu_op.id: the innermost aten op open on its thread\n"
    "                               -- at ts_ns (latest start, then earliest end); NULL none\n"
    "  source TEXT NOT NULL,        -- 'kineto' | 'rocpd'\n"
    "  event INTEGER,               -- its event number in the file (rocpd: mem_alloc rowid)\n"
    "  device_type INTEGER,         -- 'Device Type' as written (0 CPU, 1 CUDA/HIP)\n"
    "  module TEXT                  -- the 'nn.Module: X' python frames open on its thread at\n"
    "                               -- ts_ns, outermost first, joined by '/'; NULL none\n"
    ");\n"
    "CREATE TABLE agent(\n"
    "  file_id INTEGER NOT NULL,\n"
    "  node_id INTEGER, type TEXT, name TEXT, product_name TEXT,\n"
    "  cu_count INTEGER, wave_size INTEGER, gfx_version TEXT\n"
    ");\n"
    /* rocprof-compute (load_compute.c): the machine of a workload (sysinfo.csv, or the
     * analysis database's sys_info), its measured peaks (roofline.csv, or the database's
     * roofline benchmark) by rocprof-compute's own names, and per kernel of an analysis
     * database its metric values and its point on the roofline. */
    /* the profiled process's command line (rocpd rocpd_info_process): the run's description */
    "CREATE TABLE process_info(\n"
    "  file_id INTEGER NOT NULL, pid INTEGER, command TEXT\n"
    ");\n"
    "CREATE TABLE device_info(\n"
    "  file_id INTEGER NOT NULL,\n"
    "  model TEXT, arch TEXT, series TEXT,  -- gpu_model 'MI308X', gpu_arch 'gfx942'\n"
    "  cus INTEGER, sclk_mhz REAL, mclk_mhz REAL,  -- cu_per_gpu, max_sclk, max_mclk\n"
    "  memory_kb INTEGER, l2_kb INTEGER, hbm_gbps REAL,  -- gpu_memory, gpu_l2, hbm_bw\n"
    "  rocm TEXT, workload TEXT, command TEXT\n"
    ");\n"
    "CREATE TABLE measured_peak(\n"
    "  file_id INTEGER NOT NULL,\n"
    "  device INTEGER,               -- roofline.csv 'device' (GPU index); NULL: the workload's\n"
    "  metric TEXT NOT NULL,         -- 'HBMBw', 'L2Bw', 'FP32Flops', 'MFMAF16Flops', ...\n"
    "  value REAL NOT NULL, low REAL, high REAL,\n"
    "  unit TEXT NOT NULL            -- 'GB/s' (…Bw) or 'GFLOP/s' (…Flops, …Ops)\n"
    ");\n"
    "CREATE TABLE compute_metric(\n"
    "  kernel_id INTEGER NOT NULL REFERENCES kernel(id),\n"
    "  file_id INTEGER NOT NULL,\n"
    "  metric_id TEXT,               -- '2.1.11'\n"
    "  table_name TEXT, sub_table TEXT,  -- 'System Speed-of-Light'\n"
    "  name TEXT NOT NULL, value_name TEXT,  -- 'VALU Utilization', 'Avg'\n"
    "  value REAL, unit TEXT\n"
    ");\n"
    "CREATE INDEX compute_metric_kernel ON compute_metric(kernel_id);\n"
    "CREATE TABLE compute_roofline(\n"
    "  kernel_id INTEGER NOT NULL REFERENCES kernel(id),\n"
    "  file_id INTEGER NOT NULL,\n"
    "  gflops REAL,                  -- total_flops: achieved GFLOP/s\n"
    "  ai_l1 REAL, ai_l2 REAL, ai_hbm REAL  -- FLOP per byte at each level\n"
    ");\n"
    /* the categories of the active rule set, in display order */
    "CREATE TABLE category(\n"
    "  name TEXT PRIMARY KEY,\n"
    "  is_gemm INTEGER NOT NULL,    -- 1 if in the GEMM group (with --gemm-like: conv, attention too)\n"
    "  ord INTEGER NOT NULL\n"
    ");\n"
    /* Call source: stacks (load_stacks.c) and ranges (load_ranges.c), drawn as trees by
     * stacks.c. A stack is a path in a prefix tree of frames, outermost first. */
    "CREATE TABLE frame(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  name TEXT NOT NULL UNIQUE,   -- 'main at app.cpp:42', 'hipLaunchKernel from libamdhip64.so.6',\n"
    "                               -- 'gen.py(64):_forward' (arguments dropped, sanitized)\n"
    "  lib INTEGER NOT NULL DEFAULT 0  -- 1: runtime/library frame, hidden by folding\n"
    ");\n"
    "CREATE TABLE stack_node(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  parent INTEGER REFERENCES stack_node(id),  -- the caller's node; NULL: outermost frame\n"
    "  frame_id INTEGER NOT NULL REFERENCES frame(id),\n"
    "  depth INTEGER NOT NULL       -- 0 for an outermost frame\n"
    ");\n"
    /* one stack as read (a dump block, a CSV row, a folded line) and what it was attached to */
    "CREATE TABLE kernel_stack(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  file_id INTEGER NOT NULL REFERENCES source_file(id),\n"
    "  line INTEGER,                -- 1-based line where the stack starts\n"
    "  stack_id INTEGER REFERENCES stack_node(id),  -- node of the innermost frame; NULL: none\n"
    "  form TEXT NOT NULL,          -- 'gdb', 'backtrace', 'csv', 'folded'\n"
    "  kernel_name TEXT,            -- kernel named by the dump (sanitized), NULL if none\n"
    "  seq INTEGER,                 -- launch index given by the dump (matches dispatch.seq)\n"
    "  corr_id INTEGER,             -- correlation id given by the dump (dispatch.corr_id)\n"
    "  value_ns INTEGER,            -- folded stacks: VALUE (microseconds) * 1000\n"
    /* set after every file is loaded (LoadStacks_finish) */
    "  kernel_id INTEGER REFERENCES kernel(id),\n"
    "  dispatch_id INTEGER REFERENCES dispatch(id),  -- the launch, when matched exactly\n"
    "  match TEXT,                  -- how: 'index', 'correlation' (one dispatch), 'name'\n"
    "                               -- (a share of the kernel's time), 'value' (folded),\n"
    "                               -- 'none' (no kernel found: no time)\n"
    "  calls INTEGER NOT NULL DEFAULT 0,   -- launches this stack stands for\n"
    "  time_ns INTEGER NOT NULL DEFAULT 0  -- kernel time attributed to it\n"
    ");\n"
    /* roctx/hiptx ranges as intervals with their nesting: rocprofv3 marker rows as they are,
     * rocprofv2 push/pop events paired (range.event = 'event') */
    "CREATE TABLE range_span(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  file_id INTEGER NOT NULL REFERENCES source_file(id),\n"
    "  name TEXT NOT NULL,\n"
    "  pid INTEGER, tid INTEGER,    -- tid NULL: process-wide (rocprofv2 roctx has no thread)\n"
    "  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,  -- [start, end)\n"
    "  parent_id INTEGER REFERENCES range_span(id),  -- enclosing range on the same thread\n"
    "  depth INTEGER NOT NULL       -- 0 for an outermost range\n"
    ");\n"
    /* the innermost range open on the launching thread when each dispatch was launched */
    "CREATE TABLE dispatch_range(\n"
    "  dispatch_id INTEGER PRIMARY KEY REFERENCES dispatch(id),\n"
    "  range_id INTEGER REFERENCES range_span(id),  -- NULL: outside every range\n"
    "  launch_ns INTEGER,           -- host launch time used (NULL: none known)\n"
    "  how TEXT NOT NULL            -- 'correlation' (time and thread of the API call with the\n"
    "                               -- dispatch's corr_id), 'time' (the dispatch's own start\n"
    "                               -- and thread), 'none' (no launch time)\n"
    ");\n"
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);\n"
    /* plain timing taken without a profiler (layer 'steps', load_steps.c): the end-to-end
     * layer an optimization's verdict rests on (PRODUCT.md 2) */
    "CREATE TABLE step_time(\n"
    "  file_id INTEGER NOT NULL REFERENCES source_file(id),\n"
    "  idx INTEGER NOT NULL,        -- 0-based position in the file\n"
    "  ms REAL NOT NULL             -- one step, milliseconds\n"
    ");\n"
    /* device-state logs beside a trace (load_smi.c): nvidia-smi --query-gpu CSV and dmon,
     * rocm-smi / hy-smi (CSV, JSON, text), amd-smi metric (CSV, JSON); one row a sample of
     * one device. wall_ns: UTC ns since the epoch (NULL: the log has no time); ts_ns: on the
     * clock of the trace beside it (NULL: not aligned; device_log says why). */
    "CREATE TABLE device_sample(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  file_id INTEGER NOT NULL REFERENCES source_file(id),\n"
    "  line INTEGER,                -- 1-based line of the sample in its file\n"
    "  device INTEGER, device_name TEXT,\n"
    "  wall_ns INTEGER, ts_ns INTEGER,\n"
    "  sm_clock_mhz REAL, mem_clock_mhz REAL, max_sm_clock_mhz REAL,\n"
    "  util_pct REAL, mem_util_pct REAL,\n"
    "  mem_used_bytes INTEGER, mem_total_bytes INTEGER,\n"
    "  power_w REAL, power_cap_w REAL, temp_c REAL,\n"
    "  throttle TEXT,               -- active reasons as the tool names them; '' none,\n"
    "                               -- NULL when the log does not say\n"
    "  driver TEXT\n"
    ");\n"
    /* one row per device-state file: its tool, how its times read, and its alignment */
    "CREATE TABLE device_log(\n"
    "  file_id INTEGER PRIMARY KEY REFERENCES source_file(id),\n"
    "  tool TEXT NOT NULL,          -- 'nvidia-smi', 'nvidia-smi dmon', 'rocm-smi', ...\n"
    "  clock TEXT NOT NULL,         -- 'UTC', 'local time (TZ=...)', 'none'\n"
    "  anchor_file INTEGER,         -- the trace whose wall anchor gave ts_ns, NULL: none\n"
    "  align TEXT NOT NULL DEFAULT 'unaligned'  -- 'aligned' or 'unaligned: <why>'\n"
    ");\n"
    /* a trace's own wall clock: UTC epoch ns = base_ns + its ts_ns (Kineto
     * baseTimeNanoseconds) */
    "CREATE TABLE wall_anchor(file_id INTEGER PRIMARY KEY, base_ns INTEGER NOT NULL);\n"
    /* per file and kernel, the sums of its dispatches taken while loading (dispatch_agg.h) */
    "CREATE TABLE dispatch_agg(\n"
    "  file_id INTEGER NOT NULL, kernel_id INTEGER NOT NULL, calls INTEGER NOT NULL,\n"
    "  total_ns REAL NOT NULL,      -- total(dur_ns): a double, as SQLite sums it\n"
    "  min_ns INTEGER, max_ns INTEGER, sumsq REAL,\n"
    "  min_start INTEGER            -- earliest start_ns (NULL: none has one)\n"
    ");\n"
    /* per file, the rowid range its dispatches lie in (a file's rows are inserted together,
     * dispatch_agg.h): a reader of one file or run seeks there (DISPATCH_OF_FILE) instead of
     * scanning every rank's rows, so a job's ranks are read one after another (issue 15) */
    "CREATE TABLE dispatch_span(\n"
    "  file_id INTEGER PRIMARY KEY, lo_id INTEGER NOT NULL, hi_id INTEGER NOT NULL,\n"
    "  n INTEGER NOT NULL           -- rows of the file in the range (all of them: a test checks)\n"
    ");\n"
    /* kernel_summary_v materialized once after loading (Loader_run): every screen reads it */
    "CREATE TABLE kernel_summary(\n"
    "  kernel_id INTEGER PRIMARY KEY REFERENCES kernel(id),\n"
    "  calls INTEGER, total_ns INTEGER, min_ns INTEGER, max_ns INTEGER,\n"
    "  sumsq REAL,                  -- sum of squared durations (per-dispatch rows only)\n"
    "  has_sq INTEGER,              -- dispatches counted in sumsq\n"
    "  per_dispatch INTEGER,        -- 1 if any per-dispatch row fed this kernel\n"
    /* variability inside one run (variab.h), set by Variab_compute; NULL: no dispatches */
    "  golden_ns INTEGER,           -- shortest non-outlier (|z| <= 3) dispatch of a run\n"
    "  var_ns INTEGER,              -- sum of max(0, dur - golden) over its dispatches\n"
    "  outliers INTEGER             -- dispatches with |z| > 3 in their run\n"
    ");\n"
    /* the same per run (variab.h): one row per kernel and per-dispatch file in use */
    "CREATE TABLE kernel_var_run(\n"
    "  kernel_id INTEGER NOT NULL REFERENCES kernel(id),\n"
    "  file_id INTEGER NOT NULL REFERENCES source_file(id),  -- the run's dispatch file\n"
    "  dispatches INTEGER NOT NULL,\n"
    "  total_ns INTEGER NOT NULL,   -- summed durations\n"
    "  golden_ns INTEGER NOT NULL, var_ns INTEGER NOT NULL, outliers INTEGER NOT NULL,\n"
    "  PRIMARY KEY(kernel_id, file_id)\n"
    ");\n"
    /* the same per launch shape (grid, workgroup; NULL when not recorded), all runs summed:
     * each shape has its own golden, so mixed shapes are not taken for variability */
    "CREATE TABLE kernel_var_shape(\n"
    "  kernel_id INTEGER NOT NULL REFERENCES kernel(id),\n"
    "  grid INTEGER, workgroup INTEGER,\n"
    "  dispatches INTEGER NOT NULL, total_ns INTEGER NOT NULL,\n"
    "  golden_ns INTEGER NOT NULL, var_ns INTEGER NOT NULL, outliers INTEGER NOT NULL\n"
    ");\n"
    "CREATE INDEX kernel_var_shape_kernel ON kernel_var_shape(kernel_id);\n"
    /* Files whose rows count, per layer: used, and in a run of the scope. Complementary
     * runs combine by layer (README "Runs"): when a run of the scope that is not a PMC run
     * gives the kernel layer, PMC runs give their counters (layer 'counter') but not their
     * distorted kernel times. Counters of the scope's PMC files are always layer 'counter'. */
    "CREATE VIEW used_file(file_id, layer) AS\n"
    "  SELECT l.file_id, l.layer FROM source_layer l JOIN source_file f ON f.id = l.file_id\n"
    "  JOIN run r ON r.id = f.run_id\n"
    "  WHERE l.used AND f.run_id IN (SELECT run_id FROM run_scope)\n"
    "    AND NOT (l.layer = 'kernel' AND r.mode = 'pmc' AND EXISTS (SELECT 1 FROM run r2\n"
    "      JOIN run_scope s ON s.run_id = r2.id\n"
    "      WHERE r2.mode <> 'pmc' AND ',' || r2.layers || ',' LIKE '%,kernel,%'))\n"
    "  UNION ALL\n"
    "  SELECT l.file_id, 'counter' FROM source_layer l JOIN source_file f ON f.id = l.file_id\n"
    "  WHERE l.layer = 'kernel' AND l.used AND f.pmc\n"
    "    AND f.run_id IN (SELECT run_id FROM run_scope);\n"
    /* One row per kernel: per-dispatch data and aggregates from used files combined.
     * Sums go through total() and saturate at INT64_MAX: SQLite's sum() raises "integer
     * overflow", which would fail Loader_run and roll back the whole load. */
    "CREATE VIEW kernel_summary_v AS\n"
    "  SELECT kernel_id, CAST(total(calls) AS INTEGER) AS calls,\n"
    "         CAST(total(total_ns) AS INTEGER) AS total_ns,\n"
    "         min(min_ns) AS min_ns, max(max_ns) AS max_ns,\n"
    "         sum(sumsq) AS sumsq, CAST(total(has_sq) AS INTEGER) AS has_sq,\n"
    "         max(per_dispatch) AS per_dispatch\n"
    "  FROM (\n"
    "    SELECT kernel_id, count(*) AS calls, CAST(total(dur_ns) AS INTEGER) AS total_ns,\n"
    "           min(dur_ns) AS min_ns,\n"
    "           max(dur_ns) AS max_ns, sum(CAST(dur_ns AS REAL) * dur_ns) AS sumsq,\n"
    "           count(*) AS has_sq, 1 AS per_dispatch\n"
    "    FROM dispatch WHERE file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')\n"
    "    GROUP BY kernel_id\n"
    "    UNION ALL\n"
    /* stats files with a StdDev column (rocprofv3) give back their sum of squares */
    "    SELECT kernel_id, calls, total_ns, min_ns, max_ns,\n"
    "           CASE WHEN stddev_ns IS NOT NULL AND calls > 0 THEN calls * (stddev_ns * stddev_ns\n"
    "             + (total_ns * 1.0 / calls) * (total_ns * 1.0 / calls)) END,\n"
    "           CASE WHEN stddev_ns IS NOT NULL THEN calls ELSE 0 END, 0\n"
    "    FROM kernel_stat WHERE file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')\n"
    "  ) GROUP BY kernel_id;\n"
    /* The same from the per-file sums taken while loading (dispatch_agg.h): no sort of every
     * dispatch. kernel_summary_v stays for a region of interest, whose temp views cut the
     * dispatch table itself. */
    "CREATE VIEW kernel_summary_agg_v AS\n"
    "  SELECT kernel_id, CAST(total(calls) AS INTEGER) AS calls,\n"
    "         CAST(total(total_ns) AS INTEGER) AS total_ns,\n"
    "         min(min_ns) AS min_ns, max(max_ns) AS max_ns,\n"
    "         sum(sumsq) AS sumsq, CAST(total(has_sq) AS INTEGER) AS has_sq,\n"
    "         max(per_dispatch) AS per_dispatch\n"
    "  FROM (\n"
    "    SELECT kernel_id, sum(calls) AS calls, CAST(total(total_ns) AS INTEGER) AS total_ns,\n"
    "           min(min_ns) AS min_ns, max(max_ns) AS max_ns, sum(sumsq) AS sumsq,\n"
    "           sum(calls) AS has_sq, 1 AS per_dispatch\n"
    "    FROM dispatch_agg\n"
    "    WHERE file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')\n"
    "    GROUP BY kernel_id\n"
    "    UNION ALL\n"
    "    SELECT kernel_id, calls, total_ns, min_ns, max_ns,\n"
    "           CASE WHEN stddev_ns IS NOT NULL AND calls > 0 THEN calls * (stddev_ns * stddev_ns\n"
    "             + (total_ns * 1.0 / calls) * (total_ns * 1.0 / calls)) END,\n"
    "           CASE WHEN stddev_ns IS NOT NULL THEN calls ELSE 0 END, 0\n"
    "    FROM kernel_stat WHERE file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')\n"
    "  ) GROUP BY kernel_id;\n"
    /* the command line of each run's process, where a file gave one (rocpd's process table;
     * a rocprof-compute sysinfo.csv): one row per file's entry (runs.c) */
    "CREATE VIEW run_command(run_id, command) AS\n"
    "  SELECT f.run_id, p.command FROM process_info p JOIN source_file f ON f.id = p.file_id\n"
    "  UNION ALL\n"
    "  SELECT f.run_id, d.command FROM device_info d JOIN source_file f ON f.id = d.file_id\n"
    "  WHERE d.command <> '';\n"
    "CREATE VIEW api_summary_v AS\n"
    "  SELECT domain, name, CAST(total(calls) AS INTEGER) AS calls,\n"
    "         CAST(total(total_ns) AS INTEGER) AS total_ns,\n"
    "         min(min_ns) AS min_ns, max(max_ns) AS max_ns, max(per_call) AS per_call\n"
    "  FROM (\n"
    "    SELECT domain, name, count(*) AS calls, CAST(total(dur_ns) AS INTEGER) AS total_ns,\n"
    "           min(dur_ns) AS min_ns,\n"
    "           max(dur_ns) AS max_ns, 1 AS per_call\n"
    "    FROM api_call WHERE file_id IN (SELECT file_id FROM used_file WHERE layer = 'api')\n"
    "    GROUP BY domain, name\n"
    "    UNION ALL\n"
    "    SELECT domain, name, calls, total_ns, min_ns, max_ns, 0\n"
    "    FROM api_stat WHERE file_id IN (SELECT file_id FROM used_file WHERE layer = 'api')\n"
    "  ) GROUP BY domain, name;\n"
    "CREATE VIEW copy_summary_v AS\n"
    "  SELECT name, CAST(total(calls) AS INTEGER) AS calls, CAST(sum(CAST(bytes AS REAL)) AS INTEGER) AS bytes,\n"
    "         CAST(total(total_ns) AS INTEGER) AS total_ns,\n"
    "         min(min_ns) AS min_ns, max(max_ns) AS max_ns, max(per_copy) AS per_copy\n"
    "  FROM (\n"
    "    SELECT name, count(*) AS calls, CAST(sum(CAST(bytes AS REAL)) AS INTEGER) AS bytes,\n"
    "           CAST(total(dur_ns) AS INTEGER) AS total_ns,\n"
    "           min(dur_ns) AS min_ns, max(dur_ns) AS max_ns, 1 AS per_copy\n"
    "    FROM copy WHERE file_id IN (SELECT file_id FROM used_file WHERE layer = 'copy')\n"
    "    GROUP BY name\n"
    "    UNION ALL\n"
    "    SELECT name, calls, NULL, total_ns, min_ns, max_ns, 0\n"
    "    FROM copy_stat WHERE file_id IN (SELECT file_id FROM used_file WHERE layer = 'copy')\n"
    "  ) GROUP BY name;\n";

const char* TraceDb_schemaText(void) {
    return schema;
}

/* sqrt() is not in every SQLite build; the stddev queries need it. */
static void sql_sqrt(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
    (void)argc;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
        sqlite3_result_null(ctx);
        return;
    }
    double v = sqlite3_value_double(argv[0]);
    sqlite3_result_double(ctx, v > 0 ? sqrt(v) : 0.0);
}

/* Page cache, sorter and temp store within about `memory` bytes (TraceDb_open): the cache
 * gets half; a sort keeps up to the cache's size in memory before it writes sorted runs to
 * temp files (SQLite's vdbesort.c), and temp tables get a sixteenth. */
static DcuStatus set_memory(TraceDb* this, int64_t memory, DcuError* err) {
    if (memory == 0) {
        return TraceDb_exec(this, "PRAGMA temp_store = MEMORY;", err);
    }
    long long kib = (long long)(memory / 2048 > 512 ? memory / 2048 : 512);
    char* sql = xasprintf("PRAGMA temp_store = FILE; PRAGMA main.cache_size = -%lld;"
                          " PRAGMA temp.cache_size = -%lld;",
                          kib, kib / 8 > 512 ? kib / 8 : 512);
    DcuStatus s = TraceDb_exec(this, sql, err);
    free(sql);
    return s;
}

DcuStatus TraceDb_open(TraceDb** out, int64_t memory, DcuError* err) {
    *out = NULL;
    sqlite3* db = NULL;
    /* NOMUTEX: one thread owns the connection (the CSV reader thread only parses), and the
     * serialized mode's lock per call was 6% of a 1M-dispatch report (issue 11) */
    if (sqlite3_open_v2(memory ? "" : ":memory:", &db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        DcuStatus s = Error_set(err, DCU_ERR_SQL, "cannot open the trace database: %s",
                                db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return s;
    }
    TraceDb* this = xcalloc(1, sizeof(*this));
    this->db = db;
    this->memory = memory;
    /* the dispatch rows take the half of the bound that SQLite's page cache used to spend
     * on them (set_memory) */
    this->store = DispatchStore_new(memory / 2, TraceDb_tempDir());
    const char* prof = getenv("DCUTOP_SQL_PROFILE");
    if (prof && *prof && strcmp(prof, "0") != 0) {
        sqlite3_trace_v2(db, SQLITE_TRACE_PROFILE, on_profile, this);
    }
    DcuStatus s = TraceDb_exec(this, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;", err);
    if (s == DCU_OK) {
        s = set_memory(this, memory, err);
    }
    if (s == DCU_OK) {
        s = DispatchStore_register(this->store, db, err);
    }
    if (s == DCU_OK) {
        s = TraceDb_exec(this, schema, err);
    }
    if (s == DCU_OK) {
        s = Filter_registerSql(db, err);
    }
    if (s == DCU_OK &&
        sqlite3_create_function(db, "dcu_sqrt", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                sql_sqrt, NULL, NULL) != SQLITE_OK) {
        s = Error_set(err, DCU_ERR_SQL, "cannot register dcu_sqrt: %s", sqlite3_errmsg(db));
    }
    if (s != DCU_OK) {
        TraceDb_delete(this);
        return s;
    }
    *out = this;
    return DCU_OK;
}

void TraceDb_delete(TraceDb* this) {
    if (!this) {
        return;
    }
    for (int i = 0; i < TRACEDB_CACHE_SLOTS; i++) {
        if (this->cache[i].value && this->cache[i].release) {
            this->cache[i].release(this->cache[i].value);
        }
    }
    for (int i = 0; i < this->nstmts; i++) {
        sqlite3_finalize(this->stmts[i].st);
        free(this->stmts[i].sql);
    }
    sqlite3_close(this->db);
    DispatchStore_delete(this->store);
    profile_report(this);
    free(this);
}

TraceDbState TraceDb_state(TraceDb* this) {
    /* rows appended to the dispatch store are changes too (no SQL INSERT counts them) */
    TraceDbState st = {sqlite3_total_changes64(this->db) + DispatchStore_count(this->store), 0,
                       0};
    st.main_schema = TraceDb_scalarInt(this, "PRAGMA main.schema_version");
    st.temp_schema = TraceDb_scalarInt(this, "PRAGMA temp.schema_version");
    return st;
}

void* TraceDb_cached(TraceDb* this, int slot, TraceDbState state) {
    if (slot < 0 || slot >= TRACEDB_CACHE_SLOTS) {
        return NULL;
    }
    const TraceDbState* c = &this->cache[slot].state;
    return c->changes == state.changes && c->main_schema == state.main_schema &&
                   c->temp_schema == state.temp_schema
               ? this->cache[slot].value
               : NULL;
}

void TraceDb_keepCached(TraceDb* this, TraceDbState before, TraceDbState after) {
    for (int i = 0; i < TRACEDB_CACHE_SLOTS; i++) {
        if (this->cache[i].value && TraceDb_cached(this, i, before)) {
            this->cache[i].state = after;
        }
    }
}

void TraceDb_setCached(TraceDb* this, int slot, TraceDbState state, void* value,
                       void (*release)(void*)) {
    if (slot < 0 || slot >= TRACEDB_CACHE_SLOTS) {
        if (value && release) {
            release(value);
        }
        return;
    }
    if (this->cache[slot].value && this->cache[slot].release) {
        this->cache[slot].release(this->cache[slot].value);
    }
    this->cache[slot].value = value;
    this->cache[slot].release = release;
    this->cache[slot].state = state;
}

static int on_profile(unsigned type, void* ctx, void* p, void* x) {
    TraceDb* this = ctx;
    if (type != SQLITE_TRACE_PROFILE) {
        return 0;
    }
    const char* sql = sqlite3_sql((sqlite3_stmt*)p);
    sql = sql ? sql : "?";
    int i = 0;
    while (i < this->nprof && strcmp(this->prof[i].sql, sql) != 0) {
        i++;
    }
    if (i == this->nprof) {
        if (this->nprof == this->capprof) {
            this->capprof = this->capprof ? 2 * this->capprof : 64;
            this->prof = xrealloc(this->prof, sizeof(SqlProf) * (size_t)this->capprof);
        }
        this->prof[this->nprof++] = (SqlProf){xstrdup(sql), 0, 0};
    }
    this->prof[i].ns += (int64_t)*(sqlite3_uint64*)x;
    this->prof[i].runs++;
    return 0;
}

static int by_time(const void* a, const void* b) {
    const SqlProf *x = a, *y = b;
    return (x->ns < y->ns) - (x->ns > y->ns);
}

static void profile_report(struct TraceDb_* this) {
    if (!this->prof) {
        return;
    }
    qsort(this->prof, (size_t)this->nprof, sizeof(SqlProf), by_time);
    fprintf(stderr, "dcutop: SQL profile, slowest statements (ms, runs, SQL):\n");
    for (int i = 0; i < this->nprof; i++) {
        if (i < 25) {
            fprintf(stderr, "%10.1f %8lld  %.160s\n", (double)this->prof[i].ns / 1e6,
                    (long long)this->prof[i].runs, this->prof[i].sql);
        }
        free(this->prof[i].sql);
    }
    free(this->prof);
    this->prof = NULL;
}

const char* TraceDb_tempDir(void) {
    const char* dirs[] = {getenv("SQLITE_TMPDIR"), getenv("TMPDIR"), "/var/tmp", "/usr/tmp",
                          "/tmp"};
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        struct stat sb;
        if (dirs[i] && *dirs[i] && stat(dirs[i], &sb) == 0 && S_ISDIR(sb.st_mode) &&
            access(dirs[i], W_OK | X_OK) == 0) {
            return dirs[i];
        }
    }
    return ".";
}

int64_t TraceDb_memory(const TraceDb* this) {
    return this->memory;
}

sqlite3* TraceDb_handle(const TraceDb* this) {
    return this->db;
}

DcuStatus TraceDb_exec(TraceDb* this, const char* sql, DcuError* err) {
    char* msg = NULL;
    if (sqlite3_exec(this->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        DcuStatus s = Error_set(err, DCU_ERR_SQL, "SQL error: %s", msg ? msg : "?");
        sqlite3_free(msg);
        return s;
    }
    return DCU_OK;
}

DcuStatus TraceDb_prepare(TraceDb* this, const char* sql, sqlite3_stmt** st, DcuError* err) {
    if (sqlite3_prepare_v2(this->db, sql, -1, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return Error_set(err, DCU_ERR_SQL, "SQL error: %s", sqlite3_errmsg(this->db));
    }
    return DCU_OK;
}

DcuStatus TraceDb_prepareCached(TraceDb* this, const char* sql, sqlite3_stmt** st,
                                DcuError* err) {
    for (int i = 0; i < this->nstmts; i++) {
        if (strcmp(this->stmts[i].sql, sql) == 0) {
            sqlite3_reset(this->stmts[i].st);
            sqlite3_clear_bindings(this->stmts[i].st);
            *st = this->stmts[i].st;
            return DCU_OK;
        }
    }
    DcuStatus s = TraceDb_prepare(this, sql, st, err);
    if (s == DCU_OK && this->nstmts < TRACEDB_STMT_SLOTS) { /* full: an ordinary statement */
        this->stmts[this->nstmts].sql = xstrdup(sql);
        this->stmts[this->nstmts++].st = *st;
    }
    return s;
}

void TraceDb_release(TraceDb* this, sqlite3_stmt* st) {
    for (int i = 0; st && i < this->nstmts; i++) {
        if (this->stmts[i].st == st) {
            sqlite3_reset(st);
            return;
        }
    }
    sqlite3_finalize(st);
}

int64_t TraceDb_scalarInt(TraceDb* this, const char* sql) {
    sqlite3_stmt* st = NULL;
    int64_t v = 0;
    if (sqlite3_prepare_v2(this->db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        v = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

double TraceDb_scalarReal(TraceDb* this, const char* sql) {
    sqlite3_stmt* st = NULL;
    double v = 0;
    if (sqlite3_prepare_v2(this->db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        v = sqlite3_column_double(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

/* The copy's dispatch is the store's virtual table: it becomes a plain table with the rows
 * (read through the same module, registered on the copy's connection), so that the file
 * opens in any SQLite without dcutop, with the indexes the loader used to make. */
static DcuStatus save_dispatch(TraceDb* this, sqlite3* dst, const char* path, DcuError* err) {
    DcuStatus s = DispatchStore_register(this->store, dst, err);
    if (s != DCU_OK) {
        return s;
    }
    char* sql = xasprintf("BEGIN; CREATE VIRTUAL TABLE temp.dcu_dispatch_src USING dcu_dispatch;"
                          " DROP TABLE main.dispatch; %s"
                          " INSERT INTO main.dispatch SELECT * FROM temp.dcu_dispatch_src;"
                          " DROP TABLE temp.dcu_dispatch_src;"
                          " CREATE INDEX main.dispatch_seq ON dispatch(seq);"
                          " CREATE INDEX main.dispatch_corr ON dispatch(corr_id);"
                          " CREATE INDEX main.dispatch_kernel ON dispatch(kernel_id); COMMIT;",
                          dispatch_table);
    if (sqlite3_exec(dst, sql, NULL, NULL, NULL) != SQLITE_OK) {
        s = Error_set(err, DCU_ERR_IO, "%s: write failed: %s", path, sqlite3_errmsg(dst));
    }
    free(sql);
    return s;
}

DispatchStore* TraceDb_dispatchStore(TraceDb* this) {
    return this->store;
}

DcuStatus TraceDb_save(TraceDb* this, const char* path, int force, DcuError* err) {
    OutFile of;
    DcuStatus s = OutFile_open(&of, path, OUT_SEEKABLE | (force ? OUT_FORCE_ALL : 0), err);
    if (s != DCU_OK) {
        return s;
    }
    /* SQLite writes our fresh, empty temp file (an empty file is an empty database) */
    sqlite3* dst = NULL;
    if (sqlite3_open_v2(OutFile_tempPath(&of), &dst, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        s = Error_set(err, DCU_ERR_IO, "%s: cannot create: %s", path,
                      dst ? sqlite3_errmsg(dst) : "out of memory");
        goto done;
    }
    /* a fresh file of ours: no journal beside it, which a signal could leave behind */
    sqlite3_exec(dst, "PRAGMA journal_mode=OFF", NULL, NULL, NULL);
    sqlite3_backup* b = sqlite3_backup_init(dst, "main", this->db, "main");
    if (!b) {
        s = Error_set(err, DCU_ERR_SQL, "%s: backup failed: %s", path, sqlite3_errmsg(dst));
        goto done;
    }
    sqlite3_backup_step(b, -1);
    if (sqlite3_backup_finish(b) != SQLITE_OK) {
        s = Error_set(err, DCU_ERR_IO, "%s: write failed: %s", path, sqlite3_errmsg(dst));
        goto done;
    }
    s = save_dispatch(this, dst, path, err);
done:
    if (dst && sqlite3_close(dst) != SQLITE_OK && s == DCU_OK) {
        s = Error_set(err, DCU_ERR_IO, "%s: close failed", path);
    }
    return OutFile_finish(&of, s, err);
}
