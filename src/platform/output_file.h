/* Output files written whole or not at all, for every output flag of the host tool (-o,
 * --events-out, --snapshot, --plot, --update-baseline, --diff-out, record's -o and --game-log).
 * The policy (docs/outputs.md):
 *  - a regular or absent OUT: the bytes go to a new temporary file made with O_CREAT|O_EXCL
 *    under a unique name in OUT's directory, which is renamed over OUT on success (removed on
 *    failure). An existing OUT's permission bits (and owner, where allowed) are given to it
 *    first, so replacing keeps the mode. Two runs writing one OUT each use their own temporary
 *    file: OUT ends up whole, from one of them. A name planted where a temporary file could go
 *    is never opened or followed.
 *  - a read-only OUT (the caller may not write it, or it has no write bit at all: root is not
 *    let through) is refused with EACCES, as a shell's `>` refuses it; nothing is written.
 *  - a symlink to a regular file: its target is replaced (the temporary file is made in the
 *    target's directory), the link stays a link, as `sed -i --follow-symlinks` does.
 *  - OUT with other hard links, or in a directory where no temporary file can be made: the
 *    bytes are first written whole to a spool file, then copied into OUT in place, so every
 *    link sees them and a failure before the copy leaves OUT untouched.
 *  - anything else (a FIFO, a device, a link to one, a dangling link) is written through in
 *    place: replacing it would turn it into a regular file.
 * Errors are errno values (0: success). */
#ifndef AGB_OUTPUT_FILE_H
#define AGB_OUTPUT_FILE_H

#include <stdio.h>

enum agb_out_mode { AGB_OUT_REPLACE, AGB_OUT_COPY_IN, AGB_OUT_THROUGH };

struct agb_out_file {
	FILE *f;             /* write here */
	enum agb_out_mode mode;
	char *final;         /* owned: the file replaced or copied into (OUT or its link's target) */
	char *tmp;           /* owned: the temporary file (AGB_OUT_REPLACE), else NULL */
};

/* Opens o->f for the output named path (not "-"). Returns 0, or an errno value (EISDIR: a
 * directory; EACCES: read-only) with *o zeroed and nothing created. */
int agb_out_open(struct agb_out_file *o, const char *path);

/* Closes o->f. With keep, puts the bytes in place; else discards them (the temporary file is
 * removed; written-through bytes stay). Every error counts: the stream's, the final flush, the
 * sync, the close, the rename or copy. Returns 0 or the first errno value; *o is zeroed. Safe on
 * a zeroed *o. */
int agb_out_close(struct agb_out_file *o, int keep);

/* Platform parts (output_posix.c, output_win32.c); for output_file.c only. */
int agb_out_platform_open(struct agb_out_file *o, const char *path);
int agb_out_platform_replace(const char *tmp, const char *final);
int agb_out_platform_sync(FILE *f);

#endif
