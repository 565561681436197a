/* Whether a path is a symbolic link itself (not followed): for directory scans that must not
 * follow links into loops. */
#ifndef AGB_PATH_LINK_H
#define AGB_PATH_LINK_H

/* 1 when path names a symbolic link (POSIX) or a reparse point (Windows: symlinks, junctions),
 * else 0 (also when it does not exist). */
int agb_path_is_link(const char *path);

#endif
