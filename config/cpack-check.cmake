# Run by cpack (CPACK_PROJECT_CONFIG_FILE): the Debian package is built
# from a tree configured for /usr, so that the units it ships name the
# paths it installs, and every directory it installs into outside the
# prefix (CPACK_XDPLANE_INSTALL_DIRS: the units, sysusers.d, the bash
# completion, the configuration) is a Debian one: under /usr, /lib or /etc
# and not under /usr/local. A build folder whose cache names such a
# directory explicitly (-DXDPLANE_SYSTEMD_UNITDIR=...) is refused with it.
if(CPACK_GENERATOR STREQUAL "DEB")
  if(NOT CPACK_PACKAGING_INSTALL_PREFIX STREQUAL "/usr")
    message(FATAL_ERROR "the Debian package wants -DCMAKE_INSTALL_PREFIX=/usr "
      "(this tree is configured for ${CPACK_PACKAGING_INSTALL_PREFIX})")
  endif()
  foreach(d IN LISTS CPACK_XDPLANE_INSTALL_DIRS)
    if(NOT d MATCHES "^/(usr|lib|etc)/" OR d MATCHES "^/usr/local(/|$)")
      message(FATAL_ERROR "the Debian package would install into ${d}: "
        "configure the tree again with -U 'XDPLANE_*DIR' (these directories "
        "then follow the prefix /usr)")
    endif()
  endforeach()
endif()
