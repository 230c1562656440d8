/* load_smi.h - device-state logs (the device_sample table): nvidia-smi --query-gpu CSV and
 * dmon, rocm-smi and hy-smi (CSV, JSON, plain text), amd-smi metric (CSV, JSON), each
 * maybe sampled in a shell loop with `date` lines between the samples. load_smi.c reads the
 * file a line at a time and stores the samples; the smi_*.c files turn a form's lines into
 * samples. Private to the model's loaders. */
#ifndef DCUTOP_LOAD_SMI_H
#define DCUTOP_LOAD_SMI_H

#include <stddef.h>
#include <stdint.h>

#include "load_internal.h"

enum {
    SMI_NV_CSV = 1, /* nvidia-smi --query-gpu=... --format=csv [-l/-lms] */
    SMI_NV_DMON,    /* nvidia-smi dmon [-o DT] */
    SMI_ROCM_CSV,   /* rocm-smi / hy-smi --csv */
    SMI_ROCM_JSON,  /* rocm-smi / hy-smi --json */
    SMI_ROCM_TEXT,  /* rocm-smi / hy-smi --showuse --showmemuse --showclocks --showpower ... */
    SMI_AMD_CSV,    /* amd-smi metric --csv */
    SMI_AMD_JSON,   /* amd-smi metric --json */
    SMI_FORMS
};

/* How a timestamp read: with its zone (UTC or an offset), or in local time (read with TZ). */
enum { SMI_ZONE_NONE = 0, SMI_ZONE_UTC = 1, SMI_ZONE_LOCAL = 2 };

/* One sample of one device. Absent numbers are NAN (REAL columns) or LOAD_NULL (INTEGER
 * columns); absent texts NULL. Texts are borrowed for the call that stores the sample. */
typedef struct SmiSample_ {
    long line;
    int64_t device;
    const char* device_name;
    int64_t wall_ns;
    double sm_clock_mhz, mem_clock_mhz, max_sm_clock_mhz, util_pct, mem_util_pct;
    int64_t mem_used_bytes, mem_total_bytes;
    double power_w, power_cap_w, temp_c;
    const char* throttle; /* active reasons, ',' between; "" none; NULL not said */
    const char* driver;
} SmiSample;

/* The file being read (load_smi.c). */
typedef struct SmiLoad_ {
    LoaderCore* core;
    LoadFile* f;
    sqlite3_stmt* ins;
    DcuStatus status;  /* a storage error: the read stops */
    int64_t loop_wall; /* the last `date` line's time (a shell loop's), LOAD_NULL none */
    int loop_zone;
    int zones_seen;    /* SMI_ZONE_* bits of every timestamp read */
    const char* tool;  /* static; set by a parser that tells the tool apart (hy-smi) */
} SmiLoad;

/* Every field absent; line set. */
void SmiSample_init(SmiSample* s, long line);
/* Stores one sample (the loop's `date` time when it has none of its own). 0 when the
 * database failed (L->status says so; the read stops). */
int Smi_store(SmiLoad* L, const SmiSample* s);

/* A timestamp filling the whole text (trimmed): "2026/12/07 19:46:48.588" (nvidia-smi),
 * "20261207 19:46:48" (dmon -o DT), ISO 8601 with or without a zone, `date`'s default
 * "Mon Dec  7 19:46:48 UTC 2026" (and its locale variants with AM/PM), epoch seconds with
 * 9 digits or more ("1796672820.123"). 1 and *ns (UTC epoch ns), *zone set; 0 when not. */
int Smi_parseTime(const char* s, size_t n, int64_t* ns, int* zone);

/* A measurement: a decimal number, then optional blanks and a unit (unit/ulen: the unit's
 * text, "" when none). 1 when read; 0 when the text is no number. *na is set (and 0
 * returned) for the tools' words for a missing value: N/A, [N/A], [Not Supported], "-". */
int Smi_number(const char* s, size_t n, double* v, const char** unit, size_t* ulen, int* na);

/* Splits a CSV line (commas; double quotes around a field, "" inside) into at most max
 * fields, each trimmed of blanks: starts and lengths into s. Returns the number of fields
 * (more than max when there were more; only max filled). */
int Smi_splitCsv(const char* s, size_t n, const char** fs, size_t* fl, int max);

/* A loop's `date` line: when the whole line is a timestamp, it is kept as the time of the
 * samples after it and 1 is returned. */
int Smi_loopTime(SmiLoad* L, const char* s, size_t n);

/* Memory in bytes from a number and its unit ("MiB", "MB", "GiB", "KiB", "B", "" = dflt
 * bytes a unit); LOAD_NULL when the unit is unknown or the value out of range. */
int64_t Smi_bytes(double v, const char* unit, size_t ulen, double dflt);

/* What a column or key of a log holds. */
enum {
    SK_OTHER,
    SK_TIME,     /* a timestamp */
    SK_NAME,     /* the device's name */
    SK_INDEX,    /* the device's index (nvidia-smi index, amd-smi gpu) */
    SK_ID,       /* uuid or bus id: the device by its identity */
    SK_CARD,     /* rocm-smi's "card3" */
    SK_DRIVER,
    SK_SM,       /* SM / shader (sclk) clock, MHz */
    SK_GR,       /* graphics clock: the SM clock when no SM column */
    SK_MEMCLK,
    SK_MAXSM,
    SK_MAXGR,
    SK_UTIL,
    SK_MEMUTIL,
    SK_MEMUSED,
    SK_MEMTOTAL,
    SK_POWER,
    SK_POWERCAP,
    SK_TEMP,     /* rank: the sensor preferred (junction / hotspot first) */
    SK_THR_MASK, /* nvidia-smi clocks_event_reasons.active: a bit mask */
    SK_THR_ONE,  /* nvidia-smi clocks_event_reasons.<reason>: Active / Not Active */
    SK_THR_WORD  /* amd-smi throttle_status: THROTTLED / UNTHROTTLED */
};

typedef struct SmiField_ {
    int kind;
    double unit;      /* memory: bytes per unit when the value names none */
    int rank;         /* SK_TEMP, SK_POWER: lower is preferred */
    char label[48];   /* the column's name, for messages */
    char reason[48];  /* SK_THR_ONE: the reason's name */
} SmiField;

/* One device's sample being gathered from columns or keys. */
typedef struct SmiAcc_ {
    SmiSample s;
    char* name;    /* owned */
    char* driver;  /* owned */
    char* id;      /* owned: uuid / bus id */
    char thr[256];
    int thr_said;
    double gr, maxgr;
    int temp_rank, power_rank;
    int any;       /* a value was put */
} SmiAcc;

void SmiAcc_init(SmiAcc* a, long line);
void SmiAcc_done(SmiAcc* a);
/* Puts one value of field f; 0 when it is rejected (the message names the line). */
int SmiAcc_put(SmiLoad* L, SmiAcc* a, const SmiField* f, const char* v, size_t vl, long line);
/* Stores the gathered sample (SM clock from the graphics clock when it has none). */
int SmiAcc_store(SmiLoad* L, SmiAcc* a);
/* rocm-smi / hy-smi key ("GPU use (%)", "HCU use (%)", "VRAM Total Used Memory (B)",
 * "sclk clock speed:", ...) into f; 0 when it is none dcutop reads. */
int Smi_rocmField(const char* k, size_t n, SmiField* f);
/* The MHz in a clock text ("(1800Mhz)", "1 (1800Mhz)", "1800 MHz"); 0 when none. */
int Smi_mhz(const char* s, size_t n, double* mhz);

/* The form of a file from its first bytes (SMI_* > 0), 0 when it is no device-state log. */
int LoadSmi_sniff(const unsigned char* head, size_t n);
/* Reads a device-state log of the given form (plain or gzip) into device_sample.
 * DCU_ERR_IO when it cannot be opened. */
DcuStatus LoadSmi_file(LoaderCore* core, LoadFile* f, int form, DcuError* err);
/* A trace's wall anchor (Kineto baseTimeNanoseconds, the number's text). */
void LoadSmi_wallAnchor(LoaderCore* core, LoadFile* f, const char* num, size_t n);
/* After the runs are assigned: each log's samples on its trace's clock (ts_ns), from the
 * wall anchor of a trace in its run or folder; device_log.align says how, or why not. */
DcuStatus LoadSmi_finish(LoaderCore* core, DcuError* err);

/* The parsers, one per family; each line of the file (without its end of line) in order,
 * then end. State is owned by the caller through new/free. */
typedef struct SmiParser_ {
    const char* format; /* source_file.format */
    const char* tool;   /* device_log.tool */
    void* (*make)(int form);
    void (*line)(SmiLoad* L, void* st, const char* s, size_t n, long line);
    void (*end)(SmiLoad* L, void* st, long last_line);
    void (*drop)(void* st);
} SmiParser;

const SmiParser* SmiCsv_parser(int form);  /* smi_csv.c: SMI_NV_CSV, SMI_ROCM_CSV, SMI_AMD_CSV */
const SmiParser* SmiDmon_parser(void);     /* smi_dmon.c: SMI_NV_DMON */
const SmiParser* SmiText_parser(void);     /* smi_rocmtext.c: SMI_ROCM_TEXT */
const SmiParser* SmiJson_parser(int form); /* smi_json.c: SMI_ROCM_JSON, SMI_AMD_JSON */

#endif
