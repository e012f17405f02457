/**
 * `cuda-ts/array/fft` on a real GPU, against NumPy's results (test/fixtures/array-math) and a host DFT: fft, ifft,
 * rfft, irfft with n and norm, along axis 0 and the last, fft2/rfft2/irfft2, fftn/rfftn/ifftn with axes and s (more
 * than three axes too), float32 in complex64, integers in complex128, round trips, fftfreq, rfftfreq, fftshift and
 * ifftshift. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, DTypeError, type Stream } from "../../../src/index.ts";
import { fft, fft2, fftfreq, fftn, fftshift, ifft, ifftn, ifftshift, irfft, irfft2, rfft, rfft2, rfftfreq, rfftn } from "../../../src/array-fft.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";
import { expectClose, hostDft, nums, numpyFixture as F, values } from "./math-host.ts";

describe.skipIf(!gpu.available)(`array fft on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const f64 = (data: readonly number[], shape: readonly number[]): DeviceArray => DeviceArray.from(Float64Array.from(data), { stream, shape });
  const host = (a: DeviceArray): number[] => {
    try {
      return nums(a.toTypedArraySync({ stream }));
    } finally {
      a.close();
    }
  };

  it("fft, ifft, rfft, irfft of a float64 signal match NumPy, with n and every norm", () => {
    const sig = values(F.signal!);
    using x = f64(sig, [8]);
    const X = fft(x);
    expect(X.dtype.name).toBe("complex128");
    expect(X.shape).toEqual([8]);
    expectClose(host(X), values(F.fft!), 1e-12, "fft");
    expectClose(host(ifft(x)), values(F.ifft!), 1e-12, "ifft");
    const R = rfft(x);
    expect(R.shape).toEqual([5]);
    expectClose(host(R), values(F.rfft!), 1e-12, "rfft");
    expectClose(host(fft(x, { n: 12, norm: "ortho" })), values(F.fft_n12_ortho!), 1e-12, "fft n=12 ortho");
    expectClose(host(rfft(x, { n: 6, norm: "forward" })), values(F.rfft_n6_forward!), 1e-12, "rfft n=6 forward");
    using half = rfft(x);
    const back = irfft(half, { n: 8 });
    expect(back.dtype.name).toBe("float64");
    expectClose(host(back), values(F.irfft_n8!), 1e-12, "irfft");
    // The input is not changed by a c2r transform (cuFFT overwrites its input: the function works on a copy).
    expectClose(host(half.copy({ stream })), values(F.rfft!), 1e-12, "rfft input kept");
  });

  it("computes float32 in complex64 and integers in complex128, against a host DFT", () => {
    const data = [3, -1, 4, 1, -5, 9, 2, -6, 5, 3];
    using x32 = DeviceArray.from(Float32Array.from(data), { stream });
    const X32 = fft(x32);
    expect(X32.dtype.name).toBe("complex64");
    const ref = hostDft(data.flatMap((v) => [v, 0]), 10, -1);
    expectClose(host(X32), ref, 1e-5, "float32");
    using xi = DeviceArray.from(Int32Array.from(data), { stream });
    const Xi = fft(xi);
    expect(Xi.dtype.name).toBe("complex128");
    expectClose(host(Xi), ref, 1e-12, "int32");
    using c = DeviceArray.from(Float32Array.from([1, 2, 3, 4]), { stream, dtype: "complex64" });
    expect(() => rfft(c)).toThrow(DTypeError);
  });

  it("transforms along axis 0 and over two axes (fft2, rfft2, irfft2) as NumPy", () => {
    const m = values(F.grid!);
    using M = f64(m, [3, 4]);
    const A0 = fft(M, { axis: 0 });
    expect(A0.shape).toEqual([3, 4]);
    expectClose(host(A0), values(F.fft_axis0!), 1e-12, "axis 0");
    expectClose(host(fft2(M)), values(F.fft2!), 1e-12, "fft2");
    const R2 = rfft2(M);
    expect(R2.shape).toEqual([3, 3]);
    using r2 = R2;
    expectClose(host(r2.copy({ stream })), values(F.rfft2!), 1e-12, "rfft2");
    expectClose(host(irfft2(r2, { s: [3, 4] })), values(F.irfft2!), 1e-12, "irfft2");
    // A transposed view transforms as its values.
    using Mt = f64(m, [3, 4]);
    const T = fft(Mt.T, { axis: 1 });
    expect(T.shape).toEqual([4, 3]);
    const t = host(T);
    const a0 = values(F.fft_axis0!);
    for (let i = 0; i < 4; i++) for (let j = 0; j < 3; j++) expectClose(t.slice(2 * (i * 3 + j), 2 * (i * 3 + j) + 2), a0.slice(2 * (j * 4 + i), 2 * (j * 4 + i) + 2), 1e-12, `view ${i},${j}`);
  });

  it("fftn, rfftn over chosen axes, ifftn with s, as NumPy", () => {
    const z = values(F.cube!);
    using Z = f64(z, [2, 3, 4]);
    expectClose(host(fftn(Z)), values(F.fftn!), 1e-12, "fftn");
    const R = rfftn(Z, { axes: [0, 2] });
    expect(R.shape).toEqual([2, 3, 3]);
    expectClose(host(R), values(F.rfftn_axes!), 1e-12, "rfftn axes (0, 2)");
    const I = ifftn(Z, { s: [2, 5], axes: [1, 2] });
    expect(I.shape).toEqual([2, 2, 5]);
    expectClose(host(I), values(F.ifftn_s!), 1e-12, "ifftn s");
  });

  it("transforms more than three axes in several passes (a round trip of a 4-d array)", () => {
    const data = Array.from({ length: 2 * 3 * 2 * 4 * 2 }, (_, i) => Math.sin(i) * 3);
    using X = f64(data, [2, 3, 2, 4, 2]);
    using Y = fftn(X, { axes: [0, 1, 3, 4] });
    expect(Y.shape).toEqual([2, 3, 2, 4, 2]);
    using back = ifftn(Y, { axes: [0, 1, 3, 4] });
    const b = host(back.copy({ stream }));
    expectClose(b.filter((_, i) => i % 2 === 0), data, 1e-12, "round trip real");
    expectClose(b.filter((_, i) => i % 2 === 1), data.map(() => 0), 1e-12, "round trip imaginary");
    // Separable: the 4-axis transform equals one axis after another.
    let step: DeviceArray = fft(X, { axis: 0 });
    for (const axis of [1, 3, 4]) {
      const next = fft(step, { axis });
      step.close();
      step = next;
    }
    expectClose(host(step), host(Y.copy({ stream })), 1e-10, "separable");
  });

  it("fftfreq, rfftfreq, fftshift and ifftshift as NumPy", () => {
    expectClose(host(fftfreq(8, 0.1, { stream })), values(F["fftfreq_8_0.1"]!), 1e-15, "fftfreq");
    const r = rfftfreq(9, 2, { stream, dtype: "float32" });
    expect(r.dtype.name).toBe("float32");
    expectClose(host(r), values(F.rfftfreq_9_2!), 1e-7, "rfftfreq");
    using M = f64(values(F.grid!), [3, 4]);
    expectClose(host(fftshift(M)), values(F.fftshift!), 0, "fftshift");
    expectClose(host(ifftshift(M, { axes: 1 })), values(F.ifftshift_axis1!), 0, "ifftshift axis 1");
    using S = fftshift(M);
    expectClose(host(ifftshift(S)), values(F.grid!), 0, "round trip");
  });
});
