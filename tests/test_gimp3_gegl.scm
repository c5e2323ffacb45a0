; Script-Fu (GIMP 3) for tests/test_gimp3_gegl.sh: each case loads an input,
; applies a recblur GEGL operation through gimp-drawable-merge-new-filter (the
; call scripts and the filter dialog's "Merge filter" both end in), exports
; what GIMP made; the shell script compares the files with the recblur CLI's
; output and the float64 reference.
;
; Properties go as GIMP 3 passes them: name then value, numbers as reals, a
; choice (boundary, direction, axes, degree) by its name as a string, a
; boolean as TRUE or FALSE.

(define (rb3-load f) (car (gimp-file-load RUN-NONINTERACTIVE f)))
(define (rb3-layer img) (vector-ref (car (gimp-image-get-layers img)) 0))

; Replace mode at full opacity: the layer becomes the operation's output.
(define (rb3-filter img op props)
  (apply gimp-drawable-merge-new-filter
         (append (list (rb3-layer img) op "" LAYER-MODE-REPLACE 1.0) props)))

; rb3-case IN OUT OP PROPS: OUT is IN filtered by OP with PROPS.
(define (rb3-case in out op props)
  (let ((img (rb3-load in)))
    (rb3-filter img op props)
    (gimp-file-save RUN-NONINTERACTIVE img out)
    (gimp-image-delete img)))

; rb3-refused NAME IN OUT OP PROPS: a call GIMP must refuse; the image is
; exported whatever happened (the shell checks it is unchanged), and the log
; says whether the call failed: "rb3 NAME: refused" or "rb3 NAME: accepted".
(define (rb3-refused name in out op props)
  (let* ((img (rb3-load in))
         (failed (catch #t (rb3-filter img op props) #f)))
    (gimp-message (string-append "rb3 " name (if failed ": refused" ": accepted")))
    (gimp-file-save RUN-NONINTERACTIVE img out)
    (gimp-image-delete img)))
