/* The strips' carries in a temporary file (api/stream.c, issue 18): past
 * the memory a stream's carries may take (rb_stream_set_carry_memory),
 * pass 1 writes each strip's record (its carry and the rows its column FIR
 * reaches into the next strip) here, the close reads them back a range of
 * columns at a time, and pass 2 reads strip k's record when it comes. */
#ifndef RB_STREAM_CARRY_STORE_H
#define RB_STREAM_CARRY_STORE_H

#include "rb_internal.h"

#include <stdint.h>

typedef struct rb_carry_file rb_carry_file;

/* A new empty file in $TMPDIR (else /tmp), unlinked at once: it goes with
 * the process whatever happens. RB_ERR_IO with the directory and the
 * reason when it cannot be made. */
rb_status rb_carry_file_open(rb_context *ctx, rb_carry_file **out);
/* n bytes at offset off, from p / into p (pwrite / pread, to the end). */
rb_status rb_carry_file_write(rb_carry_file *f, uint64_t off, const void *p, size_t n);
rb_status rb_carry_file_read(rb_carry_file *f, uint64_t off, void *p, size_t n);
/* The file's size (its highest byte written + 1), the bytes written to and
 * read from it so far, its directory. */
uint64_t rb_carry_file_size(const rb_carry_file *f);
uint64_t rb_carry_file_written(const rb_carry_file *f);
uint64_t rb_carry_file_read_bytes(const rb_carry_file *f);
const char *rb_carry_file_dir(const rb_carry_file *f);
/* Close it (the file is gone already); NULL is fine. */
void rb_carry_file_close(rb_carry_file *f);

#endif
