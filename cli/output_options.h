/* --compress METHOD and --level N: how OUT is compressed. Named as
 * ImageMagick's -compress and libvips' tiffsave --compression/--level, so
 * users of either recognise them. Kept apart from options.c so that the
 * command parsers only forward unknown options here. */
#ifndef CLI_OUTPUT_OPTIONS_H
#define CLI_OUTPUT_OPTIONS_H

#include "image_io.h"

typedef struct {
    int have_method;
    cli_compression method;
    const char *method_text;   /* as the user wrote it, for messages */
    int have_level, level;
} cli_output_request;

/* If argv[*i] is --compress or --level (with "=value" or the next argument),
 * parses it into req, advances *i past its value and returns 1; returns 0 when
 * argv[*i] is another option, -1 with err filled on a bad value. */
int cli_output_option_parse(const char *cname, int argc, char **argv, int *i,
                            cli_output_request *req, char *err, size_t errlen);

/* The codec OUT is written with: what the request names; else the input's own
 * compression where OUT's type can store it (uncompressed stays uncompressed);
 * else deflate for compressed input or PNG, none for uncompressed input. The
 * level is the request's or the method's fast default, and must be in the
 * method's range. `in` may be NULL to check the request before IN is read.
 * Returns 0, or -1 with a one-line message in err (a usage error). */
int cli_output_codec(const cli_output_request *req, const cli_image *in, cli_file_type out_type,
                     const char *out_path, cli_codec *codec, char *err, size_t errlen);

/* The name of a method, as --compress spells it. */
const char *cli_compression_name(cli_compression method);

/* The lines --help prints for these options. */
extern const char cli_output_options_help[];

#endif /* CLI_OUTPUT_OPTIONS_H */
