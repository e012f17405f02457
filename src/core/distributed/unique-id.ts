/**
 * NCCL's unique id: the 128 bytes rank 0 makes (`ncclGetUniqueId`) and every rank passes to `ncclCommInitRank` (by
 * value) to meet in one communicator. It travels between processes by any transport: as bytes or base64 text.
 *
 * @module
 */
import type { NcclBinding } from "../../bindings/nccl.ts";
import { NCCL_UNIQUE_ID_BYTES } from "../../bindings/tables/nccl-values.ts";
import { ncclModule } from "./nccl-module.ts";
import { describeValue } from "../../errors/describe.ts";
import { CollectiveArgumentError } from "./errors.ts";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** @internal The bytes of `id` as `ncclCommInitRank` takes them by value (not a copy: never write them). */
export let uniqueIdBytes: (id: UniqueId) => Uint8Array;

/** An NCCL unique id (128 bytes). Immutable: the bytes are copied in and out. */
export class UniqueId {
  readonly #bytes: Uint8Array;

  static {
    uniqueIdBytes = (id) => id.#bytes;
  }

  private constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  /** A fresh id from NCCL (`ncclGetUniqueId`): rank 0 makes it and hands it to the other ranks. */
  static create(binding: NcclBinding = ncclModule().nccl): UniqueId {
    const rec = binding.ncclGetUniqueId();
    const view = rec.$view;
    return new UniqueId(new Uint8Array(view.buffer.slice(view.byteOffset, view.byteOffset + NCCL_UNIQUE_ID_BYTES)));
  }

  /** The id of these 128 bytes (copied). */
  static fromBytes(bytes: Uint8Array): UniqueId {
    if (!(bytes instanceof Uint8Array) || bytes.length !== NCCL_UNIQUE_ID_BYTES) {
      throw new CollectiveArgumentError(
        "UniqueId.fromBytes",
        "bytes",
        `a Uint8Array of ${NCCL_UNIQUE_ID_BYTES} bytes`,
        bytes instanceof Uint8Array ? `${bytes.length} bytes long` : describeValue(bytes),
        "Pass the bytes of UniqueId.toBytes() as they came.",
      );
    }
    return new UniqueId(bytes.slice());
  }

  /** The id of a base64 text ({@link toBase64}). */
  static fromBase64(text: string): UniqueId {
    if (typeof text !== "string" || !BASE64.test(text) || text.length % 4 !== 0) {
      throw new CollectiveArgumentError("UniqueId.fromBase64", "text", "base64 text (UniqueId.toBase64())", describeValue(text), "Pass the text of UniqueId.toBase64() as it came.");
    }
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return UniqueId.fromBytes(bytes);
  }

  /** The 128 bytes (a copy). */
  toBytes(): Uint8Array {
    return this.#bytes.slice();
  }

  /** The 128 bytes as base64 text (172 characters), for a transport that carries text. */
  toBase64(): string {
    let binary = "";
    for (const b of this.#bytes) binary += String.fromCharCode(b);
    return btoa(binary);
  }

  /** Whether two ids are the same bytes. */
  equals(other: UniqueId): boolean {
    const o = other.#bytes;
    return this.#bytes.every((b, i) => b === o[i]);
  }

  /** Does not show the bytes (they admit a process to the communicator). */
  toString(): string {
    return "UniqueId(128 bytes)";
  }
}
