/**
 * The public faces of the math classes (`Rng`, `Fft`/`FftPlan`, `Solver`, `Sparse`/`SparseMatrix`), whose code
 * (classes.ts) loads with the first `create` of any of them rather than when cuda-ts is imported. A face is what the
 * root exports under the class's name: its factories, a constructor that says how to make one, and `instanceof`,
 * which holds for the loaded class's instances (none exist before it loads).
 *
 * @module
 */
import { importLater } from "../../deferred.ts";
import { ownModuleUrl } from "../../module-url.ts";

/** What every face has: the class's name (`Rng.name` is `"Rng"`). */
export interface MathFace {
  /** The class's name. */
  readonly name: string;
}

/** classes.ts. */
export type MathClasses = typeof import("./classes.ts");

let loaded: MathClasses | undefined;

/** classes.ts, loaded once (for `name`'s error message if it cannot be). */
export async function mathClasses(name: string): Promise<MathClasses> {
  return (loaded ??= await importLater<MathClasses>(ownModuleUrl("src/core/math/classes"), name));
}

/**
 * A class's public face: `name`, whose constructor throws saying `howToMake`, whose `instanceof` asks the loaded
 * class `pick` gives, and with the static members of `statics` (the factories).
 */
export function mathFacade<Face>(name: string, howToMake: string, pick: (classes: MathClasses) => Function, statics: object = {}): Face {
  const face = class {
    constructor() {
      throw new TypeError(`${name} has no public constructor: ${howToMake}`);
    }

    static [Symbol.hasInstance](value: unknown): boolean {
      return loaded !== undefined && value instanceof pick(loaded);
    }
  };
  Object.defineProperty(face, "name", { value: name });
  Object.defineProperties(face, Object.getOwnPropertyDescriptors(statics));
  return face as unknown as Face;
}
