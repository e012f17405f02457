/**
 * The errors of events (src/core/event.ts): waiting on an event never recorded, an elapsed time that could not be
 * measured. Each is re-exported by src/core/errors.ts, the root's one import path for errors.
 *
 * @module
 */
import { InvalidStateError } from "../errors/base.ts";

/** A stream was asked to wait on an event that was never recorded. */
export class EventNotRecordedError extends InvalidStateError {
  constructor(message: string) {
    super(message);
    this.name = "EventNotRecordedError";
  }
}

/** Elapsed time between two events could not be measured. */
export class EventTimingError extends InvalidStateError {
  constructor(message: string) {
    super(message);
    this.name = "EventTimingError";
  }
}
