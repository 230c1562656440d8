/* chrome_view.h - the frame around every screen: header line, screen tabs, status line,
 * key footer, the input prompt and the column menu (htop's F6 panel). */
#ifndef DCUTOP_CHROME_VIEW_H
#define DCUTOP_CHROME_VIEW_H

#include "dcutop/canvas.h"

typedef struct FooterItem_ {
    const char* key;   /* "F1" */
    const char* label; /* "Help" */
} FooterItem;

/* A tab of the strip: its key ("2"), its name ("Hotspots") and a short name ("Hot") for
 * narrow terminals (NULL: the name). Borrowed. */
typedef struct ChromeTab_ {
    const char* key;
    const char* name;
    const char* abbrev;
} ChromeTab;

void ChromeView_header(Canvas* c, int y, const char* left, const char* right);
/* Tabs " 1 Summary 2 Hotspots ..."; active is the index of the highlighted tab, and
 * trail (may be NULL) is the drill-down path shown after them ("> copy > kernel"). Too
 * narrow for every name, the other tabs are abbreviated, then scrolled around the active one
 * with "\u2039" / "\u203a" marking the hidden side. */
void ChromeView_tabs(Canvas* c, int y, const ChromeTab* tabs, int n, int active,
                     const char* trail);
/* The tab under column x of a strip drawn as ChromeView_tabs would at this width; -1: none. */
int ChromeView_tabAt(int width, const ChromeTab* tabs, int n, int active, const char* trail,
                     int x);
void ChromeView_status(Canvas* c, int y, const char* text, int is_error);
void ChromeView_footer(Canvas* c, int y, const FooterItem* items, int n);
/* "label: buffer" with the cursor cell (cursor = byte offset in buffer) shown reversed. */
void ChromeView_prompt(Canvas* c, int y, const char* label, const char* buffer, int cursor);
/* A boxed list on the left, below row top: title, items, selected highlighted. */
void ChromeView_menu(Canvas* c, int top, const char* title, const char* const* items, int n,
                     int selected);

#endif
