/**
 * The errors of IPC (ipc.ts, ipc-socket.ts): a connection closed or timed out, a peer refused, a malformed message or
 * descriptor. Each is re-exported by src/core/errors.ts, the root's one import path for errors.
 *
 * @module
 */
import { ConnectionError, quietFields } from "../../errors/base.ts";

/** The other process closed an IPC connection before a message came. */
export class IpcDisconnectedError extends ConnectionError {
  constructor(message: string) {
    super(message);
    this.name = "IpcDisconnectedError";
  }
}

/** A wait ran out of time. */
export class IpcTimeoutError extends ConnectionError {
  constructor(what: string, ms: number) {
    super(`${what} timed out after ${ms} ms: check that the other process is running and uses the same address`);
    this.name = "IpcTimeoutError";
  }
}

/**
 * An IPC peer was refused: the process at the other end of a connection is not one this side allows (another
 * user, by default), or did not present the expected one-time token. The connection was closed and nothing was
 * sent over it.
 */
export class IpcPeerRefusedError extends ConnectionError {
  /** The peer's user id. */
  readonly uid: number;
  /** The peer's group id. */
  readonly gid: number;
  /** The peer's process id (0 when it is in another PID namespace). */
  readonly pid: number;
  /** Why: `"uid"` (not an allowed user), `"predicate"` (allowPeer said no) or `"token"` (missing or wrong token). */
  readonly reason: "uid" | "predicate" | "token";
  constructor(peer: { readonly uid: number; readonly gid: number; readonly pid: number }, reason: "uid" | "predicate" | "token", message: string) {
    super(message);
    this.name = "IpcPeerRefusedError";
    this.uid = peer.uid;
    this.gid = peer.gid;
    this.pid = peer.pid;
    this.reason = reason;
    quietFields(this);
  }
}

/** A malformed IPC message or descriptor. */
export class IPCFormatError extends ConnectionError {
  constructor(message: string) {
    super(message);
    this.name = "IPCFormatError";
  }
}
