/* --compress and --level: parsing, the help lines, and the rule that picks
 * the codec OUT is written with (the input's compression unless told
 * otherwise, as ImageMagick and libvips keep it). */
#include "output_options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
    const char *name;
    cli_compression method;
    int min_level, max_level;   /* max 0: the method has no levels */
    int fast_level;             /* what it gets when no --level is given */
} method_def;

/* deflate and zstd at level 1 and lzma at preset 1: the fast end of each, as
 * the issue asks ("fast levels where compression is asked for"); --level
 * trades time for bytes. deflate's 1..9 is zlib's range (PNG, and libvips'
 * tiffsave); zstd's 1..22 and lzma's 0..9 are libtiff's. */
static const method_def methods[] = {
    {"none", CLI_COMPRESS_NONE, 0, 0, 0},
    {"deflate", CLI_COMPRESS_DEFLATE, 1, 9, CLI_DEFLATE_FAST_LEVEL},
    {"lzw", CLI_COMPRESS_LZW, 0, 0, 0},
    {"packbits", CLI_COMPRESS_PACKBITS, 0, 0, 0},
    {"zstd", CLI_COMPRESS_ZSTD, 1, 22, 1},
    {"lzma", CLI_COMPRESS_LZMA, 0, 9, 1},
};
#define N_METHODS (sizeof methods / sizeof methods[0])

/* ImageMagick's names for the same codecs (-compress Zip, RLE). */
static const struct {
    const char *alias;
    cli_compression method;
} aliases[] = {{"zip", CLI_COMPRESS_DEFLATE}, {"rle", CLI_COMPRESS_PACKBITS}};

const char cli_output_options_help[] =
    "\n"
    "Output compression (TIFF, PNG):\n"
    "  --compress C      how OUT is compressed. TIFF: none, deflate (or zip), lzw,\n"
    "                    packbits (or rle), zstd, lzma; PNG: deflate or none (stored).\n"
    "                    Default: as IN was (an uncompressed TIFF stays uncompressed,\n"
    "                    an LZW TIFF stays LZW); deflate for PNG and for a TIFF made\n"
    "                    from a PNG; none for a TIFF made from a PFM. Named here,\n"
    "                    TIFF deflate, lzw, zstd and lzma difference neighbours first\n"
    "                    (predictor); kept, they keep IN's predictor\n"
    "  --level N         compression level: deflate 1-9, zstd 1-22, lzma 0-9\n"
    "                    (default 1: fast; higher: smaller files, slower)\n";

static const method_def *method_of(cli_compression m)
{
    for (size_t k = 0; k < N_METHODS; k++)
        if (methods[k].method == m)
            return &methods[k];
    return NULL;
}

const char *cli_compression_name(cli_compression method)
{
    const method_def *d = method_of(method);
    return d ? d->name : "other";
}

int cli_output_option_parse(const char *cname, int argc, char **argv, int *i,
                            cli_output_request *req, char *err, size_t errlen)
{
    const char *arg = argv[*i];
    const char *eq = strchr(arg, '=');
    size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
    int is_compress = name_len == 10 && !strncmp(arg, "--compress", 10);
    int is_level = name_len == 7 && !strncmp(arg, "--level", 7);
    if (!is_compress && !is_level)
        return 0;
    const char *opt = is_compress ? "--compress" : "--level";
    const char *val;
    if (eq)
        val = eq + 1;
    else if (*i + 1 < argc)
        val = argv[++*i];
    else {
        snprintf(err, errlen, "%s: option %s needs a value", cname, opt);
        return -1;
    }
    if (is_compress) {
        for (size_t k = 0; k < N_METHODS; k++)
            if (!strcasecmp(val, methods[k].name)) {
                req->have_method = 1;
                req->method = methods[k].method;
                req->method_text = val;
                return 1;
            }
        for (size_t k = 0; k < sizeof aliases / sizeof aliases[0]; k++)
            if (!strcasecmp(val, aliases[k].alias)) {
                req->have_method = 1;
                req->method = aliases[k].method;
                req->method_text = val;
                return 1;
            }
        snprintf(err, errlen, "%s: --compress \"%s\" is not valid (none, deflate, lzw, packbits, zstd or lzma)",
                 cname, val);
        return -1;
    }
    char *end;
    errno = 0;
    long v = strtol(val, &end, 10);
    if (!val[0] || *end || errno || v < 0 || v > 22) {
        snprintf(err, errlen, "%s: --level \"%s\" is not valid (a whole number: deflate 1-9, zstd 1-22, lzma 0-9)",
                 cname, val);
        return -1;
    }
    req->have_level = 1;
    req->level = (int)v;
    return 1;
}

/* The method when the request names none: the input's own where OUT's type
 * can hold it, so uncompressed stays uncompressed. */
static cli_compression kept_method(const cli_image *in, cli_file_type out_type, int *predictor)
{
    *predictor = 1;
    if (out_type == CLI_FILE_PFM)
        return CLI_COMPRESS_NONE;
    if (out_type == CLI_FILE_PNG)
        return CLI_COMPRESS_DEFLATE; /* every PNG is deflated; stored PNGs only on request */
    /* TIFF */
    if (in->type == CLI_FILE_TIFF && in->codec.method != CLI_COMPRESS_OTHER &&
        cli_tiff_can_compress(in->codec.method)) {
        *predictor = in->codec.predictor;
        return in->codec.method;
    }
    /* from PNG (always compressed) or a TIFF in a codec we do not write
     * (JPEG, WebP, ...): deflate, as ImageMagick writes a PNG as a TIFF;
     * from PFM (raw floats): none */
    return in->type == CLI_FILE_PFM ? CLI_COMPRESS_NONE : CLI_COMPRESS_DEFLATE;
}

int cli_output_codec(const cli_output_request *req, const cli_image *in, cli_file_type out_type,
                     const char *out_path, cli_codec *codec, char *err, size_t errlen)
{
    cli_codec c = {CLI_COMPRESS_NONE, 0, 1};
    const char *type_name = cli_file_type_name(out_type);
    if (req->have_method) {
        c.method = req->method;
        const char *why = NULL;
        if (out_type == CLI_FILE_PFM && req->method != CLI_COMPRESS_NONE)
            why = "PFM files are not compressed (write .tif or .png to compress)";
        else if (out_type == CLI_FILE_PNG && req->method != CLI_COMPRESS_NONE &&
                 req->method != CLI_COMPRESS_DEFLATE)
            why = "PNG compresses with deflate only (--compress deflate or none)";
        else if (out_type == CLI_FILE_TIFF && !cli_tiff_can_compress(req->method))
            why = "the libtiff this recblur was built with cannot write it";
        if (why) {
            snprintf(err, errlen, "cannot write %s with --compress %s: %s", out_path, req->method_text, why);
            return -1;
        }
    } else if (in) {
        c.method = kept_method(in, out_type, &c.predictor);
    } else {
        /* before IN is read: only a level for PFM can be refused yet */
        if (req->have_level && out_type == CLI_FILE_PFM) {
            snprintf(err, errlen, "cannot write %s with --level %d: PFM files are not compressed",
                     out_path, req->level);
            return -1;
        }
        *codec = c;
        return 0;
    }
    const method_def *d = method_of(c.method);
    if (req->have_level) {
        if (!d || d->max_level == 0) {
            snprintf(err, errlen, "cannot write %s with --level %d: %s %s has no levels%s", out_path,
                     req->level, type_name, d ? d->name : "output",
                     req->have_method ? " (levels: deflate 1-9, zstd 1-22, lzma 0-9)"
                                      : " (IN's compression is kept; add --compress deflate, zstd or lzma)");
            return -1;
        }
        if (req->level < d->min_level || req->level > d->max_level) {
            snprintf(err, errlen, "cannot write %s with --level %d: %s levels are %d to %d", out_path,
                     req->level, d->name, d->min_level, d->max_level);
            return -1;
        }
        c.level = req->level;
    } else {
        c.level = d ? d->fast_level : 0;
    }
    if (out_type != CLI_FILE_TIFF)
        c.predictor = 0;
    *codec = c;
    return 0;
}
