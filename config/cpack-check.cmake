# Run by cpack (CPACK_PROJECT_CONFIG_FILE): the Debian package is built
# from a tree configured for /usr, so that the units it ships name the
# paths it installs.
if(CPACK_GENERATOR STREQUAL "DEB" AND NOT CPACK_PACKAGING_INSTALL_PREFIX STREQUAL "/usr")
  message(FATAL_ERROR "the Debian package wants -DCMAKE_INSTALL_PREFIX=/usr "
    "(this tree is configured for ${CPACK_PACKAGING_INSTALL_PREFIX})")
endif()
