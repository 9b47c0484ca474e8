// Turns a method table (name → {params, result} schemas) and its handlers into one
// `dispatch(method, rawParams)` that every transport calls. Validation happens here,
// once, for every adapter.
import type { z } from 'zod';
import { RPC, RpcError, parseParams } from '../contract/rpc';

type Table = Record<string, { params: z.ZodType; result: z.ZodType }>;
export type Handlers<T extends Table> = { [K in keyof T]: (params: z.infer<T[K]['params']>) => Promise<unknown> };
export type Dispatch = (method: string, params: unknown) => Promise<unknown>;

export function createDispatch<T extends Table>(table: T, handlers: Handlers<T>): Dispatch {
  return async (method, params) => {
    if (!Object.prototype.hasOwnProperty.call(table, method)) {
      throw new RpcError(RPC.methodNotFound, `no such method: ${method.slice(0, 80)} (known: ${Object.keys(table).join(', ')})`);
    }
    const parsed = parseParams(table[method]!.params, params) as z.infer<T[keyof T]["params"]>;
    return handlers[method as keyof T]!(parsed);
  };
}
