/* out_file.h — the files the mapc commands write: never an input (by inode, through links), written whole
 * through a temporary file beside the output and renamed over it. */
#ifndef MAPC_OUT_FILE_H
#define MAPC_OUT_FILE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Every command that writes a file (emit's -o and --header, draw's and diff's -o, and any new one) goes
 * through this:
 *
 *     int st = out_refuse_inputs("-o", out, inputs, ninputs);   // before any work: a usage error
 *     ...
 *     st = out_write_bytes(out, data, n);                        // whole bytes in memory, or:
 *     OutFile f;
 *     if (out_begin(&f, out)) { write f.tmp by path ...; st = ok ? out_commit(&f) : (out_abandon(&f), 1); }
 *
 * The output replaces the file at its path only once it is complete, so a failure (a full disk, an error
 * while generating) leaves the old file as it was and no partial file behind. The new file gets the mode of
 * the file it replaces, else 0666 less the umask. A path that is a link to a file writes that file (the
 * link stays); an output that exists and is not a regular file (a device such as /dev/null, a FIFO) is
 * written in place.
 */

/* Whether two paths name one file: the same device and inode when both exist (links followed), else the
 * same text. */
bool out_same_file(const char *a, const char *b);

/* DRV_EXIT_OK when the output path names none of inputs[0..n) ("-", standard input, is skipped); else
 * prints "mapc: OPT PATH would overwrite the input file" (", INPUT" added when the input is named
 * differently, as through a link) with the --help hint and returns DRV_EXIT_USAGE. */
int out_refuse_inputs(const char *opt, const char *path, const char *const *inputs, int n);

/* An output being written: tmp is the file to write (by path; it exists, empty, when out_begin returns). */
typedef struct OutFile {
    const char *path;   /* the path as given, for messages */
    char *target;       /* owned: the file replaced (path, or the file a link at path names) */
    char *tmp;          /* owned: the temporary file beside target; target itself when written in place */
    bool in_place;      /* target exists and is no regular file: written directly */
    unsigned mode;      /* the new file's permission bits */
} OutFile;

/* Starts writing path: false after printing "mapc: cannot write PATH: REASON" (nothing to undo). */
bool out_begin(OutFile *o, const char *path);
/* Puts the finished temporary file in place: DRV_EXIT_OK, or DRV_EXIT_INPUT after printing why (the
 * temporary file removed). Frees o's strings. */
int out_commit(OutFile *o);
/* Removes the temporary file of an output that failed; frees o's strings. */
void out_abandon(OutFile *o);
/* out_begin, the n bytes of data written to the temporary file, out_commit: DRV_EXIT_OK, or DRV_EXIT_INPUT
 * after printing "mapc: cannot write PATH: REASON". */
int out_write_bytes(const char *path, const void *data, size_t n);

#endif
