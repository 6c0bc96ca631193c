/* movement.h — moving tensors as the NPU does: sequencer configs, DMA commands, tails, DM banks and DMA cycle costs, derived from mappings (docs/movement.md). */
#ifndef MAPC_MOVEMENT_H
#define MAPC_MOVEMENT_H

#include "core/ast.h"

/*
 * A sequencer is a hardware loop nest [n0:s0, n1:s1, ...]:P (outermost first, strides in elements, 0 a
 * broadcast) that walks a buffer laid out by one mapping as the packet stream m![{Time}, {Packet}] of
 * another: stream position p = t*|Packet| + k reads (or writes) buffer position sum(d_i * s_i), where the
 * d_i are the mixed-radix digits of p over the n_i, the last entry fastest. mv_sequence derives it:
 *
 *   1. both mappings are flattened into factors (mv_factor.c), the class of layouts a sequencer walks;
 *   2. the digits of every axis are cut at each other's boundaries (their common refinement);
 *   3. each stream factor is matched to a buffer factor of the same digit, whose stride it takes
 *      (unmatched ones broadcast when reading), with the padding and coverage rules of the mode;
 *   4. the raw config (one entry per stream factor) is merged per descriptor (time, then packet, never
 *      across) into the config the limits check: 65536 iterations, 8 entries, the innermost entry, the
 *      hardware access (read size of 1..32 bytes);
 *   5. the DM bank run of its accesses is reported.
 *
 * A DMA (mv_dma) is a read and a write sequencer over one stream [Engines, Time, Packet], refined together so
 * that they share loop counts, with its tails, alignment and the cycle model of the book's DMA engine.
 * Nothing here prints: every failure is an MvCode and a message naming the factor or entry at fault and its
 * numbers. The functions need a memory guard (core/base.h) like the rest of the library.
 */

/* The errors: X(code, spelling). The spellings are what mapc prints ("error: incompatible: ..."). */
#define MV_CODES(X)                                     \
    X(MV_OK, "ok")                                      \
    X(MV_UNSUPPORTED, "unsupported")                    \
    X(MV_INCOMPATIBLE, "incompatible")                  \
    X(MV_INPUT_BOTTOM, "input-bottom-padding")          \
    X(MV_UNMATCHED, "unmatched-segment")                \
    X(MV_UNCONSUMED, "unconsumed")                      \
    X(MV_ITERATION_LIMIT, "iteration-limit")            \
    X(MV_TOO_MANY_ENTRIES, "too-many-entries")          \
    X(MV_INNERMOST, "innermost-entry")                  \
    X(MV_PACKET_SIZE, "packet-size")                    \
    X(MV_DMA_TYPE, "dma-type")                          \
    X(MV_DMA_CONTIGUITY, "dma-packet-contiguity")       \
    X(MV_DMA_PACKET_SIZE, "dma-packet-size")            \
    X(MV_DMA_ALIGN, "dma-align")                        \
    X(MV_BAD_PLAN, "plan")

typedef enum {
#define X(k, s) k,
    MV_CODES(X)
#undef X
    MV_NCODES
} MvCode;

/* "incompatible", ...; "?" out of range. */
const char *mv_code_name(MvCode c);

/* What went wrong: the code and a message with the numbers (without the code). */
typedef struct MvDiag {
    MvCode code;
    char msg[512];
} MvDiag;

/* The sequencer's modes: read (buffer to stream, cells may be read many times), write (stream to buffer,
 * each cell once, every live cell and zero pad written), carve (a read that takes stream pad(bottom) as
 * pad(top)). */
typedef enum { MV_READ, MV_WRITE, MV_CARVE } MvMode;
/* "read", "write", "carve"; parsing: false when the word is none of them. */
const char *mv_mode_name(MvMode m);
bool mv_mode_parse(const char *word, MvMode *out);

/* The width of an element type in bits (i8 8, bf16 16, f32 32, ...); mv_elem_bits_parse also knows i4, f8 and
 * accepts a number of bits (4, 8, 16, 32, 64); false when the word is none of them. */
unsigned mv_elem_bits(ElemType t);
bool mv_elem_bits_parse(const char *word, unsigned *bits);

enum {
    MV_MAX_ENTRIES = 8,      /* entries of one sequencer (time plus packet) */
    MV_MAX_RAW = 64,         /* entries of extent >= 2 multiply to at most 2^64 */
    MV_MAX_SUB = 8,          /* the parts of one composite digit (A # 4 / 2, A # 4 % 2) */
};
#define MV_MAX_N UINT64_C(65536) /* iterations of one entry */

/* One loop of a config: n iterations, stride s elements (0: a broadcast). */
typedef struct MvEntry {
    uint64_t n;
    int64_t s;
} MvEntry;

/* A derived sequencer: the raw config (one entry per stream factor of extent >= 2, in stream order) and the
 * config merged per descriptor; each has its time entries first and then its packet entries (the shortest
 * suffix whose sizes multiply to packet). Filled as far as the derivation got. */
typedef struct MvSeq {
    MvEntry raw[MV_MAX_RAW];
    int nraw, raw_time;
    MvEntry cfg[MV_MAX_RAW];
    int ncfg, cfg_time;
    uint64_t time, packet;   /* |Time|, |Packet| (P) */
    unsigned elem_bits;
    uint64_t run;            /* the book's contiguous run of the merged config */
    uint64_t access;         /* gcd(P, run): elements per hardware access */
    uint64_t read_size;      /* the largest divisor of access of 1, 2, 4, 8, 16 or 32 bytes */
    uint64_t reads;          /* accesses per packet: P / read_size */
    uint64_t fetch_cycles;   /* |Time| * reads (a Fetch in the main context) */
    uint64_t bank_run;       /* the longest run of consecutive accesses sharing a DM bank (<= 63 with DMA active) */
} MvSeq;

/* Derives the sequencer of buf walked as the stream m![{time}, {packet}] in mode, for elements of elem_bits
 * bits (docs/movement.md): MV_OK and *out, or the first error in *d. Stops before the limits
 * (iteration-limit and later) when limits is false, with the raw and merged configs filled (what tests and
 * pictures use). */
MvCode mv_sequence(const Prog *p, const Map *buf, const Map *time, const Map *packet, MvMode mode,
                   unsigned elem_bits, bool limits, MvSeq *out, MvDiag *d);

/* The merged config, the limits, the access and the bank run of a raw config whose first raw_time entries are
 * time (mv_sequence's last steps, for a config given by hand): fills s from s->raw, s->nraw, s->raw_time,
 * s->packet, s->time and s->elem_bits. */
MvCode mv_seq_finish(MvSeq *s, MvDiag *d);

/* The book's contiguous_run of entries e[0..n) (outermost first): the innermost n, times each outer n while
 * its stride is the inner run's n times its stride; 1 for no entries. */
uint64_t mv_contiguous_run(const MvEntry *e, int n);

/* The buffer position of stream position pos under entries e[0..n) (the odometer; broadcast digits add 0). */
int64_t mv_walk_addr(const MvEntry *e, int n, uint64_t pos);

/* Appends "[8:1, 8:8]:P" to t (entries outermost first). */
void mv_config_text(Text *t, const MvEntry *e, int n, uint64_t packet);

/* ---- Tails (docs/movement.md) ---- */

/* tails(src, dst): common, the largest c >= 1 such that every position q < c holds equal cells in both and
 * neither is pad(bottom) or pad(zero); and each side's packet, grown from common through its own pad(top)
 * cells (the first position >= common that is not pad(top), or the size). out = {src_packet, dst_packet,
 * common}. false (with the interpreter's message in d) when a cell cannot be decided. */
bool mv_tails(const Prog *p, const Map *src, const Map *dst, uint64_t out[3], MvDiag *d);

/* ---- DMA (docs/movement.md) ---- */

/* One loop of a DMA command: n iterations, a read stride and a write stride (elements, layout positions). */
typedef struct MvPair {
    uint64_t n;
    int64_t r, w;
} MvPair;

typedef enum { MV_TIER_HBM, MV_TIER_DM } MvTier;

/* One command of a cost plan (docs/movement.md): packets of packet_bytes from src to dst tier; an HBM side with
 * channels 16 or 32 and row conflicts or not, a DM side over dmns 1 or 2 DMNs. */
typedef struct MvCmd {
    uint64_t packets, packet_bytes;
    MvTier src, dst;
    unsigned src_channels, dst_channels; /* HBM: 16 or 32 */
    bool src_conflict, dst_conflict;     /* HBM: rows switch on nearly every request */
    unsigned src_dmns, dst_dmns;         /* DM: 1 or 2 */
} MvCmd;

/* A derived DMA command between two tensors. */
typedef struct MvDma {
    MvPair raw[MV_MAX_RAW];      /* time and packet entries, in stream order (engine entries apart) */
    int nraw, raw_time;
    MvPair cfg[MV_MAX_RAW];      /* merged per descriptor on both sides at once */
    int ncfg, cfg_time;
    MvPair eng[MV_MAX_RAW];      /* the engine entries: per-engine bases, not part of the command */
    int neng;
    uint64_t engines, time, packet;
    ElemType elem;
    MemKind src_mem, dst_mem;
    uint64_t tails[3];           /* tails(src element, dst element) */
    unsigned min_align;          /* bytes: 8 with DM on either side, else 1 */
    MvCmd cmd;                   /* engine 0's command as the cost model sees it */
    uint64_t cycles;             /* the cost model's total: the slowest engine */
} MvDma;

/* Derives the DMA moving tensor src into dst over the stream [engines, time, packet] (time and packet NULL: the
 * default stream, dst's layout without unit padding, its innermost factor the packet; with fit, its innermost
 * digits instead whose volume divides the two elements' common tail and fits 4096 bytes, one run in both; engines
 * NULL: one engine), with its checks (dma-type, dma-packet-contiguity, dma-packet-size, dma-align) and cycles. */
MvCode mv_dma(const Prog *p, const TensorDecl *src, const TensorDecl *dst, const Map *time, const Map *packet,
              const Map *engines, bool fit, MvDma *out, MvDiag *d);

/* Appends the merged config of one side of a DMA command ("[8:2048, 8:256, 256:1]:256") to t. */
void mv_dma_text(Text *t, const MvDma *x, bool write);

/* The cycles of a plan: cmds of engine e are the next per_engine[e] commands, an engine takes the sum of its
 * commands, the plan the slowest engine, rounded half up (docs/movement.md; E in the HBM formula is nengines). */
uint64_t mv_cost(const MvCmd *cmds, const uint32_t *per_engine, uint32_t nengines);

/* Parses a plan "PACKETS:BYTES:SIDE>SIDE [+ CMD ...] [*N], ENGINE ..." (SIDE: hbm[/16|/32][c] or dm[/1|/2];
 * c marks row conflicts; *N repeats an engine N times) into malloc'ed arrays (*cmds, *per_engine, *nengines);
 * false with the message in d (code MV_BAD_PLAN). */
bool mv_plan_parse(const char *text, MvCmd **cmds, uint32_t **per_engine, uint32_t *nengines, MvDiag *d);

#endif
