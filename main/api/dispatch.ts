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
  // Not an async function: returning the handler's promise from one costs two more
  // microtask jobs per call (the outer promise adopts the inner one; issue 15). A throw
  // (unknown method, params the contract refuses, a handler's own) still comes back as a
  // rejected promise, never synchronously.
  return (method, params) => {
    try {
      if (!Object.prototype.hasOwnProperty.call(table, method)) {
        throw new RpcError(RPC.methodNotFound, `no such method: ${method.slice(0, 80)} (known: ${Object.keys(table).join(', ')})`);
      }
      const parsed = parseParams(table[method]!.params, params) as z.infer<T[keyof T]["params"]>;
      return Promise.resolve(handlers[method as keyof T]!(parsed));
    } catch (e) {
      return Promise.reject(e);
    }
  };
}
