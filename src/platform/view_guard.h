/* A viewed (mapped) file cut short while it is read: on POSIX, touching a page past the new end
 * raises SIGBUS, which would kill agbsim with no message. agb_view_guard runs a reader so that
 * such a fault ends the reader instead, and says so. */
#ifndef AGB_VIEW_GUARD_H
#define AGB_VIEW_GUARD_H

/* Runs fn(ctx). Returns 0 when it returned, or 1 when a SIGBUS in this thread (a viewed file
 * shrank under it) stopped it mid-way: fn's work is abandoned where it was (what it allocated is
 * not freed, locks it held stay held: the caller reports an error and cleans up what it owns).
 * Nests per thread; other signals are untouched. Windows: fn runs unguarded (files are not
 * viewed there). */
int agb_view_guard(void (*fn)(void *ctx), void *ctx);

#endif
