// Shell constructs that run code where a reader sees none. bash evaluates arithmetic on
// the *value* of a variable, and an array subscript in that value runs command
// substitutions: with x='a[$(rm -rf ~)]', `$((x))`, `((x))`, `[[ $x -eq 1 ]]`,
// `${arr[x]}`, `${s:x}`, `${!x}` and `test -v x` all run the rm. `${x@P}` expands
// prompt escapes, which include `$(…)`. `for NAME in …` and `select NAME` assign NAME. zsh runs code in glob qualifiers `*(e:…:)`.
// Each found construct makes its statement execute, with the reason.
import type { RiskReason } from './sh-commands';
import { sh, type ShNode, type ShParamExp, type ShWord } from './sh-ast';
import { sourceOf } from './sh-words';
import { assignVerdict } from './sh-env';
import { cpuMs } from './cpu-clock';

export interface Hazard {
  node: ShNode;
  reason: RiskReason;
}

interface Ops {
  arithTests: Set<number>;
  varTests: Set<number>;
  atOp: number;
  assignOps: Set<number>;
}
let ops: Ops | null = null;
function learn(): Ops {
  if (ops) return ops;
  const p = sh().NewParser();
  type Test = { Op: number };
  const test = (src: string) => ((p.Parse(src, 'ops').Stmts[0].Cmd as unknown as { X: Test }).X).Op;
  const pe = (p.Parse('echo ${x@P}', 'ops').Stmts[0].Cmd as unknown as { Args: ShWord[] }).Args[1].Parts[0] as unknown as { Exp: { Op: number } };
  ops = {
    arithTests: new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge'].map((o) => test(`[[ a ${o} b ]]`))),
    varTests: new Set([test('[[ -v x ]]'), test('[[ -R x ]]')]),
    atOp: pe.Exp.Op,
    assignOps: new Set(['${x=a}', '${x:=a}'].map((w) => ((p.Parse(`echo ${w}`, 'ops').Stmts[0].Cmd as unknown as { Args: ShWord[] }).Args[1].Parts[0] as unknown as { Exp: { Op: number } }).Exp.Op)),
  };
  return ops;
}

/** Arithmetic text that names no variable: numbers, operators and $# $? $$ $!. */
export function arithmeticIsLiteral(text: string): boolean {
  const rest = text.replace(/0[xX][0-9a-fA-F]+|\d+#[0-9a-zA-Z@_]+|\d+|\$[#?$!]/g, '');
  return !/[A-Za-z_$[`\\'"{]/.test(rest);
}

const ARITH = 'arithmetic on a variable: bash evaluates array subscripts in its value, which can run commands';

interface AnyNode extends ShNode {
  [k: string]: unknown;
}

export function findHazards(root: ShNode, src: string, deadline: number, tooSlow: () => never): Hazard[] {
  const S = sh();
  const o = learn();
  const out: Hazard[] = [];
  let steps = 0;
  const add = (node: ShNode, level: RiskReason['level'], reason: string) => {
    if (out.length < 50) out.push({ node, reason: { level, reason } });
  };
  S.Walk(root, (n) => {
    if ((++steps & 255) === 0 && cpuMs() > deadline) tooSlow();
    if (!n) return true;
    const kind = S.NodeType(n);
    const x = n as AnyNode;
    switch (kind) {
      case 'ArithmExp':
      case 'ArithmCmd': {
        const text = sourceOf(src, n).replace(/^\$?\(\(|\)\)$/g, '').replace(/^\$\[|\]$/g, '');
        if (!arithmeticIsLiteral(text)) add(n, 'high', `${kind === 'ArithmCmd' ? '((…))' : '$((…))'}: ${ARITH}`);
        break;
      }
      case 'CStyleLoop':
        add(n, 'high', `for ((…)): ${ARITH}`);
        break;
      case 'LetClause':
        add(n, 'high', `let: ${ARITH}`);
        break;
      case 'ParamExp': {
        const pe = n as ShParamExp & AnyNode;
        if (x.Excl && !x.Names) add(n, 'high', '${!x} expands the variable named by x, which can run commands through an array subscript');
        const idx = x.Index as ShNode | null;
        if (idx) {
          const t = sourceOf(src, idx);
          if (t !== '@' && t !== '*' && !arithmeticIsLiteral(t)) add(n, 'high', `array subscript \${…[${t.slice(0, 40)}]}: ${ARITH}`);
        }
        const slice = x.Slice as { Offset: ShNode | null; Length: ShNode | null } | null;
        if (slice) {
          for (const part of [slice.Offset, slice.Length]) {
            if (part && !arithmeticIsLiteral(sourceOf(src, part))) add(n, 'high', `substring offset \${x:…}: ${ARITH}`);
          }
        }
        const exp = x.Exp as { Op: number; Word: ShWord | null } | null;
        if (exp && exp.Op === o.atOp && exp.Word && sourceOf(src, exp.Word) === 'P') add(n, 'high', '${x@P} expands the value as a prompt, which runs $(…) in it');
        // `${CDPATH:=/tmp}` and `${PATH=/x}` assign like `CDPATH=/tmp` does (`: ${CDPATH:=/tmp};
        // cd x && git status` ran git in /tmp/x): judged by the same rule as a plain assignment.
        if (exp && o.assignOps.has(exp.Op) && pe.Param) {
          const v = assignVerdict(pe.Param.Value, exp.Word ? sourceOf(src, exp.Word) : '', true);
          if (v) add(n, v.level, `\${${pe.Param.Value}=…} ${v.reason}`);
        }
        break;
      }
      case 'WordIter': {
        // `for PATH in .; do ls; done` and `select PATH in …` assign the loop variable like
        // `PATH=.` does (PATH is already exported: ls then ran ./ls). Same rule.
        const name = (x.Name as { Value?: string } | null)?.Value ?? '';
        const v = name ? assignVerdict(name, '', true) : null;
        if (v) add(n, v.level, `the loop variable of for/select ${v.reason}`);
        break;
      }
      case 'Assign': {
        const idx = x.Index as ShNode | null;
        if (idx && !arithmeticIsLiteral(sourceOf(src, idx))) add(n, 'high', `array subscript in an assignment: ${ARITH}`);
        break;
      }
      case 'BinaryTest':
        if (o.arithTests.has(x.Op as number)) {
          for (const side of [x.X as ShNode, x.Y as ShNode]) {
            if (side && !arithmeticIsLiteral(sourceOf(src, side))) {
              add(n, 'high', `[[ … -eq … ]] compares as arithmetic: ${ARITH}`);
              break;
            }
          }
        }
        break;
      case 'UnaryTest':
        if (o.varTests.has(x.Op as number)) add(n, 'high', '[[ -v x ]] evaluates array subscripts in a variable name, which can run commands');
        break;
      case 'ExtGlob': {
        const pat = (x.Pattern as { Value?: string } | null)?.Value ?? '';
        if (/e[^A-Za-z0-9_|]|\+/.test(pat)) add(n, 'high', `glob qualifier (${pat.slice(0, 40)}): zsh runs code in (e:…:) and (+…) qualifiers`);
        break;
      }
    }
    return true;
  });
  return out;
}
