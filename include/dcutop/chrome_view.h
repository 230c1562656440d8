/* chrome_view.h - the frame around every screen: header line, screen tabs, status line,
 * key footer, the input prompt and the column menu (htop's F6 panel). */
#ifndef DCUTOP_CHROME_VIEW_H
#define DCUTOP_CHROME_VIEW_H

#include "dcutop/canvas.h"

typedef struct FooterItem_ {
    const char* key;   /* "F1" */
    const char* label; /* "Help" */
} FooterItem;

void ChromeView_header(Canvas* c, int y, const char* left, const char* right);
/* Tabs "1 Summary 2 Hotspots ..."; active is the index of the highlighted tab, and
 * trail (may be NULL) is the drill-down path shown after them ("> copy > kernel"). */
void ChromeView_tabs(Canvas* c, int y, const char* const* tabs, int n, int active,
                     const char* trail);
/* The tab under column x of a strip drawn as ChromeView_tabs would at this width; -1: none. */
int ChromeView_tabAt(int width, const char* const* tabs, int n, int active, const char* trail,
                     int x);
void ChromeView_status(Canvas* c, int y, const char* text, int is_error);
void ChromeView_footer(Canvas* c, int y, const FooterItem* items, int n);
/* "label: buffer" with the cursor cell (cursor = byte offset in buffer) shown reversed. */
void ChromeView_prompt(Canvas* c, int y, const char* label, const char* buffer, int cursor);
/* A boxed list on the left, below row top: title, items, selected highlighted. */
void ChromeView_menu(Canvas* c, int top, const char* title, const char* const* items, int n,
                     int selected);

#endif
