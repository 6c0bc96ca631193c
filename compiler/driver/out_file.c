/* out_file.c — the files the mapc commands write: refused when they are an input, written whole through a
 * temporary file beside them and renamed into place (out_file.h). */
#include "out_file.h"
#include "driver.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool out_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return strcmp(a, b) == 0;
}

int out_refuse_inputs(const char *opt, const char *path, const char *const *inputs, int n)
{
    for (int i = 0; i < n; i++) {
        if (!inputs[i] || strcmp(inputs[i], "-") == 0 || !out_same_file(path, inputs[i]))
            continue;
        size_t cap = strlen(opt) + strlen(path) + strlen(inputs[i]) + 64;
        char *msg = malloc(cap);
        if (!msg)
            return drv_usage_error("%s would overwrite the input file", opt);
        if (strcmp(path, inputs[i]) == 0)
            snprintf(msg, cap, "%s %s would overwrite the input file", opt, path);
        else
            snprintf(msg, cap, "%s %s would overwrite the input file, %s", opt, path, inputs[i]);
        int st = drv_usage_error("%s", msg);
        free(msg);
        return st;
    }
    return DRV_EXIT_OK;
}

/* Prints "mapc: cannot write PATH: REASON" for errno e; false. */
static bool cannot_write(const char *path, int e)
{
    fprintf(stderr, "mapc: cannot write %s: %s\n", path, strerror(e));
    return false;
}

bool out_begin(OutFile *o, const char *path)
{
    *o = (OutFile){.path = path};
    struct stat st;
    bool exists = stat(path, &st) == 0;
    /* a link is followed: the file it names is replaced, in its own directory */
    o->target = exists ? realpath(path, NULL) : strdup(path);
    if (!o->target)
        return cannot_write(path, errno);
    if (exists && !S_ISREG(st.st_mode)) {
        o->in_place = true;
        o->tmp = o->target;
        return true;
    }
    if (exists) {
        o->mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        o->mode = 0666 & ~mask;
    }
    const char *slash = strrchr(o->target, '/');
    size_t dir = slash ? (size_t)(slash - o->target) + 1 : 0;
    size_t cap = strlen(o->target) + 16;
    if (!(o->tmp = malloc(cap))) {
        free(o->target);
        return cannot_write(path, ENOMEM);
    }
    snprintf(o->tmp, cap, "%.*s.%s.XXXXXX", (int)dir, o->target, o->target + dir);
    int fd = mkstemp(o->tmp);
    if (fd < 0 || fchmod(fd, (mode_t)o->mode) != 0) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp);
        }
        free(o->tmp);
        free(o->target);
        *o = (OutFile){0};
        return cannot_write(path, e);
    }
    close(fd);
    return true;
}

/* Frees o's strings. */
static void out_done(OutFile *o)
{
    if (o->tmp != o->target)
        free(o->tmp);
    free(o->target);
    *o = (OutFile){0};
}

int out_commit(OutFile *o)
{
    int st = DRV_EXIT_OK;
    if (!o->in_place && rename(o->tmp, o->target) != 0) {
        cannot_write(o->path, errno);
        unlink(o->tmp);
        st = DRV_EXIT_INPUT;
    }
    out_done(o);
    return st;
}

void out_abandon(OutFile *o)
{
    if (o->tmp && !o->in_place)
        unlink(o->tmp);
    out_done(o);
}

int out_write_bytes(const char *path, const void *data, size_t n)
{
    OutFile o;
    if (!out_begin(&o, path))
        return DRV_EXIT_INPUT;
    FILE *f = fopen(o.tmp, "wb");
    bool ok = f && fwrite(data, 1, n, f) == n;
    int e = errno;
    if (f && fclose(f) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        cannot_write(path, e ? e : EIO);
        out_abandon(&o);
        return DRV_EXIT_INPUT;
    }
    return out_commit(&o);
}
