# cmake/install.cmake - what `cmake --install` puts under the prefix, the man
# page luamech(1), the static-build switch and the Debian package (CPack).
# Included with one line at the end of CMakeLists.txt, after every target.
#
# Installed (prefix /usr/local by default, /usr in the .deb):
#   bin/luamech                          the binary; its Lua code (lua/*.lua),
#                                        templates and API types are embedded,
#                                        so it needs no other file at run time
#   share/man/man1/luamech.1.gz          generated from the --help texts
#   share/luamech/scenarios/             the shipped scenarios and suites
#   share/luamech/types/luamech.lua      the Lua API's editor annotations
#   share/luamech/run-local.sh           private local servers + a run
#   share/luamech/api-nginx.sh           its API server's nginx config
#   share/luamech/grpc-greeter.py        its gRPC server (python3-grpcio)
#   share/doc/luamech/                   README.md, docs/
# Builds luamech.1 in the build directory (`man ./build/luamech.1`).
include(GNUInstallDirs)
include(${CMAKE_CURRENT_LIST_DIR}/static.cmake)

# --- man page: man/gen-man.sh turns the binary's --help texts into roff ---
option(LUAMECH_MAN "Build the man page luamech.1 from the --help texts (runs the built binary)" ON)
set(LUAMECH_MAN_DEPS ${CMAKE_SOURCE_DIR}/man/gen-man.sh ${CMAKE_SOURCE_DIR}/man/help2roff.awk
    ${CMAKE_SOURCE_DIR}/man/luamech-extra.roff)
if(LUAMECH_MAN AND NOT CMAKE_CROSSCOMPILING)
  add_custom_command(
    OUTPUT ${CMAKE_BINARY_DIR}/luamech.1
    COMMAND sh ${CMAKE_SOURCE_DIR}/man/gen-man.sh $<TARGET_FILE:luamech> ${CMAKE_BINARY_DIR}/luamech.1
            ${CMAKE_SOURCE_DIR}/man/luamech-extra.roff ${PROJECT_VERSION}
            ${CMAKE_INSTALL_FULL_DATADIR} ${CMAKE_INSTALL_FULL_DOCDIR}
    DEPENDS luamech ${LUAMECH_MAN_DEPS}
    COMMENT "Generating luamech.1 from luamech --help"
    VERBATIM)
  add_custom_target(luamech_man ALL DEPENDS ${CMAKE_BINARY_DIR}/luamech.1)
  # Installed with the paths of the prefix it is installed to (which
  # `cmake --install --prefix` and CPack choose after configuring).
  install(CODE "
    set(_rel_data \"${CMAKE_INSTALL_DATADIR}\")
    set(_rel_doc \"${CMAKE_INSTALL_DOCDIR}\")
    set(_dir \"${CMAKE_BINARY_DIR}/man-install\")
    file(MAKE_DIRECTORY \"\${_dir}\")
    execute_process(COMMAND sh \"${CMAKE_SOURCE_DIR}/man/gen-man.sh\" \"$<TARGET_FILE:luamech>\"
                    \"\${_dir}/luamech.1\" \"${CMAKE_SOURCE_DIR}/man/luamech-extra.roff\" \"${PROJECT_VERSION}\"
                    \"\${CMAKE_INSTALL_PREFIX}/\${_rel_data}\" \"\${CMAKE_INSTALL_PREFIX}/\${_rel_doc}\"
                    RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR \"man/gen-man.sh failed (\${_rc})\")
    endif()
    execute_process(COMMAND gzip -9nf \"\${_dir}/luamech.1\" RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR \"gzip luamech.1 failed (\${_rc})\")
    endif()
    file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_MANDIR}/man1\" TYPE FILE
         PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ FILES \"\${_dir}/luamech.1.gz\")
  ")
endif()

# --- install rules ---
install(TARGETS luamech RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/luamech/scenarios
        FILES_MATCHING PATTERN "*.lua" PATTERN "*.csv" PATTERN "*.jsonl" PATTERN "*.md" PATTERN "*.proto")
install(FILES ${CMAKE_SOURCE_DIR}/lua/types/luamech.lua DESTINATION ${CMAKE_INSTALL_DATADIR}/luamech/types)
install(PROGRAMS ${CMAKE_SOURCE_DIR}/scripts/run-local.sh ${CMAKE_SOURCE_DIR}/scripts/api-nginx.sh
        ${CMAKE_SOURCE_DIR}/scripts/grpc-greeter.py DESTINATION ${CMAKE_INSTALL_DATADIR}/luamech)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png")

# --- Debian package: cpack --config build/CPackConfig.cmake -> luamech_<version>_<arch>.deb ---
# Depends: computed by dpkg-shlibdeps from the libraries the binary really
# links (Debian package names with minimum versions: libluajit-5.1-2,
# libuv1, libhiredis0.14, ... for the normal build; only libc6 for
# LUAMECH_STATIC=ON).
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "luamech")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "luamech")
set(CPACK_PACKAGE_CONTACT "luamech maintainers <luamech@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "load-test runner: Lua scenarios run by virtual users on LuaJIT and libuv")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "luamech runs thousands of virtual users as LuaJIT coroutines on libuv event
loops against memcached, redis and HTTP/1.1 servers, and reports what the
servers did interval by interval: percentiles from HdrHistogram-layout
histograms, think time kept out of response time, coordinated omission
corrected for arrival-rate groups.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "net")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "protobuf-compiler")   # luamech.grpc / luamech.protobuf run protoc on a .proto at run time
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "memcached, redis-server, webdis, nginx-light | nginx, openssl")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)
include(CPack)
