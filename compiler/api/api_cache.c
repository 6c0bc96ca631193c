/* api_cache.c — the public face of the on-disk JIT cache (mapc_jit_cache_*): choosing its directory, its
 * warning, its counts, and the environment's default directory the entry points that compile apply. */
#include "api_impl.h"

#include "codegen/codegen.h"

mapc_status api_cache_default(void) { return jit_cache_use_environment(true) ? MAPC_OK : MAPC_ERR_NOMEM; }

mapc_status mapc_jit_cache_dir(const char *dir)
{
    if (!(dir ? jit_cache_set_dir(dir) : jit_cache_use_environment(false)))
        return MAPC_ERR_NOMEM;
    return jit_cache_open() == JIT_CACHE_REFUSED ? MAPC_ERR_IO : MAPC_OK;
}

size_t mapc_jit_cache_warning(char *buf, size_t cap)
{
    return jit_cache_warning(buf, buf ? cap : 0, false); /* writes nothing when cap is 0 */
}

mapc_status mapc_jit_cache_counts(mapc_jit_cache_stats *out)
{
    if (!out)
        return MAPC_ERR_ARGUMENT;
    JitCacheStats s = jit_cache_stats();
    *out = (mapc_jit_cache_stats){.hits = s.hits, .compiled = s.compiled, .rejected = s.rebuilt};
    return MAPC_OK;
}
