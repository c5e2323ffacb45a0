/* Where presets are looked up: one search order for every kind of preset
 * (.preset filters, .deblur designs), so the front ends agree on it. */
#ifndef RB_PRESET_PATH_H
#define RB_PRESET_PATH_H

#include <stddef.h>

#define RB_PRESET_MAX_DIRS 34
#define RB_PRESET_DIR_LEN 1024

/* The directories, in order: each of $RECBLUR_PRESET_PATH (colon-separated),
 * the installed presets directory, then the source tree's presets/.
 * Returns the count (at most max). */
int rb_preset_search_dirs(char dirs[][RB_PRESET_DIR_LEN], int max);

/* First existing DIR/NAME.EXT along the search order into path; 1 if found. */
int rb_preset_find(const char *name, const char *ext, char *path, size_t path_len);

#endif
