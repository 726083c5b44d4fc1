import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../config.ts';
import { loadTelemetryConfig } from './telemetry.config.ts';

/** The ConfigError `env` causes; asserts it names `variable`. */
function refusal(env: Record<string, string>, variable: string): ConfigError {
  try {
    loadTelemetryConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    assert.equal(error.variable, variable, error.message);
    return error;
  }
  assert.fail(`expected ${variable} to be refused in ${JSON.stringify(env)}`);
}

describe('loadTelemetryConfig (OTEL_* variables)', () => {
  test('off without an endpoint; the defaults are the specification’s', () => {
    const config = loadConfig({}).telemetry;
    assert.equal(config.enabled, false);
    assert.equal(config.endpoint, null);
    assert.equal(config.protocol, 'http/protobuf');
    assert.equal(config.serviceName, 'storefront');
    assert.deepEqual(config.sampler, { name: 'parentbased_always_on', ratio: 1 });
    assert.equal(config.timeoutMs, 10_000);
    assert.deepEqual(config.batch, {
      scheduleDelayMs: 5000,
      exportTimeoutMs: 30_000,
      maxQueueSize: 2048,
      maxExportBatchSize: 512,
    });
  });

  test('OTEL_EXPORTER_OTLP_ENDPOINT gets /v1/traces; the traces endpoint is used as given', () => {
    assert.equal(
      loadTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).endpoint,
      'http://collector:4318/v1/traces',
    );
    assert.equal(
      loadTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example/otlp/' }).endpoint,
      'https://otel.example/otlp/v1/traces',
    );
    const specific = loadTelemetryConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/custom',
    });
    assert.equal(specific.enabled, true);
    assert.equal(specific.endpoint, 'http://traces:9999/custom');
  });

  test('disabled, or the exporter none: off even with an endpoint', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    assert.equal(loadTelemetryConfig({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).enabled, false);
    assert.equal(loadTelemetryConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).enabled, false);
    assert.equal(loadTelemetryConfig({ ...endpoint, OTEL_SDK_DISABLED: 'false' }).enabled, true);
  });

  test('protocol: http/json; grpc is refused with the reason', () => {
    assert.equal(loadTelemetryConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).protocol, 'http/json');
    assert.equal(
      loadTelemetryConfig({
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }).protocol,
      'http/protobuf',
    );
    const grpc = refusal({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL');
    assert.match(grpc.message, /no gRPC exporter/);
    refusal({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'thrift' }, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL');
  });

  test('headers: percent-decoded, traces-specific ones win, values hidden everywhere', () => {
    const config = loadTelemetryConfig({
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abc%3D%3D,x-team=shop',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=traces',
    });
    assert.deepEqual(config.headers.values(), { 'api-key': 'abc==', 'x-team': 'traces' });
    for (const shown of [JSON.stringify(config), inspect(config, { depth: 5 }), String(config.headers.names)])
      assert.ok(!shown.includes('abc'), shown);
    const bad = refusal({ OTEL_EXPORTER_OTLP_HEADERS: 'api-key=secret%zz' }, 'OTEL_EXPORTER_OTLP_HEADERS');
    assert.ok(!bad.message.includes('secret'), bad.message);
    refusal({ OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'no-equals-sign' }, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS');
  });

  test('service name and resource attributes', () => {
    const fromAttributes = loadTelemetryConfig({
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=shop-api,deployment.environment.name=prod%20eu',
    });
    assert.equal(fromAttributes.serviceName, 'shop-api');
    assert.deepEqual(fromAttributes.resourceAttributes, { 'deployment.environment.name': 'prod eu' });
    const named = loadTelemetryConfig({
      OTEL_SERVICE_NAME: 'api',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=ignored',
    });
    assert.equal(named.serviceName, 'api');
    refusal({ OTEL_RESOURCE_ATTRIBUTES: '=value' }, 'OTEL_RESOURCE_ATTRIBUTES');
  });

  test('samplers and their ratio', () => {
    assert.deepEqual(
      loadTelemetryConfig({
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      }).sampler,
      { name: 'parentbased_traceidratio', ratio: 0.25 },
    );
    assert.deepEqual(loadTelemetryConfig({ OTEL_TRACES_SAMPLER: 'traceidratio' }).sampler, {
      name: 'traceidratio',
      ratio: 1,
    });
    // The argument means nothing to the other samplers (the specification ignores it there).
    assert.deepEqual(
      loadTelemetryConfig({ OTEL_TRACES_SAMPLER: 'always_off', OTEL_TRACES_SAMPLER_ARG: 'x' }).sampler,
      { name: 'always_off', ratio: 1 },
    );
    refusal({ OTEL_TRACES_SAMPLER: 'jaeger_remote' }, 'OTEL_TRACES_SAMPLER');
    refusal(
      { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' },
      'OTEL_TRACES_SAMPLER_ARG',
    );
    refusal(
      { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 'half' },
      'OTEL_TRACES_SAMPLER_ARG',
    );
  });

  test('other invalid values name their variable', () => {
    refusal({ OTEL_SDK_DISABLED: 'maybe' }, 'OTEL_SDK_DISABLED');
    refusal({ OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER');
    // otlp named explicitly without an endpoint would silently export nowhere: refused.
    refusal({ OTEL_TRACES_EXPORTER: 'otlp' }, 'OTEL_TRACES_EXPORTER');
    refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    refusal({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://collector' }, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
    const credentials = refusal(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://user:hunter2@collector' },
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    );
    assert.ok(!credentials.message.includes('hunter2'), credentials.message);
    refusal({ OTEL_EXPORTER_OTLP_TIMEOUT: '10s' }, 'OTEL_EXPORTER_OTLP_TIMEOUT');
    refusal({ OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'zstd' }, 'OTEL_EXPORTER_OTLP_TRACES_COMPRESSION');
    refusal(
      { OTEL_BSP_MAX_QUEUE_SIZE: '10', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '20' },
      'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
    );
    // Through loadConfig too: `storefront serve` refuses to start on any of them.
    assert.throws(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), ConfigError);
  });
});
