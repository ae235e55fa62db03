# The one decision whether this build has CUDA, for emulator/cuda (the emulator on a GPU) and
# tools/gpu (the real instructions). Included once by the top-level CMakeLists.txt.
# In:  TCEMU_ENABLE_CUDA: AUTO builds the CUDA parts when a CUDA compiler and toolkit are
#      found, ON requires them, OFF leaves them out.
# Out: TCEMU_HAS_CUDA (ON/OFF); when ON the CUDA language is enabled, CUDA::cudart and
#      CUDA::cudart_static exist, and TCEMU_CUDA_WARN holds the warning flags for nvcc.
set(TCEMU_HAS_CUDA OFF)
if(NOT TCEMU_ENABLE_CUDA STREQUAL "OFF" AND TCEMU_ENABLE_CUDA)
  # The toolkit's default location, for machines where nvcc is not on PATH.
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "CUDA compiler")
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  find_package(CUDAToolkit QUIET)
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND)
    set(TCEMU_HAS_CUDA ON)
  elseif(TCEMU_ENABLE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "TCEMU_ENABLE_CUDA is ON but no CUDA compiler/toolkit was found (set CMAKE_CUDA_COMPILER or use AUTO/OFF)")
  else()
    message(STATUS "tcemu: no CUDA compiler found; building without the CUDA backends")
  endif()
endif()

if(TCEMU_HAS_CUDA)
  message(STATUS "tcemu: CUDA ${CUDAToolkit_VERSION}: building the CUDA backends")
  # Every CUDA target names its architectures explicitly.
  set(CMAKE_CUDA_ARCHITECTURES OFF)
  enable_language(CUDA)
  # CMake 3.25 predates nvcc's C++20 mode; tcemu's cxx_std_20 requirement reaches the CUDA
  # targets as "CUDA20", so say how nvcc spells it (newer CMake versions already know).
  if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION OR CMAKE_CUDA20_STANDARD_COMPILE_OPTION STREQUAL "")
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  set(TCEMU_CUDA_WARN -Xcompiler=-Wall,-Wextra $<$<BOOL:${TCEMU_WERROR}>:-Xcompiler=-Werror>)
endif()
