// A typed view of the few parts of mvdan-sh (mvdan/sh compiled to JS with GopherJS) the
// classifier uses. The package ships no types; its nodes are Go structs whose exported
// fields appear as properties, so we describe only what we read and check node kinds
// with `NodeType` before trusting a shape.

export interface ShPos {
  Offset(): number;
}
export interface ShNode {
  Pos(): ShPos;
  End(): ShPos;
}
export interface ShLit extends ShNode {
  Value: string;
}
export interface ShWord extends ShNode {
  Parts: ShNode[];
}
export interface ShAssign extends ShNode {
  Name: ShLit | null;
  Value: ShWord | null;
}
export interface ShRedirect extends ShNode {
  Op: number;
  N: ShLit | null;
  Word: ShWord | null;
  Hdoc: ShWord | null;
}
export interface ShStmt extends ShNode {
  Cmd: ShNode | null;
  Redirs: ShRedirect[];
  Negated: boolean;
  Background: boolean;
}
export interface ShCallExpr extends ShNode {
  Assigns: ShAssign[];
  Args: ShWord[];
}
export interface ShBinaryCmd extends ShNode {
  Op: number;
  X: ShStmt;
  Y: ShStmt;
}
export interface ShFile extends ShNode {
  Stmts: ShStmt[];
}
export interface ShStmtList extends ShNode {
  Stmts: ShStmt[];
}
export interface ShDblQuoted extends ShNode {
  Parts: ShNode[];
  Dollar: boolean;
}
export interface ShSglQuoted extends ShNode {
  Value: string;
  Dollar: boolean;
}
export interface ShParamExp extends ShNode {
  Param: ShLit | null;
  Short: boolean;
}

interface MvdanSyntax {
  NewParser(...opts: unknown[]): { Parse(src: string, name: string): ShFile };
  KeepComments(keep: boolean): unknown;
  NodeType(n: ShNode): string;
  Walk(n: ShNode, visit: (n: ShNode | null) => boolean): void;
}

let syntax: MvdanSyntax | null = null;
/** Loaded on first use: the package is 1.5 MB and costs ~60 ms to load. */
export function sh(): MvdanSyntax {
  if (!syntax) syntax = (require('mvdan-sh') as { syntax: MvdanSyntax }).syntax;
  return syntax;
}

/** Operator codes differ between mvdan-sh builds, so learn them from samples once. */
export interface ShOps {
  and: number;
  or: number;
  pipe: number;
  pipeAll: number;
  /** Redirect ops that write a file: > >> >| &> &>> <> */
  writeFile: Set<number>;
  /** Redirect ops that read a file: < */
  readFile: Set<number>;
  /** Here-documents and here-strings: the word is data, not a path. */
  hereDoc: Set<number>;
  /** `>&2`, `<&0`: the word is a file descriptor (or, for `>& file`, a file). */
  dup: Set<number>;
  /** `>&` */
  dupOut: number;
}
let ops: ShOps | null = null;
export function shOps(): ShOps {
  if (ops) return ops;
  const p = sh().NewParser();
  const bin = (src: string) => (p.Parse(src, 'ops').Stmts[0].Cmd as ShBinaryCmd).Op;
  const rdr = (src: string) => p.Parse(src, 'ops').Stmts[0].Redirs[0].Op;
  ops = {
    and: bin('a && b'),
    or: bin('a || b'),
    pipe: bin('a | b'),
    pipeAll: bin('a |& b'),
    writeFile: new Set(['a > b', 'a >> b', 'a >| b', 'a &> b', 'a &>> b', 'a <> b'].map(rdr)),
    readFile: new Set([rdr('a < b')]),
    hereDoc: new Set([rdr('a <<E\nx\nE\n'), rdr('a <<-E\nx\nE\n'), rdr('a <<< x')]),
    dup: new Set([rdr('a >&2'), rdr('a <&0')]),
    dupOut: rdr('a >&2'),
  };
  return ops;
}

/** GopherJS throws Go errors as objects with an Error() method; turn them into text. */
export function shErrorText(e: unknown): string {
  if (e && typeof e === 'object' && typeof (e as { Error?: unknown }).Error === 'function') {
    try {
      return String((e as { Error(): unknown }).Error());
    } catch {
      /* fall through */
    }
  }
  if (e instanceof Error) return e.message;
  return String(e);
}
