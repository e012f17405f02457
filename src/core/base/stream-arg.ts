/**
 * Taking a stream argument: the one way the object layer checks the stream a call is given, so every call refuses
 * the same things with the same words. A stream must be a {@link Stream} (an ArgumentError says what came and what to
 * pass), open (a {@link ClosedError}), and, where the call works on one device, of that device (a
 * {@link DeviceMismatchError}, through {@link refuseWrongDevice}).
 *
 * - {@link takeStream}: a stream passed as such (`blas.setStream(s)`, `graph.launch(s)`, `{ stream }` of a math
 *   object's options), optional or with a default where the call allows none.
 * - {@link takeStreamOption}: the `{ stream }` option of a stream-ordered operation (`buffer.copyTo(b, { stream })`),
 *   which also refuses the Stream passed in place of the options.
 *
 * Hot paths pass a module-level {@link StreamSpec} (no object per call) or keep an inline `instanceof` check and
 * call the helper only to refuse.
 *
 * @module
 * @internal
 */
import { describeValue } from "../../errors/describe.ts";
import { ClosedError } from "./errors.ts";
import { Stream } from "../stream.ts";
import { refuseWrongDevice } from "./wrong-device.ts";
import { ArgumentError } from "../../errors/base.ts";

/** How a call takes its stream (everything optional: a Stream, open, of any device, is required). */
export interface StreamSpec {
  /**
   * How messages name the argument after the call (`"options.stream"`, `"uploadStream"`); without it a message says
   * what the call needs (`"Blas.setStream needs a Stream, not 3"`).
   */
  readonly name?: string;
  /** Also take anything with a `stream` (a GraphBuilder), as `launch` does. */
  readonly like?: boolean;
  /** Take `undefined` (and `null`): return `fallback`, or undefined without one. */
  readonly optional?: boolean;
  /** What an optional stream left out stands for (a default stream). */
  readonly fallback?: Stream;
  /** The ordinal of the device the call works on: a stream of another is refused (DeviceMismatchError). */
  readonly device?: number;
  /** What to do about a stream of another device (refuseWrongDevice's advice). */
  readonly deviceAdvice?: string;
  /** What to do about a value that is no Stream (default: pass a stream from device.createStream()). */
  readonly advice?: string;
  /**
   * The error for a value that is no Stream, where the call has a class of its own for its arguments (default a
   * ArgumentError saying what the call needs, what came and what to do).
   */
  readonly refuse?: (refused: RefusedStream) => Error;
}

/** What {@link StreamSpec.refuse} is told of a value that is no Stream. */
export interface RefusedStream {
  /** The call (`"allReduce"`). */
  readonly action: string;
  /** The argument (`spec.name`, or `"the stream"`). */
  readonly name: string;
  /** What was expected (`"a Stream"`, `"a Stream or undefined"`). */
  readonly expected: string;
  /** What came, described (`"null"`, `"a Buffer"`). */
  readonly got: string;
  /** What to do (`spec.advice` or the default). */
  readonly advice: string;
}

const NO_SPEC: StreamSpec = Object.freeze({});

/** The spec of the `stream` of a call's options (`Rng.create({ stream })`). */
export const STREAM_OPTION: StreamSpec = Object.freeze({ name: "options.stream", advice: "pass { stream } with a Stream (for example device.createStream())" });

/** The spec of a stream a call may go without (undefined where none came). */
export const OPTIONAL_STREAM: StreamSpec & { readonly optional: true } = Object.freeze({ optional: true });
const DEFAULT_ADVICE = "pass a stream from device.createStream()";

/**
 * The Stream of a stream argument, checked: a Stream (or, with `like`, anything whose `stream` is one), open, of
 * `spec.device` where given. `action` names the call in messages (`"Blas.setStream"`, `"new Blas"`). With
 * `optional`, `undefined` gives `spec.fallback` (or undefined).
 *
 * @throws ArgumentError (or `spec.refuse`'s error) for anything else, naming what came and what to pass.
 * @throws ClosedError for a closed stream.
 * @throws DeviceMismatchError for a stream of another device than `spec.device`.
 */
export function takeStream(value: unknown, action: string, spec: StreamSpec & { readonly optional: true; readonly fallback?: undefined }): Stream | undefined;
export function takeStream(value: unknown, action: string, spec?: StreamSpec): Stream;
export function takeStream(value: unknown, action: string, spec: StreamSpec = NO_SPEC): Stream | undefined {
  const s = value instanceof Stream ? value : spec.like === true ? (value as { stream?: unknown } | null | undefined)?.stream : undefined;
  if (!(s instanceof Stream)) {
    if ((value === undefined || value === null) && spec.optional === true) return spec.fallback;
    throw refusal(value, action, spec);
  }
  if (s.isClosed) throw new ClosedError(argumentName(action, spec), "queue work on it");
  if (spec.device !== undefined) {
    const id = s.device.id;
    if (id !== spec.device) refuseWrongDevice(argumentName(action, spec), spec.device, id, spec.deviceAdvice);
  }
  return s;
}

/**
 * The stream of a stream-ordered operation's `{ stream }` option, checked as {@link takeStream} does. `action` names
 * the call (`"Buffer.copyTo"`); with `owner`, the call is `owner`'s class name and `action` (`"allocate"`), built
 * only when the check fails.
 *
 * @throws ArgumentError where the option is missing or no Stream, or where the Stream itself came instead of `{ stream }`.
 * @throws ClosedError for a closed stream.
 */
export function takeStreamOption(options: { readonly stream?: Stream | undefined } | undefined, action: string, owner?: object): Stream {
  const stream = options?.stream;
  if (stream instanceof Stream && !stream.isClosed) return stream;
  const call = owner === undefined ? action : `${owner.constructor.name}.${action}`;
  if (options instanceof Stream) throw new ArgumentError(`${call} takes its stream as an option: pass { stream }, not the Stream itself`);
  if (stream === undefined || stream === null) throw new ArgumentError(`${call} needs a stream: pass { stream } (for example device.createStream())`);
  return takeStream(stream, call, STREAM_OPTION);
}

/** `"Blas.setStream: the stream"`, `"Graph.launch: uploadStream"`. */
function argumentName(action: string, spec: StreamSpec): string {
  return `${action}: ${spec.name ?? "the stream"}`;
}

function refusal(value: unknown, action: string, spec: StreamSpec): Error {
  const expected = spec.like === true ? "a Stream (or a GraphBuilder)" : spec.optional === true ? "a Stream or undefined" : "a Stream";
  const got = describeValue(value);
  const advice = spec.advice ?? DEFAULT_ADVICE;
  if (spec.refuse !== undefined) return spec.refuse({ action, name: spec.name ?? "the stream", expected, got, advice });
  return new ArgumentError(spec.name === undefined ? `${action} needs ${expected}, not ${got}; ${advice}` : `${action}: ${spec.name} must be ${expected}, not ${got}; ${advice}`);
}
