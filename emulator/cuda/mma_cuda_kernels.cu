// The CUDA kernels of the emulator on a GPU and the device side of a run: the plan
// (cuda_plan.hpp) executed with dp_matrix.hpp's phases, the same functions the host run and
// the CPU's generic loop call. Only integer arithmetic, so every sm_80+ GPU runs it.
#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "cuda_plan.hpp"
#include "mma_cuda_run.hpp"

namespace tcemu::cuda_detail {

namespace {

// Decodes `count` elements of one operand array: which 0 = A, 1 = B (transposed), 2 = scales.
__global__ void decode_kernel(dp::DecodeParams d, dp::Codes in, Operand* out, int64_t count, int which) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    out[i] = which == 0 ? dp::decode_a(d, in, i) : (which == 1 ? dp::decode_bt(d, in, i) : dp::decode_scale(d, in, i));
}

// One block per kTileM x kTileN tile of D (blocks numbered row of tiles by row of tiles);
// instantiated per datapath kind, so that each holds only its kind's step.
template <int Kind>
__global__ void __launch_bounds__(dp::kTileThreads) tile_kernel(dp::TileArgs t, int64_t tiles_n) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  Operand* smem = reinterpret_cast<Operand*>(smem_raw);
  const int tid = static_cast<int>(threadIdx.x), ty = tid / dp::kTileN, tx = tid % dp::kTileN;
  int64_t m0 = 0, n0 = 0;
  dp::tile_origin(blockIdx.x, tiles_n, m0, n0);
  dp::ChainState s = dp::tile_begin(t, m0 + ty, n0 + tx);
  for (int64_t k0 = 0; k0 < t.ch.K; k0 += t.chunk) {
    const int cl = static_cast<int>(t.ch.K - k0 < t.chunk ? t.ch.K - k0 : t.chunk);
    __syncthreads();
    dp::tile_load(t, smem, m0, n0, k0, cl, tid, dp::kTileThreads);
    __syncthreads();
    dp::tile_compute<Kind>(t, s, smem, m0, n0, k0, cl, ty, tx);
  }
  dp::tile_end(t, s, m0 + ty, n0 + tx);
}

// One thread per D element, operands from global memory.
__global__ void direct_kernel(dp::TileArgs t) {
  const int64_t count = t.M * t.N, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    dp::element_direct(t, i);
}

using TileKernel = void (*)(dp::TileArgs, int64_t);
TileKernel tile_kernel_for(DatapathKind k) {
  switch (k) {
    case DatapathKind::t_fdpa: return tile_kernel<static_cast<int>(DatapathKind::t_fdpa)>;
    case DatapathKind::st_fdpa: return tile_kernel<static_cast<int>(DatapathKind::st_fdpa)>;
    case DatapathKind::gst_fdpa: return tile_kernel<static_cast<int>(DatapathKind::gst_fdpa)>;
    case DatapathKind::integer: break;
  }
  return tile_kernel<static_cast<int>(DatapathKind::integer)>;
}

std::string cuda_error(const char* what, cudaError_t e) {
  return std::string("CUDA error in ") + what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

#define TCEMU_CUDA_TRY(what, call)                        \
  do {                                                    \
    const cudaError_t err_ = (call);                      \
    if (err_ != cudaSuccess) return cuda_error(what, err_); \
  } while (0)

// Device memory freed when it goes out of scope.
struct DeviceBuffer {
  void* p = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (p) cudaFree(p);
  }
  cudaError_t alloc(size_t bytes) { return cudaMalloc(&p, bytes ? bytes : 1); }
};

// Host codes copied to the device (itemsize 8), or device codes used in place.
std::string to_device(const HostOrDevice& h, DeviceBuffer& buf, dp::Codes& out) {
  if (h.on_device || !h.codes.ptr || h.count == 0) {
    out = h.codes;
    return "";
  }
  TCEMU_CUDA_TRY("cudaMalloc (codes)", buf.alloc(h.count * 8));
  TCEMU_CUDA_TRY("cudaMemcpy (codes)", cudaMemcpy(buf.p, h.codes.ptr, h.count * 8, cudaMemcpyHostToDevice));
  out = dp::Codes{buf.p, 8};
  return "";
}

std::string decode(const dp::DecodeParams& d, dp::Codes in, DeviceBuffer& out, int64_t count, int which) {
  if (count == 0) return "";
  TCEMU_CUDA_TRY("cudaMalloc (decoded operands)", out.alloc(static_cast<size_t>(count) * sizeof(Operand)));
  decode_kernel<<<stride_blocks(count), kStrideThreads>>>(d, in, static_cast<Operand*>(out.p), count, which);
  TCEMU_CUDA_TRY("the decode kernel launch", cudaGetLastError());
  return "";
}

}  // namespace

std::string run_on_device(const Plan& plan, const RunInputs& in, int device, std::vector<uint64_t>& D) {
  TCEMU_CUDA_TRY("cudaSetDevice", cudaSetDevice(device));
  Plan pl = plan;
  DeviceBuffer bA, bB, bC, bsa, bsb, korder, dA, dBt, dSA, dSB, dD;
  dp::Codes A, B, C, sa, sb;
  for (auto [h, buf, out] : {std::tuple{&in.A, &bA, &A}, std::tuple{&in.B, &bB, &B}, std::tuple{&in.C, &bC, &C},
                             std::tuple{&in.sa, &bsa, &sa}, std::tuple{&in.sb, &bsb, &sb}})
    if (std::string e = to_device(*h, *buf, *out); !e.empty()) return e;
  if (!pl.korder.empty()) {
    const size_t bytes = pl.korder.size() * sizeof(int32_t);
    TCEMU_CUDA_TRY("cudaMalloc (k order)", korder.alloc(bytes));
    TCEMU_CUDA_TRY("cudaMemcpy (k order)", cudaMemcpy(korder.p, pl.korder.data(), bytes, cudaMemcpyHostToDevice));
    pl.dec.korder = static_cast<const int32_t*>(korder.p);
  }
  const dp::DecodeParams& d = pl.dec;
  for (auto [codes, buf, count, which] :
       {std::tuple{A, &dA, d.M * d.K, 0}, std::tuple{B, &dBt, d.N * d.K, 1}, std::tuple{sa, &dSA, d.M * d.sper, 2},
        std::tuple{sb, &dSB, d.N * d.sper, 2}})
    if (std::string e = decode(d, codes, *buf, count, which); !e.empty()) return e;
  const size_t nd = static_cast<size_t>(pl.M * pl.N);
  TCEMU_CUDA_TRY("cudaMalloc (D)", dD.alloc(nd * sizeof(uint64_t)));
  const dp::TileArgs t = tile_args(pl, static_cast<const Operand*>(dA.p), static_cast<const Operand*>(dBt.p),
                                   static_cast<const Operand*>(dSA.p), static_cast<const Operand*>(dSB.p), C,
                                   static_cast<uint64_t*>(dD.p));
  // The tiled kernel where its shared memory fits (above 48 KiB only with the opt-in).
  int optin = 0;
  TCEMU_CUDA_TRY("cudaDeviceGetAttribute", cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const bool tiled = pl.smem_bytes <= static_cast<size_t>(optin);
  if (tiled) {
    const TileKernel kernel = tile_kernel_for(pl.step.kind);
    if (pl.smem_bytes > (size_t{48} << 10))
      TCEMU_CUDA_TRY("cudaFuncSetAttribute", cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                                  static_cast<int>(pl.smem_bytes)));
    const TileLaunch l = tile_launch(pl);
    if (!l.error.empty()) return l.error;
    kernel<<<l.blocks, dp::kTileThreads, pl.smem_bytes>>>(t, l.tiles_n);
  } else {
    direct_kernel<<<stride_blocks(pl.M * pl.N), kStrideThreads>>>(t);
  }
  TCEMU_CUDA_TRY("the MMA kernel launch", cudaGetLastError());
  TCEMU_CUDA_TRY("the MMA kernel", cudaDeviceSynchronize());
  D.resize(nd);
  TCEMU_CUDA_TRY("cudaMemcpy (D)", cudaMemcpy(D.data(), dD.p, nd * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  return "";
}

namespace {

std::string query_device(int index, std::string& name) {
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    if (e == cudaErrorNoDevice) return "no CUDA device found";
    if (e == cudaErrorInsufficientDriver) return "no usable CUDA driver (" + std::string(cudaGetErrorString(e)) + ")";
    return cuda_error("cudaGetDeviceCount", e);
  }
  if (index < 0 || index >= count)
    return "no CUDA device " + std::to_string(index) + " (" + std::to_string(count) + " found)";
  cudaDeviceProp prop{};
  TCEMU_CUDA_TRY("cudaGetDeviceProperties", cudaGetDeviceProperties(&prop, index));
  name = std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ")";
  if (prop.major < 8) return name + ": compute capability below 8.0";
  TCEMU_CUDA_TRY("cudaSetDevice", cudaSetDevice(index));
  cudaFuncAttributes attr{};
  if (const cudaError_t e = cudaFuncGetAttributes(&attr, tile_kernel_for(DatapathKind::t_fdpa)); e != cudaSuccess)
    return name + ": this build has no kernel image for it (" + std::string(cudaGetErrorString(e)) + ")";
  return "";
}

}  // namespace

// Every run asks first (mma_cuda.cpp): a usable device's name is kept, so that a run does not
// pay cudaGetDeviceProperties (slow: it reads every property) again.
std::string device_status(int index, std::string& name) {
  static std::mutex mu;
  static std::map<int, std::string> usable;
  {
    const std::lock_guard<std::mutex> lock(mu);
    if (const auto it = usable.find(index); it != usable.end()) {
      name = it->second;
      return "";
    }
  }
  std::string why = query_device(index, name);
  if (why.empty()) {
    const std::lock_guard<std::mutex> lock(mu);
    usable[index] = name;
  }
  return why;
}

std::string check_device_pointer(const void* p, const char* what) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error of the failed query
    return std::string(what) + " is not a CUDA pointer";
  }
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
    return std::string(what) + " is not in GPU memory";
  return "";
}

}  // namespace tcemu::cuda_detail
