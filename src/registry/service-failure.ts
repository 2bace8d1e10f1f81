import { RequestFailed } from "../net/guarded-request.js";

/**
 * A service answered, but not in the registry protocol's shape: it counts
 * against the service's breaker like a failure to reach it.
 */
export class ServiceFailure extends RequestFailed {}
