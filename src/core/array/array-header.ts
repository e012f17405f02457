/**
 * The source of `cuda_ts/array.h`, the header a hand-written kernel includes to take a DeviceArray by value
 * (`arrayView(array)`): `cuda_ts::Array<T, N>`, laid out as CuPy's `CArray<T, N>` so kernel bodies written for
 * CuPy index the same bytes:
 *
 * ```c
 * struct { T* data; int64_t size; int64_t shape[N]; int64_t strides[N]; }   // strides in bytes; 16 + 16·N bytes
 * ```
 *
 * (rank 0: `data` and `size` only, 16 bytes). NVRTC sees the header without any include path: every C++ Program
 * that names it gets it as an in-memory header (program/package-headers.ts). The text imports nothing, so it is
 * also usable by a user who compiles elsewhere (write {@link ARRAY_HEADER_SOURCE} to a file).
 *
 * @module
 */

/** The name kernels include: `#include <cuda_ts/array.h>`. */
export const ARRAY_HEADER_NAME: string = "cuda_ts/array.h";

/** The text of `cuda_ts/array.h`. */
export const ARRAY_HEADER_SOURCE: string = `// cuda_ts/array.h: a DeviceArray passed to a kernel by value (arrayView(array) in cuda-ts).
//
//   struct Array<T, N> { T* data; long long size; long long shape[N]; long long strides[N]; };  // 16 + 16*N bytes
//
// Strides are in bytes (as NumPy, CuPy and the CUDA Array Interface count them) and may be negative or 0 (a
// broadcast axis). The layout is CuPy's CArray<T, N>: a kernel written against CArray indexes the same bytes.
//
//   a(i, j)            element at indices (i, j), one index per axis
//   a[idx]             element at an index array idx[N] (as CArray)
//   a[i]               element i in row-major order of the shape (a linear index over a view of any strides)
//   a.size(), a.shape(d), a.stride(d) (bytes), a.data(), a.ndim, a.shape(), a.strides() (arrays)
#ifndef CUDA_TS_ARRAY_H
#define CUDA_TS_ARRAY_H

namespace cuda_ts {

template <typename T, int N>
struct Array {
  static_assert(N > 0, "cuda_ts::Array: the rank N must not be negative");
  static constexpr int ndim = N;
  typedef T value_type;

  T* data_;
  long long size_;
  long long shape_[N];
  long long strides_[N];

  __host__ __device__ T* data() const { return data_; }
  __host__ __device__ long long size() const { return size_; }
  __host__ __device__ long long shape(int d) const { return shape_[d]; }
  __host__ __device__ long long stride(int d) const { return strides_[d]; }
  __host__ __device__ const long long* shape() const { return shape_; }
  __host__ __device__ const long long* strides() const { return strides_; }

  /** The byte offset of the element at idx (any integer type: CuPy's ptrdiff_t idx[N] too). */
  template <typename I>
  __host__ __device__ long long offset(const I (&idx)[N]) const {
    long long o = 0;
#pragma unroll
    for (int d = 0; d < N; d++) o += static_cast<long long>(idx[d]) * strides_[d];
    return o;
  }
  /** The byte offset of the element at row-major position i. */
  __host__ __device__ long long offset(long long i) const {
    long long o = 0;
#pragma unroll
    for (int d = N - 1; d > 0; d--) {
      o += (i % shape_[d]) * strides_[d];
      i /= shape_[d];
    }
    return o + i * strides_[0];
  }
  __host__ __device__ T& at_offset(long long bytes) const {
    return *(T*)((const char*)data_ + bytes);
  }

  template <typename I>
  __host__ __device__ T& operator[](const I (&idx)[N]) const { return at_offset(offset(idx)); }
  __host__ __device__ T& operator[](long long i) const { return at_offset(offset(i)); }

  template <typename... I>
  __host__ __device__ T& operator()(I... i) const {
    static_assert(sizeof...(I) == N, "cuda_ts::Array: one index per axis");
    const long long idx[N] = {static_cast<long long>(i)...};
    return at_offset(offset(idx));
  }
};

template <typename T>
struct Array<T, 0> {
  static constexpr int ndim = 0;
  typedef T value_type;

  T* data_;
  long long size_;

  __host__ __device__ T* data() const { return data_; }
  __host__ __device__ long long size() const { return size_; }
  __host__ __device__ const long long* shape() const { return nullptr; }
  __host__ __device__ const long long* strides() const { return nullptr; }
  __host__ __device__ T& operator[](long long) const { return *data_; }
  __host__ __device__ T& operator()() const { return *data_; }
};

// CuPy's name for the same record (its extra template flags ignored), for kernels written against CArray.
template <typename T, int N, bool CContiguous = false, bool Use32BitIndexing = false>
using CArray = Array<T, N>;

}  // namespace cuda_ts

#endif  // CUDA_TS_ARRAY_H
`;
