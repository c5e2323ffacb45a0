# recblur_host_package(PREFIX OPTION MODULE WHAT HOW):
# find a front end's host library MODULE (a pkg-config spec such as
# "gimpui-2.0>=2.10") as PkgConfig::PREFIX with PREFIX_FOUND, PREFIX_VERSION and
# the other pkg_check_modules results. When it is missing, the front end's
# OPTION decides: ON stops the configure with HOW (the package to install),
# AUTO says WHAT is not built. The caller returns when PREFIX_FOUND is false
# (a macro: the results land in the caller's scope).
macro(recblur_host_package prefix option module what how)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(${prefix} IMPORTED_TARGET ${module})
  endif()
  if(NOT ${prefix}_FOUND)
    if(${option} STREQUAL "ON")
      message(FATAL_ERROR "${option}=ON but ${module} was not found by pkg-config (${how})")
    endif()
    message(STATUS "recblur: ${module} not found, not building ${what}")
  endif()
endmacro()
