/* The strict text parsers every front end uses (recblur_ops.h): a value the
 * user typed is taken whole or refused, never half-read ("2x" is not 2). */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include "recblur_ops.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int rb_parse_number(const char *text, double *out)
{
    if (!text || !text[0] || isspace((unsigned char)text[0]))
        return -1;
    /* strtod reads hexadecimal ("0x10") and "infinity"; a setting is decimal */
    for (const char *c = text; *c; c++)
        if (*c == 'x' || *c == 'X')
            return -1;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int rb_parse_integer(const char *text, long lo, long hi, long *out)
{
    if (!text || !text[0] || isspace((unsigned char)text[0]))
        return -1;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno == ERANGE || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int rb_parse_bool(const char *text, int *out)
{
    static const char *const yes[] = {"yes", "true", "on", "1"};
    static const char *const no[] = {"no", "false", "off", "0"};
    if (!text)
        return -1;
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(text, yes[i])) {
            *out = 1;
            return 0;
        }
        if (!strcasecmp(text, no[i])) {
            *out = 0;
            return 0;
        }
    }
    return -1;
}
