/**
 * Which cuGetProcAddress version each driver symbol is resolved at, from the PFN typedefs of cudaTypedefs.h (read by
 * proc-address.ts): plain data, no libclang, so that tests can use it.
 */

/** One PFN typedef: `PFN_<base>_v<version>[_ptsz|_ptds]`, with its canonical signature. */
export interface PfnEntry {
  base: string;
  version: number;
  ptds: boolean;
  signature: string;
}

/**
 * The base name under which a function known by `names` (its C name, then its exported symbol) is resolved: the
 * first of those names, or of the same names without a `_vN` suffix, that has a PFN typedef of its signature.
 */
export function procAddressBase(pfns: Map<string, PfnEntry[]>, names: string[], signature: string): string | undefined {
  const bases = names.flatMap((n) => [n, n.replace(/_v\d+$/, "")]).filter((b, i, a) => a.indexOf(b) === i);
  return bases.find((base) => (pfns.get(base) ?? []).some((e) => !e.ptds && e.signature === signature));
}

/** The ABI number a symbol names for its base: `cuDeviceGetUuid` 1, `cuDeviceGetUuid_v2` 2; undefined for another name. */
export function symbolAbi(symbol: string, base: string): number | undefined {
  if (symbol === base) return 1;
  const m = /^(\w+?)_v(\d+)$/.exec(symbol);
  return m && m[1] === base ? Number(m[2]) : undefined;
}

/**
 * Where a symbol stands among the symbols of its base that the headers declare with the same signature (`index`
 * of `count`, in ABI order: `cuDeviceGetUuid` 0 and `cuDeviceGetUuid_v2` 1 of 2 in CUDA 12.4's cuda.h).
 */
export interface SymbolRank {
  index: number;
  count: number;
}

/**
 * The rank of each declared symbol among those of its base and signature (see {@link SymbolRank}), by symbol; a
 * symbol alone with its base and signature is left out (it takes the newest version).
 */
export function symbolRanks(declared: { symbol: string; base: string | undefined; signature: string }[]): Map<string, SymbolRank> {
  const groups = new Map<string, Map<string, number>>();
  for (const d of declared) {
    if (d.base === undefined) continue;
    const abi = symbolAbi(d.symbol, d.base);
    if (abi === undefined) continue;
    const key = `${d.base}\0${d.signature}`;
    const g = groups.get(key) ?? new Map<string, number>();
    g.set(d.symbol, abi);
    groups.set(key, g);
  }
  const ranks = new Map<string, SymbolRank>();
  for (const g of groups.values()) {
    if (g.size < 2) continue;
    const ordered = [...g.entries()].sort((a, b) => a[1] - b[1]).map(([s]) => s);
    ordered.forEach((s, index) => ranks.set(s, { index, count: ordered.length }));
  }
  return ranks;
}

/**
 * Finds the proc-address name and versions for a function known by `names` (its C name, then its exported
 * symbol), or undefined if no PFN typedef matches.
 *
 * Several PFN versions of one signature are several ABIs behind one prototype (`PFN_cuDeviceGetUuid_v9020` is
 * `cuDeviceGetUuid`, `PFN_cuDeviceGetUuid_v11040` is `cuDeviceGetUuid_v2`). A symbol alone with its signature takes
 * the newest; where the headers declare several symbols of the base with that signature (`rank`), the newest
 * symbol takes the newest version, the one before it the version before, and so on. `clamped` says that there
 * were fewer versions than symbols (two symbols then share one version).
 */
export function matchProcAddress(
  pfns: Map<string, PfnEntry[]>,
  names: string[],
  signature: string,
  rank?: SymbolRank,
): { name: string; version: number; ptdsVersion?: number; clamped?: true } | undefined {
  const base = procAddressBase(pfns, names, signature);
  if (base === undefined) return undefined;
  const entries = (pfns.get(base) ?? []).filter((e) => e.signature === signature);
  let clamped = false;
  const pick = (versions: number[]): number => {
    const vs = [...new Set(versions)].sort((a, b) => a - b);
    if (rank === undefined) return vs[vs.length - 1]!;
    const k = vs.length - rank.count + rank.index;
    if (k < 0) clamped = true;
    return vs[Math.max(0, k)]!;
  };
  const out: { name: string; version: number; ptdsVersion?: number; clamped?: true } = { name: base, version: pick(entries.filter((e) => !e.ptds).map((e) => e.version)) };
  const ptds = entries.filter((e) => e.ptds).map((e) => e.version);
  if (ptds.length > 0) out.ptdsVersion = pick(ptds);
  if (clamped) out.clamped = true;
  return out;
}
