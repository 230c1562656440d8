/* basis_key.c - the w key: every open table's Amdahl ceilings over device kernel time or
 * over wall time (the app's one setting, kept in the database: Query_setAmdahlBasis). */
#include "dcutop/error.h"
#include "dcutop/query.h"
#include "screen.h"

/* w: ceilings over device kernel time or over wall time, on every open table. */
Reaction App_toggleBasis(App* app) {
    DcuError err;
    Error_clear(&err);
    int wall = Query_amdahlBasis(App_db(app)) != 1;
    if (Query_setAmdahlBasis(App_db(app), wall, &err) != DCU_OK) {
        App_setStatus(app, 1, "%s", err.msg);
        return REACT_REDRAW;
    }
    if (wall && !Query_wallAvailable(App_db(app))) {
        Query_setAmdahlBasis(App_db(app), 0, &err);
        App_setStatus(app, 0, "Wall time needs per-dispatch timestamps; ceilings stay over "
                              "device kernel time.");
        return REACT_REDRAW;
    }
    App_refreshAll(app);
    App_setStatus(app, 0, "Ceilings now over %s.",
                  wall ? "wall time (device wall: idle gaps count)" : "device kernel time");
    return REACT_REDRAW;
}
