/* The preset search order and listing, shared by preset.c and deblur_preset.c. */
#include "preset_path.h"
#include "switches.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


int rb_preset_search_dirs(char dirs[][RB_PRESET_DIR_LEN], int max)
{
    int n = 0;
    const char *env = rb_switch_preset_path();
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

static int cmp_names(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

int rb_preset_names(const char *ext, int (*accept)(const char *name),
                    char names[][RB_PRESET_NAME_LEN], int max)
{
    if (!ext || !names || max <= 0)
        return 0;
    char dirs[RB_PRESET_MAX_DIRS][RB_PRESET_DIR_LEN];
    int nd = rb_preset_search_dirs(dirs, RB_PRESET_MAX_DIRS), count = 0;
    size_t el = strlen(ext);
    for (int i = 0; i < nd && count < max; i++) {
        DIR *d = opendir(dirs[i]);
        if (!d)
            continue;
        struct dirent *de;
        while ((de = readdir(d)) && count < max) {
            /* NAME "." EXT, NAME not empty and short enough */
            size_t l = strlen(de->d_name);
            if (l <= el + 1 || l - el - 1 >= RB_PRESET_NAME_LEN || de->d_name[l - el - 1] != '.' ||
                strcmp(de->d_name + l - el, ext))
                continue;
            char nm[RB_PRESET_NAME_LEN];
            memcpy(nm, de->d_name, l - el - 1);
            nm[l - el - 1] = 0;
            if (accept && !accept(nm))
                continue;
            int dup = 0;
            for (int k = 0; k < count && !dup; k++)
                dup = !strcmp(names[k], nm);
            if (!dup)
                memcpy(names[count++], nm, l - el);
        }
        closedir(d);
    }
    qsort(names, (size_t)count, sizeof names[0], cmp_names);
    return count;
}
