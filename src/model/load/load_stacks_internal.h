/* load_stacks_internal.h - what load_stacks.c (stack files) shares with kineto_stacks.c
 * (the python stacks of PyTorch traces): the frame prefix tree and the stack being built.
 * Private to the loaders. */
#ifndef DCUTOP_LOAD_STACKS_INTERNAL_H
#define DCUTOP_LOAD_STACKS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "load_internal.h"

typedef struct Buf_ {
    char* p;
    size_t len, cap;
} Buf;

typedef struct Stack_ {
    char** frames; /* as read: innermost first unless root_first */
    int n, cap;
    int root_first;
    long line;
    int has_seq, has_corr;
    int64_t seq, corr;
    char* kernel;  /* owned, NULL if none */
    int bad;       /* a problem already reported: drop the stack */
    long last_num; /* gdb frame number of the last frame, -1 before the first */
} Stack;

typedef struct Ctx_ {
    LoaderCore* core;
    LoadFile* f;
    int cut_noted;  /* "frame cut" said once per file */
    int deep_noted; /* "deep stack" said once per file */
    /* CSV columns */
    int c_stack, c_seq, c_corr, c_name, ncols, header_done;
    Stack st;
    Buf tmp;
} Ctx;

/* The per-load state (frame and node caches, statements), made on first use. */
DcuStatus StackLoad_init(LoaderCore* core, DcuError* err);
/* frame.id of a frame name, inserted when new; 0 when the insert failed. */
int64_t StackLoad_frameId(LoaderCore* core, const char* name, size_t len);
/* stack_node.id of (parent node, frame) at depth, inserted when new; 0 on failure. */
int64_t StackLoad_nodeId(LoaderCore* core, int64_t parent, int64_t frame, int depth);
void Stack_clear(Stack* s);
void Stack_free(Stack* s);
/* Appends a sanitized copy of the frame name (cut at a cap, said once per file). */
void Stack_push(Ctx* c, Stack* s, const char* name, size_t len, long line);
/* Drops white space at both ends of s[0..n). */
void StackLoad_trim(const char** s, size_t* n);
/* Kineto: a stack for every dispatch that an aten op launched (kineto_stacks.c). */
DcuStatus KinetoStacks_build(LoaderCore* core, DcuError* err);

#endif
