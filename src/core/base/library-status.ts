/**
 * A library's status codes as the object layer checks them: which one is success, which one (if any) means the
 * call is still in progress (NCCL's `ncclInProgress` on a non-blocking communicator), and the library's own error
 * for any other. One check for every raw call whose status the object layer reads itself.
 *
 * @module
 */

/** What a library's statuses mean. */
export interface LibraryStatus<S extends number> {
  /** The success status (`ncclSuccess`, `CUBLAS_STATUS_SUCCESS`, ...). */
  readonly success: S;
  /** The status of a call that goes on after returning, when the library has one (not a failure). */
  readonly inProgress?: S;
  /**
   * The library's error for a failed status of `functionName`; `asynchronous` when the status is one reported for
   * work queued earlier (NCCL's `ncclCommGetAsyncError`), not by the call itself.
   */
  error(status: S, functionName: string, asynchronous?: boolean): Error;
}

/**
 * Throws the library's error unless `status` is its success or its in-progress status; returns whether the call is
 * still in progress (false on success).
 */
export function checkStatus<S extends number>(library: LibraryStatus<S>, status: S, functionName: string, asynchronous = false): boolean {
  if (status === library.success) return false;
  if (status === library.inProgress) return true;
  throw library.error(status, functionName, asynchronous);
}
