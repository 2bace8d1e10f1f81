import type { ServerCapabilities, ServerOptions } from "@modelcontextprotocol/server";
import type { InputBridge } from "./input-bridge.js";

/**
 * An SDK server's options for one of the broker's endpoints. Capabilities
 * come from backends through the 1.x SDK's types; they are the same JSON, only
 * the two generations' declarations differ (an `experimental` entry is an
 * `object` in one and a JSON object in the other).
 */
export function serverOptions(
  info: { capabilities: object; instructions: string | undefined },
  bridge: InputBridge,
): ServerOptions {
  return {
    capabilities: info.capabilities as ServerCapabilities,
    instructions: info.instructions,
    requestState: { verify: bridge.codec.verify },
  };
}
