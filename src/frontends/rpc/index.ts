/** The tool registry's JSON-RPC endpoint, `POST /rpc`. */
export { rpcRoutes } from "./rpc-route.js";
