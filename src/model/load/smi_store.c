/* smi_store.c - one device-state sample into device_sample, and a loop's `date` lines: what
 * every device-state reader calls (the dispatcher, load_smi.c, calls the readers). */
#include <math.h>

#include "load_event.h"
#include "load_smi.h"

void SmiSample_init(SmiSample* s, long line) {
    *s = (SmiSample){line, LOAD_NULL, NULL, LOAD_NULL, NAN, NAN, NAN, NAN, NAN,
                     LOAD_NULL, LOAD_NULL, NAN, NAN, NAN, NULL, NULL};
}

static void bind_real(sqlite3_stmt* st, int i, double v) {
    if (isnan(v)) {
        sqlite3_bind_null(st, i);
    } else {
        sqlite3_bind_double(st, i, v);
    }
}

static void bind_int(sqlite3_stmt* st, int i, int64_t v) {
    if (v == LOAD_NULL) {
        sqlite3_bind_null(st, i);
    } else {
        sqlite3_bind_int64(st, i, v);
    }
}

static void bind_text(sqlite3_stmt* st, int i, const char* s) {
    if (s) {
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_null(st, i);
    }
}

int Smi_store(SmiLoad* L, const SmiSample* s) {
    if (L->status != DCU_OK) {
        return 0;
    }
    sqlite3_stmt* st = L->ins;
    sqlite3_bind_int64(st, 1, L->f->id);
    sqlite3_bind_int64(st, 2, s->line);
    bind_int(st, 3, s->device);
    bind_text(st, 4, s->device_name);
    bind_int(st, 5, s->wall_ns != LOAD_NULL ? s->wall_ns : L->loop_wall);
    bind_real(st, 6, s->sm_clock_mhz);
    bind_real(st, 7, s->mem_clock_mhz);
    bind_real(st, 8, s->max_sm_clock_mhz);
    bind_real(st, 9, s->util_pct);
    bind_real(st, 10, s->mem_util_pct);
    bind_int(st, 11, s->mem_used_bytes);
    bind_int(st, 12, s->mem_total_bytes);
    bind_real(st, 13, s->power_w);
    bind_real(st, 14, s->power_cap_w);
    bind_real(st, 15, s->temp_c);
    bind_text(st, 16, s->throttle);
    bind_text(st, 17, s->driver);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        Load_storageFailed(L->core, rc, sqlite3_errmsg(TraceDb_handle(L->core->db)));
        L->status = DCU_ERR_SQL;
        return 0;
    }
    if (s->wall_ns == LOAD_NULL && L->loop_wall != LOAD_NULL) {
        L->zones_seen |= L->loop_zone; /* a sample's own time: its parser said the zone */
    }
    L->f->rows++;
    return 1;
}

int Smi_loopTime(SmiLoad* L, const char* s, size_t n) {
    int64_t ns;
    int zone;
    if (!Smi_parseTime(s, n, &ns, &zone)) {
        return 0;
    }
    L->loop_wall = ns;
    L->loop_zone = zone;
    return 1;
}
