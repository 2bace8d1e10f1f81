import type { Logger } from "../contract/log.js";

/** The standard variables that ask for telemetry to be exported somewhere. */
const ASKING = [
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
  "OTEL_TRACES_EXPORTER",
  "OTEL_METRICS_EXPORTER",
];

/**
 * Starts the OpenTelemetry Node SDK, configured as usual by the `OTEL_*`
 * environment variables (exporters, endpoint, headers, sampler, service
 * name; the service name defaults to mcp-broker), when one of them asks for
 * export and `OTEL_SDK_DISABLED` does not say no. Otherwise nothing is loaded
 * and the broker's spans and metrics stay the API's no-ops. Returns the
 * shutdown that flushes what is still buffered.
 */
export async function startTelemetry(
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<(() => Promise<void>) | undefined> {
  if (env.OTEL_SDK_DISABLED === "true") return undefined;
  if (!ASKING.some((name) => env[name])) return undefined;
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const { envDetector, hostDetector, osDetector, serviceInstanceIdDetector } =
    await import("@opentelemetry/resources");
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ?? "mcp-broker",
    // Not the process detector: it exports the command line, where a SECRET may be.
    resourceDetectors: [envDetector, hostDetector, osDetector, serviceInstanceIdDetector],
  });
  sdk.start();
  log.info(
    {
      traces: env.OTEL_TRACES_EXPORTER ?? "otlp",
      metrics: env.OTEL_METRICS_EXPORTER ?? "otlp",
      endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
    },
    "exporting telemetry",
  );
  return () => sdk.shutdown();
}
