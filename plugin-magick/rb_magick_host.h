/* The ImageMagick headers and the few differences between IM6 and IM7 this
 * module needs. CMake defines RB_MAGICK_MAJOR (6 or 7) from pkg-config's
 * MagickCore version; MagickLibVersion then selects the code paths. */
#ifndef RB_MAGICK_HOST_H
#define RB_MAGICK_HOST_H

#if defined(RB_MAGICK_MAJOR) && RB_MAGICK_MAJOR >= 7
#include <MagickCore/MagickCore.h>
#else
#include <magick/MagickCore.h>
#endif

#include <stdint.h>
#include "recblur.h"

#if MagickLibVersion >= 0x700
#define RB_IM7 1
#else
#define RB_IM7 0
#endif

#if !defined(MAGICKCORE_HDRI_ENABLE)
#define MAGICKCORE_HDRI_ENABLE 0
#endif

/* How one Quantum travels to the engine: Q8/Q16 integer quanta map 1:1 onto
 * the engine's U8/U16 (exact, no rounding); HDRI and Q32/Q64 go through F32
 * scaled to [0,1] and are not clamped. */
#if MAGICKCORE_HDRI_ENABLE || (MAGICKCORE_QUANTUM_DEPTH != 8 && MAGICKCORE_QUANTUM_DEPTH != 16)
typedef float rb_magick_sample;
#define RB_MAGICK_FORMAT RB_F32
#define RB_MAGICK_TO_SAMPLE(q) ((float)(QuantumScale * (double)(q)))
#define RB_MAGICK_TO_QUANTUM(s) ((Quantum)(QuantumRange * (double)(s)))
#elif MAGICKCORE_QUANTUM_DEPTH == 8
typedef uint8_t rb_magick_sample;
#define RB_MAGICK_FORMAT RB_U8
#define RB_MAGICK_TO_SAMPLE(q) ((rb_magick_sample)(q))
#define RB_MAGICK_TO_QUANTUM(s) ((Quantum)(s))
#else
typedef uint16_t rb_magick_sample;
#define RB_MAGICK_FORMAT RB_U16
#define RB_MAGICK_TO_SAMPLE(q) ((rb_magick_sample)(q))
#define RB_MAGICK_TO_QUANTUM(s) ((Quantum)(s))
#endif

/* Non-zero when the running library was built with the quantum depth and HDRI
 * setting this module was compiled for; otherwise a message in why. A mismatch
 * corrupts memory (different Quantum/PixelPacket layout), so it is checked first. */
int rb_magick_host_matches(char *why, size_t why_len);

/* Report progress to the image's monitor (-monitor). IM6 exports SetImageProgress;
 * IM7 keeps it private (monitor-private.h), so the IM7 branch calls the monitor
 * the same way itself. Returns MagickFalse when the monitor asks to stop. */
MagickBooleanType rb_magick_set_progress(const Image *image, const char *tag,
                                         MagickOffsetType offset, MagickSizeType extent);

/* Throw `message` (one line) as an exception of the given severity. The message is
 * the "reason"; the description names the filter, as IM's own messages do
 * ("... `recblur' @ error/recblur_module.c/recblurImage/123"). A macro so that
 * GetMagickModule names the caller. */
#define rb_magick_throw(exception, severity, message) \
    ((void)ThrowMagickException((exception), GetMagickModule(), (severity), (message), "`%s'", \
                                "recblur"))

#endif /* RB_MAGICK_HOST_H */
