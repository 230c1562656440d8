#!/usr/bin/env python3
"""make-seeds.py - writes the seed corpora of tests/fuzz/corpus/ from the samples
(sample-traces/, tests/data/real/, the inline traces of tests/unit/).
Samples are cut to their first rows: a fuzzer mutates small inputs faster, and the
corpus stays small. Targets that pick a file name by the first byte (fuzz_common.h,
Fuzz_pickName) get that byte in front. Run from the repository root; the result was
then minimized with libFuzzer -merge=1 and committed. Dev tool, not part of make check."""
import gzip, json, os, re, sqlite3, sys, tempfile

REAL = "tests/data/real"
OUT = sys.argv[1] if len(sys.argv) > 1 else "tests/fuzz/corpus"


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def head(path, lines):
    with open(path, "rb") as f:
        return b"".join(f.readlines()[:lines])


def c_strings(path):
    """static const char NAME[] = "..." "..."; from a C test file (simple literals only)."""
    src = re.sub(r"/\*.*?\*/", "", open(path).read(), flags=re.S)
    out = {}
    for m in re.finditer(r'static const char (\w+)\[\] =((?:\s*"(?:[^"\\]|\\.)*")+)\s*;', src):
        parts = re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2))
        out[m.group(1)] = "".join(bytes(p, "utf-8").decode("unicode_escape") for p in parts)
    return out


def pick(i, data):
    return bytes([i]) + (data if isinstance(data, bytes) else data.encode())


ST = "sample-traces"
# hipprof: 0 kernel, 1 hipkernel, 2 hiptrace, 3 hsatrace
w = f"{ST}/dcu-weather-transformer"
for n in (3, 30):
    put("hipprof", f"hipkernel-{n}", pick(1, head(f"{w}/weather.hipkernel.csv", n)))
    put("hipprof", f"kernel-{n}", pick(0, head(f"{w}/weather.hipkernel.csv", n)))
put("hipprof", "hiptrace", pick(2, head(f"{w}/weather.hiptrace.csv", 40)))
put("hipprof", "hsatrace", pick(3, head(f"{w}/weather.hiptrace.csv", 10)))
db = c_strings("tests/unit/test_load_db.c")
put("hipprof", "hiptrace-unit", pick(2, db["hiptrace_csv"]))

# rocprof v1 results.csv
for n in (2, 5, 40):
    put("rocprof_v1", f"weather-{n}", head(f"{w}/results.csv", n))
    put("rocprof_v1", f"llamacpp-{n}", head(f"{ST}/llamacpp-rocprof-v1-stats/results.csv", n))
stk = c_strings("tests/unit/test_stacks.c")

# rocprof stats: 0 stats, 1 hip_stats, 2 hsa_stats, 3 copy_stats
k = f"{ST}/kokkos-rocprof-v1-hiptrace-rocm4"
put("rocprof_stats", "kokkos-stats", pick(0, head(f"{k}/results.stats.csv", 20)))
put("rocprof_stats", "kokkos-hip", pick(1, head(f"{k}/results.hip_stats.csv", 20)))
put("rocprof_stats", "kokkos-hsa", pick(2, head(f"{k}/results.hip_stats.csv", 8)))
put("rocprof_stats", "kokkos-copy", pick(3, head(f"{k}/results.copy_stats.csv", 20)))
put("rocprof_stats", "llamacpp-stats", pick(0, head(f"{ST}/llamacpp-rocprof-v1-stats/results.stats.csv", 25)))
q = c_strings("tests/unit/test_query.c")
put("rocprof_stats", "unit-stats", pick(0, q["stats"]))

# rocprofv2: 0 results, 1 hip_api_trace, 2 hcc_ops_trace, 3 hsa_api_trace, 4 async_copy, 5 roctx
v2k = ("Dispatch_ID,GPU_ID,Queue_ID,PID,TID,Grid_Size,Workgroup_Size,LDS_Per_Workgroup,"
       "Scratch_Per_Workitem,Arch_VGPR,Accum_VGPR,SGPR,Wave_Size,Kernel_Name,Start_Timestamp,"
       "End_Timestamp,Correlation_ID\n\n")
put("rocprofv2", "results", pick(0, v2k +
    '1,0,0,4242,4243,1024,256,0,0,32,0,16,64,"gemm_kernel(float*, int)",1000,2000,1\n'
    '2,0,0,4242,4243,4096,256,512,0,64,4,32,64,"void softmax<float>(float*)",2100,2600,2\n'))
put("rocprofv2", "hip_api", pick(1, "Domain,Function,Start_Timestamp,End_Timestamp,Correlation_ID\n\n"
    "HIP_API_DOMAIN,hipMalloc,100,900,1\nHIP_API_DOMAIN,hipLaunchKernel,950,990,2\n"))
put("rocprofv2", "hcc_ops", pick(2, "Domain,Operation,Kernel_Name,Start_Timestamp,Stop_Timestamp,Correlation_ID\n\n"
    'HIP_OPS_DOMAIN,KernelExecution,"gemm_kernel",1000,2000,2\nHIP_OPS_DOMAIN,CopyHostToDevice,,2100,2200,3\n'))
put("rocprofv2", "hsa_api", pick(3, "Domain,Function,Start_Timestamp,End_Timestamp,Correlation_ID\n\n"
    "HSA_API_DOMAIN,hsa_queue_create,10,20,5\n"))
put("rocprofv2", "async_copy", pick(4, "Domain,Operation,Start_Timestamp,Stop_Timestamp,Correlation_ID\n\n"
    "HSA_OPS_DOMAIN,COPY,3000,3400,7\n"))
put("rocprofv2", "roctx", pick(5, "Domain,ROCTX_ID,Message,Timestamp\n\n"
    'ROCTX_DOMAIN,1,"forward",100\nROCTX_DOMAIN,1,"",900\n'))

# rocprofv3: index = position in fuzz_rocprofv3.c names
v3 = ["kernel_trace", "hip_api_trace", "hsa_api_trace", "marker_api_trace", "memory_copy_trace",
      "memory_allocation_trace", "scratch_memory_trace", "counter_collection", "agent_info",
      "kernel_stats", "hip_api_stats", "domain_stats", "memory_copy_stats", "kernel_names"]
sdk = f"{ST}/rocprofv3-sdk-docs-csv"
for f in sorted(os.listdir(sdk)):
    base = f[:-4]
    if f.endswith(".csv"):
        i = v3.index(base) if base in v3 else 1  # hip_runtime/compile traces: API layout
        put("rocprofv3", base, pick(i, head(f"{sdk}/{f}", 12)))

# call stacks: 0 kernel_stacks.txt, 1 backtrace.txt, 2 stacks.csv, 3 stack.log
put("stacks", "gdb", pick(0, stk["gdb_dump"]))
put("stacks", "backtrace", pick(1, stk["bt_dump"]))
put("stacks", "csv", pick(2, stk["csv_stacks"]))
put("stacks", "gdb-log", pick(3, stk["gdb_dump"].split("\n\n")[0]))

# folded stacks: 0 climate.stacks.txt, 1 .folded, 2 .collapsed
c = f"{ST}/pytorch-h200-climate-transformer"
put("folded", "infer", pick(0, head(f"{c}/climate_infer.stacks.txt", 6)))
put("folded", "train", pick(1, head(f"{c}/climate_train.stacks.txt", 3)))
put("folded", "small", pick(2, "main;train;step;gemm 120\nmain;train;step;softmax 30\nmain;io 5\n"))


def first_events(obj, n):
    o = dict(obj)
    o["traceEvents"] = obj["traceEvents"][:n]
    return json.dumps(o, separators=(",", ":"))


# chrome JSON (rocprof v1 results.json)
for src in (f"{REAL}/kokkos-rocprof-v1-hiptrace-rocm4/results.json",
            f"{REAL}/llamacpp-rocprof-v1-stats/results.json"):
    tag = src.split("/")[-2].split("-")[0]
    try:
        obj = json.load(open(src))
        put("json", f"{tag}-40", first_events(obj, 40))
        put("json", f"{tag}-5", first_events(obj, 5))
    except (OSError, ValueError) as e:
        print("skip", src, e, file=sys.stderr)

# Kineto, plain; kineto_gz gets the same as text (compressed by the target) and one real .gz
js = c_strings("tests/unit/test_load_json.c")
put("kineto", "unit", js["kineto"])
put("kineto_gz", "unit", js["kineto"])
for src in (f"{REAL}/pytorch-h200-climate-transformer/climate_infer.trace.json.gz",
            f"{REAL}/pytorch-kineto-mi300-qwen/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
            f"{REAL}/pytorch-h200-ddp-2rank/rank0.trace.json.gz"):
    tag = src.split("/")[-2].split("-")[-1]
    try:
        obj = json.load(gzip.open(src))
    except (OSError, ValueError) as e:
        print("skip", src, e, file=sys.stderr)
        continue
    put("kineto", f"{tag}-60", first_events(obj, 60))
    put("kineto_gz", f"{tag}-30.gz", gzip.compress(first_events(obj, 30).encode(), 6))
    put("kineto_gz", f"{tag}-10", first_events(obj, 10))


def small_db(src, rows):
    """The schema of src with the first rows of each table, in 512-byte pages."""
    fd, path = tempfile.mkstemp(suffix=".db")
    os.close(fd)
    os.unlink(path)
    s = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    d = sqlite3.connect(path)
    d.execute("PRAGMA page_size=512")
    objs = s.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL"
                     " AND name NOT LIKE 'sqlite_%' ORDER BY type = 'view', rowid").fetchall()
    for typ, name, sql in objs:
        if typ == "table":
            d.execute(sql)
            cur = s.execute(f'SELECT * FROM "{name}" LIMIT {rows}')
            n = len(cur.description)
            d.executemany(f'INSERT INTO "{name}" VALUES({",".join("?" * n)})', cur.fetchall())
    for typ, name, sql in objs:
        if typ in ("view", "index"):
            try:
                d.execute(sql)
            except sqlite3.Error:
                pass
    d.commit()
    d.execute("VACUUM")
    d.close()
    data = open(path, "rb").read()
    os.unlink(path)
    return data


for src, tag in ((f"{REAL}/kokkos-rocprof-v1-hiptrace-rocm4/results.db", "rocprof-v1"),
                 (f"{REAL}/llamacpp-rocprof-v1-stats/results.db", "llamacpp-v1"),
                 (f"{REAL}/llamacpp-rocprofv3-rocpd/32432_results.db", "rocpd"),
                 (f"{REAL}/rpd-matmul/matmul_result.rpd", "rpd")):
    try:
        put("sqlite", tag, small_db(src, 8))
    except (OSError, sqlite3.Error) as e:
        print("skip", src, e, file=sys.stderr)
# rocpd 4.1.0 (track_id, renamed columns): the rocpd sample migrated by tests/tools/rocpd3to4.py
def rocpd4_db():
    import subprocess
    fd, path = tempfile.mkstemp(suffix=".db")
    os.close(fd)
    os.unlink(path)
    subprocess.run([sys.executable, "tests/tools/rocpd3to4.py",
                    f"{REAL}/llamacpp-rocprofv3-rocpd/32432_results.db",
                    "tests/data/rocpd-4.1.0/schema.sql", path], check=True)
    data = small_db(path, 8)
    os.unlink(path)
    return data


put("sqlite", "rocpd-4.1.0", rocpd4_db())
hp = sqlite3.connect(":memory:")
fd, path = tempfile.mkstemp(suffix=".db")
os.close(fd)
os.unlink(path)
h = sqlite3.connect(path)
h.execute("PRAGMA page_size=512")
h.executescript(db["hipprof_sql"])
h.commit()
h.execute("VACUUM")
h.close()
put("sqlite", "hipprof", open(path, "rb").read())
os.unlink(path)

# rules, rc, keys
put("coll_ref", "gh200", open("tests/data/nccl-tests/all_reduce_perf-gh200-8ranks.txt").read())
put("coll_ref", "noroot", "#  size count type redop time algbw busbw #wrong time algbw busbw #wrong\n"
    "  1024  256  float  sum  22.14  0.05  0.08  0  22.01  0.05  0.08  0\n"
    "  2048  512  float  sum  24.00  0.09  0.15  0  23.36  0.09  0.15  0\n")
put("coll_ref", "mpi", "[1,0]<stdout>:# Collective test starting: all_gather_perf\n"
    "[1,0]<stdout>:host:21:21 [0] NCCL INFO Launch mode Parallel\n"
    "[1,0]<stdout>:     4096  512  float  none  -1  34.41  0.12  0.21  N/A  33.73  0.12  0.21  N/A\n")
put("rules", "builtin", open("src/model/names/default.rules").read())
put("rules", "small", "%gemm mygemm\nmygemm\t^my_gemm\nattention\t(?i)flash|sdpa\n# c\n\n")
put("rules", "replace", "%replace\nall\t.\n")

# demangle: real symbols (hipcc, g++ with _Float16 and std::bfloat16_t, PyTorch, llama.cpp)
# and the nested substitutions whose demangled text doubles with each level
def nested(levels):
    d = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    def b36(i):
        s = ""
        while True:
            s, i = d[i % 36] + s, i // 36
            if i == 0:
                return s
    return "_Z1f1A1BIS_S_E" + "".join("S0_IS%s_S%s_E" % (b36(i), b36(i)) for i in range(1, levels))


import hashlib
for sym in [b"\x40" + nested(12).encode(), nested(21).encode(), nested(26).encode(),
            b"_Z32paged_attention_ll4mi_QKV_kernelIDF16_DF16_Li16ELi128ELi256ELb0ELi8EEvPKT_PKT0_S5_ifPKiPS0_",
            b"_ZN7ck_tile6kentryILi256ELi1ENS_12Rmsnorm2dFwdILi128EDF16_EEJiDF16_EEEvDpT2_",
            b"_Z32paged_attention_ll4mi_QKV_kernelI14__hip_bfloat16S0_Li16ELi128ELi256ELb0ELi8EEvPKT_PKT0_S6_ifPKiPS1_",
            b"_ZN7sgl_hip10activation18act_and_mul_kernelIDF16bXadL_ZNS0_4siluIfEET_RKS3_EELb1EEEvPS3_PKS3_i",
            b"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
            b"_ZL16k_set_rows_quantIi10block_q4_0Li32ETnPFvPKfPT0_EXadL_ZL23quantize_f32_q4_0_blockS2_PS0_EEEvS2_PKT_S4_llllllllllllll15HIP_vector_typeIjLj3EESC_SC_",
            b"_Z6addoneIfEvPT_i", b'"_Z3fooi.kd"', b"_Z3fooi [clone .kd]"]:
    put("demangle", hashlib.sha1(sym).hexdigest(), sym)
put("rc", "binds", "# my keys\nbind generic <C-f> filter\nbind hotspots s sort-next\n"
    "bind stacks <Enter> expand\nbind generic <F6> sort-menu\nbind categories + what-if-up\n"
    "bind generic <Lt> none\n")
for f in sorted(os.listdir("tests/screens")):
    if f.endswith(".keys"):
        put("keys", f[:-5], open(f"tests/screens/{f}").read())
# the SQL prompt with issue 26's hostile statements (FTS3 tokenizer, endless and huge results)
put("keys", "sql_hostile", open("tests/fuzz/corpus/keys/sql_hostile").read())

# plain step timings (fuzz_steps picks step-times.json, step_times.csv or steps.txt)
ABBA = os.path.join(REAL, "pytorch-h200-abba-sdpa")
for r in ("A1", "A2", "S1", "S2"):
    p = os.path.join(ABBA, r, "step-times.json")
    if os.path.exists(p):
        put("steps", f"json_{r}", pick(0, open(p, "rb").read()))
put("steps", "json_odd", pick(0, '{"step_ms":[1,2,3e400,-0,null,"x",true]}'))
put("steps", "csv_header", pick(1, "step_ms\n12.5\n13.0\n12.75\n"))
put("steps", "csv_plain", pick(1, "10.1\n10.3\n9.9\n11.0\n"))
put("steps", "csv_odd", pick(2, "ms\n1e3\n-1\nnan\ninf\n\n7\n"))
# issue 26 H1: nesting past JSON_MAX_DEPTH (128) beside the list; M9: steps over 2^53 ns
put("steps", "json_deep", pick(0, '{"step_ms_events":[1],"x":' + "[" * 200 + "]" * 200 + "}"))
put("steps", "json_deep_list", pick(0, '{"step_ms_events":[1,' + "[" * 200 + "]" * 200 + "]}"))
put("steps", "json_absurd", pick(0, '{"step_ms_events":[1e308,9007199254.75,2],"step_ms":[3]}'))
put("steps", "csv_absurd", pick(1, "step_ms\n1e308\n9007199254.75\n2\n"))

# a run's metrics (load_metrics.c), both forms: the real samples and edge cases
for r in ("A1", "B1"):
    put("metrics_csv", f"real_{r}", open(f"{REAL}/pytorch-h100-abba-numerics/{r}/metrics.csv").read())
put("metrics_csv", "plain", "name,value\nfinal_loss,8.022427\n")
put("metrics_csv", "reordered", "better,tolerance,value,name\nhigher,0.002,0.76,top1\n,,3,\"a,b\"\n")
put("metrics_csv", "bad", "\ufeff# c\nname,value,tolerance\r\nx,abc,\r\ny,1,-2\r\nx,1\r\nz,1e309,\n\"q\"\"\",2,1,9\n")
put("metrics_json", "plain", '{"final_loss": 8.022427}')
put("metrics_json", "object", '{"a": {"value": 1, "tolerance": 0.1, "better": "higher"},\n "b": 2}')
put("metrics_json", "bad", '{"c": {"value": 3, "tolerence": 1},\n "d": "x", "e": [1, [2]], "f": {"tolerance": 1},\n "g": {"value": {"x": [1]}}, "g": 1e400}')
put("metrics_json", "deep", '{"a":' + "[" * 200 + "]" * 200 + "}")
put("metrics_json", "cut", '{"a": 1,\n "b": ')

# rocprofv3 JSON (load_v3json.c): the rocpd sample written in that form
# (tests/tools/rocpd_to_v3json.py), each array cut to its first records
with tempfile.TemporaryDirectory() as tmp:
    js = os.path.join(tmp, "r.json")
    os.system(f"python3 tests/tools/rocpd_to_v3json.py "
              f"{REAL}/llamacpp-rocprofv3-rocpd/32432_results.db {js}")
    doc = json.load(open(js))
    proc = doc["rocprofiler-sdk-tool"][0]
    proc["agents"] = [{k: a[k] for k in ("id", "type", "node_id", "name", "product_name")}
                      for a in proc["agents"][:2]]
    for k, v in proc["buffer_records"].items():
        proc["buffer_records"][k] = v[:3]
    kids = {d["dispatch_info"]["kernel_id"] for d in proc["buffer_records"]["kernel_dispatch"]}
    proc["kernel_symbols"] = [s for s in proc["kernel_symbols"] if s["kernel_id"] in kids]
    put("rocprofv3_json", "sample-3", json.dumps(doc, indent=1))
    put("rocprofv3_json", "sample-3-cut", json.dumps(doc)[:700])
