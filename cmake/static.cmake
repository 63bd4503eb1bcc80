# cmake/static.cmake - the -DLUAMECH_STATIC=ON build: every library the
# targets link that Debian ships as a static archive (.a next to the .so:
# LuaJIT, libuv (libuv_a.a), hiredis, jansson, http-parser, libunistring,
# zlib, OpenSSL, libcsv, protobuf-c, snappy) is linked from that archive
# instead of the shared library.  libsnappy.a is C++: the C++ runtime it
# needs is linked statically too (GCC's libstdc++.a, and libgcc_eh instead
# of libgcc_s: -static-libgcc).  What stays shared, and why:
#  - glibc (libc, libm, ld-linux): a fully static glibc cannot resolve host
#    names (getaddrinfo needs the NSS modules of the glibc it was built with
#    at run time) and the build refuses the linker's warning about it.
# (libmemcached, of which Debian 12 ships no .a, is not linked by the
# product at all: src/client/mc_ring.c does its key distribution.)
# Included at the end of CMakeLists.txt (from cmake/install.cmake), after
# every target and find: it rewrites the link lists of all targets of the
# project and of the imported targets (PkgConfig::*), whatever the layout
# of the per-layer libraries.  Does not change how anything is compiled.

option(LUAMECH_STATIC "Link LuaJIT, libuv, hiredis and the other libraries with a Debian .a statically, and the C++ runtime snappy needs (only glibc stays shared)" OFF)

# The static archive for a shared library path, or "" (libuv's is libuv_a.a).
function(luamech_static_archive so out)
  set(${out} "" PARENT_SCOPE)
  if(so MATCHES "^(.*)/lib([^/]+)\\.so(\\.[0-9.]+)?$")
    foreach(cand "${CMAKE_MATCH_1}/lib${CMAKE_MATCH_2}.a" "${CMAKE_MATCH_1}/lib${CMAKE_MATCH_2}_a.a")
      if(EXISTS "${cand}")
        set(${out} "${cand}" PARENT_SCOPE)
        return()
      endif()
    endforeach()
  endif()
endfunction()

# Rewrites one link item (a path, possibly inside $<LINK_ONLY:...>).
function(luamech_static_item item out)
  set(result "${item}")
  if(item MATCHES "^(.*[:])?(/[^<>:;]+\\.so(\\.[0-9.]+)?)(>)?$")
    luamech_static_archive("${CMAKE_MATCH_2}" a)
    if(a)
      string(REPLACE "${CMAKE_MATCH_2}" "${a}" result "${item}")
    endif()
  endif()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

function(luamech_static_target tgt)
  foreach(prop LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
    get_target_property(libs ${tgt} ${prop})
    if(NOT libs)
      continue()
    endif()
    set(new "")
    foreach(item IN LISTS libs)
      luamech_static_item("${item}" r)
      list(APPEND new "${r}")
    endforeach()
    set_property(TARGET ${tgt} PROPERTY ${prop} "${new}")
  endforeach()
endfunction()

function(luamech_static_dir dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(imported DIRECTORY ${dir} PROPERTY IMPORTED_TARGETS)
  foreach(tgt IN LISTS targets imported)
    if(NOT TARGET ${tgt})    # an imported target of another directory's scope
      continue()
    endif()
    get_target_property(type ${tgt} TYPE)
    if(NOT type STREQUAL "UTILITY")
      luamech_static_target(${tgt})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    luamech_static_dir(${sub})
  endforeach()
endfunction()

if(LUAMECH_STATIC)
  if(LUAMECH_SANITIZE OR LUAMECH_FUZZ)
    message(FATAL_ERROR "LUAMECH_STATIC cannot be combined with LUAMECH_SANITIZE or LUAMECH_FUZZ")
  endif()
  luamech_static_dir(${CMAKE_SOURCE_DIR})
  # libsnappy.a (Prometheus remote write) is C++: its archive needs the C++
  # runtime, linked from GCC's libstdc++.a (libstdc++-NN-dev, part of g++),
  # and the unwinder from libgcc_eh.a rather than libgcc_s.so.
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libstdc++.a
                  OUTPUT_VARIABLE LUAMECH_LIBSTDCXX_A OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT IS_ABSOLUTE "${LUAMECH_LIBSTDCXX_A}" OR NOT EXISTS "${LUAMECH_LIBSTDCXX_A}")
    message(FATAL_ERROR "LUAMECH_STATIC: no libstdc++.a for ${CMAKE_C_COMPILER} (install g++)")
  endif()
  if(TARGET luamech_output)
    target_link_libraries(luamech_output PRIVATE ${LUAMECH_LIBSTDCXX_A})
  endif()
  target_link_options(luamech PRIVATE -static-libgcc)
  # The archives' own needs (pkg-config --static): libm, libdl, libpthread
  # (dl and pthread are in libc since glibc 2.34; named for older ones).
  target_link_libraries(luamech PRIVATE m ${CMAKE_DL_LIBS} Threads::Threads)
endif()
