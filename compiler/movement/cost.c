/* cost.c — the DMA cycle model of the book (docs/movement.md): requests per command, the HBM and DM sides, serial or pipelined tiers, engines; and the text of command plans. */
#include "mv_impl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Cycles are kept exactly in units of 1/640 (5.3 = 53/10 cycles per request, over 16 or 32 channels and 1 or 2
 * DMNs), and rounded half up only at the end. */
#define SCALE 640u

typedef unsigned __int128 Cyc;

/* One side of a command, in 1/640 cycles (E: the engines of the aggregate). */
static Cyc side_cycles(MvTier tier, uint64_t reqs, uint64_t req_bytes, unsigned channels, bool conflict, unsigned dmns,
                       uint32_t engines)
{
    if (tier == MV_TIER_DM)
        return (Cyc)reqs * ((req_bytes + 127) / 128) * SCALE / dmns;
    /* HBM: one request per cycle, or the channels' rate: E/ch requests per channel at c cycles each */
    Cyc floor = (Cyc)reqs * SCALE;
    Cyc rate = conflict ? (Cyc)reqs * engines * 40 * SCALE / channels : (Cyc)reqs * engines * 53 * (SCALE / 10) / channels;
    return rate > floor ? rate : floor;
}

/* A command: 500 cycles to start, then both sides one after the other within a tier, or overlapped across. */
static Cyc cmd_cycles(const MvCmd *c, uint32_t engines)
{
    uint64_t chunks = (c->packet_bytes + 255) / 256, req = c->packet_bytes < 256 ? c->packet_bytes : 256;
    uint64_t reqs = u64_sat_mul(c->packets, chunks);
    Cyc r = side_cycles(c->src, reqs, req, c->src_channels, c->src_conflict, c->src_dmns, engines);
    Cyc w = side_cycles(c->dst, reqs, req, c->dst_channels, c->dst_conflict, c->dst_dmns, engines);
    return (Cyc)500 * SCALE + (c->src == c->dst ? r + w : (r > w ? r : w));
}

uint64_t mv_cost(const MvCmd *cmds, const uint32_t *per_engine, uint32_t nengines)
{
    Cyc worst = 0;
    size_t k = 0;
    for (uint32_t e = 0; e < nengines; e++) {
        Cyc sum = 0;
        for (uint32_t i = 0; i < per_engine[e]; i++)
            sum += cmd_cycles(&cmds[k++], nengines);
        if (sum > worst)
            worst = sum;
    }
    Cyc cycles = (worst + SCALE / 2) / SCALE;
    return cycles > UINT64_MAX ? UINT64_MAX : (uint64_t)cycles;
}

/* ---- plans ---- */

typedef struct Reader {
    const char *s, *start;
    MvDiag *d;
} Reader;

static void skip(Reader *r)
{
    while (*r->s == ' ' || *r->s == '\t')
        r->s++;
}

static bool fail(Reader *r, const char *what)
{
    mv_fail(r->d, MV_BAD_PLAN, "%s at column %d of '%s'", what, (int)(r->s - r->start) + 1, r->start);
    return false;
}

static bool number(Reader *r, uint64_t *out, const char *what)
{
    skip(r);
    if (!isdigit((unsigned char)*r->s))
        return fail(r, what);
    uint64_t v = 0;
    while (isdigit((unsigned char)*r->s)) {
        if (!u64_mul(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(*r->s - '0'), &v))
            return fail(r, "a number over 64 bits");
        r->s++;
    }
    *out = v;
    return true;
}

static bool eat(Reader *r, char c)
{
    skip(r);
    if (*r->s != c)
        return false;
    r->s++;
    return true;
}

/* SIDE: hbm[/16|/32][c] or dm[/1|/2]. */
static bool side(Reader *r, MvTier *tier, unsigned *channels, bool *conflict, unsigned *dmns)
{
    skip(r);
    *channels = 32;
    *conflict = false;
    *dmns = 2;
    if (strncmp(r->s, "hbm", 3) == 0) {
        r->s += 3;
        *tier = MV_TIER_HBM;
        uint64_t ch;
        if (eat(r, '/')) {
            if (!number(r, &ch, "expected 16 or 32 channels after hbm/"))
                return false;
            if (ch != 16 && ch != 32)
                return fail(r, "HBM has 16 or 32 channels in use");
            *channels = (unsigned)ch;
        }
        if (*r->s == 'c') {
            r->s++;
            *conflict = true;
        }
        return true;
    }
    if (strncmp(r->s, "dm", 2) == 0) {
        r->s += 2;
        *tier = MV_TIER_DM;
        uint64_t n;
        if (eat(r, '/')) {
            if (!number(r, &n, "expected 1 or 2 DMNs after dm/"))
                return false;
            if (n != 1 && n != 2)
                return fail(r, "a DM side spans 1 or 2 DMNs");
            *dmns = (unsigned)n;
        }
        return true;
    }
    return fail(r, "expected hbm or dm");
}

static bool command(Reader *r, MvCmd *c)
{
    if (!number(r, &c->packets, "expected PACKETS") || !eat(r, ':') ||
        !number(r, &c->packet_bytes, "expected the packet BYTES after PACKETS:") || !eat(r, ':'))
        return *r->d->msg ? false : fail(r, "expected PACKETS:BYTES:SIDE>SIDE");
    if (c->packet_bytes == 0)
        return fail(r, "a packet of 0 bytes");
    if (!side(r, &c->src, &c->src_channels, &c->src_conflict, &c->src_dmns))
        return false;
    if (!eat(r, '>'))
        return fail(r, "expected '>' between the two sides");
    return side(r, &c->dst, &c->dst_channels, &c->dst_conflict, &c->dst_dmns);
}

bool mv_plan_parse(const char *text, MvCmd **cmds, uint32_t **per_engine, uint32_t *nengines, MvDiag *d)
{
    enum { MAX_CMDS = 4096, MAX_ENGINES = 65536 };
    Reader r = {text, text, d};
    d->msg[0] = 0;
    MvCmd *c = mem_calloc(MAX_CMDS, sizeof *c);
    uint32_t *pe = mem_calloc(MAX_ENGINES, sizeof *pe);
    size_t nc = 0;
    uint32_t ne = 0;
    bool ok = true;
    do {
        size_t first = nc;
        do {
            if (nc == MAX_CMDS) {
                ok = fail(&r, "more than 4096 commands");
                break;
            }
            ok = command(&r, &c[nc++]);
        } while (ok && eat(&r, '+'));
        uint64_t times = 1;
        if (ok && eat(&r, '*'))
            ok = number(&r, &times, "expected the number of engines after '*'") && (times > 0 || fail(&r, "*0 engines"));
        for (uint64_t t = 0; ok && t < times; t++) {
            if (ne == MAX_ENGINES || (t > 0 && nc + (nc - first) > MAX_CMDS)) {
                ok = fail(&r, "more than 65536 engines or 4096 commands");
                break;
            }
            if (t > 0)
                for (size_t i = first; i < first + (size_t)pe[ne - 1]; i++)
                    c[nc++] = c[i];
            uint32_t count = (uint32_t)(t == 0 ? nc - first : pe[ne - 1]);
            pe[ne++] = count;
        }
    } while (ok && eat(&r, ','));
    skip(&r);
    if (ok && *r.s)
        ok = fail(&r, "expected ',', '+', '*' or the end");
    if (!ok) {
        free(c);
        free(pe);
        return false;
    }
    *cmds = c;
    *per_engine = pe;
    *nengines = ne;
    return true;
}
