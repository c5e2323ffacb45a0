/* The preset search order, shared by preset.c and deblur_preset.c. */
#include "preset_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef RECBLUR_PRESET_DIR
#define RECBLUR_PRESET_DIR "/usr/local/share/recblur/presets"
#endif
#ifndef RECBLUR_SOURCE_PRESET_DIR
#define RECBLUR_SOURCE_PRESET_DIR "presets"
#endif

int rb_preset_search_dirs(char dirs[][RB_PRESET_DIR_LEN], int max)
{
    int n = 0;
    const char *env = getenv("RECBLUR_PRESET_PATH");
    while (env && *env && n < max) {
        const char *c = strchr(env, ':');
        size_t l = c ? (size_t)(c - env) : strlen(env);
        if (l > 0 && l < RB_PRESET_DIR_LEN) {
            memcpy(dirs[n], env, l);
            dirs[n][l] = 0;
            n++;
        }
        if (!c)
            break;
        env = c + 1;
    }
    if (n < max)
        snprintf(dirs[n++], RB_PRESET_DIR_LEN, "%s", RECBLUR_PRESET_DIR);
    if (n < max)
        snprintf(dirs[n++], RB_PRESET_DIR_LEN, "%s", RECBLUR_SOURCE_PRESET_DIR);
    return n;
}

int rb_preset_find(const char *name, const char *ext, char *path, size_t path_len)
{
    char dirs[RB_PRESET_MAX_DIRS][RB_PRESET_DIR_LEN];
    int nd = rb_preset_search_dirs(dirs, RB_PRESET_MAX_DIRS);
    for (int i = 0; i < nd; i++) {
        int w = snprintf(path, path_len, "%s/%s.%s", dirs[i], name, ext);
        if (w > 0 && (size_t)w < path_len && access(path, R_OK) == 0)
            return 1;
    }
    return 0;
}
