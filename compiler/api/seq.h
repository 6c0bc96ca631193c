/* seq.h — the public C API of the NPU's data movement: sequencer configs, DMA commands, tails and DMA cycles derived from a program's mappings and tensors (docs/movement.md). Installed as <mapc/seq.h>. */
#ifndef MAPC_SEQ_H
#define MAPC_SEQ_H

#include "mapc.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Every type here is a plain value. Mapping arguments are type names of the program or inline "m![...]" texts
 * (parsed against its axes; their syntax errors become the program's diagnostics), tensor arguments tensor
 * names. Functions return 0, a mapc_status for a bad call (MAPC_ERR_ARGUMENT for NULL or a bad mode,
 * MAPC_ERR_NOT_FOUND for an unknown name, MAPC_ERR_INPUT for a mapping with errors, MAPC_ERR_NOMEM), or one of
 * the movement errors below; err (may be NULL) then holds the same code and the message mapc prints after
 * "error: CODE: ".
 */

/* The movement errors, numbered apart from mapc_status. */
typedef enum mapc_seq_error {
    MAPC_E_UNSUPPORTED = 16,        /* a mapping outside the layouts a sequencer walks */
    MAPC_E_INCOMPATIBLE = 17,       /* two decompositions of an axis without a common refinement */
    MAPC_E_INPUT_BOTTOM = 18,       /* pad(bottom) in an input that may not hold it */
    MAPC_E_UNMATCHED = 19,          /* a stream digit the buffer cannot supply or take */
    MAPC_E_UNCONSUMED = 20,         /* buffer cells the stream never reads or writes */
    MAPC_E_ITERATION_LIMIT = 21,    /* an entry over 65536 iterations */
    MAPC_E_TOO_MANY_ENTRIES = 22,   /* more than 8 entries after merging */
    MAPC_E_INNERMOST = 23,          /* the innermost entry is neither contiguous nor one element */
    MAPC_E_PACKET_SIZE = 24,        /* no access of 1, 2, 4, 8, 16 or 32 bytes */
    MAPC_E_DMA_TYPE = 25,           /* source and destination element types differ */
    MAPC_E_DMA_CONTIGUITY = 26,     /* a DMA packet that is not one run of stride 1 on both sides */
    MAPC_E_DMA_PACKET_SIZE = 27,    /* a DMA packet over 4096 bytes */
    MAPC_E_DMA_ALIGN = 28,          /* a DMA tail, stride or packet off the alignment */
    MAPC_E_PLAN = 29                /* a cost plan that does not parse */
} mapc_seq_error;

/* What went wrong: code (0, a mapc_status or a mapc_seq_error) and the message. */
typedef struct mapc_diag {
    int code;
    char message[512];
} mapc_diag;

typedef struct mapc_seq_entry {
    uint64_t n;      /* iterations */
    int64_t stride;  /* elements (0: a broadcast) */
} mapc_seq_entry;

/* A sequencer config [n0:s0, ...]:packet. e: merged per descriptor (time, then packet), count <= 8 of which
 * time_count are time entries; raw: one entry per stream digit. */
typedef struct mapc_seq_config {
    mapc_seq_entry e[8];
    uint32_t count, time_count;
    uint64_t packet;
    uint64_t run, access, read_size, bank_run;
    uint64_t reads, fetch_cycles;
    mapc_seq_entry raw[64];
    uint32_t raw_count, raw_time_count;
} mapc_seq_config;

typedef enum mapc_seq_mode { MAPC_SEQ_READ, MAPC_SEQ_WRITE, MAPC_SEQ_CARVE } mapc_seq_mode;

/* The sequencer walking the buffer buf as the stream m![{time}, {packet}] in mode, for elements of elem_bits bits
 * (4, 8, 16, 32 or 64). Mutates (mappings parsed inline are added to the program). */
int mapc_sequence(mapc_program *p, const char *buf, const char *time, const char *packet, mapc_seq_mode mode,
                  unsigned elem_bits, mapc_seq_config *out, mapc_diag *err);

/* tails(src, dst) of two mappings: out = {src_packet, dst_packet, common}. Mutates. */
int mapc_dma_tails(mapc_program *p, const char *src, const char *dst, uint64_t out[3], mapc_diag *err);

/* A DMA command between two tensors: its read and write sequencers (same loop counts; run, access and the other
 * sizes are left 0), tails, engines, cycles and alignment in bytes. */
typedef struct mapc_dma_plan {
    mapc_seq_config read, write;
    uint64_t tails[3], engines, cycles;
    unsigned min_align;
} mapc_dma_plan;

/* The DMA moving tensor src into tensor dst over the stream [engines, time, packet]: time and packet both NULL for
 * the destination's own stream, engines NULL for one engine. Mutates. */
int mapc_dma_derive(mapc_program *p, const char *src, const char *dst, const char *time, const char *packet,
                    const char *engines, mapc_dma_plan *out, mapc_diag *err);

/* The NPU DMA command a runtime DMA between two views corresponds to (mapc_dma moves the data): what
 * mapc_dma_derive gives for the views' distributions over the destination's own stream, its packet narrowed to
 * the common tail with fit. */
int mapc_dma_npu(mapc_runtime *r, const mapc_view *dst, const mapc_view *src, int fit, mapc_dma_plan *out,
                 mapc_diag *err);

typedef enum mapc_dma_tier { MAPC_TIER_HBM, MAPC_TIER_DM } mapc_dma_tier;

/* One command of a cost plan: packets of packet_bytes from src to dst; an HBM side uses 16 or 32 channels and
 * has row conflicts or not, a DM side spans 1 or 2 DMNs. */
typedef struct mapc_dma_cmd {
    uint64_t packets, packet_bytes;
    mapc_dma_tier src, dst;
    unsigned src_channels, dst_channels;
    int src_conflict, dst_conflict;
    unsigned src_dmns, dst_dmns;
} mapc_dma_cmd;

/* The cycles of a plan: engine e runs the next per_engine[e] commands of cmds; an engine takes the sum of its
 * commands (500 cycles each plus its sides), the plan its slowest engine. 0 for bad arguments (a command's
 * channels not 16 or 32, dmns not 1 or 2, a NULL array). */
uint64_t mapc_dma_cost(const mapc_dma_cmd *cmds, const uint32_t *per_engine, uint32_t engines);

/* The cycles of a plan given as mapc dma-cost's text ("65536:256:hbm/32c>dm*8"). */
int mapc_dma_cost_plan(const char *plan, uint64_t *cycles, mapc_diag *err);

#ifdef __cplusplus
}
#endif

#endif
