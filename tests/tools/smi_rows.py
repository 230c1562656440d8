# smi_rows.py FOLDER [--mem] - the nvidia-smi --query-gpu log of a recording (smi.csv) as SQL INSERTs
# into device_sample (the columns of its contract), each sample put on the Kineto trace's
# clock by its wall anchor (epoch ns = baseTimeNanoseconds + ts_us * 1000, so ts_ns = wall -
# baseTimeNanoseconds). For tests of the health verdict that must not depend on the log's
# own loader. Written independently of dcutop's code. With --mem, the trace's '[memory]' events
# of the GPU as mem_event rows too. Each table is created (its contract's columns) if missing.
import calendar, csv, glob, gzip, json, os, sys, datetime

d = sys.argv[1]
tr = glob.glob(os.path.join(d, "*.trace.json.gz"))[0]
base = json.load(gzip.open(tr, "rt"))["baseTimeNanoseconds"]
rows = list(csv.reader(open(os.path.join(d, "smi.csv"))))
head = [h.strip() for h in rows[0]]
num = lambda v: v.strip().split()[0]
print("BEGIN;")
print("CREATE TABLE IF NOT EXISTS device_sample(id INTEGER PRIMARY KEY, file_id INTEGER,"
      " line INTEGER, device INTEGER, device_name TEXT, wall_ns INTEGER, ts_ns INTEGER,"
      " sm_clock_mhz REAL, mem_clock_mhz REAL, max_sm_clock_mhz REAL, util_pct REAL,"
      " mem_util_pct REAL, mem_used_bytes INTEGER, mem_total_bytes INTEGER, power_w REAL,"
      " power_cap_w REAL, temp_c REAL, throttle TEXT, driver TEXT);")
if "--mem" in sys.argv:
    print("CREATE TABLE IF NOT EXISTS mem_event(id INTEGER PRIMARY KEY, file_id INTEGER,"
          " ts_ns INTEGER, device INTEGER, addr INTEGER, bytes INTEGER, total_allocated INTEGER,"
          " total_reserved INTEGER, pid INTEGER, tid INTEGER, op_id INTEGER, source TEXT,"
          " event INTEGER, device_type INTEGER);")
    for e in json.load(gzip.open(tr, "rt"))["traceEvents"]:
        a = e.get("args", {})
        if e.get("name") == "[memory]" and a.get("Device Type") == 1:
            print("INSERT INTO mem_event(file_id, ts_ns, device, addr, bytes, total_allocated,"
                  " total_reserved, pid, tid, source, device_type) VALUES(0, %d, %d, %d, %d, %d, %d,"
                  " %d, %d, 'kineto', 1);" % (int(round(float(e["ts"]) * 1000)), a["Device Id"],
                  a["Addr"], a["Bytes"], a["Total Allocated"], a["Total Reserved"], e["pid"], e["tid"]))
for i, r in enumerate(rows[1:], start=2):
    f = dict(zip(head, (x.strip() for x in r)))
    t = datetime.datetime.strptime(f["timestamp"], "%Y/%m/%d %H:%M:%S.%f")
    wall = calendar.timegm(t.timetuple()) * 10**9 + t.microsecond * 1000
    mib = 1 << 20
    print("INSERT INTO device_sample(file_id, line, device, device_name, wall_ns, ts_ns,"
          " sm_clock_mhz, mem_clock_mhz, max_sm_clock_mhz, util_pct, mem_util_pct,"
          " mem_used_bytes, mem_total_bytes, power_w, power_cap_w, temp_c, throttle, driver)"
          " VALUES(0, %d, 0, '%s', %d, %d, %s, %s, %s, %s, %s, %d, %d, %s, NULL, %s, '%s', '%s');" % (
              i, f["name"], wall, wall - base, num(f["clocks.current.sm [MHz]"]),
              num(f["clocks.current.memory [MHz]"]), num(f["clocks.max.sm [MHz]"]),
              num(f["utilization.gpu [%]"]), num(f["utilization.memory [%]"]),
              int(num(f["memory.used [MiB]"])) * mib, int(num(f["memory.total [MiB]"])) * mib,
              num(f["power.draw [W]"]), num(f["temperature.gpu"]),
              f["clocks_event_reasons.active"], f["driver_version"]))
print("COMMIT;")
