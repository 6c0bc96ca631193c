/* front_impl.h — front-end internals shared by the lexer, the Lemon grammar actions and the checkers. */
#ifndef MAPC_FRONT_IMPL_H
#define MAPC_FRONT_IMPL_H

#include "core/ast.h"
#include "desc/desc.h"
#include "eval/eval.h"
#include "front.h"

typedef struct Token {
    int kind;           /* TK_* from the generated parser.h, 0 at end of input */
    const char *s;      /* points into the source text */
    uint32_t len;
    uint64_t num;       /* TK_NUM: the value */
    Loc loc;
} Token;

typedef struct Lexer {
    const Source *src;
    const char *cur, *lim, *tok;
    uint32_t line;
    const char *line_start;
    Diags *diags;
} Lexer;

void lex_init(Lexer *lx, const Source *src, Diags *diags);
/* Reads the next token; lexical errors are diagnosed and skipped. Returns false at the end. */
bool lex_next(Lexer *lx, Token *t);

/* A list of mappings being collected for "L, R, ..." and index-literal entries. */
typedef struct MapList {
    const Map *map;     /* NULL if the entry had an error */
    uint64_t value;     /* index-literal value */
    Loc loc;            /* an index entry's colon; a mapping list item's comma before it (none for the first) */
    struct MapList *next;   /* built newest first */
} MapList;

/* An operator argument: its value, and whether it resolved. */
typedef struct Arg {
    uint64_t n;
    bool ok;
} Arg;

/* A cell literal in an assertion. */
typedef struct CellLit {
    bool ok;
    bool is_index;
    CellKind kind;
    MapList *terms;     /* is_index: entries newest first */
    Loc loc;
} CellLit;

/* A GEMM kernel operand in the kernel header: TENSOR[AXIS, AXIS]. */
typedef struct KOperand {
    Token tensor, axis[2];
} KOperand;

/* One item of a kernel clause (sema_kernel.c interprets it per clause word). */
typedef enum { KITEM_NAME, KITEM_NUM, KITEM_MAP } KItemKind;
typedef struct KItem {
    KItemKind kind;
    Token name;             /* NAME, NAME = NUM, NAME = m![...] */
    Token value;            /* KITEM_NUM: the number; KITEM_MAP: the m! token */
    const Map *map;         /* KITEM_MAP: NULL if the mapping had errors */
    struct KItem *next;     /* built newest first */
} KItem;

/* An argument of a movement assertion (sema_movement.c): a word (a type, tensor, mode or element type), an
 * inline mapping, or SRC -> DST. */
typedef struct MvArg {
    Token word, to;
    const Map *map;
    bool is_map, arrow;
} MvArg;
typedef struct MvArgs {
    int n;
    MvArg a[8];
} MvArgs;
/* A sequencer config literal [n:s, ...]:P, in the arena (NULL after an error). */
typedef struct SeqLit {
    int n;
    uint64_t n_of[64], s_of[64];
    uint64_t packet;
    Loc loc;
} SeqLit;

typedef struct KernelScope KernelScope;

/* The context every grammar action receives. */
typedef struct Parser {
    Prog *prog;
    const Source *src;
    Evaluator *ev;
    const char *defining;   /* name of the type being defined (self-reference check) */
    KernelScope *kernel;    /* the kernel whose body is being parsed (sema_kernel.c), else NULL */
    const Map *expr;        /* result of a lone-expression parse */
    bool expr_ok;
    CellLit index;          /* result of a lone index-literal parse */
    int syntax_errors;
    bool stopped;           /* a fatal error (nesting) stopped this source */
    Token prev;             /* the token given to the parser before the current one (kind 0: none) */
} Parser;

/* Reports the syntax error at tok (kind 0: the end of input) with what the tokens around it suggest: a ';'
 * missing at the end of the line before a new statement, a constant after an operator that needs {NAME}. */
void parse_syntax_error(Parser *ps, int kind, Token tok);

/* Builders called by grammar actions: each checks its static rule (docs/language.md §2), reports the
 * offending numbers at loc, and returns NULL on error. NULL operands propagate silently. */
const Map *sema_symbol(Parser *ps, Token name);
const Map *sema_broadcast(Parser *ps, Token num);
const Map *sema_escape_type(Parser *ps, Token name);
const Map *sema_postfix(Parser *ps, MapKind kind, PadKind pad, const Map *l, bool arg_ok, uint64_t n, Loc loc);
/* Right-nests a list collected newest first into pairs (m![A, B, C] is m![A, [B, C]]). */
const Map *sema_pair_list(Parser *ps, MapList *items);
/* Resolves "{NAME}" after an operator; false (diagnosed) if not a constant. */
bool sema_escape_const(Parser *ps, Token name, uint64_t *value);
MapList *sema_list_add(Parser *ps, MapList *list, const Map *m, uint64_t value, Loc loc);

/* The program's diagnostics: every checker reports through it (short, as it is on every other line). */
static inline Diags *D(Parser *ps) { return &ps->prog->diags; }

/* Shared by the checkers (names.c): the name a token spells (NULL if undeclared); a new name, or NULL after
 * reporting the earlier definition; a builder's result, reporting why at loc when it is NULL; a new
 * axis appended to the program (not entered in the name table), returning its index. */
const Name *sema_lookup(Parser *ps, Token t);
Name *sema_define(Parser *ps, Token name, NameKind kind);
const Map *sema_checked(Parser *ps, const Map *m, Loc loc, const char *why);
int sema_add_axis(Prog *p, const char *name, uint64_t size, Loc loc);

/* ---- the cache model's tiles (kernel_tile.c) ---- */
/* The tiles (M, N, K) the cache model gives kernel k (axes, operands known) with an mr x nr micro-tile and K
 * groups of g on p's caches (prog_caches) for units that compute block[r] values of each axis (the axes'
 * sizes without a grid): target_cache_blocks for those sizes, shrunk until one A tile and one B tile fit a
 * slice's DM (B first, to 3/4 of it; then A; then K), and balanced within each block. */
void sema_model_tile(Prog *p, const KernelDecl *k, int mr, int nr, int g, const uint64_t block[3], uint64_t out[3]);
/* A cell with coordinate storage in the program's arena, and a cell's text in the arena. */
Cell sema_new_cell(Prog *p);
const char *sema_cell_text(Prog *p, const Cell *c);

void sema_axis(Parser *ps, Token name, Token size);
void sema_const(Parser *ps, Token name, Token value);
void sema_type(Parser *ps, Token name, const Map *m);
/* Resolves a type name used as a mapping reference (assertions, the command line). */
const Map *sema_type_ref(Parser *ps, Token name);
void sema_assert_cell(Parser *ps, Loc at, const Map *m, Token pos, const CellLit *expect);
void sema_assert_equiv(Parser *ps, Loc at, const Map *a, const Map *b, bool want_equal);
/* Movement assertions (sema_movement.c): the arguments collected (at most 8), the entries of a config literal (at most
 * 64), and the assertion itself: callee sequence or dma, an optional field, the comparison op (TK_EQEQ, TK_LE, ...)
 * against a config (cfg) or a number (value). */
MvArgs *sema_mv_arg(Parser *ps, MvArgs *list, MvArg a);
SeqLit *sema_seq_entry(Parser *ps, SeqLit *lit, Token at, uint64_t n, uint64_t s);
void sema_assert_movement(Parser *ps, Loc at, Token callee, const MvArgs *args, const Token *field, int op,
                          const SeqLit *cfg, uint64_t value);
/* "copy NAME: SRC -> DST as T;": checks the name, the element type and that every live cell
 * of DST has a source position in SRC (the first one missing is diagnosed with its index). */
void sema_copy(Parser *ps, Loc at, Token name, const Map *src, const Map *dst, Token elem);
/* "tensor NAME: HbmTensor<bf16, CHIP, ELEMENT>;" or "tensor NAME[AXES]: ..." (maps and axes newest first,
 * axes NULL when not named): the kind, the element type, the number of mappings, the named axes and the
 * rules of tensor_check under the default limits. */
void sema_tensor(Parser *ps, Loc at, Token name, KItem *axes, Token kind, Token elem, MapList *maps);
/* Defines name as a tensor whose declaration was rejected (a syntax error after the name): no TensorDecl. */
void sema_tensor_rejected(Parser *ps, Token name);
/* Checks index-literal entries against their sizes; returns ok. */
bool sema_index_lit(Parser *ps, MapList *terms);
/* "pad(IDENT)": the padding kind named by IDENT. */
bool sema_pad_name(Parser *ps, Token name, CellKind *kind);

/* GEMM kernels (sema_kernel.c, KernelDecl in ast.h). The header opens the body's scope (ops: C, A, B;
 * NULL after a syntax error in the header: the body is then parsed but not checked); each clause is
 * checked as it ends; at the body's `}` (sema_kernel_end) the defaults are filled in, the whole kernel
 * is checked and, without errors, appended to the program, and the scope is closed. */
void sema_kernel_begin(Parser *ps, Token name, const KOperand *ops);
KItem *sema_kernel_item(Parser *ps, KItemKind kind, Token name, Token value, const Map *map);
void sema_kernel_clause(Parser *ps, Token word, KItem *items);
/* A kernel's grid clause (sema_grid.c): its items chip = m![...], cluster = ..., slice = ... over the kernel's
 * axes M and N only, into grid[3] and their positions into at[3]; false after diagnostics. */
bool sema_grid_clause(Parser *ps, const KernelDecl *k, Token word, const KItem *items, const Map **grid, Loc *at);
/* Completes the spread of k's work (KernelDecl.grid and block): the given grids, the chip grid C's Chip
 * mapping when not given, the split shorthand without a grid clause; checks the units (at most 2 clusters
 * and 256 slices), that each unit's work is a block of C (the grids' digits are the top digits of M and N)
 * and that each operand is on the chips the grid projects onto its axes. false after diagnostics at `at`
 * (or at the grid's mapping). */
bool sema_grid_finish(Parser *ps, KernelDecl *k, const Map *const *given, const Loc *given_at, bool grid_clause,
                      bool split_clause, Loc at);
/* The rows, columns and K values each unit of k computes by the grids given (NULL: not given; the chip grid
 * defaults to C's Chip mapping): the smallest stride of each axis's digits among them, else the axis's
 * size. Silent: sema_grid_finish reports what is wrong with the grids. */
void sema_grid_blocks(const Prog *p, const KernelDecl *k, const Map *const *given, uint64_t block[3]);
/* The word of the clause whose items are about to be parsed (it decides what M, N and K denote in them). */
void sema_kernel_word(Parser *ps, Token word);
void sema_kernel_end(Parser *ps);
/* Whether name is an axis of the kernel whose body is being parsed (any name, after a syntax error in its
 * header): *axis is then its tile axis, or -1 before the tile clause has made them or when the header is
 * wrong (the mapping is dropped without a diagnostic: the header or the clause reports why). */
bool sema_kernel_axis(const Parser *ps, Token name, int *axis);

/* Layout descriptors (docs/language.md §7): the grammar collects raw fields (desc_syntax.c), then
 * sema_tiled/sema_strided check them and build the equivalent mapping (NULL on error). */
DescItem *desc_syn_item(Parser *ps, DescItem *list, Token t, uint64_t num, bool ok);
DescVal *desc_syn_value(Parser *ps, DescValKind kind, Token at, DescItem *items, DescField *fields);
DescField *desc_syn_field(Parser *ps, DescField *list, Token key, DescVal *val);
const Map *sema_tiled(Parser *ps, Loc at, const DescField *fields);
const Map *sema_strided(Parser *ps, Loc at, const DescField *fields);

/* A layout of another system (sema_interop.c): the whole FOREIGN token, KIND![BODY] and its axis list [A, B]
 * when written; the equivalent mapping (NULL after diagnostics). */
const Map *sema_foreign(Parser *ps, Token t);

/* Lemon's generated entry points (parser.c). */
void *mapc_parserAlloc(void *(*alloc)(size_t));
void mapc_parserFree(void *p, void (*freeproc)(void *));
void mapc_parser(void *p, int kind, Token tok, Parser *ps);

#endif
