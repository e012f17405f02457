/**
 * The cuBLAS and cuSOLVER handles `cuda-ts/array/linalg` computes with: one of each per CUDA context, made
 * synchronously on first use (the binding tables are imported statically by this entry point; the libraries load at
 * the first handle), moved to each call's stream (math-shared.ts's `cachedHandle`), released by the lifetime safety
 * net or with their context at the process's end.
 *
 * @module
 */
import { cusolver, type cusolverDnHandle_t, type cusolverDnParams_t } from "../../../bindings/cusolver.ts";
import { Blas } from "../../math/blas/blas.ts";
import { withCurrentContext } from "../../base/driver-state.ts";
import { track } from "../../base/lifetime.ts";
import type { Stream } from "../../stream.ts";
import { cachedHandle } from "../math-shared.ts";

/** A cached cuBLAS handle (the `Blas` object of `cuda-ts/math/blas`). */
interface BlasHolder {
  stream: Stream;
  readonly blas: Blas;
}

/** The context's cuBLAS handle, set to `stream`. */
export function blasFor(stream: Stream): Blas {
  return cachedHandle<BlasHolder>(
    "cublas",
    stream,
    (s) => ({ stream: s, blas: new Blas({ stream: s }) }),
    (h, s) => h.blas.setStream(s),
  ).blas;
}

/** A cached cuSOLVER handle and its 64-bit API's parameters object. */
export interface SolverHandle {
  stream: Stream;
  readonly handle: cusolverDnHandle_t;
  readonly params: cusolverDnParams_t;
}

/** The context's cuSOLVER handle, set to `stream`. */
export function solverFor(stream: Stream): SolverHandle {
  return cachedHandle<SolverHandle>(
    "cusolver",
    stream,
    (s) => {
      const ctx = s.context.handle;
      const made = withCurrentContext(ctx, () => {
        const handle = cusolver.cusolverDnCreate();
        let params: cusolverDnParams_t;
        try {
          cusolver.cusolverDnSetStream(handle, s.handle);
          params = cusolver.cusolverDnCreateParams();
        } catch (e) {
          cusolver.cusolverDnDestroy(handle);
          throw e;
        }
        return { handle, params };
      });
      const holder: SolverHandle = { stream: s, handle: made.handle, params: made.params };
      track(holder, "cuSOLVER handle", () =>
        withCurrentContext(ctx, () => {
          cusolver.cusolverDnDestroyParams(made.params);
          cusolver.cusolverDnDestroy(made.handle);
        }),
      );
      return holder;
    },
    (h, s) => withCurrentContext(s.context.handle, () => cusolver.cusolverDnSetStream(h.handle, s.handle)),
  );
}
