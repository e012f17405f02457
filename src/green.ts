/**
 * `cuda-ts/green`: green contexts: a device's SMs split into groups, each with its own streams.
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export { SMResource, GreenContext, smResourceOf, streamResources, type SMSplitOptions, type GreenStreamOptions } from "./core/green/green.ts";
