// The target being compiled, as an architecture-mask bit (1 sm_90a, 2 sm_100a, 4 sm_120a):
// nvcc sets the arch-specific feature macros for the `a` targets (compute_90a, compute_100a,
// compute_120a). The host pass and other targets see 0. Used by mma_device.cu and cvt_device.cu.
#pragma once

#ifndef TCEMU_GPU_ARCH_BIT
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TCEMU_GPU_ARCH_BIT 1
#elif defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define TCEMU_GPU_ARCH_BIT 2
#elif defined(__CUDA_ARCH_FEAT_SM120_ALL)
#define TCEMU_GPU_ARCH_BIT 4
#else
#define TCEMU_GPU_ARCH_BIT 0
#endif
#endif
