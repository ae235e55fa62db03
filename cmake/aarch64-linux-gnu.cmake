# Cross toolchain: aarch64 Linux (Grace, Neoverse V2; DGX Spark) with Debian's
# g++-aarch64-linux-gnu and the multiarch :arm64 libraries (libgtest-dev:arm64,
# librapidcheck-dev:arm64, libboost-dev:arm64, zlib1g-dev:arm64; scripts/install-deps.sh).
# Test programs run under qemu-user (qemu-aarch64 -L /usr/aarch64-linux-gnu), so ctest and
# gtest_discover_tests work on an x86-64 host:
#   cmake --preset release -B build/aarch64 --toolchain cmake/aarch64-linux-gnu.cmake
# scripts/test-aarch64.sh is the CI stage that uses it.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Headers of architecture-independent packages (nlohmann-json, CLI11) and the :arm64 ones
# live under /usr; libraries under /usr/lib/aarch64-linux-gnu. Programs (python3, nvcc) are
# the host's.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
find_program(TCEMU_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(TCEMU_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${TCEMU_QEMU_AARCH64} -L /usr/aarch64-linux-gnu)
endif()
