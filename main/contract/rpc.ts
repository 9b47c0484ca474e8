// JSON-RPC 2.0 framing shared by ui.sock, request.sock and the web socket.
import { z } from 'zod';

export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  /** Airlock-specific: the request was refused by policy before asking (flood control, locked). */
  refused: -32001,
  /** Airlock-specific: the thing named does not exist (prompt, grant, task, key). */
  notFound: -32004,
  /** Airlock-specific: the feature is not available in this process (e.g. no SSH agent). */
  unavailable: -32010,
} as const;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export const RpcRequest = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string().max(128), z.number(), z.null()]).optional(),
  method: z.string().max(128),
  params: z.unknown().optional(),
});
export type RpcRequest = z.infer<typeof RpcRequest>;

/** Turns zod issues into one line that says which field is wrong and why. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => {
      const where = i.path.length ? i.path.join('.') : 'params';
      return `${where}: ${i.message}`;
    })
    .join('; ');
}

export function parseParams<T extends z.ZodType>(schema: T, params: unknown): z.infer<T> {
  const r = schema.safeParse(params ?? {});
  if (!r.success) throw new RpcError(RPC.invalidParams, `invalid params: ${describeIssues(r.error)}`);
  return r.data;
}

/** A method table: name → params and result schemas (contract/agent.ts, contract/approver.ts). */
export type MethodTable = Record<string, { params: z.ZodType; result: z.ZodType }>;

/** A table's caller side: what a caller passes (the schema's input) and gets back (its output). */
export type ServiceClient<T extends MethodTable> = {
  [K in keyof T]: (params: z.input<T[K]['params']>) => Promise<z.infer<T[K]['result']>>;
};

/** A table's implementing side: a handler gets validated params and returns what the result schema accepts. */
export type ServiceHandlers<T extends MethodTable> = {
  [K in keyof T]: (params: z.infer<T[K]['params']>) => Promise<z.input<T[K]['result']>>;
};
