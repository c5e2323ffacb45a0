/* Run-time checks against the ImageMagick library that loaded the module. */
#include "rb_magick_host.h"

#include <stdio.h>
#include <string.h>

int rb_magick_host_matches(char *why, size_t why_len)
{
    size_t depth = 0;
    (void)GetMagickQuantumDepth(&depth);
    const char *features = GetMagickFeatures();
    int host_hdri = features != NULL && strstr(features, "HDRI") != NULL;
    int our_hdri = MAGICKCORE_HDRI_ENABLE != 0;
    if (depth == (size_t)MAGICKCORE_QUANTUM_DEPTH && host_hdri == our_hdri)
        return 1;
    if (why && why_len)
        snprintf(why, why_len,
                 "recblur: module built for ImageMagick Q%d%s but the running library is Q%zu%s; "
                 "rebuild the module against this ImageMagick (pkg-config MagickCore)",
                 (int)MAGICKCORE_QUANTUM_DEPTH, our_hdri ? " HDRI" : " (no HDRI)", depth,
                 host_hdri ? " HDRI" : " (no HDRI)");
    return 0;
}

MagickBooleanType rb_magick_set_progress(const Image *image, const char *tag,
                                         MagickOffsetType offset, MagickSizeType extent)
{
#if RB_IM7
    char message[MagickPathExtent];
    if (image->progress_monitor == (MagickProgressMonitor)NULL)
        return MagickTrue;
    (void)FormatLocaleString(message, MagickPathExtent, "%s/%s", tag, image->filename);
    return image->progress_monitor(message, offset, extent, image->client_data);
#else
    return SetImageProgress(image, tag, offset, extent);
#endif
}
