; Script-Fu for the GIMP plug-in tests (loaded by tests/test_gimp_batch.sh and
; tests/test_gimp_dialog.sh). Every case loads an input, runs plug-in-recblur
; RUN-NONINTERACTIVE, saves what GIMP made; the shell script compares the files
; with the recblur CLI's output on the same input.

(define (rb-load f) (car (gimp-file-load RUN-NONINTERACTIVE f f)))
(define (rb-drw img) (car (gimp-image-get-active-drawable img)))
(define (rb-png img f) (file-png-save-defaults RUN-NONINTERACTIVE img (rb-drw img) f f))
(define (rb-tif img f) (file-tiff-save RUN-NONINTERACTIVE img (rb-drw img) f f 0))

; plug-in-recblur with every argument; backend 0 = auto, like the CLI's default.
(define (rb-run img sx sy op boundary const accurate sig dir axes linear preset)
  (plug-in-recblur RUN-NONINTERACTIVE img (rb-drw img) sx sy op boundary const
                   accurate 0 sig dir axes linear preset))

; A copy of a loaded image (cheaper than loading again: every file load is a
; plug-in start).
(define (rb-dup src) (car (gimp-image-duplicate src)))

; One 8-bit case on a copy of src, saved to out (perceptual: the CLI filters
; the stored values too).
(define (rb-case src out sx sy op boundary const sig dir axes)
  (let ((img (rb-dup src)))
    (rb-run img sx sy op boundary const FALSE sig dir axes FALSE "")
    (rb-png img out)
    (gimp-image-delete img)))

; A case on a converted copy of src: (convert img), saved to in by save (rb-png
; or rb-tif), then (filter img), saved to out.
(define (rb-converted-case src convert save in out filter)
  (let ((img (rb-dup src)))
    (convert img)
    (save img in)
    (filter img)
    (save img out)
    (gimp-image-delete img)))
; plug-in-recblur's Gaussian: sigma sx x sy, op, boundary, constant, accurate, linear.
(define (rb-blur sx sy op boundary const accurate linear)
  (lambda (img) (rb-run img sx sy op boundary const accurate "" 0 0 linear "")))
(define (rb-gray img) (gimp-image-convert-grayscale img))
(define (rb-precision p) (lambda (img) (gimp-image-convert-precision img p)))

(define (recblur-test-batch d o)
  (define (out f) (string-append o "/" f))
  (define rgb (rb-load (string-append d "/rgb.png")))
  (define tile (rb-load (string-append d "/tile.png")))
  (define tile-shift (rb-load (string-append d "/tile_shift.png")))
  (define rgba (rb-load (string-append d "/rgba.png")))
  ; every boundary mode: 0 zero, 1 constant, 2 clamp, 3 periodic, 4 mirror
  (rb-case rgb (out "b_zero.png")     3.0 2.0 0 0 0.0 "" 0 0)
  (rb-case rgb (out "b_constant.png") 3.0 2.0 0 1 0.3 "" 0 0)
  (rb-case rgb (out "b_clamp.png")    3.0 2.0 0 2 0.0 "" 0 0)
  (rb-case rgb (out "b_periodic.png") 3.0 2.0 0 3 0.0 "" 0 0)
  (rb-case rgb (out "b_mirror.png")   3.0 2.0 0 4 0.0 "" 0 0)
  ; the other operations: B-spline prefilter, custom signature (causal, x only)
  (rb-case rgb (out "op_bspline3.png") 0.0 0.0 1 4 0.0 "" 0 0)
  (rb-case rgb (out "op_signature.png") 0.0 0.0 3 2 0.0 "0.4: 0.6" 1 1)
  ; tileable texture and its half-period shift; zero boundary as the control
  (rb-case tile (out "tile_periodic.png") 6.0 6.0 0 3 0.0 "" 0 0)
  (rb-case tile-shift (out "tile_shift_periodic.png") 6.0 6.0 0 3 0.0 "" 0 0)
  (rb-case tile (out "tile_zero.png") 6.0 6.0 0 0 0.0 "" 0 0)
  ; RGBA, straight alpha in the file
  (rb-case rgba (out "rgba_clamp.png") 2.5 2.5 0 2 0.0 "" 0 0)
  ; RGBA in linear light ("RaGaBaA float")
  (let ((img (rb-dup rgba)))
    (rb-run img 2.5 1.5 0 4 0.0 FALSE "" 0 0 TRUE "")
    (rb-png img (out "rgba_lin.png"))
    (gimp-image-delete img))
  ; gray + alpha
  (rb-converted-case rgba rb-gray rb-png (out "in_graya.png") (out "out_graya.png")
                     (rb-blur 2.0 3.0 0 3 0.0 FALSE FALSE))
  ; a preset given through the PDB overrides sigma and boundary
  (let ((img (rb-dup rgb)))
    (rb-run img 9.0 9.0 0 0 0.0 FALSE "" 0 0 FALSE (out "t.preset"))
    (rb-png img (out "preset.png"))
    (gimp-image-delete img))
  ; 8-bit, linear light (the dialog's default)
  (let ((img (rb-dup rgb)))
    (rb-run img 3.0 2.0 0 2 0.0 FALSE "" 0 0 TRUE "")
    (rb-png img (out "lin8.png"))
    (gimp-image-delete img))
  ; 16-bit gamma integer
  (rb-converted-case rgb (rb-precision PRECISION-U16-GAMMA) rb-png (out "in16.png") (out "out16.png")
                     (rb-blur 4.0 4.0 0 4 0.0 TRUE FALSE))
  ; 32-bit float, gamma: filtered as stored, like the CLI does with float TIFF
  (rb-converted-case rgb (rb-precision PRECISION-FLOAT-GAMMA) rb-tif (out "in_fg.tif") (out "out_fg.tif")
                     (rb-blur 5.0 3.0 0 3 0.0 FALSE FALSE))
  ; 32-bit float, linear, in linear light: again the stored values
  (rb-converted-case rgb (rb-precision PRECISION-FLOAT-LINEAR) rb-tif (out "in_fl.tif") (out "out_fl.tif")
                     (rb-blur 2.0 7.0 0 1 0.3 TRUE TRUE))
  ; gray
  (rb-converted-case rgb rb-gray rb-png (out "in_gray.png") (out "out_gray.png")
                     (rb-blur 3.0 3.0 0 2 0.0 FALSE FALSE))
  ; selection: only the box x 10..39, y 8..27 changes; its edges are the boundary
  (let ((img (rb-dup rgb)))
    (gimp-image-select-rectangle img CHANNEL-OP-REPLACE 10 8 30 20)
    (rb-run img 2.0 2.0 0 2 0.0 FALSE "" 0 0 FALSE "")
    (rb-png img (out "sel.png"))
    (gimp-image-delete img))
  ; larger than one 64 x 64 tile: the plug-in's own tile transfer
  ; (plugin-gimp/rbg_tiles.c) with whole tiles and cut ones. A selection box
  ; across tile edges (x 37..186, y 21..140 of 203 x 157), and a whole RGBA
  ; u16 image (8 bytes a pixel) in linear light.
  (let ((img (rb-dup rgb)))
    (gimp-image-scale img 203 157)
    (rb-png img (out "big_in.png"))
    (gimp-image-select-rectangle img CHANNEL-OP-REPLACE 37 21 150 120)
    (rb-run img 3.0 3.0 0 2 0.0 FALSE "" 0 0 FALSE "")
    (rb-png img (out "big_sel.png"))
    (gimp-image-delete img))
  (rb-converted-case rgba (lambda (img)
                            (gimp-image-scale img 150 131)
                            ((rb-precision PRECISION-U16-GAMMA) img))
                     rb-png (out "big16_in.png") (out "big16_out.png")
                     (rb-blur 4.0 2.5 0 4 0.0 FALSE TRUE))
  (gimp-image-delete rgb)
  (gimp-image-delete tile)
  (gimp-image-delete tile-shift)
  (gimp-image-delete rgba))

; The drawable's own format handed to the engine (8/16-bit sRGB, straight
; alpha; perceptual) and babl's float (linear light): RGB, RGBA and gray +
; alpha, each at 8 (as loaded) and 16 bits, both ways, sigma 3 x 2, mirror. Saves
; n_<name>_<bits>_<p|l>_in.png (the input as GIMP holds it) and ..._out.png
; for test_gimp_native.sh to compare with the CLI.
(define (recblur-test-native d o)
  (define (out f) (string-append o "/" f))
  (define sources
    (list (list "rgb" (rb-load (string-append d "/rgb.png")) #f)
          (list "rgba" (rb-load (string-append d "/rgba.png")) #f)
          (list "graya" (rb-load (string-append d "/rgba.png")) #t)))
  (for-each
    (lambda (src)
      (for-each
        (lambda (bits)
          (for-each
            (lambda (linear)
              (let ((name (string-append "n_" (car src) "_" (car bits) "_"
                                         (if (= linear TRUE) "l" "p"))))
                (rb-converted-case (cadr src)
                                   (lambda (img)
                                     (if (caddr src) (rb-gray img))
                                     (if (cadr bits) ((rb-precision (cadr bits)) img)))
                                   rb-png (out (string-append name "_in.png"))
                                   (out (string-append name "_out.png"))
                                   (rb-blur 3.0 2.0 0 4 0.0 FALSE linear))))
            (list FALSE TRUE)))
        (list (list "8" #f) (list "16" PRECISION-U16-GAMMA))))
    sources)
  ; linear storage in linear light: the stored samples as they are (RGBA u16)
  (rb-converted-case (cadr (cadr sources)) (rb-precision PRECISION-U16-LINEAR) rb-png
                     (out "n_rgba_16lin_l_in.png") (out "n_rgba_16lin_l_out.png")
                     (rb-blur 3.0 2.0 0 4 0.0 FALSE TRUE))
  (for-each (lambda (src) (gimp-image-delete (cadr src))) sources))

; Error cases: each is its own batch command and must fail through the PDB,
; leaving its image open and unchanged for recblur-test-save-open.
(define (recblur-test-error d sx op sig)
  (let ((img (rb-load (string-append d "/rgb.png"))))
    (rb-run img sx sx op 2 0.0 FALSE sig 0 0 FALSE "")))

(define (recblur-test-save-open o)
  (let* ((ids (cadr (gimp-image-list))) (n (vector-length ids)))
    (let loop ((i 0))
      (if (< i n)
          (begin
            (let ((img (vector-ref ids i)))
              (rb-png img (string-append o "/err_" (number->string i) ".png"))
              (gimp-image-delete img))
            (loop (+ i 1)))))))

; The dialog test: RUN-INTERACTIVE opens the dialog (the other arguments are
; ignored); the shell script works the dialog and presses OK. Then
; RUN-WITH-LAST-VALS on a second copy must repeat what the dialog chose.
(define (recblur-test-dialog in o)
  (let* ((img (rb-load in)) (img2 (rb-dup img)))
    (plug-in-recblur RUN-INTERACTIVE img (rb-drw img) 0.0 0.0 0 0 0.0 FALSE 0 "" 0 0 FALSE "")
    (rb-png img (string-append o "/dialog.png"))
    (plug-in-recblur RUN-WITH-LAST-VALS img2 (rb-drw img2) 0.0 0.0 0 0 0.0 FALSE 0 "" 0 0 FALSE "")
    (rb-png img2 (string-append o "/last_vals.png"))
    (gimp-image-delete img)
    (gimp-image-delete img2)))

; A new GIMP session's RUN-WITH-LAST-VALS on in, saved to out: the values of
; the last session's OK, read back from the profile's recblur-last.preset.
(define (recblur-test-last-vals in out)
  (let ((img (rb-load in)))
    (plug-in-recblur RUN-WITH-LAST-VALS img (rb-drw img) 0.0 0.0 0 0 0.0 FALSE 0 "" 0 0 FALSE "")
    (rb-png img out)
    (gimp-image-delete img)))

; ------------------------------------------------------------------ deblur
; plug-in-recblur-deblur with every argument (backend 0 = auto, as the CLI).
(define (rb-deblur img sigma noise window boundary const linear preset)
  (plug-in-recblur-deblur RUN-NONINTERACTIVE img (rb-drw img) sigma noise window
                          boundary const linear 0 preset))

; One case on a copy of src, saved as PNG (perceptual unless linear).
(define (rb-dcase src out sigma noise window boundary const linear preset)
  (let ((img (rb-dup src)))
    (rb-deblur img sigma noise window boundary const linear preset)
    (rb-png img out)
    (gimp-image-delete img)))

; Saves each case's input (where GIMP made it) and output for test_gimp_deblur.sh.
(define (recblur-test-deblur d o mypreset)
  (define (out f) (string-append o "/" f))
  (define rgb (rb-load (string-append d "/rgb.png")))
  (define rgba (rb-load (string-append d "/rgba.png")))
  ; the CLI's defaults: noise 0.005, window 8, mirror (boundary 4)
  (rb-dcase rgb (out "d_default.png") 1.5 0.005 8 4 0.0 FALSE "")
  ; every boundary: 0 zero, 1 constant, 2 clamp, 3 periodic, 5 none
  (rb-dcase rgb (out "d_zero.png")     2.0 0.01 5 0 0.0 FALSE "")
  (rb-dcase rgb (out "d_constant.png") 2.0 0.01 5 1 0.3 FALSE "")
  (rb-dcase rgb (out "d_clamp.png")    2.0 0.01 5 2 0.0 FALSE "")
  (rb-dcase rgb (out "d_periodic.png") 2.0 0.01 5 3 0.0 FALSE "")
  (rb-dcase rgb (out "d_none.png")     2.0 0.01 5 5 0.0 FALSE "")
  ; presets: by name (its mirror boundary replaces clamp), and by path with a
  ; periodic boundary of its own (psf-sigma, noise, window are ignored)
  (rb-dcase rgb (out "d_preset.png") 9.0 0.4 2 2 0.0 FALSE "deblur-gauss-1")
  (rb-dcase rgb (out "d_mypreset.png") 9.0 0.4 2 2 0.0 FALSE mypreset)
  ; RGBA, straight alpha in the file (GIMP hands over premultiplied values)
  (rb-dcase rgba (out "d_rgba.png") 1.5 0.005 6 2 0.0 FALSE "")
  ; 8-bit in linear light
  (rb-dcase rgb (out "d_lin8.png") 1.5 0.005 8 4 0.0 TRUE "")
  ; gray
  (rb-converted-case rgb rb-gray rb-png (out "d_in_gray.png") (out "d_out_gray.png")
                     (lambda (img) (rb-deblur img 1.5 0.005 8 4 0.0 FALSE "")))
  ; 16-bit gamma integer
  (rb-converted-case rgb (rb-precision PRECISION-U16-GAMMA) rb-png (out "d_in16.png") (out "d_out16.png")
                     (lambda (img) (rb-deblur img 3.0 0.002 12 2 0.0 FALSE "")))
  ; 32-bit float, gamma: the stored values, as the CLI with float TIFF
  (rb-converted-case rgb (rb-precision PRECISION-FLOAT-GAMMA) rb-tif (out "d_in_fg.tif") (out "d_out_fg.tif")
                     (lambda (img) (rb-deblur img 1.5 0.005 8 3 0.0 FALSE "")))
  ; 32-bit float, linear, in linear light: again the stored values
  (rb-converted-case rgb (rb-precision PRECISION-FLOAT-LINEAR) rb-tif (out "d_in_fl.tif") (out "d_out_fl.tif")
                     (lambda (img) (rb-deblur img 1.0 0.003 4 1 0.3 TRUE "")))
  ; selection: only the box x 10..39, y 8..27 changes; its edges are the boundary
  (let ((img (rb-dup rgb)))
    (gimp-image-select-rectangle img CHANNEL-OP-REPLACE 10 8 30 20)
    (rb-deblur img 1.5 0.005 8 2 0.0 FALSE "")
    (rb-png img (out "d_sel.png"))
    (gimp-image-delete img))
  (gimp-image-delete rgb)
  (gimp-image-delete rgba))

; Deblur error cases: each its own batch command, failing through the PDB and
; leaving its image open and unchanged for recblur-test-save-open.
(define (recblur-test-deblur-error d sigma noise window preset)
  (let ((img (rb-load (string-append d "/rgb.png"))))
    (rb-deblur img sigma noise window 4 0.0 FALSE preset)))

; The deblur dialog test: RUN-INTERACTIVE opens the dialog twice (the shell
; script designs from a PSF in the first, picks a preset in the second, and
; presses OK); RUN-WITH-LAST-VALS on a copy must repeat the second.
(define (recblur-test-deblur-dialog in o)
  (let* ((img (rb-load in)) (img1 (rb-dup img)) (img2 (rb-dup img)))
    (plug-in-recblur-deblur RUN-INTERACTIVE img1 (rb-drw img1) 0.0 0.0 0 0 0.0 FALSE 0 "")
    (rb-png img1 (string-append o "/dialog_design.png"))
    (plug-in-recblur-deblur RUN-INTERACTIVE img (rb-drw img) 0.0 0.0 0 0 0.0 FALSE 0 "")
    (rb-png img (string-append o "/dialog_preset.png"))
    (plug-in-recblur-deblur RUN-WITH-LAST-VALS img2 (rb-drw img2) 0.0 0.0 0 0 0.0 FALSE 0 "")
    (rb-png img2 (string-append o "/last_vals.png"))
    (gimp-image-delete img)
    (gimp-image-delete img1)
    (gimp-image-delete img2)))
