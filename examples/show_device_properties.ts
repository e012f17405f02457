/**
 * show_device_properties: every CUDA device with every CUdevice_attribute by name (a port of cuda.core's
 * show_device_properties.py). Exits non-zero when what the driver reports does not hang together.
 *
 *   bun examples/show_device_properties.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/show_device_properties.ts
 */
import { CUdevice_attribute } from "../src/bindings/driver-types.ts";
import { Device } from "../src/index.ts";

const problems: string[] = [];
function check(ok: boolean, what: string): void {
  if (!ok) problems.push(what);
}

const attributeCount = Object.keys(CUdevice_attribute).filter((k) => k !== "CU_DEVICE_ATTRIBUTE_MAX").length;
const devices = Device.all();
if (devices.length === 0) throw new Error("show_device_properties: no CUDA device");
console.log(`${devices.length} CUDA device${devices.length === 1 ? "" : "s"}`);

for (const dev of devices) {
  const cc = dev.computeCapability;
  console.log("");
  console.log(`Device ${dev.id}: ${dev.name}`);
  console.log(`  uuid                ${dev.uuid}`);
  console.log(`  pci bus id          ${dev.pciBusId}`);
  console.log(`  compute capability  ${cc.major}.${cc.minor} (sm_${dev.arch})`);
  console.log(`  total memory        ${(Number(dev.totalMemory) / 2 ** 30).toFixed(2)} GiB`);
  console.log("  properties:");
  const props = dev.properties as unknown as Readonly<Record<string, number>>;
  const names = Object.keys(props);
  const width = Math.max(...names.map((n) => n.length));
  let unreadable = 0;
  for (const name of names) {
    let value: string;
    try {
      value = String(props[name]);
    } catch (e) {
      // A few attributes are refused on some GPUs or drivers (deprecated ones, say): say which and why.
      unreadable++;
      value = `(not readable: ${(e as { codeName?: string }).codeName ?? (e as Error).message})`;
    }
    console.log(`    ${name.padEnd(width)}  ${value}`);
  }
  console.log(`  ${names.length} attributes, ${unreadable} not readable`);

  const p = dev.properties;
  check(names.length === attributeCount, `device ${dev.id}: ${names.length} properties for ${attributeCount} CUdevice_attribute enumerators`);
  check(unreadable < names.length / 4, `device ${dev.id}: ${unreadable} of ${names.length} attributes unreadable`);
  check(p.warpSize === 32, `device ${dev.id}: warp size ${p.warpSize}`);
  check(p.maxThreadsPerBlock >= 64, `device ${dev.id}: max threads per block ${p.maxThreadsPerBlock}`);
  check(p.multiprocessorCount >= 1, `device ${dev.id}: ${p.multiprocessorCount} multiprocessors`);
  check(p.computeCapabilityMajor === cc.major && p.computeCapabilityMinor === cc.minor, `device ${dev.id}: compute capability attributes disagree`);
  check(dev.totalMemory > 0n, `device ${dev.id}: no memory`);
  // The PCI attributes and cuDeviceGetPCIBusId are separate queries: they must name the same slot.
  const hex = (v: number, w: number) => v.toString(16).padStart(w, "0");
  const fromAttributes = `${hex(p.pciDomainId, 4)}:${hex(p.pciBusId, 2)}:${hex(p.pciDeviceId, 2)}.0`;
  check(fromAttributes.toLowerCase() === dev.pciBusId.toLowerCase(), `device ${dev.id}: PCI attributes give ${fromAttributes}, cuDeviceGetPCIBusId ${dev.pciBusId}`);
}

if (problems.length > 0) throw new Error(`show_device_properties: wrong results:\n  ${problems.join("\n  ")}`);
console.log("");
console.log(`show_device_properties: ${devices.length} device(s), ${attributeCount} attributes each, OK`);
