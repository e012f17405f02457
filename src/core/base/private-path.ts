/**
 * Checks that a directory or file is private to this user before cuda-ts trusts what is in it (a compile cache
 * entry it would run as the user's GPU code, the directory of an IPC socket), the way ssh checks a key file: the
 * path is owned by the current user, and neither its group nor everyone else may write it. For a directory, every
 * directory above it must be owned by the user or root and not writable by others, unless it has the sticky bit
 * (like /tmp, where others cannot rename or remove what they do not own).
 *
 * @module
 */
import { nodeBuiltin, pathOwnership, realPath } from "../../host.ts";
import { currentUid } from "../../ffi/libc-socket.ts";
import { InsecurePathError } from "./errors.ts";
import type * as NodePath from "node:path";

// Node.js built-ins, loaded on first use (src/host.ts, nodeBuiltin).
const nodePath = (): typeof NodePath => nodeBuiltin("node:path") as typeof NodePath;

const GROUP_OR_OTHER_WRITE = 0o022;
const STICKY = 0o1000;

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, "0")}`;
}

/**
 * Why `file` may not be trusted, or undefined when it is a regular file (not a link) owned by this user that
 * neither group nor others may write. A missing file is undefined too (nothing to trust).
 */
export function checkPrivateFile(file: string, uid: number = currentUid()): InsecurePathError | undefined {
  const st = pathOwnership(file);
  if (st === undefined) return undefined;
  if (!st.isFile) return new InsecurePathError(file, `${file} is not a regular file (a link or something else): refusing to trust it. Remove it.`);
  if (st.uid !== uid) {
    return new InsecurePathError(file, `${file} is owned by uid ${st.uid}, not by this user (uid ${uid}): refusing to trust it. Remove it, or chown it to yourself.`);
  }
  if ((st.mode & GROUP_OR_OTHER_WRITE) !== 0) {
    return new InsecurePathError(file, `${file} has mode ${octal(st.mode)}, writable by group or others: refusing to trust it. Run chmod go-w on it (or remove it).`);
  }
  return undefined;
}

/**
 * Why directory `dir` may not be trusted, or undefined when it (links followed) is owned by this user and not
 * writable by group or others, and every directory above it is owned by this user or root and is not writable by
 * others without the sticky bit. A missing directory gives an error too.
 */
export function checkPrivateDirectory(dir: string, uid: number = currentUid()): InsecurePathError | undefined {
  const real = realPath(dir);
  const st = real === undefined ? undefined : pathOwnership(real, true);
  if (real === undefined || st === undefined) return new InsecurePathError(dir, `${dir} does not exist or cannot be read: create it (mode 0700) first.`);
  if (!st.isDirectory) return new InsecurePathError(dir, `${dir} is not a directory: point at a directory of your own.`);
  if (st.uid !== uid) {
    return new InsecurePathError(dir, `${dir} is owned by uid ${st.uid}, not by this user (uid ${uid}): refusing to trust it. Use a directory of your own (mode 0700).`);
  }
  if ((st.mode & GROUP_OR_OTHER_WRITE) !== 0) {
    return new InsecurePathError(dir, `${dir} has mode ${octal(st.mode)}, writable by group or others: refusing to trust it. Run chmod 700 on it, or use a directory of your own.`);
  }
  for (let up = nodePath().dirname(real); ; up = nodePath().dirname(up)) {
    const a = pathOwnership(up, true);
    if (a === undefined) return new InsecurePathError(up, `${up}, above ${dir}, cannot be read: cannot check who may change it.`);
    if (a.uid !== uid && a.uid !== 0) {
      return new InsecurePathError(up, `${up}, above ${dir}, is owned by uid ${a.uid}, neither this user (uid ${uid}) nor root: its owner could replace ${dir}. Use a directory elsewhere.`);
    }
    if ((a.mode & GROUP_OR_OTHER_WRITE) !== 0 && (a.mode & STICKY) === 0) {
      return new InsecurePathError(up, `${up}, above ${dir}, has mode ${octal(a.mode)}, writable by group or others without the sticky bit: others could replace ${dir}. Run chmod go-w on it, or use a directory elsewhere.`);
    }
    if (up === nodePath().dirname(up)) return undefined;
  }
}
