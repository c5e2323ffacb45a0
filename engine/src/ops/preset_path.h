/* Where presets are looked up: one search order for every kind of preset
 * (.preset filters, .deblur designs), so the front ends agree on it. */
#ifndef RB_PRESET_PATH_H
#define RB_PRESET_PATH_H

#include <stddef.h>

#define RB_PRESET_MAX_DIRS 34
#define RB_PRESET_DIR_LEN 1024
/* Longest preset name + 1 (rb_preset_list and rb_deblur_preset_list). */
#define RB_PRESET_NAME_LEN 128

/* Set by the build (engine/CMakeLists.txt); these defaults keep a bare compile working. */
#ifndef RECBLUR_PRESET_DIR
#define RECBLUR_PRESET_DIR "/usr/local/share/recblur/presets"
#endif
#ifndef RECBLUR_SOURCE_PRESET_DIR
#define RECBLUR_SOURCE_PRESET_DIR "presets"
#endif

/* The directories, in order: each of $RECBLUR_PRESET_PATH (colon-separated),
 * the installed presets directory, then the source tree's presets/.
 * Returns the count (at most max). */
int rb_preset_search_dirs(char dirs[][RB_PRESET_DIR_LEN], int max);

/* First existing DIR/NAME.EXT along the search order into path; 1 if found. */
int rb_preset_find(const char *name, const char *ext, char *path, size_t path_len);

/* The distinct NAMEs of the NAME.EXT files along the search order (a name in
 * an earlier directory hides the same name later), those `accept` takes (NULL:
 * all), sorted; fills up to max, returns the count. For menus and listings. */
int rb_preset_names(const char *ext, int (*accept)(const char *name),
                    char names[][RB_PRESET_NAME_LEN], int max);

#endif
