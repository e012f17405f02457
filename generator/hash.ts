/** sha256 of text or bytes, as lower-case hex (synchronous, through node:crypto, which Deno provides). */
import { createHash } from "node:crypto";

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
