/* mgba_cache.h — reuse of one-shot mGBA runs across processes (the test suite's figures).
 *
 * mGBA is deterministic: a run's result depends only on the ROM's bytes, the payload, the run
 * options, libmgba's version and this runner's code. When the environment names a directory in
 * AGBSIM_MGBA_CACHE, agb_mgba_run_ex keeps each finished run there under a digest of all of
 * those, and a later run with the same inputs reads it back instead of emulating again. Only
 * runs that finished are kept (a finished run does not depend on max_frames). Runs
 * that write a PNG, boot any ROM (record), echo the log or profile are never cached; nor are
 * runs that failed on the host side. Unset (the default), nothing is read or written. */
#ifndef AGB_MGBA_CACHE_H
#define AGB_MGBA_CACHE_H
#include "mgba_runner.h"

/* 1 when AGBSIM_MGBA_CACHE is set and this run's options can be cached. */
int agb_mgba_cache_usable(const struct agb_mgba_options *opt);
/* 1 and *out, *rc filled (free *out with agb_mgba_result_free) when an entry exists; 0 when it
 * does not or cannot be read (the caller runs mGBA). */
int agb_mgba_cache_load(const char *rom_path, const struct agb_mgba_options *opt,
                        struct agb_mgba_result *out, int *rc);
/* Keeps a finished run (best effort: a write that fails leaves no entry). */
void agb_mgba_cache_store(const char *rom_path, const struct agb_mgba_options *opt,
                          const struct agb_mgba_result *r, int rc);

#endif
