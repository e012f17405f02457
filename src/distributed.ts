/**
 * `cuda-ts/distributed`: work across processes and hosts: sharing memory and events between processes (IPC handles
 * and the Unix-socket channel that carries them), the rendezvous and world of a multi-process job, and NCCL's
 * communicators and collectives. NCCL's tables load when a communicator is first made.
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export { IPCAllocationHandle, IPCBufferDescriptor } from "./core/memory/ipc.ts";
export { IPCEventDescriptor, EVENT_DESCRIPTOR_BYTES } from "./core/event.ts";
export {
  IpcChannel,
  IpcListener,
  type IpcAcceptOptions,
  type IpcConnectOptions,
  type IpcListenOptions,
  type IpcMessage,
  type IpcPeerPolicy,
  type IpcWaitOptions,
  type PeerCredentials,
} from "./core/memory/ipc-socket.ts";
export type { IpcMemoryResource } from "./core/memory/resource.ts";
export {
  RENDEZVOUS_ADDR_ENV,
  RENDEZVOUS_SECRET_ENV,
  RendezvousClient,
  RendezvousServer,
  type RendezvousClientOptions,
  type RendezvousServerOptions,
} from "./core/distributed/rendezvous.ts";
export {
  expandHostList,
  expandTasksPerNode,
  joinWorld,
  LAUNCHER_VARIABLES,
  Meeting,
  RENDEZVOUS_VIA_ENV,
  slurmRendezvousPort,
  world,
  WORLD_ENV,
  type JoinOptions,
  type Launcher,
  type MeetingPath,
  type World,
} from "./core/distributed/world.ts";
export {
  buildConfig,
  Communicator,
  group,
  type CollectiveOptions,
  type CommunicatorConfig,
  type CommunicatorInitOptions,
  type ConfigRecord,
  type FromWorldOptions,
  type GroupScope,
  type ReduceOptions,
  type RootOptions,
  type RootReduceOptions,
} from "./core/distributed/communicator.ts";
export { NCCL_TYPES, type CollectiveOperand, type NcclTypeOf, type ReduceOp, type TypedBuffer } from "./core/distributed/collectives.ts";
export { UniqueId } from "./core/distributed/unique-id.ts";
export { NCCLError } from "./core/distributed/nccl-errors.ts";
export {
  CollectiveArgumentError,
  CommunicatorStateError,
  LauncherEnvironmentError,
  RankMissingError,
  RendezvousError,
  RendezvousIntegrityError,
  type RendezvousIntegrityFault,
} from "./core/distributed/errors.ts";
export { PMIxError } from "./bindings/pmix-error.ts";
