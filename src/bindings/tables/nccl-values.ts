/**
 * The NCCL values the object layer needs at import (data types, reductions, statuses, the unique id's size, the
 * split's "no color"), from the newest generated NCCL's enums and constants alone: the same objects
 * `cuda-ts/bindings/nccl` exports, without the tables of every NCCL version (./nccl.ts).
 *
 * @module
 */
export { ncclDataType_t, ncclRedOp_t, ncclResult_t } from "../../../generated/nccl-2.28/nccl/enums.ts";
export { NCCL_SPLIT_NOCOLOR, NCCL_UNIQUE_ID_BYTES } from "../../../generated/nccl-2.28/nccl/constants.ts";
