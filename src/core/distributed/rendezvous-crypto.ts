/**
 * The protection of a rendezvous session after its handshake (src/core/distributed/rendezvous.ts): every message in
 * either direction is encrypted and authenticated with keys that only holders of the job's secret can derive, so a
 * relay between a rank and the store (on the network, across hosts) can neither read a value (a communicator's unique
 * id) nor change, drop, replay, reorder or reflect a message without the receiver noticing and disconnecting.
 *
 * Keys. After the handshake both sides hold the secret and both 32-byte nonces (the server's `Ns`, the client's
 * `Nc`); each direction has its own key:
 *
 *     K(c→s) = HKDF-SHA256(ikm = secret, salt = Ns ‖ Nc, info = "cuda-ts rendezvous v2 client->server", 32 bytes)
 *     K(s→c) = HKDF-SHA256(ikm = secret, salt = Ns ‖ Nc, info = "cuda-ts rendezvous v2 server->client", 32 bytes)
 *
 * Fresh nonces make fresh keys per connection: nothing recorded from one session authenticates in another.
 *
 * Wire format. A sealed message is the payload of one length-prefixed frame (4-byte big-endian length, then):
 *
 *     seq (8 bytes, big-endian) ‖ AES-256-GCM ciphertext (as long as the body) ‖ GCM tag (16 bytes)
 *
 * `seq` counts the messages of one direction from 0. The GCM nonce (12 bytes) is the direction (0x01 client→server,
 * 0x02 server→client), three zero bytes, and `seq`'s 8 bytes: a key never sees a nonce twice, and the direction is
 * bound twice over (key and nonce). The tag authenticates the nonce (so `seq`) and the ciphertext; a receiver accepts
 * only the next `seq` of its direction whose tag checks, and refuses anything else with a
 * {@link RendezvousIntegrityError} naming the fault: a frame sealed in its own direction that came back (reflected),
 * a genuine frame at the wrong position (replayed: an earlier `seq`; reordered: a later one, so one was dropped or
 * held back), or one whose tag fails (tampered, or not sealed with this session's keys). The overhead is 24 bytes a
 * message.
 *
 * @module
 */
import type * as NodeCrypto from "node:crypto";
import { nodeBuiltin } from "../../host.ts";
import { RendezvousError, RendezvousIntegrityError, type RendezvousIntegrityFault } from "./errors.ts";

const nodeCrypto = (): typeof NodeCrypto => nodeBuiltin("node:crypto") as typeof NodeCrypto;

/** Bytes a sealed message adds to its body: the sequence number and the GCM tag. */
export const SEAL_OVERHEAD = 8 + 16;
const SEQ_BYTES = 8;
const TAG_BYTES = 16;
const KEY_INFO_C2S = "cuda-ts rendezvous v2 client->server";
const KEY_INFO_S2C = "cuda-ts rendezvous v2 server->client";
const DIRECTION_C2S = 0x01;
const DIRECTION_S2C = 0x02;


const FAULT_TEXT: Record<RendezvousIntegrityFault, string> = {
  tampered: "failed its authentication tag: it was changed on the way, or not sealed with this session's keys (sent by someone without the job's secret)",
  replayed: "is a genuine earlier message sent again (a replay)",
  reordered: "is a genuine message out of order: one before it was dropped or held back",
  reflected: "is one this side sent, sent back to it (a reflection)",
  malformed: `is too short to be a sealed message (at least ${SEAL_OVERHEAD} bytes)`,
};


/** Which end of the connection a {@link SessionCipher} is. */
export type SessionSide = "client" | "server";

/** HMAC-SHA256 of the concatenated parts under `key` (the handshake's proofs). */
export function hmac(key: Uint8Array, ...parts: (string | Uint8Array)[]): Uint8Array {
  const h = nodeCrypto().createHmac("sha256", key);
  for (const p of parts) h.update(p);
  return h.digest();
}

/** The two direction keys of a session (see the module's description). */
export function deriveSessionKeys(secret: Uint8Array, serverNonce: Uint8Array, clientNonce: Uint8Array): { readonly clientToServer: Uint8Array; readonly serverToClient: Uint8Array } {
  const salt = new Uint8Array(serverNonce.length + clientNonce.length);
  salt.set(serverNonce);
  salt.set(clientNonce, serverNonce.length);
  const key = (info: string): Uint8Array => new Uint8Array(nodeCrypto().hkdfSync("sha256", secret, salt, info, 32));
  return { clientToServer: key(KEY_INFO_C2S), serverToClient: key(KEY_INFO_S2C) };
}

function nonceOf(direction: number, seq: Uint8Array): Uint8Array {
  const iv = new Uint8Array(12);
  iv[0] = direction;
  iv.set(seq, 4);
  return iv;
}

/** One end of a session: seals what it sends, opens (or refuses) what it receives. */
export class SessionCipher {
  readonly #sendKey: Uint8Array;
  readonly #receiveKey: Uint8Array;
  readonly #sendDirection: number;
  readonly #receiveDirection: number;
  readonly #maxBody: number;
  readonly #peer: string;
  #sent = 0;
  #received = 0;
  #broken: RendezvousIntegrityError | undefined;

  /**
   * @param maxPayload the largest sealed payload the frame layer carries: bodies above `maxPayload - SEAL_OVERHEAD`
   * are refused by {@link seal} before a sequence number is spent.
   */
  constructor(side: SessionSide, secret: Uint8Array, serverNonce: Uint8Array, clientNonce: Uint8Array, maxPayload: number) {
    const k = deriveSessionKeys(secret, serverNonce, clientNonce);
    const client = side === "client";
    this.#sendKey = client ? k.clientToServer : k.serverToClient;
    this.#receiveKey = client ? k.serverToClient : k.clientToServer;
    this.#sendDirection = client ? DIRECTION_C2S : DIRECTION_S2C;
    this.#receiveDirection = client ? DIRECTION_S2C : DIRECTION_C2S;
    this.#maxBody = maxPayload - SEAL_OVERHEAD;
    this.#peer = client ? "the server" : "a client";
  }

  /** Messages sealed so far (the next one's `seq`). */
  get sent(): number {
    return this.#sent;
  }

  /** Messages opened so far (the `seq` the next one must carry). */
  get received(): number {
    return this.#received;
  }

  /** The payload of the frame that carries `body`: `seq ‖ ciphertext ‖ tag`. */
  seal(body: Uint8Array): Uint8Array {
    if (body.length > this.#maxBody) throw new RangeError(`a rendezvous message holds at most ${this.#maxBody} bytes, this one ${body.length}: store smaller values`);
    if (!Number.isSafeInteger(this.#sent + 1)) throw new RendezvousError("this rendezvous connection has sent 2^53 messages: reconnect");
    const out = new Uint8Array(SEQ_BYTES + body.length + TAG_BYTES);
    const view = new DataView(out.buffer);
    view.setUint32(0, Math.floor(this.#sent / 2 ** 32), false);
    view.setUint32(4, this.#sent >>> 0, false);
    const c = nodeCrypto().createCipheriv("aes-256-gcm", this.#sendKey, nonceOf(this.#sendDirection, out.subarray(0, SEQ_BYTES)), { authTagLength: TAG_BYTES });
    const head = c.update(body);
    const tail = c.final();
    out.set(head, SEQ_BYTES);
    out.set(tail, SEQ_BYTES + head.length);
    out.set(c.getAuthTag(), SEQ_BYTES + body.length);
    this.#sent++;
    return out;
  }

  /**
   * The body of a received payload. Anything but the next message of the peer's direction, unchanged, is a
   * {@link RendezvousIntegrityError}; after one, every later call throws it again (the connection is done).
   */
  open(payload: Uint8Array): Uint8Array {
    if (this.#broken !== undefined) throw this.#broken;
    if (payload.length < SEAL_OVERHEAD) throw this.#refuse("malformed", payload.length);
    const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
    const seq = view.getUint32(0, false) * 2 ** 32 + view.getUint32(4, false);
    if (seq === this.#received) {
      const body = this.#tryOpen(this.#receiveKey, this.#receiveDirection, payload);
      if (body !== undefined) {
        this.#received++;
        return body;
      }
    }
    // Refused: say why. Each check is one more GCM verification of at most one frame, and the connection closes.
    if (this.#tryOpen(this.#sendKey, this.#sendDirection, payload) !== undefined) throw this.#refuse("reflected", seq);
    if (seq !== this.#received && this.#tryOpen(this.#receiveKey, this.#receiveDirection, payload) !== undefined) throw this.#refuse(seq < this.#received ? "replayed" : "reordered", seq);
    throw this.#refuse("tampered", seq);
  }

  #tryOpen(key: Uint8Array, direction: number, payload: Uint8Array): Uint8Array | undefined {
    const d = nodeCrypto().createDecipheriv("aes-256-gcm", key, nonceOf(direction, payload.subarray(0, SEQ_BYTES)), { authTagLength: TAG_BYTES });
    d.setAuthTag(payload.subarray(payload.length - TAG_BYTES));
    try {
      const head = d.update(payload.subarray(SEQ_BYTES, payload.length - TAG_BYTES));
      const tail = d.final(); // throws when the tag does not check; nothing of `head` is used then
      const out = new Uint8Array(head.length + tail.length);
      out.set(head);
      out.set(tail, head.length);
      return out;
    } catch {
      return undefined;
    }
  }

  #refuse(fault: RendezvousIntegrityFault, seq: number): RendezvousIntegrityError {
    const at = fault === "malformed" ? `(${seq} bytes)` : `(sequence number ${seq}, expected ${this.#received})`;
    this.#broken = new RendezvousIntegrityError(
      `a rendezvous message from ${this.#peer} ${FAULT_TEXT[fault]} ${at}; it was refused and the connection closed. ` +
        "Something between the rank and the rendezvous store alters traffic, or a process without the job's secret is talking: check the network path between the nodes",
      fault,
    );
    return this.#broken;
  }
}
