/* interop.h — layouts of other systems (CuTe, Triton linear layouts, MLIR affine maps and strided memrefs, TVM
 * index maps) read into mapping expressions and written back in those systems' own syntax. */
#ifndef MAPC_INTEROP_H
#define MAPC_INTEROP_H

#include "core/ast.h"

/* The formats, in the order of `mapc export --to` (docs/interop.md). */
typedef enum {
    IOP_CUTE,       /* a CuTe layout read as the buffer view: positions are offsets, cells coordinates */
    IOP_CUTE_TILER, /* a CuTe layout read as the tiler view: positions are coordinates, cells offsets {O: L(i)} */
    IOP_TRITON,     /* a Triton linear layout: positions are hardware indices, cells logical coordinates */
    IOP_AFFINE,     /* an MLIR affine_map memref layout: logical index to physical index, laid out row-major */
    IOP_STRIDED,    /* an MLIR strided<[...]> memref layout (imported as strided![...], desc.h) */
    IOP_INDEX_MAP,  /* a TVM IndexMap lambda: logical index to physical index, laid out row-major */
    IOP_FORMATS
} IopFormat;

/* The --to spelling of a format ("cute", "cute-tiler", "triton", "affine", "strided", "index-map"), and the
 * reverse (false for an unknown spelling). */
const char *iop_format_name(IopFormat f);
bool iop_format_parse(const char *s, IopFormat *f);
/* What the format's layouts are called, for "no NOUN: REASON" ("CuTe layout", "Triton linear layout", ...). */
const char *iop_format_noun(IopFormat f);
/* The literal's keyword before '!' ("cute", "cute_tiler", "triton", "affine", "index_map"; "strided" for
 * IOP_STRIDED, whose literal is desc.h's strided![...]), and the reverse over len bytes. */
const char *iop_literal_name(IopFormat f);
bool iop_literal_parse(const char *s, size_t len, IopFormat *f);

/* A piece of source text and the position of its first byte. */
typedef struct IopText {
    const char *s;
    size_t len;
    Loc loc;
} IopText;

/* The position of byte `at` of t (t.s <= at <= t.s + t.len): lines and columns counted from t.loc. */
Loc iop_text_loc(IopText t, const char *at);

/* The axes a literal's layout is over, as the trailing list [A, B, ...] names them: n < 0 when the list was
 * not written (the layout then takes the program's axes in declaration order, or, for affine maps and index
 * maps, the axes its dimensions are named after). */
typedef struct IopAxes {
    const int *axis;    /* Prog axis indices */
    int n;
    Loc loc;            /* the list */
} IopAxes;

/* Reads the body of a KIND![BODY] literal (f is not IOP_STRIDED) into an equivalent mapping built in p's arena:
 * the meaning of docs/interop.md for that format over the axes ax. Every refusal (a syntax error, a layout
 * outside the class mapc expresses, a non-injective buffer view with two coordinates, a size that is not a
 * power of two for Triton) is one positioned error in diags, at the offending part of the body; NULL then. */
const Map *iop_import(Prog *p, IopFormat f, IopText body, const IopAxes *ax, Diags *diags);

/* How `--to triton` splits the positions into hardware dimensions: the top bits are the blocks, then the warps,
 * then the lanes, the rest the registers. 0 (or 1) means none; otherwise a power of two. */
typedef struct IopOptions {
    uint64_t lanes, warps, blocks;
} IopOptions;

/* The layout m in format f's own syntax, one line as its users paste it (arena text), verified by reading it
 * back (iop_import) and deciding the equivalence with m. NULL with the reason in *why (arena text): m has no
 * form in f (padding CuTe cannot hold, a size that is not a power of two, a broadcast where the format maps
 * each index to one position, digits the format cannot write) or the candidate does not verify (the first
 * position where it differs). o may be NULL. */
const char *iop_export(Prog *p, const Map *m, IopFormat f, const IopOptions *o, const char **why);

#endif
