/**
 * PMIx's error class, in a module of its own: `cuda-ts/distributed` exports it without loading PMIx's binding and
 * tables (src/core/distributed/pmix-meeting.ts loads those when a job's ranks first meet through PMIx).
 *
 * @module
 */
import { LibraryError } from "./errors.ts";

/** A PMIx call failed (pmix_status_t other than PMIX_SUCCESS). */
export class PMIxError extends LibraryError {
  constructor(code: number, codeName: string, description: string, functionName: string, advice?: string) {
    super("pmix", code, codeName, advice === undefined ? description : `${description}. ${advice}`, functionName);
    this.name = "PMIxError";
  }
}
