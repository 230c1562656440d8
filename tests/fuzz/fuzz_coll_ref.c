/* fuzz_coll_ref.c - the nccl-tests / rccl-tests output reader behind --collective-ref
 * (coll_ref.c): the text as a curve, the type told by the text or the first input byte, then
 * the reference looked up at a few sizes. Oracle: the curve's sizes ascend and are distinct,
 * and every value found lies within the curve's bus bandwidths. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/coll_ref.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const char* const types[] = {NULL, "all_reduce", "all_gather", "reduce_scatter"};
    char* text = Fuzz_text(data, size);
    CollRef ref;
    CollRef_init(&ref);
    DcuError err;
    Error_clear(&err);
    const char* type = types[size > 0 ? data[0] % 4 : 0];
    if (CollRef_parse(&ref, text, strlen(text), "all_reduce_perf.txt", type, &err) == DCU_OK) {
        const CollRefCurve* c = &ref.c[0];
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < c->n; i++) {
            if (c->rows[i].bytes <= 0 || (i > 0 && c->rows[i].bytes <= c->rows[i - 1].bytes)) {
                abort();
            }
            lo = c->rows[i].busbw < lo ? c->rows[i].busbw : lo;
            hi = c->rows[i].busbw > hi ? c->rows[i].busbw : hi;
        }
        static const int64_t at[] = {1, 8, 1000, 1 << 20, 3 << 20, INT64_MAX};
        for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
            double v = CollRef_busbw(&ref, c->type, at[i]);
            if (!isnan(v) && (v < lo - 1e-9 * fabs(lo) || v > hi + 1e-9 * fabs(hi))) {
                abort();
            }
        }
    }
    CollRef_done(&ref);
    free(text);
    return 0;
}
