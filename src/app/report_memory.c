/* report_memory.c - the memory section of --report and --view memory (memory.h): per device
 * the peaks of allocated and reserved bytes with what was running then, the largest
 * allocations and (--view memory) allocated and reserved over time. */
#include <stdio.h>
#include <string.h>

#include "dcutop/export.h"
#include "dcutop/memory.h"
#include "dcutop/report.h"
#include "dcutop/report_table.h"

static const char* const peak_keys[] = {"run", "device", "peak_allocated", "peak_at_ns",
                                        "unused_reserved_at_peak", "peak_reserved", "op",
                                        "module", NULL};
static const char* const largest_keys[] = {"run", "device", "bytes", "allocated_ns", "freed_ns",
                                           "lifetime_ns", "op", "module", NULL};
static const char* const timeline_keys[] = {"run", "device", "from_ns", "to_ns", "events",
                                            "max_allocated", "max_reserved", NULL};

enum { REPORT_LARGEST = 5 }; /* the largest allocations the whole report lists per device */

static const char caveat[] =
    "Memory over time per device (device -1: host memory; times from the run's start). PyTorch's "
    "allocated and reserved bytes are its caching allocator's own figures for its process; the "
    "device's used memory (nvidia-smi, rocm-smi) is larger: the CUDA/HIP context, other "
    "libraries, other processes. reserved - allocated: blocks the allocator holds but no tensor "
    "uses (fragmentation and cache). A peak's time is the first event that shows it (the "
    "reserved figure may have been reached before the trace began). rocpd: the bytes its "
    "allocation calls hold, no reserved figure.";

enum { STACK_FRAMES = 8 }; /* frames of a call stack the text report shows */

/* Text: where each device's reserved bytes peaked (the first event that shows the figure:
 * the allocator may have reached it before profiling began). */
static void reserved_text(FILE* out, const ResultSet* rs, int width) {
    for (int r = 0; r < rs->nrows; r++) {
        const char* op = ResultSet_textOf(rs, r, "reserved_op");
        const char* mod = ResultSet_textOf(rs, r, "reserved_module");
        int c = ResultSet_columnIndex(rs, "peak_reserved_at_ns");
        if (c < 0 || ResultSet_cellc(rs, r, c)->null) {
            continue;
        }
        char line[1000];
        snprintf(line, sizeof(line),
                 "  Reserved peak of %s device %lld: first seen at %.2f ms%s%s%s%s%s",
                 ResultSet_textOf(rs, r, "run"),
                 (long long)ResultSet_intOf(rs, r, "device"),
                 (double)ResultSet_cellc(rs, r, c)->i / 1e6, op[0] ? ", in " : "", op,
                 mod[0] ? " (" : "", mod, mod[0] ? ")" : "");
        Report_wrap(out, line, width, 4);
    }
}

/* Text: each device's call stack at its peak, under the peaks table: its innermost frames
 * (CSV and JSON carry it whole). */
static void stacks_text(FILE* out, const ResultSet* rs, int width) {
    for (int r = 0; r < rs->nrows; r++) {
        const char* st = ResultSet_textOf(rs, r, "stack");
        if (!st[0]) {
            continue;
        }
        /* the frames with "; " between them: the wrap cuts at spaces */
        char frames[1200];
        size_t at = 0;
        int n = 1, more = 0;
        for (const char* p = st; *p && at + 3 < sizeof(frames); p++) {
            if (*p != ';') {
                if (!more) {
                    frames[at++] = *p;
                }
            } else if (n < STACK_FRAMES) {
                frames[at++] = ';';
                frames[at++] = ' ';
                n++;
            } else {
                more++;
            }
        }
        frames[at] = '\0';
        char line[1400];
        snprintf(line, sizeof(line), "  Call stack at the peak of %s device %lld (innermost "
                 "first): %s", ResultSet_textOf(rs, r, "run"),
                 (long long)ResultSet_intOf(rs, r, "device"), frames);
        if (more) {
            snprintf(line + strlen(line), sizeof(line) - strlen(line), "; ... (%d more)", more);
        }
        Report_wrap(out, line, width, 4);
    }
}

DcuStatus Report_memory(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    int whole = o->view != REPORT_VIEW_MEMORY;
    static const struct {
        MemView v;
        const char* json;
        const char* title;
        const char* const* keys;
        const char* flex;
    } secs[] = {
        {MEM_VIEW_PEAKS, "memory_peaks",
         "Peak allocated and reserved bytes per device, with the op and module live at the peak",
         peak_keys, "run"},
        {MEM_VIEW_LARGEST, "memory_largest",
         "Largest allocations per device (freed: the next free of the same address)",
         largest_keys, "run"},
        {MEM_VIEW_TIMELINE, "memory_timeline",
         "Allocated and reserved bytes over time per device (the largest in each span)",
         timeline_keys, "run"},
    };
    int n = whole ? 2 : 3;
    DcuStatus s = DCU_OK;
    if (o->format == FMT_TEXT) {
        fputs("\n", out);
        Report_wrap(out, caveat, o->width, 2);
    }
    for (int i = 0; s == DCU_OK && i < n; i++) {
        ResultSet* rs = NULL;
        s = Memory_view(db, secs[i].v, whole ? REPORT_LARGEST : MEM_LARGEST, &rs, err);
        if (s != DCU_OK) {
            break;
        }
        ResultSet_keepTop(rs, o->top_all);
        if (o->format == FMT_CSV) {
            fprintf(out, "# %s\r\n", secs[i].json);
            s = Export_csv(rs, out, err);
            fputs("\r\n", out);
        } else if (o->format == FMT_JSON) {
            fprintf(out, ",\n\"%s\": ", secs[i].json);
            s = Export_json(rs, out, err);
        } else {
            fprintf(out, "\n%s\n", secs[i].title);
            if (rs->nrows == 0) {
                fputs("  (no memory events: record with profile_memory=True)\n", out);
            } else {
                Report_table(out, rs, secs[i].keys, secs[i].flex, o->width, 0);
                if (secs[i].v == MEM_VIEW_PEAKS) {
                    reserved_text(out, rs, o->width);
                    stacks_text(out, rs, o->width);
                }
            }
        }
        ResultSet_delete(rs);
    }
    return s;
}
