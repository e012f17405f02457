/**
 * The module each compile Worker runs (started by compile-async.ts): it answers compile requests with
 * {@link runCompileJob}. Not imported by anything else.
 *
 * @module
 */
import { serveRequests } from "../worker/serve.ts";
import { runCompileJob } from "./compile-job.ts";

serveRequests(runCompileJob);
