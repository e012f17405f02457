/**
 * Every `CUdevice_attribute` as a typed, read-only property: `CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK` is
 * `properties.maxThreadsPerBlock`. Values are read from the driver on first access and cached.
 *
 * @module
 */
import { CUdevice_attribute } from "../bindings/driver.ts";
import { driver } from "./base/driver-state.ts";

type Pascal<S extends string> = S extends `${infer A}_${infer B}` ? `${Capitalize<Lowercase<A>>}${Pascal<B>}` : Capitalize<Lowercase<S>>;
type Camel<S extends string> = S extends `${infer A}_${infer B}` ? `${Lowercase<A>}${Pascal<B>}` : Lowercase<S>;
type AttributeName<K> = K extends "CU_DEVICE_ATTRIBUTE_MAX" ? never : K extends `CU_DEVICE_ATTRIBUTE_${infer R}` ? Camel<R> : never;

/** The camelCase name of each device attribute. */
export type DeviceAttributeName = AttributeName<keyof typeof CUdevice_attribute>;

/** Every device attribute, by camelCase name (numbers as `cuDeviceGetAttribute` returns them). */
export type DeviceProperties = { readonly [K in DeviceAttributeName]: number } & {
  /** Reads an attribute by its enum value. */
  get(attribute: CUdevice_attribute): number;
};

/** Converts an enumerator name to its property name. */
function attributePropertyName(enumerator: string): string {
  const rest = enumerator.replace(/^CU_DEVICE_ATTRIBUTE_/, "").toLowerCase();
  return rest.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

let attributeTable: ReadonlyMap<string, number> | undefined;

/**
 * The attribute table: property name → enum value (the sentinel CU_DEVICE_ATTRIBUTE_MAX left out), made when a
 * device's properties are first read, not at import.
 */
function deviceAttributes(): ReadonlyMap<string, number> {
  attributeTable ??= new Map(
    Object.entries(CUdevice_attribute)
      .filter(([k]) => k !== "CU_DEVICE_ATTRIBUTE_MAX")
      .map(([k, v]) => [attributePropertyName(k), v]),
  );
  return attributeTable;
}

/** Builds the properties object of a device (CUdevice ordinal). */
export function deviceProperties(device: number): DeviceProperties {
  const cache = new Map<number, number>();
  const get = (attribute: number): number => {
    let v = cache.get(attribute);
    if (v === undefined) {
      v = driver.cuDeviceGetAttribute(attribute as CUdevice_attribute, device);
      cache.set(attribute, v);
    }
    return v;
  };
  const props: Record<string, unknown> = {};
  for (const [name, value] of deviceAttributes()) {
    Object.defineProperty(props, name, { get: () => get(value), enumerable: true });
  }
  Object.defineProperty(props, "get", { value: (attribute: CUdevice_attribute) => get(attribute) });
  return Object.freeze(props) as DeviceProperties;
}
