# CLI tests: shell scripts driving the real `recblur` binary, with a small C
# helper (test_cli_ref) that computes the engine's in-process result.
add_executable(test_cli_ref ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_ref.c)
target_link_libraries(test_cli_ref PRIVATE recblur m)
target_compile_options(test_cli_ref PRIVATE -Wall -Wextra)

# The float64 reference of a Gaussian blur on PFM planes (alpha premultiplied
# here): the host tests (ImageMagick, GIMP) compare the hosts' output with it,
# not with the engine's.
add_executable(rb_host_reference ${CMAKE_CURRENT_SOURCE_DIR}/host_reference.c
               ${CMAKE_CURRENT_SOURCE_DIR}/reference.c)
target_link_libraries(rb_host_reference PRIVATE recblur m)
target_compile_options(rb_host_reference PRIVATE -Wall -Wextra)

foreach(t roundtrip codecs errors seamless presets stream stream_png stream_tiled missing mask cudamem memdefault)
  add_test(NAME cli_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_${t}.sh)
  set_tests_properties(cli_${t} PROPERTIES
    SKIP_RETURN_CODE 77
    ENVIRONMENT "RECBLUR=$<TARGET_FILE:recblur_cli>;CLI_REF=$<TARGET_FILE:test_cli_ref>;SRC=${PROJECT_SOURCE_DIR};RECBLUR_PRESET_PATH=${PROJECT_SOURCE_DIR}/presets")
endforeach()
