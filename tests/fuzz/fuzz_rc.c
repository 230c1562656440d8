/* fuzz_rc.c - the rc file parser (keymap.c: `bind SCREEN KEY ACTION` lines), then the
 * lookups the help screen makes with the bindings it accepted. */
#include <stdlib.h>

#include "dcutop/keymap.h"
#include "fuzz_common.h"

static const char* const screens[] = {"generic", "hotspots", "categories", "stacks", "summary"};

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    char* text = Fuzz_text(data, size);
    Keymap* km = Keymap_new();
    DcuError err;
    Error_clear(&err);
    if (Keymap_parseRc(km, text, "fuzz.rc", &err) == DCU_OK) {
        char buf[256];
        for (size_t s = 0; s < sizeof(screens) / sizeof(screens[0]); s++) {
            for (int a = 0; a < ACT_COUNT; a++) {
                Keymap_keysFor(km, screens[s], (Action)a, buf, sizeof(buf));
            }
            Keymap_lookup(km, screens[s], 'q');
            Keymap_lookup(km, screens[s], KC_ENTER);
        }
    }
    Keymap_delete(km);
    free(text);
    return 0;
}
