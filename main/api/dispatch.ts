// Turns a method table (name → {params, result} schemas) and its handlers into one
// `dispatch(method, rawParams)` that every transport calls. Validation happens here,
// once, for every adapter.
import type { z } from 'zod';
import { RPC, RpcError, parseParams, type MethodTable, type ServiceHandlers } from '../contract/rpc';

type Table = MethodTable;
/** The handlers of a table, typed from it (contract/rpc.ts ServiceHandlers). */
export type Handlers<T extends Table> = ServiceHandlers<T>;
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
