/* script.h - headless runs: replays a key script against an App and prints screens as
 * text (tig's TIG_SCRIPT plus :save-display). Script lines hold keys in the rc key syntax
 * (`/gemm<Enter>`, `<C-f>`, `<Lt>` for '<'); directives start with ':':
 *   :dump NAME          print the screen as text under "--- NAME ---"
 *   :dump-styles NAME   the same, then one letter per cell for its style ('a' + style)
 *   :resize WxH         resize the screen, as a terminal resize would
 *   :mouse KIND X Y     a mouse event at cell X, Y (from 0): click, double, wheel-up,
 *                       wheel-down
 *   :quit               stop here
 * Lines starting with '#' are comments. */
#ifndef DCUTOP_SCRIPT_H
#define DCUTOP_SCRIPT_H

#include <stdio.h>

#include "dcutop/app.h"
#include "dcutop/error.h"
#include "dcutop/key_timing.h"

/* timing may be NULL; otherwise its lines (key_timing.h): the first screen, then one per key
 * (handled + drawn). */
DcuStatus Script_run(App* app, const char* path, FILE* out, KeyTiming* timing, DcuError* err);

/* "100x30" -> w, h. */
int Script_parseSize(const char* s, int* w, int* h);

#endif
