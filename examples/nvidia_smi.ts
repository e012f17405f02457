/**
 * nvidia_smi: an nvidia-smi-like table from NVML through `system` (a port of cuda-python's nvidia_smi.py), then a
 * check that NVML and the CUDA driver see the same GPUs: every CUDA device is an NVML GPU with the same UUID and
 * name, and back. Exits non-zero when they disagree.
 *
 *   bun examples/nvidia_smi.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/nvidia_smi.ts
 */
import { Device } from "../src/index.ts";
import * as system from "../src/system.ts";

const snapshot = system.snapshot();
console.log(new Date().toString());
console.log(system.formatTable(snapshot));

const problems: string[] = [];
const cuda = Device.all();
// NVML sees every GPU of the machine; CUDA only those CUDA_VISIBLE_DEVICES lets it see.
if (process.env.CUDA_VISIBLE_DEVICES === undefined && snapshot.devices.length !== cuda.length) {
  problems.push(`NVML sees ${snapshot.devices.length} GPU(s), CUDA ${cuda.length}`);
}
for (const dev of cuda) {
  const gpu = system.Device.fromCudaDevice(dev);
  if (gpu.uuidWithoutPrefix !== dev.uuid.toLowerCase()) problems.push(`CUDA device ${dev.id}: NVML UUID ${gpu.uuid}, CUDA ${dev.uuid}`);
  if (gpu.name !== dev.name) problems.push(`CUDA device ${dev.id}: NVML name ${gpu.name}, CUDA ${dev.name}`);
  if (gpu.toCudaDevice() !== dev) problems.push(`CUDA device ${dev.id}: NVML GPU ${gpu.uuid} maps back to another device`);
  const m = gpu.memory;
  if (m !== undefined && (m.used > m.total || m.free > m.total)) problems.push(`CUDA device ${dev.id}: NVML memory ${m.used} used / ${m.free} free of ${m.total}`);
  if (!snapshot.devices.some((s) => s.uuid === gpu.uuid)) problems.push(`CUDA device ${dev.id}: ${gpu.uuid} is missing from the snapshot`);
  console.log(`CUDA device ${dev.id} = NVML GPU ${gpu.index}: ${gpu.uuid} (${gpu.name})`);
}

if (problems.length > 0) throw new Error(`nvidia_smi: NVML and CUDA disagree:\n  ${problems.join("\n  ")}`);
console.log(`nvidia_smi: NVML and CUDA agree on ${cuda.length} GPU(s); driver ${system.driverVersion()}, NVML ${system.nvmlVersion()}, OK`);
