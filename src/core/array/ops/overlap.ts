/**
 * Whether two arrays may share memory (NumPy's `may_share_memory`). Operations that take an `out` use it where the
 * result is not computed element for element in place (`matmul`): an `out` that overlaps an operand is computed into
 * a temporary first and then copied, so that no element is overwritten before it is read, as NumPy guarantees. The
 * elementwise builder makes its own finer test (an `out` that is the very same view as an input is written in place).
 *
 * @module
 */
import { DeviceArray } from "../device-array.ts";
import { byteRange } from "../layout.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ArgumentError, UnsupportedError } from "../../../errors/base.ts";

/**
 * Whether `a` and `b` may share memory: whether the bytes from each one's lowest to its highest element meet (NumPy's
 * `may_share_memory`). A view and its base do; two slices of one array that do not overlap do not; two interleaved
 * views (every other element, one starting one later) do, though no element is in both. Empty arrays share nothing.
 * Reads only the arrays' addresses and layouts: nothing is queued or waited for. ClosedError for a closed array.
 *
 * ```ts
 * mayShareMemory(x, x.slice([0, 10]));                 // true
 * mayShareMemory(x.slice([0, 10]), x.slice([10, 20])); // false
 * ```
 */
export function mayShareMemory(a: DeviceArray, b: DeviceArray): boolean {
  if (!(a instanceof DeviceArray)) throw new TypeError(`mayShareMemory: a is a DeviceArray, not ${describeValue(a)}`);
  if (!(b instanceof DeviceArray)) throw new TypeError(`mayShareMemory: b is a DeviceArray, not ${describeValue(b)}`);
  // The addresses first: ClosedError for a closed array, even an empty one.
  const aStart = Number(a.address);
  const bStart = Number(b.address);
  if (a.size === 0 || b.size === 0) return false;
  const [a0, a1] = byteRange(aStart, a.shape, a.strides, a.itemsize);
  const [b0, b1] = byteRange(bStart, b.shape, b.strides, b.itemsize);
  return a0 < b1 && b0 < a1;
}

/** Options of {@link sharesMemory}. */
export interface SharesMemoryOptions {
  /**
   * How many candidate positions the exact search may try before it gives up with an UnsupportedError (as NumPy's
   * `max_work` makes it raise TooHardError; a budget of the same kind, not NumPy's count of steps). Default: no
   * limit, the exact answer however long it takes (NumPy's default). `0`: no search at all, so an UnsupportedError
   * wherever the byte ranges meet, as in NumPy (use {@link mayShareMemory} for the byte-range test).
   */
  readonly maxWork?: number;
}

/**
 * Whether `a` and `b` share memory: whether some byte of an element of `a` is also a byte of an element of `b`
 * (NumPy's and CuPy's `shares_memory`). Unlike {@link mayShareMemory} the answer is exact: two interleaved views of
 * one array (every other element, one starting one later) share nothing, nor do two columns of one matrix. It is
 * decided on the host from the arrays' addresses and layouts, by NumPy's method: an element of each in common is a
 * solution of one linear equation in the indices, bounded by the shapes, found or ruled out by a search that steps
 * through each index's feasible values by the equation's divisors. Nothing is queued or waited for. Usually
 * immediate; layouts of many long axes with strides that are not multiples of one another can make the search
 * long, which `maxWork` bounds. ClosedError for a closed array; empty arrays share nothing.
 *
 * ```ts
 * const x = cp.arange(10);
 * sharesMemory(x.slice([0, null, 2]), x.slice([1, null, 2])); // false: evens and odds
 * mayShareMemory(x.slice([0, null, 2]), x.slice([1, null, 2])); // true: their byte ranges meet
 * ```
 */
export function sharesMemory(a: DeviceArray, b: DeviceArray, options: SharesMemoryOptions = {}): boolean {
  if (!(a instanceof DeviceArray)) throw new TypeError(`sharesMemory: a is a DeviceArray, not ${describeValue(a)}`);
  if (!(b instanceof DeviceArray)) throw new TypeError(`sharesMemory: b is a DeviceArray, not ${describeValue(b)}`);
  if (typeof options !== "object" || options === null) throw new TypeError(`sharesMemory: options is an object, not ${describeValue(options)}`);
  const maxWork = options.maxWork ?? Infinity;
  if (typeof maxWork !== "number" || !(maxWork === Infinity || (Number.isSafeInteger(maxWork) && maxWork >= 0))) {
    throw new ArgumentError(`sharesMemory: maxWork is a count of steps (an integer from 0) or Infinity, not ${describeValue(maxWork)}; leave it out for the exact answer`);
  }
  const aStart = Number(a.address);
  const bStart = Number(b.address);
  if (a.size === 0 || b.size === 0) return false;
  const [a0, a1] = byteRange(aStart, a.shape, a.strides, a.itemsize);
  const [b0, b1] = byteRange(bStart, b.shape, b.strides, b.itemsize);
  if (!(a0 < b1 && b0 < a1)) return false;
  if (maxWork === 0) throw tooHard(maxWork);
  // A byte in common: a0 + Σ|sa|·i + s = b1 - 1 - Σ|sb|·j' - t (each array's elements counted up from its lowest,
  // j' counting down from b's highest, s and t bytes within an element), i.e. Σ|sa|·i + Σ|sb|·j' + s + t = b1 - 1 - a0;
  // or the same with a and b swapped. Both have a solution or neither; the smaller right side searches less.
  const terms: Term[] = [];
  addTerms(terms, a);
  addTerms(terms, b);
  if (a.itemsize > 1) terms.push({ coefficient: 1, bound: a.itemsize - 1 });
  if (b.itemsize > 1) terms.push({ coefficient: 1, bound: b.itemsize - 1 });
  return new BoundedSearch(terms, Math.min(b1 - 1 - a0, a1 - 1 - b0), maxWork).solve();
}

function tooHard(maxWork: number): UnsupportedError {
  return new UnsupportedError(
    `sharesMemory: deciding whether these layouts share memory took more than maxWork = ${maxWork} steps; raise maxWork, leave it out for the exact answer, or use mayShareMemory's byte-range test`,
  );
}

interface Term {
  coefficient: number;
  bound: number;
}

function addTerms(terms: Term[], x: DeviceArray): void {
  for (let d = 0; d < x.ndim; d++) {
    if (x.shape[d]! > 1 && x.strides[d] !== 0) terms.push({ coefficient: Math.abs(x.strides[d]!) * x.itemsize, bound: x.shape[d]! - 1 });
  }
}

function gcd(x: number, y: number): number {
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}

/** x·y mod m for 0 ≤ x, y < m: in doubles where the product is exact, else in BigInt. */
function mulMod(x: number, y: number, m: number): number {
  const p = x * y;
  return p <= Number.MAX_SAFE_INTEGER ? p % m : Number((BigInt(x) * BigInt(y)) % BigInt(m));
}

/** The inverse of `x` modulo `m` (x and m coprime, m ≥ 1), by the extended Euclidean algorithm. */
function inverseModulo(x: number, m: number): number {
  let [r0, r1] = [x % m, m];
  let [s0, s1] = [1, 0];
  while (r1 !== 0) {
    const q = Math.floor(r0 / r1);
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return ((s0 % m) + m) % m;
}

/**
 * Whether Σ coefficient·x = rhs has a solution with every 0 ≤ x ≤ bound (all coefficients positive). The terms are
 * merged by coefficient and sorted smallest first; each level tries only the values of its unknown that leave a rest
 * the later coefficients' gcd divides and their largest sum reaches, and the last two unknowns are decided without
 * a search (a residue class meeting an interval).
 */
class BoundedSearch {
  private readonly coefficients: number[];
  private readonly bounds: number[];
  /** gcd of coefficients[i..] and the most Σ coefficient·bound over i.. reaches. */
  private readonly gcds: number[];
  private readonly reach: number[];
  private work = 0;

  constructor(
    terms: readonly Term[],
    private readonly rhs: number,
    private readonly maxWork: number,
  ) {
    const merged = new Map<number, number>();
    for (const { coefficient, bound } of terms) merged.set(coefficient, (merged.get(coefficient) ?? 0) + bound);
    // Smallest first, as NumPy's search: the small coefficients (the bytes within an element, coefficient 1) are then
    // fixed modulo the gcd of the larger strides at once, so misaligned views are told apart without a search.
    const sorted = [...merged].sort((p, q) => p[0] - q[0]);
    this.coefficients = sorted.map(([c]) => c);
    // A bound past rhs / coefficient can never be used.
    this.bounds = sorted.map(([c, u]) => Math.min(u, Math.floor(rhs / c)));
    const n = sorted.length;
    this.gcds = new Array<number>(n + 1).fill(0);
    this.reach = new Array<number>(n + 1).fill(0);
    for (let i = n - 1; i >= 0; i--) {
      this.gcds[i] = gcd(this.coefficients[i]!, this.gcds[i + 1]!);
      this.reach[i] = this.reach[i + 1]! + this.coefficients[i]! * this.bounds[i]!;
    }
  }

  solve(): boolean {
    return this.level(0, this.rhs);
  }

  private level(i: number, rhs: number): boolean {
    const n = this.coefficients.length;
    if (rhs < 0 || rhs > this.reach[i]!) return false;
    if (i === n) return rhs === 0;
    if (rhs % this.gcds[i]! !== 0) return false;
    const c = this.coefficients[i]!;
    if (i === n - 1) return rhs % c === 0 && rhs / c <= this.bounds[i]!;
    // x must leave a rest that the later coefficients' gcd g divides (c·x ≡ rhs mod g) and that they can reach.
    const g = this.gcds[i + 1]!;
    const d = gcd(c, g);
    const period = g / d;
    const first = period === 1 ? 0 : mulMod((rhs / d) % period, inverseModulo((c / d) % period, period), period);
    const low = Math.max(0, Math.ceil((rhs - this.reach[i + 1]!) / c));
    const high = Math.min(this.bounds[i]!, Math.floor(rhs / c));
    // The highest candidate at or below `high` in first's residue class.
    let x = high - ((((high - first) % period) + period) % period);
    if (i === n - 2) {
      // The last unknown's coefficient is g itself: any x of the class in [low, high] leaves a rest it divides and
      // reaches.
      return x >= low;
    }
    for (; x >= low; x -= period) {
      if (++this.work > this.maxWork) throw tooHard(this.maxWork);
      if (this.level(i + 1, rhs - c * x)) return true;
    }
    return false;
  }
}

/**
 * @internal Whether `a` and `b` are the same elements in the same order: one address, itemsize, shape and strides.
 * An operation that reads each element before it writes the same position (a scan, an elementwise kernel) may take
 * such an `out` in place; any other overlap needs a temporary.
 */
export function sameElements(a: DeviceArray, b: DeviceArray): boolean {
  if (a.address !== b.address || a.itemsize !== b.itemsize || a.ndim !== b.ndim) return false;
  for (let d = 0; d < a.ndim; d++) {
    if (a.shape[d] !== b.shape[d]) return false;
    if (a.shape[d]! > 1 && a.strides[d] !== b.strides[d]) return false;
  }
  return true;
}
