/* peaks.h - peak TFLOP/s per data type and HBM GB/s per device, from a plain text table like
 * the category rules: src/model/analysis/default.peaks (compiled in), read after the user's own
 * file (--peaks FILE, else $XDG_CONFIG_HOME/dcutop/peaks when it exists). Line format:
 * `pattern<TAB>bf16 fp16 fp32 fp8 hbm` - a PCRE2 pattern matched case-insensitively in the
 * device name, dense TFLOP/s, GB/s; `-` for a figure that is not published. The first
 * matching line wins. */
#ifndef DCUTOP_PEAKS_H
#define DCUTOP_PEAKS_H

#include "dcutop/error.h"

enum { PEAK_BF16, PEAK_FP16, PEAK_FP32, PEAK_FP8, PEAK_NTYPES };

typedef struct PeakFigures_ {
    double tflops[PEAK_NTYPES]; /* dense peak per type; 0 = not known */
    double gbps;                /* HBM bandwidth, GB/s; 0 = not known */
    int line;                   /* line of the table entry, 0 for --peak */
    char source[64];            /* "built-in", the file name, or "--peak" */
    unsigned measured;          /* bit i: tflops[i] was measured, bit PEAK_NTYPES: gbps
                                 * (rocprof-compute's roofline, efficiency.c); 0: none */
    char measured_from[64];     /* the file the measured figures came from */
} PeakFigures;

typedef struct Peaks_ Peaks; /* owns the compiled patterns */

Peaks* Peaks_new(void);
void Peaks_delete(Peaks* this);

/* The compiled-in table text. */
const char* Peaks_builtinText(void);

/* Adds the lines of text (after those already added). source names it in messages.
 * Errors: DCU_ERR_RULES "source:line: ..." (a bad pattern, a missing TAB, not five
 * figures, a figure that is not a positive number or '-'). */
DcuStatus Peaks_parse(Peaks* this, const char* text, const char* source, DcuError* err);

/* The user's table (path, or else $XDG_CONFIG_HOME/dcutop/peaks when it exists) ahead of
 * the built-in one. path may be NULL. Errors: DCU_ERR_IO (unreadable), DCU_ERR_RULES. */
DcuStatus Peaks_loadDefault(Peaks* this, const char* path, DcuError* err);

/* Figures for a device name; 1 when a line matched (its figures may still be 0 = not
 * published), 0 when none did (*out zeroed). */
int Peaks_lookup(const Peaks* this, const char* device, PeakFigures* out);

/* --peak TFLOPS,GBps: one compute roof for every type, and the bandwidth.
 * Errors: DCU_ERR_USAGE naming the expected form. */
DcuStatus Peaks_parseOverride(const char* arg, PeakFigures* out, DcuError* err);

/* The peak for a dtype as perf_model.h names it ("bf16", "fp8", ...); 0 when unknown
 * (integer types, fp64, or a figure the table leaves empty). */
double PeakFigures_tflops(const PeakFigures* p, const char* dtype);

#endif
