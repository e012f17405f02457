/**
 * Temporaries of an operation made of other operations: each is closed on the operation's stream when it is done,
 * whether it returned or threw (the frees are stream-ordered, after the work queued on them).
 *
 * @module
 */
import type { DeviceArray } from "../device-array.ts";
import type { Stream } from "../../stream.ts";

/**
 * Runs `body` with a list it adds its temporaries to (`temp(x)` returns `x`); each is closed on `stream` afterwards,
 * the last made first, whether `body` returned or threw.
 */
export function withTemporaries<R>(stream: Stream, body: (temp: <A extends DeviceArray>(x: A) => A) => R): R {
  const temps: DeviceArray[] = [];
  try {
    return body((x) => {
      temps.push(x);
      return x;
    });
  } finally {
    for (const t of temps.reverse()) t.close(stream);
  }
}
