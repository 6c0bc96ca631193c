/* api_impl.h — what the files of the public C API share: the program object and the out-of-memory guard. */
#ifndef MAPC_API_IMPL_H
#define MAPC_API_IMPL_H

#include "mapc.h"

#include "core/base.h"
#include "front/front.h"

struct mapc_program {
    Prog *prog;
    char **texts;       /* formatted diagnostics, cached by index (malloc'ed) */
    size_t ntexts;
    int compile_errors; /* diagnostics of the compilation itself (later calls may append their own) */
};

/* The out-of-memory guard of the entry points (core/base.h): runs `call` and returns its status, or
 * MAPC_ERR_NOMEM when the heap ran out below it (what the call had allocated is then lost). */
#define GUARDED(call)                           \
    do {                                        \
        MemGuard guard_;                        \
        if (MEM_GUARD(guard_))                  \
            return MAPC_ERR_NOMEM;              \
        mapc_status status_ = (call);           \
        mem_guard_release(&guard_);             \
        return status_;                         \
    } while (0)

/* A type by name, or an inline "m![...]" parsed against the program (diagnostics appended), into *m:
 * MAPC_ERR_ARGUMENT (NULL), MAPC_ERR_INPUT (errors), MAPC_ERR_NOT_FOUND (no such type). */
mapc_status api_resolve(mapc_program *p, const char *name, const Map **m);
/* The mapping m as m![...] text, malloc'ed into *out: MAPC_OK or MAPC_ERR_NOMEM (*out NULL). */
mapc_status api_format_map(const mapc_program *p, const Map *m, char **out);
/* The cells of pos[0..n) of the mapping name into kinds[0..n) and coords (axis_count per position): what
 * mapc_eval_many does, under the caller's guard. */
mapc_status api_eval_many(mapc_program *p, const char *name, const uint64_t *pos, size_t n, int *kinds,
                          int64_t *coords);
struct RtTransport;
/* A runtime over p whose chips are the processes of transport (NULL: one process); the runtime owns and frees
 * the transport, also when the call fails. */
mapc_status api_runtime_create(mapc_program *p, int threads, struct RtTransport *transport, mapc_runtime **out);

/* Copies the printf-style message into buf[cap] (the objects' last-error strings). */
void api_set_error(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Whether a kernel's scalar (alpha or beta) is finite and within f32, or for an i8 kernel (is_int) a 32-bit
 * integer; false with the message in err[cap] ("alpha (nan) must be finite and within the range of f32"). */
bool api_scalar_ok(bool is_int, const char *what, double v, char *err, size_t cap);

/* The public plan of a derived DMA command, and a movement error as its public code with the message in err (may
 * be NULL): api_seq.c, for the runtime's mapc_dma_npu too. */
struct MvDma;
struct MvDiag;
struct mapc_dma_plan;
struct mapc_diag;
void api_dma_plan(const struct MvDma *x, struct mapc_dma_plan *out);
int api_movement_error(struct mapc_diag *err, const struct MvDiag *d);

/* Points the on-disk JIT cache at the environment's directory unless the program chose one
 * (mapc_jit_cache_dir): what every entry point that compiles calls first. MAPC_ERR_NOMEM or MAPC_OK. */
mapc_status api_cache_default(void);

/* Appends a diagnostic without a source position to the program (what a call refuses); returns s. */
mapc_status api_refuse(mapc_program *p, mapc_status s, const char *msg);

#endif
