# Filter designers, signature parser and presets (helper "design").
foreach(t test_filter_parse test_bspline test_gaussian_accuracy test_presets)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
    rb_add_test(${t} ${t}.c)
  endif()
endforeach()
