/* api.c — the public C API (mapc.h) over the front end, the interpreter, equivalence and the JIT. */
#include "api_impl.h"
#include "mapc_version.h"

#include "algebra/algebra.h"
#include "codegen/codegen.h"
#include "front/front.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mapc_jit {
    Jit *jit;
};

const char *mapc_version(void) { return MAPC_VERSION_STRING; }

const char *mapc_status_string(mapc_status s)
{
    switch (s) {
    case MAPC_OK: return "success";
    case MAPC_ERR_INPUT: return "the program has errors";
    case MAPC_ERR_ARGUMENT: return "invalid argument";
    case MAPC_ERR_NOT_FOUND: return "no such name";
    case MAPC_ERR_UNDECIDED: return "undecided within the budget";
    case MAPC_ERR_IO: return "cannot read the file";
    case MAPC_ERR_NOMEM: return "out of memory";
    case MAPC_ERR_BACKEND: return "code generation failed";
    }
    return "unknown status";
}

static mapc_status compile_string_body(const char *name, const char *text, size_t len, mapc_program **out)
{
    if (!out)
        return MAPC_ERR_ARGUMENT;
    *out = NULL;
    if (!text)
        return MAPC_ERR_ARGUMENT;
    mapc_program *p = calloc(1, sizeof *p);
    if (!p || !(p->prog = prog_new())) {
        free(p);
        return MAPC_ERR_NOMEM;
    }
    prog_parse(p->prog, name ? name : "<string>", text, len);
    p->compile_errors = p->prog->diags.count;
    *out = p;
    return p->prog->diags.count ? MAPC_ERR_INPUT : MAPC_OK;
}

mapc_status mapc_compile_string(const char *name, const char *text, size_t len, mapc_program **out)
{
    GUARDED(compile_string_body(name, text, len, out));
}

mapc_status mapc_compile_file(const char *path, mapc_program **out)
{
    if (!out)
        return MAPC_ERR_ARGUMENT;
    *out = NULL;
    if (!path)
        return MAPC_ERR_ARGUMENT;
    FILE *f = fopen(path, "rb");
    if (!f)
        return MAPC_ERR_IO;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *b = realloc(buf, cap *= 2);
        if (!b)
            free(buf);
        buf = b;
    }
    bool err = ferror(f);
    fclose(f);
    if (!buf)
        return MAPC_ERR_NOMEM;
    if (err) {
        free(buf);
        return MAPC_ERR_IO;
    }
    mapc_status s = mapc_compile_string(path, buf, n, out);
    free(buf);
    return s;
}

void mapc_program_free(mapc_program *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->ntexts; i++)
        free(p->texts[i]);
    free(p->texts);
    prog_free(p->prog);
    free(p);
}

size_t mapc_diag_count(const mapc_program *p) { return p ? (size_t)p->prog->diags.count : 0; }

void mapc_diag_clear(mapc_program *p)
{
    if (!p || p->prog->diags.count <= p->compile_errors)
        return;
    Diags *d = &p->prog->diags;
    Diag **link = &d->head;
    for (int i = 0; i < p->compile_errors; i++)
        link = &(*link)->next;
    *link = NULL; /* the cleared nodes stay in the program's arena until it is freed */
    d->tail = link;
    d->count = p->compile_errors;
    for (size_t i = (size_t)p->compile_errors; i < p->ntexts; i++) {
        free(p->texts[i]);
        p->texts[i] = NULL;
    }
    if (p->ntexts > (size_t)p->compile_errors)
        p->ntexts = (size_t)p->compile_errors;
}

const char *mapc_diag_text(mapc_program *p, size_t i)
{
    if (!p || i >= (size_t)p->prog->diags.count)
        return NULL;
    if (p->ntexts <= i) {
        char **t = realloc(p->texts, (size_t)p->prog->diags.count * sizeof *t);
        if (!t)
            return NULL;
        for (size_t k = p->ntexts; k < (size_t)p->prog->diags.count; k++)
            t[k] = NULL;
        p->texts = t;
        p->ntexts = (size_t)p->prog->diags.count;
    }
    if (!p->texts[i]) {
        const Diag *d = p->prog->diags.head;
        for (size_t k = 0; k < i; k++)
            d = d->next;
        size_t n = diag_format(d, NULL, 0);
        p->texts[i] = malloc(n + 1);
        if (!p->texts[i])
            return NULL;
        diag_format(d, p->texts[i], n + 1);
    }
    return p->texts[i];
}

/* The axes outside mapc are the public ones (those of axes![...], not the kernels' tile axes), as in the
 * generated functions' coordinates. */
int mapc_axis_count(const mapc_program *p) { return p ? prog_public_axes(p->prog) : -1; }

mapc_status mapc_axis(const mapc_program *p, int i, const char **name, uint64_t *size)
{
    if (!p || i < 0)
        return MAPC_ERR_ARGUMENT;
    for (int a = 0; a < p->prog->naxes; a++)
        if (prog_public_index(p->prog, a) == i) {
            if (name)
                *name = p->prog->axes[a].name;
            if (size)
                *size = p->prog->axes[a].size;
            return MAPC_OK;
        }
    return MAPC_ERR_ARGUMENT;
}

int mapc_type_count(const mapc_program *p) { return p ? p->prog->ntypes : -1; }

mapc_status mapc_type_name(const mapc_program *p, int i, const char **name)
{
    if (!p || !name || i < 0 || i >= p->prog->ntypes)
        return MAPC_ERR_ARGUMENT;
    *name = p->prog->types[i]->name;
    return MAPC_OK;
}

mapc_status api_resolve(mapc_program *p, const char *name, const Map **m)
{
    if (!p || !name)
        return MAPC_ERR_ARGUMENT;
    if (p->compile_errors && !p->prog->ntypes)
        return MAPC_ERR_INPUT;
    /* written inline: m![...], cute![...], tiled![...], ... (a word and '!'; type names have none) */
    size_t word = strspn(name, "abcdefghijklmnopqrstuvwxyz_");
    if (word > 0 && name[word] == '!') {
        *m = prog_parse_map(p->prog, "<inline>", name);
        return *m ? MAPC_OK : MAPC_ERR_INPUT;
    }
    const Name *n = prog_lookup(p->prog, name);
    if (!n || n->kind != NAME_TYPE)
        return MAPC_ERR_NOT_FOUND;
    if (!n->map)
        return MAPC_ERR_INPUT;
    *m = n->map;
    return MAPC_OK;
}

static mapc_status type_size_body(mapc_program *p, const char *name, uint64_t *size)
{
    const Map *m;
    if (!size)
        return MAPC_ERR_ARGUMENT;
    mapc_status s = api_resolve(p, name, &m);
    if (s == MAPC_OK)
        *size = m->size;
    return s;
}

mapc_status mapc_type_size(mapc_program *p, const char *name, uint64_t *size)
{
    GUARDED(type_size_body(p, name, size));
}

static mapc_status eval_body(mapc_program *p, const char *name, uint64_t pos, int *kind, int64_t *coords)
{
    if (!kind || !coords)
        return MAPC_ERR_ARGUMENT;
    return api_eval_many(p, name, &pos, 1, kind, coords);
}

mapc_status mapc_eval(mapc_program *p, const char *name, uint64_t pos, int *kind, int64_t *coords)
{
    GUARDED(eval_body(p, name, pos, kind, coords));
}

static mapc_status equiv_body(mapc_program *p, const char *name1, const char *name2, int *equivalent, uint64_t *pos)
{
    const Map *a, *b;
    if (!equivalent)
        return MAPC_ERR_ARGUMENT;
    mapc_status s = api_resolve(p, name1, &a);
    if (s == MAPC_OK)
        s = api_resolve(p, name2, &b);
    if (s != MAPC_OK)
        return s;
    int na = p->prog->naxes;
    EqvResult r = {.c1.coord = calloc((size_t)na + 1, sizeof(uint64_t)),
                   .c2.coord = calloc((size_t)na + 1, sizeof(uint64_t))};
    Eqv *q = eqv_new(p->prog); /* the decision procedure of algebra.h */
    if (!q || !r.c1.coord || !r.c2.coord) {
        s = MAPC_ERR_NOMEM;
    } else {
        eqv_decide(q, a, b, &r);
        if (r.verdict == EQV_UNKNOWN) {
            diag_error(&p->prog->diags, (Loc){0}, "cannot decide equivalence: %s", eqv_error(q));
            s = MAPC_ERR_UNDECIDED;
        } else {
            *equivalent = r.verdict == EQV_EQUIVALENT;
            if (pos && r.verdict == EQV_CELLS_DIFFER)
                *pos = r.pos;
        }
    }
    eqv_free(q);
    free(r.c1.coord);
    free(r.c2.coord);
    return s;
}

mapc_status mapc_equiv(mapc_program *p, const char *name1, const char *name2, int *equivalent, uint64_t *pos)
{
    GUARDED(equiv_body(p, name1, name2, equivalent, pos));
}

static mapc_status jit_create_body(mapc_program *p, const mapc_jit_options *opts, mapc_jit **out)
{
    if (!out)
        return MAPC_ERR_ARGUMENT;
    *out = NULL;
    if (!p)
        return MAPC_ERR_ARGUMENT;
    if (opts && (opts->opt_level < -1 || opts->opt_level > 3))
        return MAPC_ERR_ARGUMENT;
    if (p->compile_errors) /* only the program's own errors: a failed query before does not block the JIT */
        return MAPC_ERR_INPUT;
    CgOptions o = {.opt_level = 2};
    if (opts) {
        o.opt_level = opts->opt_level == 0 ? 2 : opts->opt_level < 0 ? 0 : opts->opt_level; /* 0: the default */
        o.cpu = opts->cpu;
        o.prefix = opts->prefix;
    }
    mapc_jit *j = calloc(1, sizeof *j);
    if (!j)
        return MAPC_ERR_NOMEM;
    j->jit = jit_new(p->prog, &o, &p->prog->diags);
    if (!j->jit) {
        free(j);
        return MAPC_ERR_BACKEND;
    }
    *out = j;
    return MAPC_OK;
}

mapc_status mapc_jit_create(mapc_program *p, const mapc_jit_options *opts, mapc_jit **out)
{
    if (api_cache_default() != MAPC_OK)
        return MAPC_ERR_NOMEM;
    GUARDED(jit_create_body(p, opts, out));
}

mapc_status mapc_jit_lookup(mapc_jit *j, const char *symbol, void **fn)
{
    if (!j || !symbol || !fn)
        return MAPC_ERR_ARGUMENT;
    *fn = jit_lookup(j->jit, symbol);
    return *fn ? MAPC_OK : MAPC_ERR_NOT_FOUND;
}

/* Looks up TYPE + suffix. */
static mapc_status lookup_suffixed(mapc_jit *j, const char *type, const char *suffix, void **fn)
{
    if (!j || !type || !fn)
        return MAPC_ERR_ARGUMENT;
    size_t n = strlen(type) + strlen(suffix) + 1;
    char *s = malloc(n);
    if (!s)
        return MAPC_ERR_NOMEM;
    snprintf(s, n, "%s%s", type, suffix);
    mapc_status st = mapc_jit_lookup(j, s, fn);
    free(s);
    return st;
}

/* Function pointers travel through void * here: POSIX guarantees the conversion. */
mapc_status mapc_jit_cell(mapc_jit *j, const char *type, mapc_cell_fn *fn)
{
    void *f = NULL;
    if (!fn)
        return MAPC_ERR_ARGUMENT;
    mapc_status s = lookup_suffixed(j, type, "_cell", &f);
    *fn = (mapc_cell_fn)f;
    return s;
}

mapc_status mapc_jit_offset(mapc_jit *j, const char *type, mapc_offset_fn *fn)
{
    void *f = NULL;
    if (!fn)
        return MAPC_ERR_ARGUMENT;
    mapc_status s = lookup_suffixed(j, type, "_offset", &f);
    *fn = (mapc_offset_fn)f;
    return s;
}

mapc_status mapc_jit_each(mapc_jit *j, const char *type, mapc_each_fn *fn)
{
    void *f = NULL;
    if (!fn)
        return MAPC_ERR_ARGUMENT;
    mapc_status s = lookup_suffixed(j, type, "_each", &f);
    *fn = (mapc_each_fn)f;
    return s;
}

mapc_status mapc_jit_copy(mapc_jit *j, const char *copy, mapc_copy_fn *fn)
{
    void *f = NULL;
    if (!fn)
        return MAPC_ERR_ARGUMENT;
    mapc_status s = lookup_suffixed(j, copy, "", &f);
    *fn = (mapc_copy_fn)f;
    return s;
}

void mapc_jit_free(mapc_jit *j)
{
    if (!j)
        return;
    jit_free(j->jit);
    free(j);
}

mapc_status api_refuse(mapc_program *p, mapc_status s, const char *msg)
{
    diag_error(&p->prog->diags, (Loc){0}, "%s", msg);
    return s;
}
