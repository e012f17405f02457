/**
 * Parameter types of a C++ kernel from its Itanium-mangled name (`_Z4axpyIfEvT_PKS0_PS0_j` → float, const float*,
 * float*, unsigned int), so plain JavaScript numbers can be passed to it. Only what kernel signatures use is
 * decoded: builtin scalars, pointers and references, qualifiers, template parameters and substitutions, and class
 * types by name (`__half`, `__nv_bfloat16`, `cuda::std::complex<float>`).
 *
 * @module
 */
import { UnsupportedError } from "../../errors/base.ts";

/** A kernel parameter's type, as far as launching needs it. */
export type ParamType =
  | { kind: "scalar"; scalar: ScalarKind }
  | { kind: "pointer"; pointee?: ScalarKind }
  | { kind: "class"; name: string }
  /** `cuda_ts::Array<T, N>` (cuda_ts/array.h) by value: the element kind and rank where the name gives them. */
  | { kind: "array"; element?: ScalarKind; ndim?: number };

/** A mangled name this parser does not understand (caught: the kernel's parameter types stay unknown). */
class ManglingError extends UnsupportedError {
  override readonly name = "ManglingError";
}

/** The scalar kinds a kernel argument can have. */
export type ScalarKind =
  | "bool"
  | "i8"
  | "u8"
  | "i16"
  | "u16"
  | "i32"
  | "u32"
  | "i64"
  | "u64"
  | "f16"
  | "bf16"
  | "f32"
  | "f64"
  | "complex64"
  | "complex128";

const BUILTIN: Record<string, ScalarKind | "void" | undefined> = {
  v: "void",
  b: "bool",
  c: "i8",
  a: "i8",
  h: "u8",
  s: "i16",
  t: "u16",
  i: "i32",
  j: "u32",
  l: "i64",
  m: "u64",
  x: "i64",
  y: "u64",
  f: "f32",
  d: "f64",
  w: "i32",
};

const BUILTIN_TEXT: Record<string, string> = {
  v: "void",
  b: "bool",
  c: "char",
  a: "signed char",
  h: "unsigned char",
  s: "short",
  t: "unsigned short",
  i: "int",
  j: "unsigned int",
  l: "long",
  m: "unsigned long",
  x: "long long",
  y: "unsigned long long",
  f: "float",
  d: "double",
  w: "wchar_t",
};

const CLASS_SCALARS: Record<string, ScalarKind> = {
  __half: "f16",
  __half_raw: "f16",
  __nv_bfloat16: "bf16",
  __nv_bfloat16_raw: "bf16",
  "cuda::std::complex<float>": "complex64",
  "cuda::std::complex<double>": "complex128",
  "std::complex<float>": "complex64",
  "std::complex<double>": "complex128",
  "cuda::std::__4::complex<float>": "complex64",
  "cuda::std::__4::complex<double>": "complex128",
};

type Node = { kind: "type"; type: ParamType | "void"; text: string };

class Parser {
  i = 0;
  subs: Node[] = [];
  templateArgs: Node[] = [];
  constructor(readonly s: string) {}

  peek(n = 0): string {
    return this.s[this.i + n] ?? "";
  }
  eat(str: string): boolean {
    if (this.s.startsWith(str, this.i)) {
      this.i += str.length;
      return true;
    }
    return false;
  }
  number(): number {
    const m = /^\d+/.exec(this.s.slice(this.i));
    if (!m) throw new ManglingError("number expected");
    this.i += m[0].length;
    return Number(m[0]);
  }
  sourceName(): string {
    const n = this.number();
    const id = this.s.slice(this.i, this.i + n);
    this.i += n;
    return id;
  }
  seqId(terminator: string): number {
    // S_ = 0, S0_ = 1, S1_ = 2 ... (base 36)
    if (this.eat(terminator)) return 0;
    const m = /^[0-9A-Z]+/.exec(this.s.slice(this.i));
    if (!m) throw new ManglingError("sequence id expected");
    this.i += m[0].length;
    if (!this.eat(terminator)) throw new ManglingError("sequence terminator expected");
    return parseInt(m[0], 36) + 1;
  }

  /** <template-args> ::= I <arg>+ E */
  templateArgList(): Node[] {
    const args: Node[] = [];
    while (!this.eat("E")) {
      if (this.eat("L")) {
        // A literal: L <type> <value> E — kept as text.
        const start = this.i;
        while (this.peek() !== "E" && this.i < this.s.length) this.i++;
        this.eat("E");
        // An integer literal (Li2E: int 2, Lin1E: int -1) reads as its value; others as "literal".
        const body = this.s.slice(start, this.i - 1);
        const m = /^[a-z](n?)(\d+)$/.exec(body);
        args.push({ kind: "type", type: { kind: "class", name: body }, text: m ? `${m[1] === "n" ? "-" : ""}${m[2]}` : "literal" });
      } else if (this.eat("J")) {
        while (!this.eat("E")) this.type();
        args.push({ kind: "type", type: { kind: "class", name: "pack" }, text: "pack" });
      } else args.push(this.type());
    }
    return args;
  }

  /** <name>: returns the name text and whether it had template args. */
  name(): { text: string; templated: boolean } {
    if (this.eat("N")) {
      while (this.eat("K") || this.eat("V") || this.eat("r")) {
        /* cv-qualifiers of member functions */
      }
      const parts: string[] = [];
      let templated = false;
      while (!this.eat("E")) {
        if (this.peek() === "S") {
          const sub = this.substitution();
          parts.push(sub.text);
        } else if (this.peek() === "I") {
          this.i++;
          const args = this.templateArgList();
          parts[parts.length - 1] += `<${args.map((a) => a.text).join(",")}>`;
          templated = true;
          this.templateArgs = args;
        } else if (/\d/.test(this.peek())) {
          parts.push(this.sourceName());
          templated = false;
        } else throw new ManglingError(`unsupported name component at ${this.s.slice(this.i)}`);
        this.subs.push({ kind: "type", type: { kind: "class", name: parts.join("::") }, text: parts.join("::") });
      }
      return { text: parts.join("::"), templated };
    }
    if (this.eat("St")) {
      const id = this.sourceName();
      return this.maybeTemplate(`std::${id}`);
    }
    const id = this.sourceName();
    return this.maybeTemplate(id);
  }

  maybeTemplate(text: string): { text: string; templated: boolean } {
    if (this.peek() === "I") {
      this.subs.push({ kind: "type", type: { kind: "class", name: text }, text });
      this.i++;
      const args = this.templateArgList();
      this.templateArgs = args;
      return { text: `${text}<${args.map((a) => a.text).join(",")}>`, templated: true };
    }
    return { text, templated: false };
  }

  substitution(): Node {
    this.eat("S");
    const special: Record<string, string> = { t: "std", a: "std::allocator", b: "std::basic_string", s: "std::string" };
    const c = this.peek();
    if (special[c] !== undefined) {
      this.i++;
      return { kind: "type", type: { kind: "class", name: special[c]! }, text: special[c]! };
    }
    const idx = this.seqId("_");
    const n = this.subs[idx];
    if (!n) throw new ManglingError(`substitution S${idx} out of range`);
    return n;
  }

  type(): Node {
    const c = this.peek();
    if (c === "K" || c === "V" || c === "r") {
      this.i++;
      const inner = this.type();
      const n: Node = { ...inner, text: `${inner.text} const` };
      this.subs.push(n);
      return n;
    }
    if (c === "P" || c === "R" || c === "O") {
      this.i++;
      const inner = this.type();
      const pointee = typeof inner.type === "object" && inner.type.kind === "scalar" ? inner.type.scalar : undefined;
      const n: Node = { kind: "type", type: pointee === undefined ? { kind: "pointer" } : { kind: "pointer", pointee }, text: `${inner.text}*` };
      this.subs.push(n);
      return n;
    }
    if (c === "T") {
      this.i++;
      const idx = this.seqId("_");
      const arg = this.templateArgs[idx];
      if (!arg) throw new ManglingError(`template parameter T${idx} unknown`);
      this.subs.push(arg);
      return arg;
    }
    if (c === "S") {
      const n = this.substitution();
      if (this.peek() === "I") {
        this.i++;
        const args = this.templateArgList();
        const text = `${n.text}<${args.map((a) => a.text).join(",")}>`;
        const t: Node = { kind: "type", type: classType(text, args), text };
        this.subs.push(t);
        return t;
      }
      return n;
    }
    if (c === "D") {
      if (this.eat("Dh")) return { kind: "type", type: { kind: "scalar", scalar: "f16" }, text: "half" };
      if (this.eat("DF16_")) return { kind: "type", type: { kind: "scalar", scalar: "f16" }, text: "_Float16" };
      if (this.eat("DF16b")) return { kind: "type", type: { kind: "scalar", scalar: "bf16" }, text: "__bf16" };
      if (this.eat("Dn")) return { kind: "type", type: { kind: "pointer" }, text: "nullptr_t" };
      throw new ManglingError(`unsupported type ${this.s.slice(this.i)}`);
    }
    if (c === "A") {
      this.i++;
      this.number();
      this.eat("_");
      this.type();
      return { kind: "type", type: { kind: "pointer" }, text: "array" };
    }
    if (c === "N" || /\d/.test(c)) {
      // A class's template arguments are its own: the function's (T_ in later parameters) stay as they were.
      const outer = this.templateArgs;
      const { text, templated } = this.name();
      const args = templated ? this.templateArgs : [];
      this.templateArgs = outer;
      const t: Node = { kind: "type", type: classType(text, args), text };
      // A nested name already added itself (with its template arguments) as the last substitution candidate.
      if (c === "N" && this.subs.length > 0 && this.subs[this.subs.length - 1]!.text === text) this.subs[this.subs.length - 1] = t;
      else this.subs.push(t);
      return t;
    }
    const b = BUILTIN[c];
    if (b !== undefined) {
      this.i++;
      return { kind: "type", type: b === "void" ? "void" : { kind: "scalar", scalar: b }, text: BUILTIN_TEXT[c] ?? c };
    }
    throw new ManglingError(`unsupported type code ${JSON.stringify(c)} at ${this.s.slice(this.i)}`);
  }
}

function classType(name: string, args: readonly Node[] = []): ParamType {
  const s = CLASS_SCALARS[name];
  if (s !== undefined) return { kind: "scalar", scalar: s };
  if (name.startsWith("cuda_ts::Array<") && args.length === 2) {
    const e = args[0]!.type;
    const n = Number(args[1]!.text);
    return {
      kind: "array",
      ...(typeof e === "object" && e.kind === "scalar" ? { element: e.scalar } : {}),
      ...(Number.isSafeInteger(n) && args[1]!.text !== "" ? { ndim: n } : {}),
    };
  }
  return { kind: "class", name };
}

/**
 * The parameter types of a mangled function name, or undefined when the name is not mangled (extern "C") or uses
 * something this decoder does not handle.
 */
export function parameterTypesFromMangledName(mangled: string): ParamType[] | undefined {
  if (!mangled.startsWith("_Z")) return undefined;
  try {
    const p = new Parser(mangled.replace(/\.\w+$/, ""));
    p.i = 2;
    const { templated } = p.name();
    if (templated) p.type(); // a template function's encoding starts with its return type
    const params: ParamType[] = [];
    while (p.i < p.s.length) {
      const t = p.type();
      if (t.type === "void") {
        if (params.length === 0 && p.i >= p.s.length) break; // f(void)
        return undefined;
      }
      params.push(t.type);
    }
    return params;
  } catch {
    return undefined;
  }
}
