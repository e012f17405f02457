/**
 * C strings: UTF-8 encoding with a terminating NUL, into memory whose storage never moves.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * Encodes a string as UTF-8 plus a NUL byte in a fresh buffer over an explicit `ArrayBuffer` (whose storage does
 * not move, so its address may be handed to C: Bun issue 32054).
 *
 * @param s - the string; an embedded NUL ends the C string early.
 * @returns the bytes, the NUL included (`byteLength` is the UTF-8 length + 1).
 */
export function encodeCString(s: string): Uint8Array {
  // At most 3 UTF-8 bytes per UTF-16 code unit.
  const bytes = new Uint8Array(new ArrayBuffer(s.length * 3 + 1));
  const { written } = encoder.encodeInto(s, bytes);
  bytes[written] = 0;
  return bytes.subarray(0, written + 1);
}

/**
 * Encodes a string as UTF-8 plus a NUL byte at the start of `room`, without allocating (ASCII is copied directly;
 * other text goes through `TextEncoder.encodeInto`).
 *
 * @param s - the string.
 * @param room - where to write; keep one reusable view per place rather than a fresh `subarray` per call.
 * @returns the number of bytes written, the NUL included, or -1 when they do not fit (`room` is then clobbered).
 */
export function encodeCStringInto(s: string, room: Uint8Array): number {
  const n = s.length;
  if (n < room.length) {
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      room[i] = c;
    }
    if (i === n) {
      room[n] = 0;
      return n + 1;
    }
  }
  const { read, written } = encoder.encodeInto(s, room);
  if (read < n || written >= room.length) return -1;
  room[written] = 0;
  return written + 1;
}
