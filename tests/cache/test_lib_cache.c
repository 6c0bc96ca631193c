/* test_lib_cache.c — the library's on-disk JIT cache (docs/c-api.md): a host program run twice compiles
 * nothing the second time, with the directory from MAPC_CACHE_DIR or from mapc_jit_cache_dir (which wins over
 * the environment); a directory others may write is refused with MAPC_ERR_IO and a warning naming it and its
 * mode; "" turns the cache off. The runs are new processes (this program re-executed as a child). */
#include "mapc.h"

#include "harness.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char program[] = "axes![M = 16, N = 16, K = 16];\n"
                              "type Rows = m![M, N];\n"
                              "type Tiles = m![M / 4, N / 4, M % 4, N % 4];\n"
                              "copy to_tiles: Rows -> Tiles as f32;\n"
                              "tensor A: HbmTensor<f32, m![1], m![M, K]>;\n"
                              "tensor B: HbmTensor<f32, m![1], m![K, N]>;\n"
                              "tensor C: HbmTensor<f32, m![1], m![M, N]>;\n"
                              "kernel mm: C[M, N] = A[M, K] * B[K, N] { tile M = 16, N = 16, K = 16; }\n";

/* The child: optionally chooses dir, JIT-compiles the program and its kernel, prints its counts. */
static int child(const char *dir)
{
    if (dir && mapc_jit_cache_dir(dir) != MAPC_OK)
        return 3;
    mapc_program *p = NULL;
    mapc_jit *j = NULL;
    mapc_kernel *k = NULL;
    if (mapc_compile_string("cache", program, strlen(program), &p) != MAPC_OK ||
        mapc_jit_create(p, NULL, &j) != MAPC_OK || mapc_kernel_create(p, "mm", NULL, &k) != MAPC_OK)
        return 4;
    mapc_copy_fn copy;
    if (mapc_jit_copy(j, "to_tiles", &copy) != MAPC_OK)
        return 5;
    mapc_jit_cache_stats s;
    mapc_jit_cache_counts(&s);
    printf("compiled %llu hits %llu rejected %llu\n", (unsigned long long)s.compiled, (unsigned long long)s.hits,
           (unsigned long long)s.rejected);
    mapc_kernel_free(k);
    mapc_jit_free(j);
    mapc_program_free(p);
    mapc_release_caches();
    return 0;
}

/* mapc_jit_cache_dir(dir) is refused with a warning holding want (and naming dir). */
static void refused(const char *dir, const char *want, const char *what)
{
    char warn[1024];
    mapc_status s = mapc_jit_cache_dir(dir);
    mapc_jit_cache_warning(warn, sizeof warn);
    CHECK(s == MAPC_ERR_IO && strstr(warn, dir) && strstr(warn, want), "%s: refused (%s) with '%s' in: %s", what,
          mapc_status_string(s), want, warn);
}

/* Every kind of directory and key the cache refuses, in the directory dir (a good cache; left good). */
static void refusals(const char *dir)
{
    static const struct {
        int mode;
        const char *want;
    } modes[] = {{0777, "writable by its group and others (mode 0777)"}, {0720, "writable by its group (mode 0720)"},
                 {01703, "writable by others (mode 1703)"}, {0770, "writable by its group (mode 0770)"}};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        chmod(dir, (mode_t)modes[i].mode);
        refused(dir, modes[i].want, "directory mode");
    }
    chmod(dir, 0755); /* others may read and enter, not write: used */
    CHECK_EQ_INT(mapc_jit_cache_dir(dir), MAPC_OK, "a directory of mode 0755 is used");
    chmod(dir, 0700);
    char *key = harness_append(NULL, "%s/key", dir), *real = harness_append(NULL, "%s/key.real", dir);
    char *want = harness_append(NULL, "its key %s is refused: it is readable or writable by others (mode 0604)", key);
    chmod(key, 0604);
    refused(dir, want, "a key others may read");
    chmod(key, 0640);
    refused(dir, "its group (mode 0640)", "a key its group may read");
    chmod(key, 0600);
    if (rename(key, real) == 0 && symlink("key.real", key) == 0)
        refused(dir, "cannot be read: it is a symbolic link", "a link as the key");
    else
        FAIL("cannot make a link as the key: %s", strerror(errno));
    unlink(key);
    FILE *f = fopen(key, "wb");
    if (f) {
        fputs("short", f);
        fclose(f);
    }
    chmod(key, 0600);
    refused(dir, "it holds 5 bytes, not 32", "a key of the wrong size");
    unlink(key);
    mkfifo(key, 0600);
    refused(dir, "it is not a regular file", "a FIFO as the key");
    unlink(key);
    CHECK(rename(real, key) == 0 && mapc_jit_cache_dir(dir) == MAPC_OK, "the key back: used again");
    if (geteuid() == 0) { /* only root makes files of another user */
        if (chown(key, 65534, 65534) == 0)
            refused(dir, "it belongs to uid 65534, not to this user (uid 0)", "another user's key");
        if (chown(key, 0, 0) != 0 || chown(dir, 65534, 65534) != 0)
            FAIL("chown: %s", strerror(errno));
        refused(dir, "it belongs to uid 65534, not to this user (uid 0)", "another user's directory");
        if (chown(dir, 0, 0) != 0)
            FAIL("chown: %s", strerror(errno));
    }
    char *file = harness_append(NULL, "%s/plain", dir);
    f = fopen(file, "w");
    if (f)
        fclose(f);
    refused(file, "Not a directory", "a file as the directory");
    free(key), free(real), free(want), free(file);
}

/* The default directory (mapc_jit_cache_dir(NULL)): $MAPC_CACHE_DIR, else $XDG_CACHE_HOME/mapc (absolute), else
 * $HOME/.cache/mapc; each made when chosen. */
static void defaults(const char *root)
{
    char *home = harness_append(NULL, "%s/home", root), *xdg = harness_append(NULL, "%s/xdg", root);
    char *env = harness_append(NULL, "%s/env", root);
    char *in_xdg = harness_append(NULL, "%s/mapc", xdg), *in_home = harness_append(NULL, "%s/.cache/mapc", home);
    mkdir(home, 0700);
    struct stat st;
    const char *old = getenv("MAPC_CACHE_DIR");
    char *saved = old ? harness_append(NULL, "%s", old) : NULL;
    setenv("MAPC_CACHE_DIR", env, 1);
    CHECK(mapc_jit_cache_dir(NULL) == MAPC_OK && stat(env, &st) == 0, "MAPC_CACHE_DIR first");
    unsetenv("MAPC_CACHE_DIR");
    setenv("XDG_CACHE_HOME", xdg, 1);
    setenv("HOME", home, 1);
    CHECK(mapc_jit_cache_dir(NULL) == MAPC_OK && stat(in_xdg, &st) == 0, "then XDG_CACHE_HOME/mapc");
    setenv("XDG_CACHE_HOME", "relative", 1);
    CHECK(mapc_jit_cache_dir(NULL) == MAPC_OK && stat(in_home, &st) == 0 && stat("relative", &st) != 0,
          "a relative XDG_CACHE_HOME is ignored: HOME/.cache/mapc");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    char warn[64];
    CHECK(mapc_jit_cache_dir(NULL) == MAPC_OK && mapc_jit_cache_warning(warn, sizeof warn) == 0,
          "no HOME: no cache, no warning");
    setenv("MAPC_CACHE_DIR", "", 1);
    CHECK(mapc_jit_cache_dir(NULL) == MAPC_OK && mapc_jit_cache_warning(warn, sizeof warn) == 0,
          "MAPC_CACHE_DIR empty: no cache, no warning");
    if (saved)
        setenv("MAPC_CACHE_DIR", saved, 1);
    else
        unsetenv("MAPC_CACHE_DIR");
    free(home), free(xdg), free(env), free(in_xdg), free(in_home), free(saved);
}

typedef struct Counts {
    long long compiled, hits, rejected;
} Counts;

/* Runs this program as a child (env_dir: MAPC_CACHE_DIR, NULL unset; api_dir: the argument) and reads its counts;
 * compiled is -1 when it failed. */
static Counts run_child(const char *self, const char *env_dir, const char *api_dir)
{
    Counts c = {-1, -1, -1};
    int fds[2];
    if (pipe(fds) != 0)
        return c;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    char *argv[] = {(char *)self, "child", (char *)(api_dir ? api_dir : "-"), NULL};
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env), *var = NULL;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "MAPC_CACHE_DIR=", 15) != 0)
            env[m++] = environ[i];
    if (env_dir) {
        var = harness_append(NULL, "MAPC_CACHE_DIR=%s", env_dir);
        env[m++] = var;
    }
    pid_t pid;
    int e = posix_spawn(&pid, self, &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    char out[256] = "";
    FILE *f = fdopen(fds[0], "r");
    if (f && !fgets(out, sizeof out, f))
        out[0] = 0;
    if (f)
        fclose(f);
    int status = -1;
    if (e == 0)
        waitpid(pid, &status, 0);
    free(env);
    free(var);
    if (e == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
        sscanf(out, "compiled %lld hits %lld rejected %lld", &c.compiled, &c.hits, &c.rejected) != 3)
        c.compiled = -1;
    if (c.compiled < 0)
        harness_detail("child exit status %d, output '%s'", status, out);
    return c;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "child") == 0)
        return child(strcmp(argv[2], "-") == 0 ? NULL : argv[2]);
    HarnessArgs a = {.seed = 1};
    harness_args(argc, argv, "[SEED]", &a);
    char tmpl[] = "/tmp/mapc-libcache-XXXXXX";
    char *root = mkdtemp(tmpl);
    if (!root) {
        FAIL("cannot make a temporary directory: %s", strerror(errno));
        return harness_report();
    }
    const char *self = "/proc/self/exe";
    char self_path[4096];
    ssize_t sn = readlink(self, self_path, sizeof self_path - 1);
    if (sn > 0) {
        self_path[sn] = 0;
        self = self_path;
    }

    /* MAPC_CACHE_DIR alone (the program calls nothing): the second run compiles nothing */
    char *env_dir = harness_append(NULL, "%s/env/cache", root);
    Counts c1 = run_child(self, env_dir, NULL), c2 = run_child(self, env_dir, NULL);
    CHECK(c1.compiled > 0 && c1.hits == 0, "first run with MAPC_CACHE_DIR compiles (%lld compiled, %lld hits)",
          c1.compiled, c1.hits);
    CHECK(c2.compiled == 0 && c2.hits == c1.compiled && c2.rejected == 0,
          "second run compiles nothing (%lld compiled, %lld hits, %lld rejected; first compiled %lld)", c2.compiled,
          c2.hits, c2.rejected, c1.compiled);
    struct stat st;
    CHECK(stat(env_dir, &st) == 0 && (st.st_mode & 07777) == 0700, "the library made the directory 0700");

    /* mapc_jit_cache_dir wins over the environment */
    char *api_dir = harness_append(NULL, "%s/api", root), *unused = harness_append(NULL, "%s/unused", root);
    Counts d1 = run_child(self, unused, api_dir), d2 = run_child(self, unused, api_dir);
    CHECK(d1.compiled > 0 && d2.compiled == 0 && d2.hits == d1.compiled,
          "mapc_jit_cache_dir: the second run compiles nothing (%lld then %lld compiled, %lld hits)", d1.compiled,
          d2.compiled, d2.hits);
    CHECK(stat(unused, &st) != 0, "MAPC_CACHE_DIR is not used when the program chose a directory");

    /* refused directories, and none */
    char *open_dir = harness_append(NULL, "%s/open", root);
    mkdir(open_dir, 0700);
    chmod(open_dir, 0777);
    char warn[1024];
    CHECK_EQ_INT(mapc_jit_cache_dir(open_dir), MAPC_ERR_IO, "a directory everyone may write is refused");
    size_t wn = mapc_jit_cache_warning(warn, sizeof warn);
    CHECK(wn == strlen(warn) && strstr(warn, open_dir) && strstr(warn, "(mode 0777)"),
          "the warning names the directory and its mode: %s", warn);
    CHECK(mapc_jit_cache_warning(NULL, 0) == wn, "the warning's length without a buffer");
    char small[8];
    CHECK(mapc_jit_cache_warning(small, sizeof small) == wn && strlen(small) == sizeof small - 1,
          "a short buffer gets the warning truncated");
    chmod(open_dir, 0700);
    CHECK_EQ_INT(mapc_jit_cache_dir(open_dir), MAPC_OK, "the same directory at 0700 is used");
    CHECK(mapc_jit_cache_warning(warn, sizeof warn) == 0 && warn[0] == 0, "no warning then");
    refusals(open_dir);
    defaults(root);
    CHECK_EQ_INT(mapc_jit_cache_dir(""), MAPC_OK, "\"\" turns the cache off");
    mapc_jit_cache_stats s0, s1;
    CHECK_EQ_INT(mapc_jit_cache_counts(NULL), MAPC_ERR_ARGUMENT, "counts into NULL");
    mapc_jit_cache_counts(&s0);
    mapc_program *p = NULL;
    mapc_jit *j = NULL;
    if (mapc_compile_string("cache", program, strlen(program), &p) == MAPC_OK && mapc_jit_create(p, NULL, &j) == MAPC_OK) {
        mapc_jit_cache_counts(&s1);
        CHECK(s1.compiled > s0.compiled && s1.hits == s0.hits, "without a cache everything is compiled");
    } else {
        FAIL("the program compiles and JIT-compiles");
    }
    mapc_jit_free(j);
    mapc_program_free(p);

    char *cmd = harness_append(NULL, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        harness_detail("could not remove %s", root);
    free(cmd), free(env_dir), free(api_dir), free(unused), free(open_dir);
    return harness_report();
}
